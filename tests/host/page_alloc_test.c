// SPDX-License-Identifier: MIT
/*
 * page_alloc_test.c - kernel/page_alloc.c on the host, on made-up machines
 * in the host's lazily mapped "physical memory" (tests/host/host.c): the
 * zones and counts after init, allocation of every order, splitting and
 * merging back to the very same free lists, zone and node choice
 * (ALLOC_DMA32, ALLOC_THISNODE, fallback by SLIT distance), exhaustion,
 * bad frees reported and harmless, and a random run that checks no two
 * live blocks overlap and that everything comes back; per-CPU page lists
 * (recycling, batches, drain, double free) with page_alloc_host_cpu as
 * "this CPU"; deferred init (the same zones and free lists as a full init,
 * allocations that grow the zone, pages on their own node).
 *
 * Layouts stay small (a few hundred MiB): each page of a zone's span costs
 * a struct page of real memory, and only touched pages are backed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootmem.h"
#include "ktest.h"
#include "page_alloc.h"
#include "vm.h"
#include "host.h"

#define MiB (1UL << 20)
#define GiB (1UL << 30)

#define TEST_NODES 4    /* the most nodes a layout here has */

struct range {
	u64 base, end;
	int node;
};

static const struct range two_nodes[] = {
	{ 0, 256 * MiB, 0 }, { 256 * MiB, 512 * MiB, 1 },
};
static const struct range both_zones[] = {
	{ 1 * MiB, 129 * MiB, 0 }, { 4 * GiB, 4 * GiB + 128 * MiB, 0 },
};
static const struct range small[] = {
	{ 0, 16 * MiB, 0 },
};

/* Free-list lengths of every zone, to compare before and after. */
struct lists {
	u64 nr_free[TEST_NODES][NR_ZONES][MAX_ORDER + 1];
};

static struct bootmem *bm;
static struct lists at_init, at_init_lists_scratch;

static void take_lists(struct lists *l)
{
	for (int n = 0; n < TEST_NODES; n++)
		for (int z = 0; z < NR_ZONES; z++)
			memcpy(l->nr_free[n][z], node_mem[n].zones[z].nr_free, sizeof(l->nr_free[n][z]));
}

static bool lists_as_at_init(void)
{
	struct lists now;

	take_lists(&now);
	return memcmp(&now, &at_init, sizeof(now)) == 0;
}

/* A bootmem holding these ranges (page 0 reserved, as always). */
static struct bootmem *load(const struct range *r, u32 nr)
{
	if (!bm)
		bm = calloc(1, sizeof(*bm));
	bootmem_init(bm);
	for (u32 i = 0; i < nr; i++)
		bootmem_add_memory(bm, r[i].base, r[i].end, r[i].node);
	return bm;
}

/* Boot a made-up machine: the page allocator on those ranges; a clear log. */
static void boot(const struct range *r, u32 nr, u32 nr_nodes, const u8 (*distance)[MAX_NODES])
{
	page_alloc_init(load(r, nr), nr_nodes, distance);
	take_lists(&at_init);
	host_log_clear();
}

#define BOOT(layout, nr_nodes) boot(layout, ARRAY_SIZE(layout), nr_nodes, NULL)

static struct zone *zone(int node, enum zone_type type)
{
	return &node_mem[node].zones[type];
}

/* Pages a zone's mem_map takes for a span of span pages. */
static u64 mem_map_pages(u64 span)
{
	return ALIGN_UP(span * sizeof(struct page), PAGE_SIZE) / PAGE_SIZE;
}

static u32 rng_state;

/* A fixed-seed generator (Numerical Recipes' LCG), so every run is the same. */
static u32 rnd(u32 n)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (rng_state >> 8) % n;
}

/* Allocate order-`order` blocks with these arguments until none is left; how many. */
static u32 drain(struct page **out, u32 max, unsigned order, int node, unsigned flags)
{
	u32 n = 0;
	struct page *p;

	while (n < max && (p = alloc_pages(order, node, flags)))
		out[n++] = p;
	return n;
}

static void free_all(struct page **pages, u32 n, unsigned order)
{
	for (u32 i = 0; i < n; i++)
		free_pages(pages[i], order);
}

/* --- start-up ------------------------------------------------------------------- */

static void init_managed_equals_free(struct ktest *t)
{
	BOOT(two_nodes, 2);
	EXPECT_GT(t, nr_managed_pages(NODE_ANY, -1), 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), nr_managed_pages(NODE_ANY, -1));
	EXPECT_EQ(t, nr_free_pages(1, ZONE_DMA32), nr_managed_pages(1, ZONE_DMA32));
	EXPECT_EQ(t, nr_managed_pages(0, ZONE_NORMAL), 0);
	EXPECT_STREQ(t, host_log(), "");
}

static void init_counts_exclude_mem_map_and_page0(struct ktest *t)
{
	const u64 span = 256 * MiB / PAGE_SIZE;

	BOOT(two_nodes, 2);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->start_pfn, 0);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->end_pfn, span);
	EXPECT_EQ(t, zone(1, ZONE_DMA32)->start_pfn, span);
	EXPECT_EQ(t, zone(1, ZONE_DMA32)->end_pfn, 2 * span);
	EXPECT_EQ(t, nr_managed_pages(0, -1), span - mem_map_pages(span) - 1);
	EXPECT_EQ(t, nr_managed_pages(1, -1), span - mem_map_pages(span));
	EXPECT_EQ(t, nr_managed_pages(NODE_ANY, ZONE_DMA32), 2 * span - 2 * mem_map_pages(span) - 1);
}

static void init_zones_on_both_sides_of_4g(struct ktest *t)
{
	const u64 span = 128 * MiB / PAGE_SIZE;

	BOOT(both_zones, 1);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->start_pfn, 1 * MiB / PAGE_SIZE);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->end_pfn, 129 * MiB / PAGE_SIZE);
	EXPECT_EQ(t, zone(0, ZONE_NORMAL)->start_pfn, 4 * GiB / PAGE_SIZE);
	EXPECT_EQ(t, zone(0, ZONE_NORMAL)->end_pfn, (4 * GiB + 128 * MiB) / PAGE_SIZE);
	/* Both mem_maps are taken top-down on node 0: from the NORMAL zone's top. */
	EXPECT_EQ(t, nr_managed_pages(0, ZONE_DMA32), span);
	EXPECT_EQ(t, nr_managed_pages(0, ZONE_NORMAL), span - 2 * mem_map_pages(span));
	EXPECT_EQ(t, nr_free_pages(0, -1), nr_managed_pages(0, -1));
}

/* 16 MiB: the mem_map at the top, page 0 reserved; whole 4 MiB blocks in between. */
static void init_hands_over_large_blocks(struct ktest *t)
{
	u64 blocks = 0;

	BOOT(small, 1);
	for (int k = 0; k <= MAX_ORDER; k++)
		blocks += zone(0, ZONE_DMA32)->nr_free[k];
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->nr_free[MAX_ORDER], 2);
	EXPECT_LE(t, blocks, 2 * (MAX_ORDER + 1));
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->free_pages, 4096 - mem_map_pages(4096) - 1);
}

static void init_skips_partial_pages(struct ktest *t)
{
	static const struct range ragged[] = { { 1 * MiB + 100, 2 * MiB + 5000, 0 } };

	BOOT(ragged, 1);
	/* mem_map: 258 struct pages, top-down from 2 MiB + 5000, page aligned. */
	u64 map = ALIGN_DOWN(2 * MiB + 5000 - 258 * sizeof(struct page), PAGE_SIZE);

	EXPECT_EQ(t, virt_to_phys(zone(0, ZONE_DMA32)->mem_map), map);
	EXPECT_EQ(t, nr_managed_pages(0, -1), (map - (1 * MiB + PAGE_SIZE)) / PAGE_SIZE);
	EXPECT_EQ(t, phys_to_page(1 * MiB), NULL);
	EXPECT_NE(t, phys_to_page(1 * MiB + PAGE_SIZE), NULL);
	EXPECT_NE(t, phys_to_page(map - 1), NULL);
	EXPECT_EQ(t, phys_to_page(map), NULL);
	EXPECT_EQ(t, phys_to_page(2 * MiB + PAGE_SIZE), NULL);
}

static void mem_map_lives_on_its_node(struct ktest *t)
{
	BOOT(two_nodes, 2);
	u64 map0 = virt_to_phys(zone(0, ZONE_DMA32)->mem_map);
	u64 map1 = virt_to_phys(zone(1, ZONE_DMA32)->mem_map);

	EXPECT_LT(t, map0, 256 * MiB);
	EXPECT_GE(t, map1, 256 * MiB);
	EXPECT_LT(t, map1, 512 * MiB);
	EXPECT_EQ(t, phys_to_page(map1), NULL);
	EXPECT_TRUE(t, zone(1, ZONE_DMA32)->mem_map[(map1 >> PAGE_SHIFT) -
						    zone(1, ZONE_DMA32)->start_pfn].flags & PG_RESERVED);
}

/*
 * A mem_map of 2 MiB or more starts on a 2 MiB boundary, so that the
 * struct pages boot initialises (its start) touch as few fresh 2 MiB
 * regions of a QEMU guest as they can; a smaller one is not aligned past
 * a page (top-down, it ends where memory ends).
 */
static void big_mem_map_starts_on_2mib(struct ktest *t)
{
	BOOT(two_nodes, 2);
	EXPECT_EQ(t, virt_to_phys(zone(0, ZONE_DMA32)->mem_map) % (2 * MiB), 0);
	EXPECT_EQ(t, virt_to_phys(zone(1, ZONE_DMA32)->mem_map) % (2 * MiB), 0);
	BOOT(small, 1);
	EXPECT_EQ(t, virt_to_phys(zone(0, ZONE_DMA32)->mem_map),
		  16 * MiB - mem_map_pages(zone(0, ZONE_DMA32)->end_pfn -
						   zone(0, ZONE_DMA32)->start_pfn) * PAGE_SIZE);
}

static void bootmem_is_emptied(struct ktest *t)
{
	BOOT(two_nodes, 2);
	EXPECT_EQ(t, bm->nmemory, 0);
	EXPECT_EQ(t, bootmem_alloc(bm, PAGE_SIZE, PAGE_SIZE, NODE_ANY, BOOTMEM_NO_LIMIT), 0);
}

static void memory_beyond_nr_nodes_is_unused(struct ktest *t)
{
	static const struct range stray[] = { { 0, 64 * MiB, 0 }, { 64 * MiB, 128 * MiB, 3 } };

	load(stray, 2);
	host_log_clear();
	page_alloc_init(bm, 2, NULL);
	EXPECT_TRUE(t, host_log_has("page_alloc: memory 0x4000000-0x8000000 is on node 3, "
				    "beyond 2 nodes; unused"));
	EXPECT_EQ(t, nr_managed_pages(NODE_ANY, -1), nr_managed_pages(0, -1));
	EXPECT_EQ(t, nr_managed_pages(1, -1), 0);
	EXPECT_EQ(t, phys_to_page(100 * MiB), NULL);
}

static void interleaved_nodes_resolve_owner(struct ktest *t)
{
	static const struct range mixed[] = {
		{ 0, 64 * MiB, 0 }, { 64 * MiB, 128 * MiB, 1 }, { 128 * MiB, 192 * MiB, 0 },
	};
	static struct page *got[64];
	u32 n;

	boot(mixed, 3, 2, NULL);
	ASSERT_NE(t, phys_to_page(96 * MiB), NULL);
	EXPECT_EQ(t, phys_to_page(96 * MiB)->node, 1);
	EXPECT_EQ(t, phys_to_page(160 * MiB)->node, 0);
	n = drain(got, 64, MAX_ORDER, 0, ALLOC_THISNODE);
	EXPECT_GT(t, n, 20);
	for (u32 i = 0; i < n; i++) {
		u64 pa = page_to_phys(got[i]);

		EXPECT_TRUE(t, pa + (PAGE_SIZE << MAX_ORDER) <= 64 * MiB || pa >= 128 * MiB);
	}
	free_all(got, n, MAX_ORDER);
	EXPECT_TRUE(t, lists_as_at_init());
}

/* --- fallback order -------------------------------------------------------------- */

static void fallback_default_distance(struct ktest *t)
{
	BOOT(two_nodes, 3);
	ASSERT_EQ(t, node_mem[1].nfallback, 3);
	EXPECT_EQ(t, node_mem[1].fallback[0], 1);
	EXPECT_EQ(t, node_mem[1].fallback[1], 0);
	EXPECT_EQ(t, node_mem[1].fallback[2], 2);
	EXPECT_EQ(t, node_mem[2].fallback[0], 2);
	EXPECT_EQ(t, node_mem[2].fallback[1], 0);
}

static u8 slit[MAX_NODES][MAX_NODES];

static void set_slit(const u8 rows[][4], u32 n)
{
	memset(slit, 0, sizeof(slit));
	for (u32 a = 0; a < n; a++)
		for (u32 b = 0; b < n; b++)
			slit[a][b] = rows[a][b];
}

static void fallback_follows_slit_ties_by_id(struct ktest *t)
{
	static const u8 rows[4][4] = {
		{ 10, 30, 20, 20 }, { 30, 10, 20, 40 }, { 20, 20, 10, 20 }, { 20, 40, 20, 10 },
	};

	set_slit(rows, 4);
	boot(two_nodes, ARRAY_SIZE(two_nodes), 4, slit);
	ASSERT_EQ(t, node_mem[0].nfallback, 4);
	EXPECT_EQ(t, node_mem[0].fallback[1], 2);
	EXPECT_EQ(t, node_mem[0].fallback[2], 3);
	EXPECT_EQ(t, node_mem[0].fallback[3], 1);
	EXPECT_EQ(t, node_mem[1].fallback[1], 2);
	EXPECT_EQ(t, node_mem[1].fallback[2], 0);
	EXPECT_EQ(t, node_mem[1].fallback[3], 3);
	EXPECT_EQ(t, node_mem[2].fallback[1], 0);
	EXPECT_EQ(t, node_mem[2].fallback[2], 1);
	EXPECT_EQ(t, node_mem[2].fallback[3], 3);
}

/* --- allocation and freeing -------------------------------------------------------- */

static void alloc_and_free_every_order(struct ktest *t)
{
	BOOT(two_nodes, 2);
	for (unsigned order = 0; order <= MAX_ORDER; order++) {
		struct page *p = alloc_pages(order, 0, 0);

		ASSERT_NE(t, p, NULL);
		EXPECT_EQ(t, p->flags, PG_HEAD);
		EXPECT_EQ(t, p->order, order);
		EXPECT_EQ(t, p->node, 0);
		EXPECT_TRUE(t, IS_ALIGNED(page_to_phys(p), PAGE_SIZE << order));
		EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), nr_managed_pages(NODE_ANY, -1) - (1UL << order));
		free_pages(p, order);
		EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), nr_managed_pages(NODE_ANY, -1));
		EXPECT_TRUE(t, lists_as_at_init());
	}
	EXPECT_STREQ(t, host_log(), "");
}

static void split_then_merge_restores_lists(struct ktest *t)
{
	struct page *small_blocks[2 * MAX_ORDER];
	struct lists before;
	u32 n = 0;

	BOOT(small, 1);
	/* Take every block below MAX_ORDER, so the next page must split a 4 MiB block. */
	for (unsigned k = 0; k < MAX_ORDER; k++)
		while (zone(0, ZONE_DMA32)->nr_free[k] && n < ARRAY_SIZE(small_blocks))
			small_blocks[n++] = alloc_pages(k, 0, 0);
	take_lists(&before);
	ASSERT_EQ(t, before.nr_free[0][ZONE_DMA32][MAX_ORDER], 2);

	struct page *p = alloc_pages(0, 0, 0);

	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->nr_free[MAX_ORDER], 1);
	for (unsigned k = 0; k < MAX_ORDER; k++)
		EXPECT_EQ(t, zone(0, ZONE_DMA32)->nr_free[k], 1);       /* one buddy left per order */
	free_pages(p, 0);

	struct lists after;

	take_lists(&after);
	EXPECT_EQ(t, memcmp(&before, &after, sizeof(after)), 0);
	for (u32 i = 0; i < n; i++)
		free_pages(small_blocks[i], small_blocks[i]->order);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void free_everything_merges_back(struct ktest *t)
{
	BOOT(small, 1);
	u64 managed = nr_managed_pages(0, -1);
	struct page **got = calloc(managed + 1, sizeof(*got));
	u32 n = drain(got, (u32)managed + 1, 0, 0, 0);

	EXPECT_EQ(t, n, managed);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), 0);
	rng_state = 14;
	for (u32 i = n; i > 1; i--) {   /* free in a shuffled order */
		u32 j = rnd(i);
		struct page *tmp = got[i - 1];

		got[i - 1] = got[j];
		got[j] = tmp;
	}
	free_all(got, n, 0);
	free(got);
	EXPECT_EQ(t, nr_free_pages(0, -1), managed);
	EXPECT_TRUE(t, lists_as_at_init());
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->nr_free[MAX_ORDER], 2);
}

static void exhaustion_returns_null(struct ktest *t)
{
	static struct page *got[8192];

	BOOT(small, 1);
	u32 n = drain(got, ARRAY_SIZE(got), 0, NODE_ANY, 0);

	EXPECT_EQ(t, n, nr_managed_pages(0, -1));
	EXPECT_EQ(t, alloc_pages(0, NODE_ANY, 0), NULL);
	EXPECT_EQ(t, alloc_pages(0, 0, ALLOC_DMA32), NULL);
	EXPECT_STREQ(t, host_log(), "");
	free_all(got, n, 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void bad_requests_return_null(struct ktest *t)
{
	BOOT(small, 1);
	EXPECT_EQ(t, alloc_pages(MAX_ORDER + 1, 0, 0), NULL);
	EXPECT_EQ(t, alloc_pages(0, 1, 0), NULL);
	EXPECT_EQ(t, alloc_pages(0, -2, 0), NULL);
	EXPECT_EQ(t, host_log_count("page_alloc: bad request"), 3);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void alloc_zero_clears_memory(struct ktest *t)
{
	static struct page *got[8192];

	BOOT(small, 1);
	u32 n = drain(got, ARRAY_SIZE(got), 0, 0, 0);

	for (u32 i = 0; i < n; i++)
		memset(page_address(got[i]), 0xa5, PAGE_SIZE);
	free_all(got, n, 0);
	struct page *p = alloc_pages(3, 0, ALLOC_ZERO);

	ASSERT_NE(t, p, NULL);
	const u8 *bytes = page_address(p);
	u32 nonzero = 0;

	for (u64 i = 0; i < PAGE_SIZE << 3; i++)
		nonzero += bytes[i] != 0;
	EXPECT_EQ(t, nonzero, 0);
	free_pages(p, 3);
}

/* --- zones and nodes ---------------------------------------------------------------- */

static void dma32_flag_stays_below_4g(struct ktest *t)
{
	static struct page *got[8192];

	BOOT(both_zones, 1);
	u32 n = drain(got, ARRAY_SIZE(got), 3, 0, ALLOC_DMA32);

	EXPECT_EQ(t, (u64)n << 3, nr_managed_pages(0, ZONE_DMA32));
	for (u32 i = 0; i < n; i++)
		EXPECT_LE(t, page_to_phys(got[i]) + (PAGE_SIZE << 3), DMA32_LIMIT);
	EXPECT_EQ(t, nr_free_pages(0, ZONE_NORMAL), nr_managed_pages(0, ZONE_NORMAL));
	free_all(got, n, 3);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void high_flag_stays_above_4g(struct ktest *t)
{
	static struct page *got[32768];

	BOOT(both_zones, 1);
	u32 n = drain(got, ARRAY_SIZE(got), 0, 0, ALLOC_HIGH);

	EXPECT_EQ(t, (u64)n, nr_managed_pages(0, ZONE_NORMAL));
	for (u32 i = 0; i < n; i++)
		EXPECT_GE(t, page_to_phys(got[i]), DMA32_LIMIT);
	EXPECT_EQ(t, nr_free_pages(0, ZONE_DMA32), nr_managed_pages(0, ZONE_DMA32));
	free_all(got, n, 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void normal_zone_first_then_dma32(struct ktest *t)
{
	static struct page *got[32768];

	BOOT(both_zones, 1);
	u64 normal = nr_managed_pages(0, ZONE_NORMAL);
	u32 n = 0;

	while (n < normal)
		got[n++] = alloc_pages(0, 0, 0);
	for (u32 i = 0; i < n; i += 997)
		EXPECT_GE(t, page_to_phys(got[i]), DMA32_LIMIT);
	EXPECT_EQ(t, nr_free_pages(0, ZONE_NORMAL), 0);
	struct page *low = alloc_pages(0, 0, 0);

	ASSERT_NE(t, low, NULL);
	EXPECT_LT(t, page_to_phys(low), DMA32_LIMIT);
	EXPECT_EQ(t, low->zone, ZONE_DMA32);
	free_pages(low, 0);
	free_all(got, n, 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void thisnode_stays_on_its_node(struct ktest *t)
{
	static struct page *got[256];

	BOOT(two_nodes, 2);
	u64 node0_free = nr_free_pages(0, -1);
	u32 n = drain(got, ARRAY_SIZE(got), MAX_ORDER, 1, ALLOC_THISNODE);

	EXPECT_GT(t, n, 0);
	for (u32 i = 0; i < n; i++) {
		EXPECT_EQ(t, got[i]->node, 1);
		EXPECT_GE(t, page_to_phys(got[i]), 256 * MiB);
	}
	EXPECT_EQ(t, nr_free_pages(0, -1), node0_free);
	/* Without the flag, node 1 falls back to node 0. */
	struct page *p = alloc_pages(MAX_ORDER, 1, 0);

	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, p->node, 0);
	free_pages(p, MAX_ORDER);
	free_all(got, n, MAX_ORDER);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void fallback_by_distance_when_full(struct ktest *t)
{
	static const struct range three[] = {
		{ 0, 64 * MiB, 0 }, { 64 * MiB, 128 * MiB, 1 }, { 128 * MiB, 192 * MiB, 2 },
	};
	static const u8 rows[3][4] = { { 10, 30, 20 }, { 30, 10, 20 }, { 20, 20, 10 } };
	static struct page *got[3][16384];
	u32 n[3];
	struct page *p;

	set_slit(rows, 3);
	boot(three, 3, 3, slit);
	n[0] = drain(got[0], ARRAY_SIZE(got[0]), 0, 0, ALLOC_THISNODE);
	p = alloc_pages(0, 0, 0);
	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, p->node, 2);
	free_pages(p, 0);
	n[2] = drain(got[2], ARRAY_SIZE(got[2]), 0, 2, ALLOC_THISNODE);
	p = alloc_pages(0, 0, 0);
	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, p->node, 1);
	free_pages(p, 0);
	n[1] = drain(got[1], ARRAY_SIZE(got[1]), 0, 1, ALLOC_THISNODE);
	EXPECT_EQ(t, alloc_pages(0, 0, 0), NULL);
	for (int i = 0; i < 3; i++)
		free_all(got[i], n[i], 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void node_any_starts_with_node0(struct ktest *t)
{
	BOOT(two_nodes, 2);
	struct page *p = alloc_pages(0, NODE_ANY, 0);

	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, p->node, 0);
	free_pages(p, 0);
}

static void memoryless_node_falls_back(struct ktest *t)
{
	static const struct range story[] = {
		{ 0, 192 * MiB, 1 }, { 4 * GiB, 4 * GiB + 192 * MiB, 2 },
	};

	BOOT(story, 3);
	struct page *p = alloc_pages(0, 0, 0);

	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, p->node, 1);
	EXPECT_EQ(t, alloc_pages(0, 0, ALLOC_THISNODE), NULL);
	struct page *q = alloc_pages(0, 2, ALLOC_DMA32);

	ASSERT_NE(t, q, NULL);
	EXPECT_EQ(t, q->node, 1);       /* node 2 has nothing below 4 GiB */
	free_pages(p, 0);
	free_pages(q, 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

/* --- bad frees --------------------------------------------------------------------- */

static void double_free_reported_and_harmless(struct ktest *t)
{
	static struct page *got[8192];

	BOOT(small, 1);
	u32 n = drain(got, ARRAY_SIZE(got), 0, 0, 0);
	u32 v = n / 2;
	struct page *victim = got[v];

	free_pages(victim, 0);  /* its buddy is allocated: it stays a free head */
	EXPECT_EQ(t, victim->flags, PG_FREE);
	host_log_clear();
	free_pages(victim, 0);
	EXPECT_TRUE(t, host_log_has("page_alloc: bad free of 0x"));
	EXPECT_TRUE(t, host_log_has("already free (double free)"));
	EXPECT_EQ(t, nr_free_pages(0, -1), 1);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->nr_free[0], 1);
	got[v] = got[--n];
	free_all(got, n, 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void double_free_after_merge_reported(struct ktest *t)
{
	BOOT(small, 1);
	struct page *p = alloc_pages(0, 0, 0);

	free_pages(p, 0);
	free_pages(p, 0);
	EXPECT_EQ(t, host_log_count("page_alloc: bad free"), 1);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void free_of_reserved_page_reported(struct ktest *t)
{
	BOOT(small, 1);
	struct page *page0 = &zone(0, ZONE_DMA32)->mem_map[0];

	free_pages(page0, 0);
	EXPECT_TRUE(t, host_log_has("page_alloc: bad free of 0x0 order 0: reserved page"));
	EXPECT_EQ(t, page0->flags, PG_RESERVED);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void free_with_wrong_order_reported(struct ktest *t)
{
	BOOT(small, 1);
	struct page *p = alloc_pages(2, 0, 0);

	free_pages(p, 1);
	free_pages(p, 3);
	EXPECT_EQ(t, host_log_count("allocated with another order"), 2);
	EXPECT_EQ(t, nr_free_pages(0, -1), nr_managed_pages(0, -1) - 4);
	free_pages(p, 2);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void free_of_tail_page_reported(struct ktest *t)
{
	BOOT(small, 1);
	struct page *p = alloc_pages(2, 0, 0);

	free_pages(p + 1, 0);
	EXPECT_TRUE(t, host_log_has("not the head of an allocated block"));
	free_pages(p, 2);
	EXPECT_TRUE(t, lists_as_at_init());
}

static void free_of_foreign_pointer_reported(struct ktest *t)
{
	struct page outsider = { .flags = PG_HEAD };

	BOOT(small, 1);
	struct page *p = alloc_pages(0, 0, 0);

	free_pages(&outsider, 0);
	free_pages((struct page *)((u8 *)p + 8), 0);
	free_pages(p, MAX_ORDER + 1);
	EXPECT_EQ(t, host_log_count("not a struct page of any zone"), 2);
	EXPECT_EQ(t, host_log_count("order above MAX_ORDER"), 1);
	free_pages(p, 0);
	free_pages(NULL, 0);
	EXPECT_EQ(t, host_log_count("page_alloc:"), 3);
	EXPECT_TRUE(t, lists_as_at_init());
}

/* --- addresses and printing ---------------------------------------------------------- */

static void phys_page_address_round_trip(struct ktest *t)
{
	BOOT(two_nodes, 2);
	struct page *p = alloc_pages(4, 1, 0);

	ASSERT_NE(t, p, NULL);
	u64 pa = page_to_phys(p);

	EXPECT_EQ(t, phys_to_page(pa), p);
	EXPECT_EQ(t, phys_to_page(pa + 100), p);
	EXPECT_EQ(t, phys_to_page(pa + PAGE_SIZE), p + 1);
	EXPECT_EQ(t, page_address(p), phys_to_virt(pa));
	EXPECT_EQ(t, phys_to_page(0), NULL);
	EXPECT_EQ(t, phys_to_page(1 * GiB), NULL);
	free_pages(p, 4);
}

static void print_one_line_per_zone_with_memory(struct ktest *t)
{
	char line[128];

	BOOT(both_zones, 3);
	page_alloc_print();
	snprintf(line, sizeof(line),
		 "mem: node 0 DMA32  0x0000000000100000-0x0000000008100000 free %llu of %llu pages\n",
		 nr_free_pages(0, ZONE_DMA32), nr_managed_pages(0, ZONE_DMA32));
	EXPECT_TRUE(t, host_log_has(line));
	snprintf(line, sizeof(line),
		 "mem: node 0 NORMAL 0x0000000100000000-0x0000000108000000 free %llu of %llu pages\n",
		 nr_free_pages(0, ZONE_NORMAL), nr_managed_pages(0, ZONE_NORMAL));
	EXPECT_TRUE(t, host_log_has(line));
	EXPECT_EQ(t, host_log_count("mem: "), 2);
}

/* --- per-CPU page lists ----------------------------------------------------------- */

/* Boot and give CPUs 0..ncpus-1 their lists on node 0 (a page each); the test runs on CPU 0. */
static void boot_with_pcp(const struct range *r, u32 nr, u32 nr_nodes, u32 ncpus)
{
	page_alloc_init(load(r, nr), nr_nodes, NULL);
	page_alloc_host_cpu = 0;
	for (u32 cpu = 0; cpu < ncpus; cpu++)
		page_alloc_cpu_init(cpu, 0);
	take_lists(&at_init);
	host_log_clear();
}

static void pcp_free_then_alloc_recycles_on_own_cpu(struct ktest *t)
{
	boot_with_pcp(small, ARRAY_SIZE(small), 1, 1);
	struct per_cpu_pages *pcp = page_alloc_pcp(0, 0, ZONE_DMA32);
	u64 zone_free = zone(0, ZONE_DMA32)->free_pages;

	ASSERT_NE(t, pcp, NULL);
	struct page *p = alloc_pages(0, 0, 0);

	/* the first one refilled the list with a batch, from the zone */
	EXPECT_EQ(t, pcp->count, PCP_BATCH - 1);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->free_pages, zone_free - PCP_BATCH);
	free_pages(p, 0);
	EXPECT_EQ(t, pcp->count, PCP_BATCH);
	EXPECT_EQ(t, p->flags, PG_PCP);
	EXPECT_EQ(t, alloc_pages(0, 0, 0), p);  /* newest first: the same page, warm */
	EXPECT_EQ(t, p->flags, PG_HEAD);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->free_pages, zone_free - PCP_BATCH);
	free_pages(p, 0);
	EXPECT_EQ(t, nr_free_pages(0, -1), nr_managed_pages(0, -1) - 1);   /* the lists' own page */
	EXPECT_EQ(t, nr_pcp_pages(0, -1), PCP_BATCH);
	page_alloc_drain_this_cpu();
	EXPECT_TRUE(t, lists_as_at_init());
	EXPECT_STREQ(t, host_log(), "");
}

/* Frees fill the list up to high, then batch of the oldest go back: count stays below high. */
static void pcp_high_and_batch_respected(struct ktest *t)
{
	static struct page *p[2 * PCP_HIGH];
	u32 most = 0;

	boot_with_pcp(small, ARRAY_SIZE(small), 1, 1);
	struct per_cpu_pages *pcp = page_alloc_pcp(0, 0, ZONE_DMA32);

	u64 zone_free = zone(0, ZONE_DMA32)->free_pages;

	ASSERT_NE(t, pcp, NULL);
	EXPECT_EQ(t, pcp->high, PCP_HIGH);
	EXPECT_EQ(t, pcp->batch, PCP_BATCH);
	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = alloc_pages(0, 0, 0);
		ASSERT_NE(t, p[i], NULL);
		/* refills come in batches: the zone pays batch pages at a time */
		EXPECT_EQ(t, (zone_free - zone(0, ZONE_DMA32)->free_pages) % PCP_BATCH, 0);
	}
	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		free_pages(p[i], 0);
		most = MAX(most, pcp->count);
		EXPECT_LT(t, pcp->count, PCP_HIGH);
	}
	EXPECT_EQ(t, most, PCP_HIGH - 1);
	EXPECT_EQ(t, nr_free_pages(0, -1), zone_free);
	page_alloc_drain_this_cpu();
	EXPECT_EQ(t, pcp->count, 0);
	EXPECT_TRUE(t, lists_as_at_init());
}

/* Pages freed on two CPUs sit on two lists; draining both gives every page back. */
static void pcp_drain_returns_every_page(struct ktest *t)
{
	static struct page *p[300];

	boot_with_pcp(two_nodes, ARRAY_SIZE(two_nodes), 2, 2);
	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		page_alloc_host_cpu = i % 2;
		p[i] = alloc_pages(0, (int)(i % 3) - 1, 0);
		ASSERT_NE(t, p[i], NULL);
	}
	for (u32 i = 0; i < ARRAY_SIZE(p); i++) {
		page_alloc_host_cpu = (i / 7) % 2;
		free_pages(p[i], 0);
	}
	EXPECT_GT(t, nr_pcp_pages(NODE_ANY, -1), 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), nr_managed_pages(NODE_ANY, -1) - 2);
	page_alloc_host_cpu = 0;
	page_alloc_drain_this_cpu();
	EXPECT_GT(t, nr_pcp_pages(NODE_ANY, -1), 0);       /* CPU 1's are still there */
	page_alloc_host_cpu = 1;
	page_alloc_drain_this_cpu();
	page_alloc_host_cpu = 0;
	EXPECT_EQ(t, nr_pcp_pages(NODE_ANY, -1), 0);
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), nr_managed_pages(NODE_ANY, -1) - 2);
	EXPECT_TRUE(t, lists_as_at_init());
	EXPECT_STREQ(t, host_log(), "");
}

static void pcp_double_free_reported_and_harmless(struct ktest *t)
{
	boot_with_pcp(small, ARRAY_SIZE(small), 1, 1);
	struct page *p = alloc_pages(0, 0, 0);

	free_pages(p, 0);
	free_pages(p, 0);
	EXPECT_EQ(t, host_log_count("already free, on a per-CPU list (double free)"), 1);
	EXPECT_EQ(t, page_alloc_pcp(0, 0, ZONE_DMA32)->count, PCP_BATCH);
	page_alloc_drain_this_cpu();
	EXPECT_TRUE(t, lists_as_at_init());
}

/* A CPU without lists (page_alloc_cpu_init() not called) takes single pages from the zone. */
static void pcp_cpu_without_lists_uses_the_zone(struct ktest *t)
{
	boot_with_pcp(small, ARRAY_SIZE(small), 1, 1);
	u64 zone_free = zone(0, ZONE_DMA32)->free_pages;

	page_alloc_host_cpu = 1;
	struct page *p = alloc_pages(0, 0, 0);

	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->free_pages, zone_free - 1);
	EXPECT_EQ(t, page_alloc_pcp(1, 0, ZONE_DMA32), NULL);
	free_pages(p, 0);
	EXPECT_EQ(t, zone(0, ZONE_DMA32)->free_pages, zone_free);
	page_alloc_host_cpu = 0;
	EXPECT_TRUE(t, lists_as_at_init());
}

/* --- deferred init ----------------------------------------------------------------- */

static const struct range ragged_nodes[] = {
	/* node 0 below and above 4 GiB, an odd end; node 1 ending inside a MAX_ORDER block */
	{ 1 * MiB, 40 * MiB + 12 * 1024, 0 }, { 4 * GiB, 4 * GiB + 24 * MiB, 0 },
	{ 64 * MiB, 100 * MiB + 4096 * 3, 1 },
};

struct zone_facts {
	u64 managed[TEST_NODES][NR_ZONES];
	u64 free[TEST_NODES][NR_ZONES];
};

static void take_facts(struct zone_facts *f)
{
	for (int n = 0; n < TEST_NODES; n++)
		for (int z = 0; z < NR_ZONES; z++) {
			f->managed[n][z] = zone(n, z)->managed_pages;
			f->free[n][z] = zone(n, z)->free_pages;
		}
}

static void boot_deferred(const struct range *r, u32 nr, u32 nr_nodes, u64 eager)
{
	page_alloc_init_deferred(load(r, nr), nr_nodes, NULL, eager);
	page_alloc_host_cpu = 0;
	host_log_clear();
}

/* Run every node's deferred init to the end; the pages it handed over. */
static u64 finish_deferred(u32 nr_nodes)
{
	u64 pages = 0;

	for (u32 n = 0; n < nr_nodes; n++)
		while (page_alloc_deferred_step(n, &pages))
			;
	return pages;
}

/* Deferred init, finished, leaves the very zones, counts and free lists of a full init. */
static void deferred_init_ends_as_a_full_init(struct ktest *t)
{
	struct zone_facts full, deferred;
	struct lists full_lists;
	u64 at_init = 0;

	BOOT(ragged_nodes, 2);
	take_facts(&full);
	take_lists(&full_lists);
	EXPECT_FALSE(t, page_alloc_deferred_pending(NODE_ANY));

	boot_deferred(ragged_nodes, ARRAY_SIZE(ragged_nodes), 2, 1);
	EXPECT_TRUE(t, page_alloc_deferred_pending(0));
	EXPECT_TRUE(t, page_alloc_deferred_pending(1));
	EXPECT_LT(t, nr_managed_pages(NODE_ANY, -1), full.managed[0][0]);
	for (u32 n = 0; n < 2; n++)
		at_init += page_alloc_deferred_at_init(n);
	EXPECT_EQ(t, nr_managed_pages(NODE_ANY, -1) + at_init,
		  page_alloc_free_range_pages(0) + page_alloc_free_range_pages(1));
	EXPECT_EQ(t, finish_deferred(2), at_init);
	EXPECT_FALSE(t, page_alloc_deferred_pending(NODE_ANY));
	take_facts(&deferred);
	take_lists(&at_init_lists_scratch);
	EXPECT_EQ(t, memcmp(&deferred, &full, sizeof(full)), 0);
	EXPECT_EQ(t, memcmp(&at_init_lists_scratch, &full_lists, sizeof(full_lists)), 0);
	for (u32 n = 0; n < 2; n++) {
		EXPECT_EQ(t, nr_managed_pages((int)n, -1), page_alloc_free_range_pages(n));
		EXPECT_EQ(t, zone(n, ZONE_DMA32)->deferred_pages, 0);
	}
	EXPECT_STREQ(t, host_log(), "");
}

/* Nothing initialised beyond the first piece: every page can still be had, on its node. */
static void deferred_allocation_grows_the_zone(struct ktest *t)
{
	static struct page *got[64 * 1024];
	u64 full_node1;

	BOOT(ragged_nodes, 2);
	full_node1 = nr_managed_pages(1, -1);
	boot_deferred(ragged_nodes, ARRAY_SIZE(ragged_nodes), 2, 1);
	EXPECT_LT(t, nr_managed_pages(1, -1), full_node1);

	u32 n = drain(got, ARRAY_SIZE(got), 0, 1, ALLOC_THISNODE);

	EXPECT_EQ(t, n, full_node1);            /* never a false "no memory" */
	EXPECT_FALSE(t, page_alloc_deferred_pending(1));
	EXPECT_TRUE(t, page_alloc_deferred_pending(0));
	for (u32 i = 0; i < n; i++) {
		u64 pa = page_to_phys(got[i]);

		if (got[i]->node != 1 || pa < 64 * MiB || pa >= 100 * MiB + 4096 * 3) {
			ktest_fail(t, __FILE__, __LINE__, "page 0x%llx of node %u", pa, got[i]->node);
			break;
		}
	}
	free_all(got, n, 0);
	EXPECT_EQ(t, nr_free_pages(1, -1), full_node1);
	/* order MAX_ORDER, too: a deferred zone grows until a whole block is free */
	struct page *big = alloc_pages(MAX_ORDER, 0, ALLOC_THISNODE | ALLOC_HIGH);

	EXPECT_NE(t, big, NULL);
	free_pages(big, MAX_ORDER);
	EXPECT_STREQ(t, host_log(), "");
}

/* A struct page beyond init_end_pfn is never looked at: phys_to_page() says none. */
static void deferred_pages_unknown_until_initialised(struct ktest *t)
{
	u64 pa = 4 * GiB + 20 * MiB, pages = 0;

	boot_deferred(ragged_nodes, ARRAY_SIZE(ragged_nodes), 2, 1);
	EXPECT_EQ(t, phys_to_page(pa), NULL);
	while (page_alloc_deferred_step(0, &pages))
		;
	struct page *p = phys_to_page(pa);

	ASSERT_NE(t, p, NULL);
	EXPECT_EQ(t, page_to_phys(p), pa);
	EXPECT_EQ(t, p->node, 0);
	EXPECT_EQ(t, p->zone, ZONE_NORMAL);
	EXPECT_FALSE(t, page_alloc_deferred_step(0, &pages));
}

/* The print says what is still deferred and what sits on per-CPU lists. */
static void deferred_and_pcp_in_the_print(struct ktest *t)
{
	boot_deferred(small, ARRAY_SIZE(small), 1, 1);
	page_alloc_cpu_init(0, 0);
	free_pages(alloc_pages(0, 0, 0), 0);
	host_log_clear();
	page_alloc_print();
	EXPECT_TRUE(t, host_log_has(" on per-CPU lists"));
	EXPECT_TRUE(t, host_log_has(" not yet initialised (deferred)"));
	page_alloc_drain_this_cpu();
	finish_deferred(1);
	host_log_clear();
	page_alloc_print();
	EXPECT_FALSE(t, host_log_has("per-CPU"));
	EXPECT_FALSE(t, host_log_has("deferred"));
}

/* --- random run --------------------------------------------------------------------- */

#define STRESS_PAGES (512 * MiB / PAGE_SIZE)
#define STRESS_LIVE  2048

struct block {
	struct page *page;
	unsigned order;
};

/* Mark the pages of a block in owner[]; false if any was already taken. */
static bool claim(u8 *owner, u64 pfn, unsigned order, u8 mark)
{
	for (u64 i = 0; i < 1UL << order; i++) {
		if (pfn + i >= STRESS_PAGES || owner[pfn + i] == !!mark)
			return false;
		owner[pfn + i] = !!mark;
	}
	return true;
}

static void random_run_no_overlap_all_back(struct ktest *t)
{
	static u8 owner[STRESS_PAGES];
	static struct block live[STRESS_LIVE];
	static const unsigned flag_choices[] = { 0, 0, ALLOC_THISNODE, ALLOC_DMA32 };
	u32 nlive = 0;
	u64 live_pages = 0;

	BOOT(two_nodes, 2);
	memset(owner, 0, sizeof(owner));
	rng_state = 1014;
	for (u32 step = 0; step < 40000; step++) {
		if (nlive < STRESS_LIVE && (nlive == 0 || rnd(100) < 55)) {
			unsigned order = rnd(7), flags = flag_choices[rnd(4)];
			int node = (int)rnd(3) - 1;
			struct page *p = alloc_pages(order, node, flags);

			if (!p)
				continue;
			u64 pfn = page_to_phys(p) >> PAGE_SHIFT;

			ASSERT_TRUE(t, IS_ALIGNED(pfn, 1UL << order));
			ASSERT_TRUE(t, claim(owner, pfn, order, 1));
			if (flags & ALLOC_THISNODE)
				ASSERT_EQ(t, p->node, node == NODE_ANY ? 0 : node);
			live[nlive++] = (struct block){ p, order };
			live_pages += 1UL << order;
		} else {
			u32 i = rnd(nlive);
			u64 pfn = page_to_phys(live[i].page) >> PAGE_SHIFT;

			ASSERT_TRUE(t, claim(owner, pfn, live[i].order, 0));
			free_pages(live[i].page, live[i].order);
			live_pages -= 1UL << live[i].order;
			live[i] = live[--nlive];
		}
		ASSERT_EQ(t, nr_free_pages(NODE_ANY, -1) + live_pages, nr_managed_pages(NODE_ANY, -1));
	}
	while (nlive) {
		nlive--;
		free_pages(live[nlive].page, live[nlive].order);
	}
	EXPECT_EQ(t, nr_free_pages(NODE_ANY, -1), nr_managed_pages(NODE_ANY, -1));
	EXPECT_TRUE(t, lists_as_at_init());
	EXPECT_STREQ(t, host_log(), "");
}

static const struct ktest_case page_alloc_cases[] = {
	KTEST(init_managed_equals_free),
	KTEST(init_counts_exclude_mem_map_and_page0),
	KTEST(init_zones_on_both_sides_of_4g),
	KTEST(init_hands_over_large_blocks),
	KTEST(init_skips_partial_pages),
	KTEST(mem_map_lives_on_its_node),
	KTEST(bootmem_is_emptied),
	KTEST(memory_beyond_nr_nodes_is_unused),
	KTEST(interleaved_nodes_resolve_owner),
	KTEST(big_mem_map_starts_on_2mib),
	KTEST(fallback_default_distance),
	KTEST(fallback_follows_slit_ties_by_id),
	KTEST(alloc_and_free_every_order),
	KTEST(split_then_merge_restores_lists),
	KTEST(free_everything_merges_back),
	KTEST(exhaustion_returns_null),
	KTEST(bad_requests_return_null),
	KTEST(alloc_zero_clears_memory),
	KTEST(dma32_flag_stays_below_4g),
	KTEST(high_flag_stays_above_4g),
	KTEST(normal_zone_first_then_dma32),
	KTEST(thisnode_stays_on_its_node),
	KTEST(fallback_by_distance_when_full),
	KTEST(node_any_starts_with_node0),
	KTEST(memoryless_node_falls_back),
	KTEST(double_free_reported_and_harmless),
	KTEST(double_free_after_merge_reported),
	KTEST(free_of_reserved_page_reported),
	KTEST(free_with_wrong_order_reported),
	KTEST(free_of_tail_page_reported),
	KTEST(free_of_foreign_pointer_reported),
	KTEST(phys_page_address_round_trip),
	KTEST(print_one_line_per_zone_with_memory),
	KTEST(random_run_no_overlap_all_back),
	KTEST(pcp_free_then_alloc_recycles_on_own_cpu),
	KTEST(pcp_high_and_batch_respected),
	KTEST(pcp_drain_returns_every_page),
	KTEST(pcp_double_free_reported_and_harmless),
	KTEST(pcp_cpu_without_lists_uses_the_zone),
	KTEST(deferred_init_ends_as_a_full_init),
	KTEST(deferred_allocation_grows_the_zone),
	KTEST(deferred_pages_unknown_until_initialised),
	KTEST(deferred_and_pcp_in_the_print),
	{},
};
KTEST_SUITE(page_alloc, page_alloc_cases);
