/*
 * dma_test.c - the swiotlb and the DMA API on the machine as booted.
 *
 * Where each policy would put the pool is checked on copies of the boot
 * allocator (swiotlb_place_what_if), against rules computed here from its
 * free memory per node; the live pool (swiotlb= of this boot) is then used
 * for real: buffers above 4 GiB bounced in each direction for a 32-bit
 * device, or refused when the pool cannot serve it (rc4 above 4 GiB,
 * node0 on a memoryless node 0, off), concurrent mapping from every CPU,
 * a full pool and its recovery, a bad unmap, coherent memory.
 */
#include "dma.h"
#include "kstring.h"
#include "ktest.h"
#include "pattern.h"
#include "numa.h"
#include "page_alloc.h"
#include "percpu.h"
#include "sched.h"
#include "slab.h"
#include "swiotlb.h"
#include "vm.h"

#define GiB (1UL << 30)

/* --- placement rules, per policy, on copies of the boot allocator ---------- */

/* Plenty: twice the pool, so fragmentation cannot make the rule wrong. */
static bool roomy(int node, u64 max_addr)
{
	return swiotlb_boot_free_bytes(node, max_addr) >= 2 * swiotlb_size();
}

static bool no_room(int node, u64 max_addr)
{
	return swiotlb_boot_free_bytes(node, max_addr) < swiotlb_size();
}

/* The highest node that has memory: where rc4 goes. */
static int highest_node_with_room(void)
{
	for (int node = (int)numa.nr_nodes - 1; node >= 0; node--)
		if (roomy(node, BOOTMEM_NO_LIMIT))
			return node;
	return -1;
}

/* Scan's choice, found another way: the roomy node nearest the boot CPU's, ties by ID. */
static int nearest_roomy_below_4g(void)
{
	u32 boot = numa.cpu_node[0];
	int best = -1;

	if (roomy((int)boot, DMA32_LIMIT))
		return (int)boot;
	for (u32 node = 0; node < numa.nr_nodes; node++)
		if (roomy((int)node, DMA32_LIMIT) &&
		    (best < 0 || numa.distance[boot][node] < numa.distance[boot][best]))
			best = (int)node;
	return best;
}

/*
 * The rule of each policy, checked on a placement (ok: it succeeded). A
 * case where memory is too tight to say (between one and two pools free)
 * checks nothing.
 */
static void check_rule(struct ktest *t, enum swiotlb_policy policy, bool ok,
		       const struct swiotlb_placement *p)
{
	switch (policy) {
	case SWIOTLB_SCAN:
	case SWIOTLB_FORCE:
		if (no_room(NODE_ANY, DMA32_LIMIT)) {
			EXPECT_FALSE(t, ok);
		} else if (nearest_roomy_below_4g() >= 0) {
			ASSERT_TRUE(t, ok);
			EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);
			EXPECT_EQ(t, p->node, nearest_roomy_below_4g());
		}
		break;
	case SWIOTLB_RC4: {
		int high = highest_node_with_room();
		if (high < 0)
			break;
		ASSERT_TRUE(t, ok);
		EXPECT_EQ(t, p->node, high);
		u64 above = swiotlb_boot_free_bytes(high, BOOTMEM_NO_LIMIT) -
			    swiotlb_boot_free_bytes(high, DMA32_LIMIT);
		if (above >= 2 * swiotlb_size())
			EXPECT_GE(t, p->base, DMA32_LIMIT);     /* the 2.6.14-rc4 bug */
		if (above == 0)
			EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);
		break;
	}
	case SWIOTLB_NODE0:
		if (no_room(0, DMA32_LIMIT)) {
			EXPECT_FALSE(t, ok);            /* e.g. a memoryless node 0 */
		} else if (roomy(0, DMA32_LIMIT)) {
			ASSERT_TRUE(t, ok);
			EXPECT_EQ(t, p->node, 0);
			EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);
		}
		break;
	case SWIOTLB_OFF:
		EXPECT_FALSE(t, ok);
		break;
	case SWIOTLB_NR_POLICIES:
		break;
	}
}

/* What every policy would have done here, each on a copy of the boot allocator. */
static void every_policy_places_by_its_rule(struct ktest *t)
{
	for (enum swiotlb_policy policy = 0; policy < SWIOTLB_NR_POLICIES; policy++) {
		struct swiotlb_placement p;
		bool ok = swiotlb_place_what_if(policy, swiotlb_size(), &p);

		ktest_log(t, "%s: %s at 0x%llx node %d%s%s", swiotlb_policy_name(policy),
			  ok ? "placed" : "failed", p.base, p.node,
			  p.failed ? ": " : "", p.failed ? p.failed : "");
		check_rule(t, policy, ok, &p);
	}
}

/* The pool this boot really has (swiotlb=) follows its rule too. */
static void live_pool_follows_its_policy(struct ktest *t)
{
	struct swiotlb_placement p = { .size = swiotlb_size(), .node = -1 };
	u64 end;
	bool ok = swiotlb_pool_range(&p.base, &end, &p.node);

	check_rule(t, swiotlb_policy(), ok, &p);
}

/* --- the live pool ------------------------------------------------------------ */

static struct device dev32 = { .name = "test-dma32", .dma_mask = DMA_BIT_MASK(32),
			       .coherent_dma_mask = DMA_BIT_MASK(32), .node = NODE_ANY };
static struct device dev64 = { .name = "test-dma64", .dma_mask = DMA_BIT_MASK(64),
			       .coherent_dma_mask = DMA_BIT_MASK(64), .node = NODE_ANY };

/* Can the live pool serve a 32-bit device? */
static bool pool_serves_dma32(void)
{
	u64 base, end;
	int node;

	return swiotlb_pool_range(&base, &end, &node) && end <= DMA32_LIMIT;
}

static void reachable_buffer_is_not_bounced(struct ktest *t)
{
	u8 *buf = kmalloc(512, 0);
	ASSERT_TRUE(t, buf != NULL);
	u64 bounces = dev64.stats.bounces;
	dma_addr_t a = dma_map_single(&dev64, buf, 512, DMA_TO_DEVICE);

	if (swiotlb_force()) {
		EXPECT_TRUE(t, is_swiotlb_buffer(a));   /* swiotlb=force bounces everything */
		EXPECT_EQ(t, dev64.stats.bounces, bounces + 1);
	} else {
		EXPECT_EQ(t, a, virt_to_phys(buf));
		EXPECT_EQ(t, dev64.stats.bounces, bounces);
	}
	dma_unmap_single(&dev64, a, 512, DMA_TO_DEVICE);
	kfree(buf);
}

#define LEN 3000        /* two slabs, not page aligned */

static void high_buffer_bounces_each_way_or_is_refused(struct ktest *t)
{
	struct page *pg = alloc_pages(0, NODE_ANY, ALLOC_HIGH);

	if (!pg)
		KTEST_SKIP(t, "no free memory above 4 GiB");
	u8 *buf = page_address(pg);
	u64 errors = dev32.stats.errors;

	if (!pool_serves_dma32()) {
		/* rc4 above 4 GiB, node0 that failed, off: refused, never handed out. */
		dma_addr_t a = dma_map_single(&dev32, buf, LEN, DMA_TO_DEVICE);
		EXPECT_TRUE(t, dma_mapping_error(&dev32, a));
		EXPECT_EQ(t, dev32.stats.errors, errors + 1);
		/* The test option hands out the unreachable bounce buffer anyway (rc4). */
		u64 base, end;
		int node;
		if (swiotlb_pool_range(&base, &end, &node)) {
			struct device reckless = dev32;
			reckless.name = "test-dma32-unreachable";
			reckless.dma_map_unreachable = true;
			pattern_fill(buf, LEN, 9);
			a = dma_map_single(&reckless, buf, LEN, DMA_TO_DEVICE);
			ASSERT_FALSE(t, dma_mapping_error(&reckless, a));
			EXPECT_GT(t, a + LEN - 1, reckless.dma_mask);   /* what the device cannot reach */
			EXPECT_TRUE(t, pattern_ok(phys_to_virt(a), LEN, 9));
			dma_unmap_single(&reckless, a, LEN, DMA_TO_DEVICE);
		}
		free_pages(pg, 0);
		return;
	}
	/* To the device: the data is in the bounce buffer, below 4 GiB. */
	pattern_fill(buf, LEN, 1);
	dma_addr_t a = dma_map_single(&dev32, buf, LEN, DMA_TO_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(&dev32, a));
	EXPECT_TRUE(t, is_swiotlb_buffer(a));
	EXPECT_LE(t, a + LEN, DMA32_LIMIT);
	EXPECT_TRUE(t, pattern_ok(phys_to_virt(a), LEN, 1));
	pattern_fill(phys_to_virt(a), LEN, 6);  /* a device writing a TO_DEVICE buffer... */
	dma_unmap_single(&dev32, a, LEN, DMA_TO_DEVICE);
	EXPECT_TRUE(t, pattern_ok(buf, LEN, 1));        /* ...sends nothing back */

	/* From the device: the CPU sees its writes at sync and at unmap, not before. */
	a = dma_map_single(&dev32, buf, LEN, DMA_FROM_DEVICE);
	ASSERT_FALSE(t, dma_mapping_error(&dev32, a));
	pattern_fill(phys_to_virt(a), LEN, 2);                  /* "the device writes" */
	EXPECT_TRUE(t, pattern_ok(buf, LEN, 1));
	dma_sync_single_for_cpu(&dev32, a, LEN, DMA_FROM_DEVICE);
	EXPECT_TRUE(t, pattern_ok(buf, LEN, 2));
	pattern_fill(phys_to_virt(a), LEN, 3);
	dma_unmap_single(&dev32, a, LEN, DMA_FROM_DEVICE);
	EXPECT_TRUE(t, pattern_ok(buf, LEN, 3));

	/* Both ways, with a sync for the device in between. */
	a = dma_map_single(&dev32, buf, LEN, DMA_BIDIRECTIONAL);
	ASSERT_FALSE(t, dma_mapping_error(&dev32, a));
	EXPECT_TRUE(t, pattern_ok(phys_to_virt(a), LEN, 3));
	pattern_fill(buf, LEN, 4);
	dma_sync_single_for_device(&dev32, a, LEN, DMA_BIDIRECTIONAL);
	EXPECT_TRUE(t, pattern_ok(phys_to_virt(a), LEN, 4));
	pattern_fill(phys_to_virt(a), LEN, 5);
	dma_unmap_single(&dev32, a, LEN, DMA_BIDIRECTIONAL);
	EXPECT_TRUE(t, pattern_ok(buf, LEN, 5));
	EXPECT_EQ(t, dev32.stats.errors, errors);
	free_pages(pg, 0);
}

/* Every CPU maps, writes, reads back and unmaps its own pattern at once. */
#define STRESS_ROUNDS 200     /* per CPU; with 8 busy vCPUs on 2 host cores each costs ~2 ms */

struct stress {
	u8 buf[MAX_CPUS][1024];
	u32 bad;
};

static void stress_cpu(void *arg)
{
	struct stress *s = arg;
	u32 cpu = smp_processor_id();
	u8 *mine = s->buf[cpu];

	for (u32 i = 0; i < STRESS_ROUNDS; i++) {
		u32 seed = cpu * 31 + i;
		pattern_fill(mine, sizeof(s->buf[0]), seed);
		u64 a = swiotlb_map(virt_to_phys(mine), sizeof(s->buf[0]), DMA_BIDIRECTIONAL);
		if (a == ~0UL) {
			__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (!pattern_ok(phys_to_virt(a), sizeof(s->buf[0]), seed))
			__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
		pattern_fill(phys_to_virt(a), sizeof(s->buf[0]), seed + 1);
		swiotlb_unmap(a, sizeof(s->buf[0]), DMA_BIDIRECTIONAL);
		if (!pattern_ok(mine, sizeof(s->buf[0]), seed + 1))
			__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
	}
}

static void concurrent_mapping_from_every_cpu(struct ktest *t)
{
	static struct stress s;
	static struct thread *th[MAX_CPUS];
	struct swiotlb_stats before, after;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	s.bad = 0;
	swiotlb_get_stats(&before);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		th[cpu] = percpu[cpu].online ? thread_create("dma-stress", stress_cpu, &s, cpu) : NULL;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (th[cpu])
			thread_join(th[cpu]);
	swiotlb_get_stats(&after);
	EXPECT_EQ(t, s.bad, 0);
	EXPECT_EQ(t, after.maps - before.maps, (u64)STRESS_ROUNDS * nr_cpus_online);
	EXPECT_EQ(t, after.unmaps - before.unmaps, (u64)STRESS_ROUNDS * nr_cpus_online);
	EXPECT_EQ(t, after.used_slabs, before.used_slabs);
}

static void full_pool_refuses_then_recovers(struct ktest *t)
{
	static u64 maps[(1UL << 30) / SWIOTLB_MAX_MAPPING + 1];
	struct swiotlb_stats st, end;
	u32 n = 0;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	struct page *orig = alloc_pages(6, NODE_ANY, 0);        /* 256 KiB to copy back into */
	ASSERT_TRUE(t, orig != NULL);
	u64 pa = page_to_phys(orig);
	swiotlb_get_stats(&st);
	while (n < ARRAY_SIZE(maps) &&
	       (maps[n] = swiotlb_map(pa, SWIOTLB_MAX_MAPPING, DMA_FROM_DEVICE)) != ~0UL)
		n++;
	EXPECT_EQ(t, (u64)n * SWIOTLB_MAX_MAPPING, e - b);     /* every slot, then refused */
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, end.full, st.full + 1);
	EXPECT_EQ(t, end.used_slabs, end.slabs);
	EXPECT_EQ(t, swiotlb_map(pa, 64, DMA_FROM_DEVICE), ~0UL);
	for (u32 i = 0; i < n; i++)
		swiotlb_unmap(maps[i], SWIOTLB_MAX_MAPPING, DMA_FROM_DEVICE);
	u64 a = swiotlb_map(pa, SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);      /* recovered */
	EXPECT_NE(t, a, ~0UL);
	if (a != ~0UL)
		swiotlb_unmap(a, SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, end.used_slabs, st.used_slabs);
	free_pages(orig, 6);
}

static void bad_unmap_is_refused(struct ktest *t)
{
	struct swiotlb_stats st, end;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	swiotlb_get_stats(&st);
	swiotlb_unmap(b + 5 * SWIOTLB_SLAB_SIZE, 64, DMA_FROM_DEVICE);    /* no mapping there */
	swiotlb_unmap(b + 1, 64, DMA_FROM_DEVICE);                        /* not a slab start */
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, end.bad_unmaps, st.bad_unmaps + 2);
	EXPECT_EQ(t, end.used_slabs, st.used_slabs);
}

static void coherent_memory_is_within_the_mask(struct ktest *t)
{
	dma_addr_t h;
	u8 *p = dma_alloc_coherent(&dev32, 3 * PAGE_SIZE, &h);

	ASSERT_TRUE(t, p != NULL);
	EXPECT_LE(t, h + 3 * PAGE_SIZE, DMA32_LIMIT);
	EXPECT_EQ(t, virt_to_phys(p), h);
	u32 nonzero = 0;
	for (u32 i = 0; i < 3 * PAGE_SIZE; i++)
		nonzero += p[i] != 0;
	EXPECT_EQ(t, nonzero, 0);
	dma_free_coherent(&dev32, 3 * PAGE_SIZE, p, h);
}

static const struct ktest_case dma_cases[] = {
	KTEST(every_policy_places_by_its_rule),
	KTEST(live_pool_follows_its_policy),
	KTEST(reachable_buffer_is_not_bounced),
	KTEST(high_buffer_bounces_each_way_or_is_refused),
	KTEST(concurrent_mapping_from_every_cpu),
	KTEST(full_pool_refuses_then_recovers),
	KTEST(bad_unmap_is_refused),
	KTEST(coherent_memory_is_within_the_mask),
	{},
};
KTEST_SUITE(dma, dma_cases);
