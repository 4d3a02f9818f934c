// SPDX-License-Identifier: MIT
/*
 * mm_test.c - the allocators on the real machine: memory asked of a node
 * comes from that node, of a zone from that zone; nothing overlaps; all of
 * it comes back. Per-CPU page lists recycle on their CPU and drain to
 * nothing; deferred init (done before the tests start) handed over every
 * free page of the boot allocator, each on its own node.
 */
#include "kstring.h"
#include "ktest.h"
#include "mm.h"
#include "numa.h"
#include "page_alloc.h"
#include "percpu.h"
#include "slab.h"
#include "smp.h"
#include "vm.h"
#include "x86.h"

static struct bootmem scratch;  /* a copy of the boot allocator to play with */

static void boot_allocations_land_on_their_node(struct ktest *t)
{
	u32 tried = 0;

	scratch = bootmem_at_handoff;
	for (u32 node = 0; node < numa.nr_nodes; node++) {
		if (bootmem_free_bytes(&scratch, (int)node, BOOTMEM_NO_LIMIT) < (4UL << 20))
			continue;
		u64 pa = bootmem_alloc(&scratch, 1UL << 20, 1UL << 20, (int)node, BOOTMEM_NO_LIMIT);
		ASSERT_NE(t, pa, 0);
		EXPECT_EQ(t, numa_node_of_addr(&numa, pa), node);
		EXPECT_EQ(t, bootmem_node_of(&scratch, pa), node);
		EXPECT_TRUE(t, IS_ALIGNED(pa, 1UL << 20));
		tried++;
	}
	EXPECT_GT(t, tried, 0);
}

static void boot_allocations_respect_the_address_limit(struct ktest *t)
{
	scratch = bootmem_at_handoff;
	for (u32 node = 0; node < numa.nr_nodes; node++) {
		if (bootmem_free_bytes(&scratch, (int)node, DMA32_LIMIT) < (4UL << 20))
			continue;
		u64 pa = bootmem_alloc(&scratch, 2UL << 20, PAGE_SIZE, (int)node, DMA32_LIMIT);
		ASSERT_NE(t, pa, 0);
		EXPECT_LE(t, pa + (2UL << 20), DMA32_LIMIT);
	}
}

static void boot_allocator_kept_the_kernel_and_low_memory(struct ktest *t)
{
	scratch = bootmem_at_handoff;
	/* Drain everything below 2 MiB + image end: none may hit the image or the first MiB. */
	u64 image_lo = (u64)__kernel_phys_start, image_hi = (u64)__kernel_end - KERNEL_VMA;
	for (int i = 0; i < 4096; i++) {
		u64 pa = bootmem_alloc(&scratch, PAGE_SIZE, PAGE_SIZE, NODE_ANY, image_hi + (64UL << 20));
		if (!pa)
			break;
		EXPECT_GE(t, pa, 0x100000);
		EXPECT_TRUE(t, pa + PAGE_SIZE <= image_lo || pa >= image_hi);
	}
	EXPECT_NE(t, ap_trampoline_phys, 0);
	EXPECT_LT(t, ap_trampoline_phys, 0x100000);
}

/* One page from each node and zone that has memory: it is where we asked. */
static void pages_come_from_the_asked_node_and_zone(struct ktest *t)
{
	u32 tried = 0;

	for (u32 node = 0; node < numa.nr_nodes; node++) {
		for (int zone = 0; zone < NR_ZONES; zone++) {
			if (!nr_managed_pages((int)node, zone))
				continue;
			unsigned flags = ALLOC_THISNODE | (zone == ZONE_DMA32 ? ALLOC_DMA32 : 0);
			struct page *p = alloc_pages(0, (int)node, flags);
			ASSERT_TRUE(t, p != NULL);
			u64 pa = page_to_phys(p);
			EXPECT_EQ(t, numa_node_of_addr(&numa, pa), node);
			if (zone == ZONE_DMA32)
				EXPECT_LT(t, pa, DMA32_LIMIT);
			else
				EXPECT_GE(t, pa, DMA32_LIMIT);
			/* Reachable through the direct map, and really RAM. */
			volatile u64 *va = page_address(p);
			*va = pa;
			EXPECT_EQ(t, *va, pa);
			EXPECT_TRUE(t, phys_to_page(pa) == p);
			free_pages(p, 0);
			tried++;
		}
	}
	EXPECT_GT(t, tried, 0);
}

static void memoryless_node_falls_back_to_the_nearest(struct ktest *t)
{
	int empty = -1;

	for (u32 node = 0; node < numa.nr_nodes; node++)
		if (numa.nodes[node].present && !nr_managed_pages((int)node, -1))
			empty = (int)node;
	if (empty < 0)
		KTEST_SKIP(t, "every node has memory here");
	EXPECT_TRUE(t, alloc_pages(0, empty, ALLOC_THISNODE) == NULL);
	struct page *p = alloc_pages(0, empty, 0);
	ASSERT_TRUE(t, p != NULL);
	int got = numa_node_of_addr(&numa, page_to_phys(p));
	/* The nearest node with memory, by the distance table. */
	for (u32 node = 0; node < numa.nr_nodes; node++)
		if (nr_managed_pages((int)node, -1))
			EXPECT_LE(t, numa.distance[empty][got], numa.distance[empty][node]);
	free_pages(p, 0);
}

struct block {
	struct page *page;
	unsigned order;
};

static struct block blocks[1500];

/* Random blocks of 1..32 pages on random nodes; each carries its own address at both ends. */
static void stress_no_overlap_and_everything_returns(struct ktest *t)
{
	u64 free_before = nr_free_pages(NODE_ANY, -1);
	u64 seed = 0x2005;
	u32 n = 0;

	for (u32 i = 0; i < ARRAY_SIZE(blocks); i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		unsigned order = (seed >> 33) % 6;
		int node = (int)((seed >> 40) % numa.nr_nodes);
		struct page *p = alloc_pages(order, node, (seed >> 50) & 1 ? ALLOC_DMA32 : 0);
		if (!p)
			continue;
		u64 *first = page_address(p);
		u64 *last = (u64 *)((u8 *)first + (PAGE_SIZE << order)) - 1;
		*first = page_to_phys(p);
		*last = ~page_to_phys(p);
		blocks[n++] = (struct block){ p, order };
		/* Now and then free a random earlier block. */
		if (n > 1 && (seed >> 20) % 3 == 0) {
			u32 k = (u32)((seed >> 8) % n);
			free_pages(blocks[k].page, blocks[k].order);
			blocks[k] = blocks[--n];
		}
	}
	u32 corrupt = 0;
	for (u32 i = 0; i < n; i++) {
		u64 *first = page_address(blocks[i].page);
		u64 *last = (u64 *)((u8 *)first + (PAGE_SIZE << blocks[i].order)) - 1;
		corrupt += *first != page_to_phys(blocks[i].page) || *last != ~page_to_phys(blocks[i].page);
		free_pages(blocks[i].page, blocks[i].order);
	}
	EXPECT_EQ(t, corrupt, 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), free_before);
	EXPECT_GT(t, n, 100);
}

static void kmalloc_gives_distinct_aligned_memory(struct ktest *t)
{
	static void *p[64];
	u64 free_before = nr_free_pages(NODE_ANY, -1);

	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		size_t size = (size_t)1 << (i % 14);    /* 1 byte .. 8 KiB */
		p[i] = kmalloc(size, 0);
		ASSERT_TRUE(t, p[i] != NULL);
		EXPECT_TRUE(t, IS_ALIGNED((u64)p[i], MIN(size, (size_t)8)));
		memset(p[i], (int)i, size);
	}
	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		size_t size = (size_t)1 << (i % 14);
		EXPECT_EQ(t, ((u8 *)p[i])[size - 1], (u8)i);
		kfree(p[i]);
	}
	/* Slabs may keep a page cached; nothing more than a few per class. */
	EXPECT_LE(t, free_before - nr_free_pages(NODE_ANY, -1), 64);
}

static void poisoned_cache_catches_a_write_after_free(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("mm_test_poison", 96, 8, SLAB_POISON);
	ASSERT_TRUE(t, c != NULL);
	/* keep holds the slab, so the freed object stays in it (not in a freed page). */
	u8 *keep = kmem_cache_alloc(c, 0);
	u8 *obj = kmem_cache_alloc(c, 0);
	ASSERT_TRUE(t, keep && obj);
	kmem_cache_free(c, obj);
	obj[40] = 0x42;                 /* the bug: a write after free */
	u64 before = c->poison_errors;
	void *again = kmem_cache_alloc(c, 0);
	EXPECT_TRUE(t, again == obj);   /* the last freed object is handed out first */
	EXPECT_EQ(t, c->poison_errors, before + 1);
	kmem_cache_free(c, again);
	kmem_cache_free(c, keep);
	EXPECT_TRUE(t, kmem_cache_destroy(c));
}

/* --- the slab's per-CPU magazines ---------------------------------------------------- */

#define MAG_BATCH 60    /* 2.6.14's batchcount for objects up to 256 bytes (limit 120) */

static struct kmem_cache_stats stats_of(const struct kmem_cache *c)
{
	struct kmem_cache_stats st;

	kmem_cache_get_stats(c, &st);
	return st;
}

static bool cpu_up(u32 cpu)
{
	return cpu < nr_cpus && percpu[cpu].online;
}

static void magazine_recycles_lifo_on_its_cpu(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("mm_test_lifo", 64, 0, 0);
	ASSERT_TRUE(t, c != NULL);
	u64 irq = irq_save();           /* stay on this CPU */
	void *a = kmem_cache_alloc(c, 0), *b = kmem_cache_alloc(c, 0);
	struct kmem_cache_stats st = stats_of(c);

	kmem_cache_free(c, a);
	kmem_cache_free(c, b);
	void *first = kmem_cache_alloc(c, 0), *second = kmem_cache_alloc(c, 0);
	irq_restore(irq);
	EXPECT_EQ(t, st.active, MAG_BATCH);     /* the first alloc took a batch */
	EXPECT_EQ(t, st.in_use, 2);
	EXPECT_TRUE(t, first == b);             /* the last freed, first out */
	EXPECT_TRUE(t, second == a);
	kmem_cache_free(c, first);
	kmem_cache_free(c, second);
	EXPECT_TRUE(t, kmem_cache_destroy(c));  /* drains every CPU's magazine first */
}

/*
 * A magazine refill that has to make a slab makes it with interrupts as
 * the allocation's caller had them (SLAB's cache_grow() enabled them
 * around kmem_getpages()): on here, off for a caller that had them off.
 */
static void a_new_slab_is_made_with_interrupts_as_the_caller_had_them(struct ktest *t)
{
	struct kmem_cache *c = kmem_cache_create("mm_test_grow", 64, 0, 0);
	ASSERT_TRUE(t, c != NULL);
	void *on = kmem_cache_alloc(c, 0);      /* an empty cache: a slab is made */
	struct kmem_cache_stats after_on = stats_of(c);
	u64 irq = irq_save();
	void *held[MAG_BATCH + 200];
	u32 n = 0;

	/* Past what the first slab and the magazine hold: another slab, interrupts off. */
	while (n < ARRAY_SIZE(held) && stats_of(c).slabs < after_on.slabs + 1)
		held[n++] = kmem_cache_alloc(c, 0);
	struct kmem_cache_stats after_off = stats_of(c);

	irq_restore(irq);
	while (n)
		kmem_cache_free(c, held[--n]);
	kmem_cache_free(c, on);
	EXPECT_GE(t, after_on.slabs, 1);
	EXPECT_EQ(t, after_on.grown_irqs_off, 0);
	EXPECT_GT(t, after_off.slabs, after_on.slabs);
	EXPECT_GT(t, after_off.grown_irqs_off, 0);
	EXPECT_TRUE(t, kmem_cache_destroy(c));
}

struct cross_free {
	struct kmem_cache *cache;
	void *obj, *again;
};

static void free_there(void *arg)
{
	struct cross_free *x = arg;

	kmem_cache_free(x->cache, x->obj);
}

static void alloc_there(void *arg)
{
	struct cross_free *x = arg;

	x->again = kmem_cache_alloc(x->cache, 0);
}

static void cross_cpu_free_goes_to_the_freeing_cpu(struct ktest *t)
{
	u32 here = smp_processor_id(), there = here == 0 ? 1 : 0;

	if (!cpu_up(there))
		KTEST_SKIP(t, "one CPU");
	struct cross_free x = { .cache = kmem_cache_create("mm_test_cross", 64, 0, 0) };
	ASSERT_TRUE(t, x.cache != NULL);
	x.obj = kmem_cache_alloc(x.cache, 0);
	smp_call_function(there, free_there, &x, true);
	smp_call_function(there, alloc_there, &x, true);
	EXPECT_TRUE(t, x.again == x.obj);       /* it waited in that CPU's magazine */
	smp_call_function(there, free_there, &(struct cross_free){ x.cache, x.again, NULL }, true);
	struct kmem_cache_stats st = stats_of(x.cache);
	EXPECT_EQ(t, st.in_use, 0);
	EXPECT_GT(t, st.cached, 0);
	EXPECT_TRUE(t, kmem_cache_destroy(x.cache));
}

struct churn {
	struct kmem_cache *cache;
	u32 n;
};

/* On one CPU: take n objects and give them all back (into this CPU's magazine). */
static void churn_here(void *arg)
{
	static void *obj[MAX_CPUS][200];
	struct churn *ch = arg;
	void **mine = obj[smp_processor_id()];

	for (u32 i = 0; i < ch->n; i++)
		mine[i] = kmem_cache_alloc(ch->cache, 0);
	for (u32 i = 0; i < ch->n; i++)
		kmem_cache_free(ch->cache, mine[i]);
}

static void drain_gives_back_every_object_and_page(struct ktest *t)
{
	struct churn ch = { .cache = kmem_cache_create("mm_test_drain", 200, 0, 0), .n = 200 };
	ASSERT_TRUE(t, ch.cache != NULL);
	slab_drain_all();
	u64 free_before = nr_free_pages(NODE_ANY, -1);

	smp_call_function_all(churn_here, &ch, true);
	struct kmem_cache_stats st = stats_of(ch.cache);
	EXPECT_EQ(t, st.in_use, 0);
	EXPECT_EQ(t, st.allocs, (u64)ch.n * nr_cpus_online);
	EXPECT_EQ(t, st.frees, (u64)ch.n * nr_cpus_online);
	EXPECT_GT(t, st.cached, 0);             /* a magazine's worth on each CPU */
	EXPECT_EQ(t, st.active, st.cached);
	EXPECT_GT(t, st.slabs, 0);
	slab_drain_all();
	st = stats_of(ch.cache);
	EXPECT_EQ(t, st.cached, 0);
	EXPECT_EQ(t, st.active, 0);
	EXPECT_EQ(t, st.slabs, 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), free_before);
	EXPECT_TRUE(t, kmem_cache_destroy(ch.cache));
}

/*
 * A bulk free of more objects than the magazine and the shared array hold
 * (an RCU pass's closed files): all of them free at once, the slabs they
 * empty back with the page allocator, the rest after a drain.
 */
static void bulk_free_gives_back_every_object_and_page(struct ktest *t)
{
	enum { N = 2000 };
	static void *obj[N];
	struct kmem_cache *c = kmem_cache_create("mm_test_bulk", 64, 0, 0);

	ASSERT_TRUE(t, c != NULL);
	slab_drain_all();
	u64 free_before = nr_free_pages(NODE_ANY, -1);

	for (u32 i = 0; i < N; i++) {
		obj[i] = kmem_cache_alloc(c, 0);
		ASSERT_TRUE(t, obj[i] != NULL);
	}
	u64 slabs = stats_of(c).slabs;

	kmem_cache_free_bulk(c, N, obj);
	struct kmem_cache_stats st = stats_of(c);
	EXPECT_EQ(t, st.in_use, 0);
	EXPECT_EQ(t, st.frees, N);
	EXPECT_EQ(t, st.active, st.cached);
	EXPECT_LT(t, st.slabs, slabs);          /* emptied slabs went back at once */
	slab_drain_all();
	st = stats_of(c);
	EXPECT_EQ(t, st.active, 0);
	EXPECT_EQ(t, st.slabs, 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), free_before);
	EXPECT_TRUE(t, kmem_cache_destroy(c));
}

/*
 * An empty magazine's refill takes each partial slab's free objects as one
 * run (kernel/slab.c's take_objects()): three full slabs of 64 that got 10,
 * 20 and 40 objects back give a batch of 60 as 10, 20 and 30, the first two
 * go to the full list, the third stays partial, and no slab is made.
 */
static void refill_takes_each_slabs_free_objects_as_one_run(struct ktest *t)
{
	enum { PER_SLAB = 64, BATCH = 60, N = 4 * BATCH };
	static const u32 given_back[3] = { 10, 20, 40 }, taken[3] = { 10, 20, 30 };
	static void *obj[N], *got[BATCH];
	struct page *slab[3] = { 0 };
	u32 back = 0, per_slab[3] = { 0 };
	struct kmem_cache *c = kmem_cache_create("mm_test_runs", 64, 0, 0);

	ASSERT_TRUE(t, c != NULL);
	ASSERT_EQ(t, c->objs_per_slab, PER_SLAB);
	if (!c->nr_magazines)
		KTEST_SKIP(t, "no magazines");
	for (u32 i = 0; i < N; i++)             /* four batches: three full slabs and 48 */
		ASSERT_TRUE(t, (obj[i] = kmem_cache_alloc(c, 0)) != NULL);
	for (u32 i = 0, n = 0; i < N; i++) {
		struct page *s = phys_to_page(virt_to_phys(obj[i]));

		if (s->inuse < PER_SLAB) {      /* the fourth slab's go back, and it with them */
			kmem_cache_free(c, obj[i]);
			obj[i] = NULL;
		} else if (s != slab[0] && s != slab[1] && s != slab[2]) {
			ASSERT_LT(t, n, 3);
			slab[n++] = s;
		}
	}
	kmem_cache_drain(c);
	ASSERT_EQ(t, stats_of(c).slabs, 3);
	for (u32 k = 3; k-- > 0; ) {            /* the partial list becomes 0, 1, 2 */
		for (u32 i = 0, n = 0; i < N && n < given_back[k]; i++) {
			if (obj[i] && phys_to_page(virt_to_phys(obj[i])) == slab[k]) {
				kmem_cache_free(c, obj[i]);
				obj[i] = NULL;
				n++;
				back++;
			}
		}
	}
	kmem_cache_drain(c);
	ASSERT_EQ(t, stats_of(c).active, 3 * PER_SLAB - back);
	for (u32 i = 0; i < BATCH; i++)
		got[i] = kmem_cache_alloc(c, 0);        /* one refill, then the magazine */
	struct kmem_cache_stats st = stats_of(c);
	EXPECT_EQ(t, st.active, 3 * PER_SLAB - back + BATCH);
	EXPECT_EQ(t, st.in_use, st.active);
	EXPECT_EQ(t, st.slabs, 3);
	for (u32 k = 0; k < 3; k++)
		EXPECT_EQ(t, slab[k]->inuse, PER_SLAB - given_back[k] + taken[k]);
	EXPECT_TRUE(t, slab[0]->freelist == NULL && slab[1]->freelist == NULL);
	EXPECT_TRUE(t, c->partial.next == &slab[2]->list && slab[2]->list.next == &c->partial);
	for (u32 i = 0; i < BATCH; i++)
		for (u32 k = 0; k < 3; k++)
			per_slab[k] += phys_to_page(virt_to_phys(got[i])) == slab[k];
	for (u32 k = 0; k < 3; k++)
		EXPECT_EQ(t, per_slab[k], taken[k]);
	kmem_cache_free_bulk(c, BATCH, got);
	kmem_cache_free_bulk(c, N, obj);        /* the NULLs skipped */
	kmem_cache_drain(c);
	EXPECT_EQ(t, stats_of(c).slabs, 0);
	EXPECT_TRUE(t, kmem_cache_destroy(c));
}

/* A single page freed on this CPU is the next one this CPU gets, without the zone. */
static void pcp_recycles_on_its_cpu(struct ktest *t)
{
	u64 irq = irq_save();   /* stay on this CPU */
	struct page *p = alloc_pages(0, NODE_ANY, 0), *again;
	struct per_cpu_pages *pcp = p ? page_alloc_pcp(smp_processor_id(), p->node, p->zone) : NULL;
	u32 count = 0;

	if (p) {
		free_pages(p, 0);
		count = pcp ? pcp->count : 0;
	}
	again = alloc_pages(0, NODE_ANY, 0);
	free_pages(again, 0);
	irq_restore(irq);
	ASSERT_NE(t, p, NULL);
	ASSERT_NE(t, pcp, NULL);
	EXPECT_EQ(t, again, p);
	EXPECT_GT(t, count, 0);
	EXPECT_LT(t, count, pcp->high);
}

/* Every CPU takes and gives back pages, which stay on its lists; a drain of all empties them. */
static void fill_this_cpu(void *arg)
{
	struct page *p[40];

	for (u32 i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = alloc_pages(0, (int)raw_this_cpu()->node, 0);
	for (u32 i = 0; i < ARRAY_SIZE(p); i++)
		free_pages(p[i], 0);
}

static void pcp_drain_on_every_cpu_returns_all(struct ktest *t)
{
	u64 free_before = nr_free_pages(NODE_ANY, -1);

	smp_call_function_all(fill_this_cpu, NULL, true);
	EXPECT_GT(t, nr_pcp_pages(NODE_ANY, -1), 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), free_before);
	mm_drain_pcp_all();
	EXPECT_EQ(t, nr_pcp_pages(NODE_ANY, -1), 0);
	for (u32 node = 0; node < numa.nr_nodes; node++)
		for (int zone = 0; zone < NR_ZONES; zone++)
			EXPECT_EQ(t, node_mem[node].zones[zone].free_pages,
				  nr_free_pages((int)node, zone));
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), free_before);
}

/* After the pgdatinit threads: as many pages managed as the boot allocator had free, per node. */
static void deferred_init_handed_over_every_free_page(struct ktest *t)
{
	EXPECT_FALSE(t, page_alloc_deferred_pending(NODE_ANY));
	for (u32 node = 0; node < numa.nr_nodes; node++) {
		u64 managed = nr_managed_pages((int)node, -1), want = page_alloc_free_range_pages(node);

		if (managed != want)
			ktest_fail(t, __FILE__, __LINE__, "node %u: %llu pages managed, %llu were free",
				   node, managed, want);
		for (int zone = 0; zone < NR_ZONES; zone++)
			EXPECT_EQ(t, node_mem[node].zones[zone].deferred_pages, 0);
	}
}

/* Struct pages across every zone (initialised late or early) name the node the SRAT gives. */
static void every_struct_page_names_its_node(struct ktest *t)
{
	u32 looked = 0, wrong = 0;

	for (u32 node = 0; node < numa.nr_nodes; node++) {
		for (int zone = 0; zone < NR_ZONES; zone++) {
			const struct zone *z = &node_mem[node].zones[zone];

			for (u64 pfn = z->start_pfn; pfn < z->end_pfn; pfn += 997) {
				struct page *p = phys_to_page(pfn << PAGE_SHIFT);

				if (!p)
					continue;
				looked++;
				if (p->node != numa_node_of_addr(&numa, pfn << PAGE_SHIFT) || p->zone != zone)
					wrong++;
			}
		}
	}
	EXPECT_GT(t, looked, 100);
	EXPECT_EQ(t, wrong, 0);
}

static const struct ktest_case mm_cases[] = {
	KTEST(boot_allocations_land_on_their_node),
	KTEST(boot_allocations_respect_the_address_limit),
	KTEST(boot_allocator_kept_the_kernel_and_low_memory),
	KTEST(pages_come_from_the_asked_node_and_zone),
	KTEST(memoryless_node_falls_back_to_the_nearest),
	KTEST(stress_no_overlap_and_everything_returns),
	KTEST(kmalloc_gives_distinct_aligned_memory),
	KTEST(poisoned_cache_catches_a_write_after_free),
	KTEST(magazine_recycles_lifo_on_its_cpu),
	KTEST(a_new_slab_is_made_with_interrupts_as_the_caller_had_them),
	KTEST(cross_cpu_free_goes_to_the_freeing_cpu),
	KTEST(drain_gives_back_every_object_and_page),
	KTEST(bulk_free_gives_back_every_object_and_page),
	KTEST(refill_takes_each_slabs_free_objects_as_one_run),
	KTEST(pcp_recycles_on_its_cpu),
	KTEST(pcp_drain_on_every_cpu_returns_all),
	KTEST(deferred_init_handed_over_every_free_page),
	KTEST(every_struct_page_names_its_node),
	{},
};
KTEST_SUITE(mm, mm_cases);
