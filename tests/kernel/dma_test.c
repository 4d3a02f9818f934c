// SPDX-License-Identifier: MIT
/*
 * dma_test.c - the swiotlb and the DMA API on the machine as booted.
 *
 * Where each policy would put the pool is checked on copies of the boot
 * allocator (swiotlb_place_what_if), against rules computed here from its
 * free memory per node; the live pool (swiotlb= of this boot) is then used
 * for real: buffers above 4 GiB bounced in each direction for a 32-bit
 * device, or refused when the pool cannot serve it (rc4 above 4 GiB,
 * node0 falling back above it from a memoryless node 0, off), concurrent
 * mapping from every CPU (each in its own area), a full pool and its
 * recovery, areas filling one after the other, a bad unmap, coherent memory.
 */
#include "dma.h"
#include "dma_debug.h"
#include "printk.h"
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

/* The highest node with room below max_addr: where 2.6.14's pgdat walk stops. */
static int highest_roomy(u64 max_addr)
{
	for (int node = (int)numa.nr_nodes - 1; node >= 0; node--)
		if (roomy(node, max_addr))
			return node;
	return -1;
}

/* Is any node between (not roomy, not without room)? Then the walk cannot be predicted. */
static bool some_node_tight(u64 max_addr)
{
	for (u32 node = 0; node < numa.nr_nodes; node++)
		if (!roomy((int)node, max_addr) && !no_room((int)node, max_addr))
			return true;
	return false;
}

/* Nearest's choice, found another way: the roomy node nearest the boot CPU's, ties by ID. */
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

/* rc4's walk (and node0's fallback): the highest node with room, bottom-up, no limit. */
static void check_pgdat_walk_no_limit(struct ktest *t, bool ok, const struct swiotlb_placement *p)
{
	int high = highest_roomy(BOOTMEM_NO_LIMIT);

	if (high < 0 || some_node_tight(BOOTMEM_NO_LIMIT))
		return;
	ASSERT_TRUE(t, ok);
	EXPECT_EQ(t, p->node, high);
	if (no_room(high, DMA32_LIMIT))
		EXPECT_GE(t, p->base, DMA32_LIMIT);     /* the 2.6.14-rc4 bug */
	if (roomy(high, DMA32_LIMIT))
		EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);   /* bottom-up finds the low part first */
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
	case SWIOTLB_RC5: {
		int high = highest_roomy(DMA32_LIMIT);
		if (no_room(NODE_ANY, DMA32_LIMIT)) {
			EXPECT_FALSE(t, ok);
		} else if (high >= 0 && !some_node_tight(DMA32_LIMIT)) {
			ASSERT_TRUE(t, ok);
			EXPECT_EQ(t, p->node, high);
			EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);
		}
		break;
	}
	case SWIOTLB_RC4:
		check_pgdat_walk_no_limit(t, ok, p);
		break;
	case SWIOTLB_NODE0:
		if (roomy(0, BOOTMEM_NO_LIMIT)) {
			ASSERT_TRUE(t, ok);
			EXPECT_EQ(t, p->node, 0);
		} else if (no_room(0, BOOTMEM_NO_LIMIT)) {
			check_pgdat_walk_no_limit(t, ok, p);    /* e.g. a memoryless node 0 */
		}
		break;
	case SWIOTLB_LOW:
	case SWIOTLB_FORCE:
		if (no_room(NODE_ANY, DMA32_LIMIT)) {
			EXPECT_FALSE(t, ok);
		} else if (roomy(NODE_ANY, DMA32_LIMIT)) {
			ASSERT_TRUE(t, ok);
			EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);
			/* Top-down: no free pool-sized room was left between it and 4 GiB. */
			EXPECT_LT(t, swiotlb_boot_free_bytes(NODE_ANY, DMA32_LIMIT) -
				     swiotlb_boot_free_bytes(NODE_ANY, p->base + p->size),
				  2 * swiotlb_size());
		}
		break;
	case SWIOTLB_NEAREST:
	case SWIOTLB_PERNODE:          /* its first pool is nearest's */
		if (no_room(NODE_ANY, DMA32_LIMIT)) {
			EXPECT_FALSE(t, ok);
		} else if (nearest_roomy_below_4g() >= 0) {
			ASSERT_TRUE(t, ok);
			EXPECT_LE(t, p->base + p->size, DMA32_LIMIT);
			EXPECT_EQ(t, p->node, nearest_roomy_below_4g());
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
	u64 bounces = dma_device_stats(&dev64).bounces;
	dma_addr_t a = dma_map_single(&dev64, buf, 512, DMA_TO_DEVICE);

	if (swiotlb_force()) {
		EXPECT_TRUE(t, is_swiotlb_buffer(a));   /* swiotlb=force bounces everything */
		EXPECT_EQ(t, dma_device_stats(&dev64).bounces, bounces + 1);
	} else {
		EXPECT_EQ(t, a, virt_to_phys(buf));
		EXPECT_EQ(t, dma_device_stats(&dev64).bounces, bounces);
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
	u64 errors = dma_device_stats(&dev32).errors;

	if (!pool_serves_dma32()) {
		/* rc4 above 4 GiB, node0 that failed, off: refused, never handed out. */
		dma_addr_t a = dma_map_single(&dev32, buf, LEN, DMA_TO_DEVICE);
		EXPECT_TRUE(t, dma_mapping_error(&dev32, a));
		EXPECT_EQ(t, dma_device_stats(&dev32).errors, errors + 1);
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
	EXPECT_EQ(t, dma_device_stats(&dev32).errors, errors);
	free_pages(pg, 0);
}

/* Every CPU maps, writes, reads back and unmaps its own pattern at once. */
#define STRESS_MAPS   800     /* in all, shared by the CPUs: with 8 busy vCPUs on 2 host cores */
#define STRESS_MIN_ROUNDS 50  /* each round costs ~2 ms under TCG (a preempted lock holder) */

#define STRESS_CPUS   64      /* CPUs that take part: a 1 KiB buffer each (not MAX_CPUS of them) */

struct stress {
	u8 buf[STRESS_CPUS][1024];
	u32 bad;
	u32 elsewhere;          /* mappings outside the mapping CPU's own area */
	u32 rounds;             /* per CPU */
};

/* The area a mapping from cpu should land in while its area has room (one pool). */
static int own_area(u32 cpu)
{
	struct swiotlb_pool_info info;

	return swiotlb_pools() == 1 && swiotlb_pool_info(0, &info) ? (int)(cpu & (info.nareas - 1)) : -1;
}

static void stress_cpu(void *arg)
{
	struct stress *s = arg;
	u32 cpu = smp_processor_id();
	u8 *mine = s->buf[cpu];

	for (u32 i = 0; i < s->rounds; i++) {
		u32 seed = cpu * 31 + i;
		pattern_fill(mine, sizeof(s->buf[0]), seed);
		u64 a = swiotlb_map(virt_to_phys(mine), sizeof(s->buf[0]), DMA_BIDIRECTIONAL);
		if (a == ~0UL) {
			__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
			continue;
		}
		if (!pattern_ok(phys_to_virt(a), sizeof(s->buf[0]), seed))
			__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
		if (own_area(cpu) >= 0 && swiotlb_area_of(a) != own_area(cpu))
			__atomic_fetch_add(&s->elsewhere, 1, __ATOMIC_RELAXED);
		pattern_fill(phys_to_virt(a), sizeof(s->buf[0]), seed + 1);
		swiotlb_unmap(a, sizeof(s->buf[0]), DMA_BIDIRECTIONAL);
		if (!pattern_ok(mine, sizeof(s->buf[0]), seed + 1))
			__atomic_fetch_add(&s->bad, 1, __ATOMIC_RELAXED);
	}
}

static void concurrent_mapping_from_every_cpu(struct ktest *t)
{
	static struct stress s;
	static struct thread *th[STRESS_CPUS];
	struct swiotlb_stats before, after;
	u32 ncpus = MIN(nr_cpus, (u32)STRESS_CPUS), started = 0;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	s.bad = s.elsewhere = 0;
	s.rounds = MAX(STRESS_MAPS / MAX(nr_cpus_online, 1u), (u32)STRESS_MIN_ROUNDS);
	swiotlb_get_stats(&before);
	for (u32 cpu = 0; cpu < ncpus; cpu++) {
		th[cpu] = percpu[cpu].online ? thread_create("dma-stress", stress_cpu, &s, cpu) : NULL;
		started += th[cpu] != NULL;
	}
	for (u32 cpu = 0; cpu < ncpus; cpu++)
		if (th[cpu])
			thread_join(th[cpu]);
	swiotlb_get_stats(&after);
	EXPECT_EQ(t, s.bad, 0);
	EXPECT_EQ(t, s.elsewhere, 0);           /* each CPU in its own area: none was ever full */
	EXPECT_EQ(t, after.maps - before.maps, (u64)s.rounds * started);
	EXPECT_EQ(t, after.unmaps - before.unmaps, (u64)s.rounds * started);
	EXPECT_EQ(t, after.used_slabs, before.used_slabs);
}

/* The bytes of every pool (pernode has several). */
static u64 pools_bytes(void)
{
	struct swiotlb_pool_info info;
	u64 bytes = 0;

	for (u32 i = 0; swiotlb_pool_info(i, &info); i++)
		bytes += info.end - info.base;
	return bytes;
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
	EXPECT_EQ(t, (u64)n * SWIOTLB_MAX_MAPPING, pools_bytes());    /* every slot, then refused */
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

/*
 * From one CPU, 256 KiB mappings until the pool refuses: they fill the
 * CPU's own area, then the next, and so on around, each area once, then a
 * refusal (counted); given back, the pool is as it was.
 */
struct area_walk {
	u64 maps[(1UL << 30) / SWIOTLB_MAX_MAPPING + 1];
	u32 n, cpu, changes, backwards, nareas;
	int first, last;
	u64 full_before, full_after;
};

static void walk_areas(void *arg)
{
	struct area_walk *w = arg;
	struct swiotlb_stats st;
	struct page *orig = alloc_pages(6, NODE_ANY, 0);

	if (!orig)
		return;
	w->cpu = smp_processor_id();
	swiotlb_get_stats(&st);
	w->full_before = st.full;
	w->first = w->last = -1;
	while (w->n < ARRAY_SIZE(w->maps)) {
		u64 a = swiotlb_map(page_to_phys(orig), SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);
		if (a == ~0UL)
			break;
		int area = swiotlb_area_of(a);
		if (w->first < 0)
			w->first = area;
		else if (area != w->last) {
			w->changes++;
			if ((u32)area != ((u32)w->last + 1) % w->nareas)
				w->backwards++;         /* not the next area after the last */
		}
		w->last = area;
		w->maps[w->n++] = a;
	}
	swiotlb_get_stats(&st);
	w->full_after = st.full;
	for (u32 i = 0; i < w->n; i++)
		swiotlb_unmap(w->maps[i], SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);
	free_pages(orig, 6);
}

static void a_full_area_moves_on_to_the_next(struct ktest *t)
{
	static struct area_walk w;
	struct swiotlb_pool_info info;
	struct swiotlb_stats st, end;

	if (swiotlb_pools() != 1 || !swiotlb_pool_info(0, &info))
		KTEST_SKIP(t, "not one pool");
	if (info.nareas < 2)
		KTEST_SKIP(t, "one area");
	w = (struct area_walk){ .nareas = info.nareas };
	swiotlb_get_stats(&st);
	struct thread *th = thread_create("area-walk", walk_areas, &w, nr_cpus - 1);
	ASSERT_TRUE(t, th != NULL);
	thread_join(th);
	swiotlb_get_stats(&end);
	ktest_log(t, "CPU %u: %u mappings, areas %d to %d, %u moves", w.cpu, w.n, w.first, w.last,
		  w.changes);
	EXPECT_EQ(t, (u64)w.n * SWIOTLB_MAX_MAPPING, info.end - info.base);
	EXPECT_EQ(t, w.first, own_area(w.cpu));
	EXPECT_EQ(t, w.changes, info.nareas - 1);       /* every area once */
	EXPECT_EQ(t, w.backwards, 0);                   /* always on to the next */
	EXPECT_EQ(t, w.full_after, w.full_before + 1);  /* all full: the refusal counted */
	EXPECT_EQ(t, end.used_slabs, st.used_slabs);
	EXPECT_EQ(t, end.maps - st.maps, w.n);
	EXPECT_EQ(t, end.unmaps - st.unmaps, w.n);
}

/* The pool nearest node by SLIT (its own first, ties by lower node ID), found another way. */
static u32 nearest_pool(u32 node)
{
	struct swiotlb_pool_info info, best_info;
	u32 best = 0;

	swiotlb_pool_info(0, &best_info);
	for (u32 i = 1; i < swiotlb_pools(); i++) {
		swiotlb_pool_info(i, &info);
		u8 d = numa.distance[node][info.node], bd = numa.distance[node][best_info.node];
		if ((u32)info.node == node || ((u32)best_info.node != node &&
		    (d < bd || (d == bd && info.node < best_info.node)))) {
			best = i;
			best_info = info;
		}
	}
	return best;
}

/* swiotlb=pernode: a device maps from its node's pool, or the nearest one. */
static void pernode_maps_from_the_devices_node(struct ktest *t)
{
	struct swiotlb_stats st, end;
	bool full;

	if (swiotlb_pools() < 2)
		KTEST_SKIP(t, "one pool (swiotlb=pernode with two nodes below 4 GiB has more)");
	u8 *buf = kmalloc(512, 0);
	ASSERT_TRUE(t, buf != NULL);
	swiotlb_get_stats(&st);
	for (u32 node = 0; node < numa.nr_nodes; node++) {
		struct swiotlb_pool_info info;
		u32 want = nearest_pool(node);
		u64 a = swiotlb_map_for(virt_to_phys(buf), 512, DMA_TO_DEVICE, (int)node,
					DMA_BIT_MASK(32), &full);
		ASSERT_NE(t, a, ~0UL);
		swiotlb_pool_info(want, &info);
		ktest_log(t, "node %u: mapped at 0x%llx, pool %u on node %d", node, a, want, info.node);
		EXPECT_TRUE(t, a >= info.base && a < info.end);
		EXPECT_TRUE(t, swiotlb_unmap(a, 512, DMA_TO_DEVICE));
	}
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, end.used_slabs, st.used_slabs);
	kfree(buf);
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

/* --- hardening: what a careless driver or device must not get away with ---------- */

static u64 pool_maps[(1UL << 30) / SWIOTLB_MAX_MAPPING + 1];

/* Map the whole pool, each slot filled with pattern seed; returns how many mappings. */
static u32 fill_pool(u64 pa, u32 seed)
{
	u32 n = 0;

	pattern_fill(phys_to_virt(pa), SWIOTLB_MAX_MAPPING, seed);
	while (n < ARRAY_SIZE(pool_maps) &&
	       (pool_maps[n] = swiotlb_map(pa, SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE)) != SWIOTLB_NO_MAPPING)
		n++;
	return n;
}

static void empty_pool(u32 n)
{
	for (u32 i = 0; i < n; i++)
		swiotlb_unmap(pool_maps[i], SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);
}

/*
 * CVE-2022-0854: a device that writes less than it was given. The caller
 * must get back its own bytes where the device wrote nothing, not what the
 * bounce slot held before: another mapping's data. Every slot is first
 * filled with that other data; swiotlb.copyin=off (2.6.14) shows the leak.
 */
static void a_short_device_write_leaks_nothing(struct ktest *t)
{
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	struct page *other = alloc_pages(6, NODE_ANY, 0), *mine = alloc_pages(0, NODE_ANY, 0);
	ASSERT_TRUE(t, other && mine);
	u8 *buf = page_address(mine);
	empty_pool(fill_pool(page_to_phys(other), 77));         /* every slot now holds seed 77 */
	pattern_fill(buf, LEN, 1);
	u64 a = swiotlb_map(page_to_phys(mine), LEN, DMA_FROM_DEVICE);
	ASSERT_NE(t, a, SWIOTLB_NO_MAPPING);
	memset(phys_to_virt(a), 0xd5, 100);                     /* "the device wrote 100 bytes" */
	swiotlb_unmap(a, LEN, DMA_FROM_DEVICE);
	u64 off = (a - b) % SWIOTLB_MAX_MAPPING;       /* where in its segment the slot is */
	u32 written = 0, mine_kept = 0, leaked = 0;
	for (u32 i = 0; i < LEN; i++) {
		written += i < 100 && buf[i] == 0xd5;
		mine_kept += i >= 100 && buf[i] == pattern_byte(i, 1);
		leaked += i >= 100 && buf[i] == pattern_byte(off + i, 77);
	}
	EXPECT_EQ(t, written, 100);
	ktest_log(t, "swiotlb.copyin=%s: %u of %u unwritten bytes the caller's own, %u the slot's "
		  "old contents", swiotlb_copyin() ? "on" : "off", mine_kept, LEN - 100, leaked);
	if (swiotlb_copyin()) {
		EXPECT_EQ(t, mine_kept, LEN - 100);
	} else {
		EXPECT_GE(t, leaked, LEN - 100 - 16);   /* the 2.6.14 leak, shown (a few may agree by chance) */
	}
	free_pages(other, 6);
	free_pages(mine, 0);
}

/* An unmap or sync asking for more than was mapped copies what was mapped, no more. */
static void unmap_copies_no_more_than_was_mapped(struct ktest *t)
{
	struct swiotlb_stats st, end;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	struct page *pg = alloc_pages(1, NODE_ANY, 0);
	ASSERT_TRUE(t, pg != NULL);
	u8 *buf = page_address(pg);
	pattern_fill(buf, 8192, 3);
	swiotlb_get_stats(&st);
	u64 a = swiotlb_map(page_to_phys(pg), LEN, DMA_FROM_DEVICE);
	ASSERT_NE(t, a, SWIOTLB_NO_MAPPING);
	memset(phys_to_virt(a), 0xee, 4096);    /* the device writes its slots, and past them */
	swiotlb_sync_for_cpu(a, 4096, DMA_FROM_DEVICE);
	swiotlb_unmap(a, 4096, DMA_FROM_DEVICE);
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, buf[LEN - 1], 0xee);
	u32 overrun = 0;
	for (u32 i = LEN; i < 8192; i++)
		overrun += buf[i] != pattern_byte(i, 3);
	EXPECT_EQ(t, overrun, 0);
	EXPECT_EQ(t, end.overflows, st.overflows + 2);  /* the sync and the unmap, each said */
	free_pages(pg, 1);
}

/* A mapping larger than a bounce buffer can be is "too large", not "full". */
static void too_large_is_not_full(struct ktest *t)
{
	struct swiotlb_stats st, end;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	struct page *pg = alloc_pages(7, NODE_ANY, 0);          /* 512 KiB */
	ASSERT_TRUE(t, pg != NULL);
	swiotlb_get_stats(&st);
	EXPECT_EQ(t, swiotlb_map(page_to_phys(pg), SWIOTLB_MAX_MAPPING + 1, DMA_TO_DEVICE),
		  SWIOTLB_NO_MAPPING);
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, end.too_large, st.too_large + 1);
	EXPECT_EQ(t, end.full, st.full);
	EXPECT_EQ(t, dma_max_mapping_size(&dev32), SWIOTLB_MAX_MAPPING);
	EXPECT_EQ(t, dma_max_mapping_size(&dev64), swiotlb_force() ? SWIOTLB_MAX_MAPPING : ~0ULL);
	free_pages(pg, 7);
}

/* A full pool makes a mapper wait for room (back-pressure), not fail. */
struct room_maker {
	u64 addr;
};

static void make_room_later(void *arg)
{
	struct room_maker *m = arg;

	msleep(20);
	swiotlb_unmap(m->addr, SWIOTLB_MAX_MAPPING, DMA_TO_DEVICE);
}

static void a_full_pool_makes_mappers_wait(struct ktest *t)
{
	static struct room_maker maker;

	if (!pool_serves_dma32())
		KTEST_SKIP(t, "no bounce pool below 4 GiB");
	struct page *src = alloc_pages(6, NODE_ANY, 0), *high = alloc_pages(0, NODE_ANY, ALLOC_HIGH);
	if (!high) {
		if (src)
			free_pages(src, 6);
		KTEST_SKIP(t, "no free memory above 4 GiB");
	}
	ASSERT_TRUE(t, src != NULL);
	u32 n = fill_pool(page_to_phys(src), 5);
	ASSERT_GT(t, n, 0);
	u64 waits = dma_device_stats(&dev32).waits;
	maker.addr = pool_maps[--n];            /* the one the thread gives back */
	struct thread *th = thread_create("room", make_room_later, &maker, SCHED_ANY_CPU);
	ASSERT_TRUE(t, th != NULL);
	dma_addr_t a = dma_map_single_wait(&dev32, page_address(high), 4096, DMA_TO_DEVICE,
					   5000UL * 1000 * 1000);
	thread_join(th);
	EXPECT_FALSE(t, dma_mapping_error(&dev32, a));
	EXPECT_GT(t, dma_device_stats(&dev32).waits, waits);
	if (!dma_mapping_error(&dev32, a))
		dma_unmap_single(&dev32, a, 4096, DMA_TO_DEVICE);
	empty_pool(n);
	free_pages(src, 6);
	free_pages(high, 0);
}

/*
 * Two CPUs unmapping one mapping at once: exactly one of them does it. The
 * mapping is 64 KiB read from the device, so the winner copies out for a
 * while: long enough for the other to look the mapping up unless the first
 * claimed it.
 */
#define RACE_ROUNDS 250
#define RACE_BYTES (64 * 1024)
struct racing_unmap {
	volatile u64 addr;
	volatile u32 round, ready;
	u32 won[2];
	u32 coordinator;        /* the CPU of the test's thread, which starts each round */
};

static void unmap_racer(void *arg)
{
	struct racing_unmap *r = arg;
	u32 me = __atomic_fetch_add(&r->ready, 1, __ATOMIC_ACQ_REL) % 2;

	for (u32 round = 1; round <= RACE_ROUNDS; round++) {
		while (r->round < round) {
			if (smp_processor_id() == r->coordinator)
				yield();        /* let the test's thread start the round */
			else
				cpu_relax();    /* spin: the unmaps must race */
		}
		if (swiotlb_unmap(r->addr, RACE_BYTES, DMA_FROM_DEVICE))
			r->won[me]++;
		__atomic_fetch_add(&r->ready, 1, __ATOMIC_ACQ_REL);
	}
}

static void a_double_unmap_race_frees_once(struct ktest *t)
{
	static struct racing_unmap r;
	struct swiotlb_stats st, end;
	u64 b, e;
	int node;

	if (!swiotlb_pool_range(&b, &e, &node))
		KTEST_SKIP(t, "no pool");
	if (nr_cpus_online < 2)
		KTEST_SKIP(t, "one CPU");
	struct page *pg = alloc_pages(4, NODE_ANY, 0);
	ASSERT_TRUE(t, pg != NULL);
	r = (struct racing_unmap){ .coordinator = smp_processor_id() };
	swiotlb_get_stats(&st);
	struct thread *one = thread_create("unmap-a", unmap_racer, &r, nr_cpus - 1);
	struct thread *two = thread_create("unmap-b", unmap_racer, &r, nr_cpus - 2);
	ASSERT_TRUE(t, one && two);
	for (u32 round = 1; round <= RACE_ROUNDS; round++) {
		while (r.ready < 2 * round)
			yield();        /* a racer may share this CPU: not a whole slice each round */
		r.addr = swiotlb_map(page_to_phys(pg), RACE_BYTES, DMA_FROM_DEVICE);
		__atomic_store_n(&r.round, round, __ATOMIC_RELEASE);
	}
	thread_join(one);
	thread_join(two);
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, r.won[0] + r.won[1], RACE_ROUNDS); /* one unmap per mapping, never two */
	EXPECT_EQ(t, end.unmaps - st.unmaps, RACE_ROUNDS);
	EXPECT_EQ(t, end.bad_unmaps - st.bad_unmaps, RACE_ROUNDS);
	EXPECT_EQ(t, end.used_slabs, st.used_slabs);
	free_pages(pg, 4);
}

/* --- dma.debug=on: the DMA API checks its callers ----------------------------------- */

#define NEED_DMA_DEBUG(t)                                                       \
	if (!dma_debug_enabled())                                               \
		KTEST_SKIP(t, "dma.debug=off in this boot (the dma-debug boot has it on)")

/* Did the log's last lines say needle? */
static bool said(const char *needle)
{
	static char tail[4096];

	printk_log_tail(tail, sizeof(tail));
	return strstr(tail, needle) != NULL;
}

static void debug_refuses_a_double_unmap(struct ktest *t)
{
	struct swiotlb_stats st, end;

	NEED_DMA_DEBUG(t);
	if (!pool_serves_dma32())
		KTEST_SKIP(t, "no bounce pool below 4 GiB");
	struct page *pg = alloc_pages(0, NODE_ANY, ALLOC_HIGH);        /* out of dev32's reach */
	if (!pg)
		KTEST_SKIP(t, "no free memory above 4 GiB");
	u64 errors = dma_debug_errors();
	dma_addr_t a = dma_map_single(&dev32, page_address(pg), LEN, DMA_TO_DEVICE);
	EXPECT_FALSE(t, dma_mapping_error(&dev32, a));
	dma_unmap_single(&dev32, a, LEN, DMA_TO_DEVICE);
	swiotlb_get_stats(&st);
	dma_unmap_single(&dev32, a, LEN, DMA_TO_DEVICE);        /* the bug */
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, dma_debug_errors(), errors + 1);
	EXPECT_EQ(t, end.bad_unmaps, st.bad_unmaps);   /* refused before the pool saw it */
	EXPECT_TRUE(t, said("double unmap of"));
	EXPECT_TRUE(t, said("unmapped at debug_refuses_a_double_unmap+"));
	free_pages(pg, 0);
}

static void debug_unmaps_with_the_mappings_own_size(struct ktest *t)
{
	struct swiotlb_stats st, end;

	NEED_DMA_DEBUG(t);
	if (!pool_serves_dma32())
		KTEST_SKIP(t, "no bounce pool below 4 GiB");
	struct page *pg = alloc_pages(1, NODE_ANY, ALLOC_HIGH);
	if (!pg)
		KTEST_SKIP(t, "no free memory above 4 GiB");
	u64 errors = dma_debug_errors();
	dma_addr_t a = dma_map_single(&dev32, page_address(pg), LEN, DMA_FROM_DEVICE);
	EXPECT_FALSE(t, dma_mapping_error(&dev32, a));
	swiotlb_get_stats(&st);
	dma_unmap_single(&dev32, a, 4096, DMA_TO_DEVICE);       /* wrong size, wrong direction */
	swiotlb_get_stats(&end);
	EXPECT_EQ(t, dma_debug_errors(), errors + 2);
	EXPECT_EQ(t, end.overflows, st.overflows);     /* the pool got the mapping's own size */
	EXPECT_EQ(t, end.unmaps, st.unmaps + 1);
	EXPECT_TRUE(t, said("unmap with size 4096 (not the mapping's)"));
	EXPECT_TRUE(t, said("unmap with direction TO_DEVICE (not the mapping's)"));
	free_pages(pg, 1);
}

static void debug_refuses_a_sync_past_the_end(struct ktest *t)
{
	NEED_DMA_DEBUG(t);
	u8 *buf = kmalloc(512, 0);
	ASSERT_TRUE(t, buf != NULL);
	u64 errors = dma_debug_errors();
	dma_addr_t a = dma_map_single(&dev64, buf, 512, DMA_FROM_DEVICE);
	dma_sync_single_for_cpu(&dev64, a, 1024, DMA_FROM_DEVICE);
	EXPECT_EQ(t, dma_debug_errors(), errors + 1);
	EXPECT_TRUE(t, said("sync past the end of its mapping"));
	dma_unmap_single(&dev64, a, 512, DMA_FROM_DEVICE);
	dma_unmap_single(&dev64, 0x1234000, 512, DMA_FROM_DEVICE);     /* never mapped */
	EXPECT_EQ(t, dma_debug_errors(), errors + 2);
	EXPECT_TRUE(t, said("unmap of a handle never mapped"));
	kfree(buf);
}

static void debug_names_mappings_left_behind(struct ktest *t)
{
	NEED_DMA_DEBUG(t);
	u8 *buf = kmalloc(1024, 0);
	ASSERT_TRUE(t, buf != NULL);
	struct device leaky = dev64;
	leaky.name = "test-leaky";
	dma_addr_t a = dma_map_single(&leaky, buf, 512, DMA_TO_DEVICE);
	dma_addr_t b = dma_map_single(&leaky, buf + 512, 512, DMA_FROM_DEVICE);
	EXPECT_EQ(t, dma_debug_device_done(&leaky), 2);
	EXPECT_TRUE(t, said("test-leaky: still mapped when its driver let go:"));
	dma_unmap_single(&leaky, a, 512, DMA_TO_DEVICE);
	dma_unmap_single(&leaky, b, 512, DMA_FROM_DEVICE);
	EXPECT_EQ(t, dma_debug_device_done(&leaky), 0);
	kfree(buf);
}

static const struct ktest_case dma_cases[] = {
	KTEST(every_policy_places_by_its_rule),
	KTEST(live_pool_follows_its_policy),
	KTEST(reachable_buffer_is_not_bounced),
	KTEST(high_buffer_bounces_each_way_or_is_refused),
	KTEST(concurrent_mapping_from_every_cpu),
	KTEST(full_pool_refuses_then_recovers),
	KTEST(a_full_area_moves_on_to_the_next),
	KTEST(pernode_maps_from_the_devices_node),
	KTEST(bad_unmap_is_refused),
	KTEST(coherent_memory_is_within_the_mask),
	KTEST(a_short_device_write_leaks_nothing),
	KTEST(unmap_copies_no_more_than_was_mapped),
	KTEST(too_large_is_not_full),
	KTEST(a_full_pool_makes_mappers_wait),
	KTEST(a_double_unmap_race_frees_once),
	KTEST(debug_refuses_a_double_unmap),
	KTEST(debug_unmaps_with_the_mappings_own_size),
	KTEST(debug_refuses_a_sync_past_the_end),
	KTEST(debug_names_mappings_left_behind),
	{},
};
KTEST_SUITE(dma, dma_cases);
