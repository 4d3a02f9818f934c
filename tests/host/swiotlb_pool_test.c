// SPDX-License-Identifier: MIT
/*
 * swiotlb_slots_test.c - kernel/swiotlb_pool.c on the host: a fresh pool,
 * sizes to slabs, page alignment, segment edges, merging on free,
 * exhaustion and recovery, bad frees, and a random run checked against a
 * slab-by-slab model after every step; the areas (how many, where a CPU
 * starts, moving on when one is full, the early exit, the claim of an
 * unmap) and the per-node pools' placement and order.
 */
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "swiotlb_pool.h"
#include "host.h"

#define SEG SWIOTLB_SEGSIZE
#define MiB (1UL << 20)
#define GiB (1UL << 30)

/* --- placement -------------------------------------------------------------- */

static struct bootmem *bm;
static u8 dist[MAX_NODES][MAX_NODES];

/* n nodes, 10 local and 20 remote, like QEMU without -numa dist. */
static void flat_distances(u32 n)
{
	for (u32 a = 0; a < n; a++)
		for (u32 b = 0; b < n; b++)
			dist[a][b] = a == b ? 10 : 20;
}

static struct bootmem *story(void)
{
	if (!bm)
		bm = calloc(1, sizeof(*bm));
	bootmem_init(bm);
	bootmem_add_memory(bm, 0, 3 * GiB, 1);
	bootmem_add_memory(bm, 4 * GiB, 7 * GiB, 2);
	bootmem_reserve(bm, 0, 1 * MiB);
	bootmem_reserve(bm, 2 * MiB, 8 * MiB);
	flat_distances(3);
	return bm;
}

/* 2.6.14 as released: pgdat order (node 2 first, all above 4 GiB: skipped), node 1 bottom-up. */
static void story_rc5_lands_low_on_node1(struct ktest *t)
{
	struct swiotlb_placement p;

	EXPECT_TRUE(t, swiotlb_place(story(), 3, dist, 0, SWIOTLB_RC5, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 1);
	EXPECT_EQ(t, p.base, 8 * MiB);                  /* the first gap that fits, above the image */
	EXPECT_EQ(t, bootmem_node_of(bm, p.base), 1);
}

static void story_rc4_lands_above_4g_on_node2(struct ktest *t)
{
	struct swiotlb_placement p;

	EXPECT_TRUE(t, swiotlb_place(story(), 3, dist, 0, SWIOTLB_RC4, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 2);
	EXPECT_EQ(t, p.base, 4 * GiB);                  /* bottom-up: node 2's first byte */
}

/* The posted patch: node 0 has no memory, so alloc_bootmem_node() falls back, highest node first. */
static void story_node0_falls_back_above_4g(struct ktest *t)
{
	struct swiotlb_placement p;

	EXPECT_TRUE(t, swiotlb_place(story(), 3, dist, 0, SWIOTLB_NODE0, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 2);
	EXPECT_EQ(t, p.base, 4 * GiB);
	EXPECT_FALSE(t, swiotlb_place(bm, 3, dist, 0, SWIOTLB_OFF, 64 * MiB, &p));
	EXPECT_STREQ(t, p.failed, "no pool (swiotlb=off)");
}

/* Linux today: the highest free block below 4 GiB, whatever its node. */
static void story_low_takes_the_top_below_4g(struct ktest *t)
{
	struct swiotlb_placement p;

	EXPECT_TRUE(t, swiotlb_place(story(), 3, dist, 0, SWIOTLB_LOW, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 1);
	EXPECT_EQ(t, p.base, 3 * GiB - 64 * MiB);
	EXPECT_TRUE(t, swiotlb_place(story(), 3, dist, 0, SWIOTLB_FORCE, 64 * MiB, &p));
	EXPECT_EQ(t, p.base, 3 * GiB - 64 * MiB);
}

static void story_nearest_lands_below_4g_on_node1(struct ktest *t)
{
	struct swiotlb_placement p;

	/* The boot CPU is on node 0, which has no memory: the nearest is node 1. */
	EXPECT_TRUE(t, swiotlb_place(story(), 3, dist, 0, SWIOTLB_NEAREST, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 1);
	EXPECT_EQ(t, p.base, 3 * GiB - 64 * MiB);       /* top-down, below the hole */
}

/* wide: four nodes of 1 GiB, node 3 above 4 GiB; the boot CPU on node 0. */
static void wide_each_policy_picks_its_node(struct ktest *t)
{
	static const struct { enum swiotlb_policy policy; int node; u64 base; } want[] = {
		{ SWIOTLB_RC5, 2, 2 * GiB },            /* node 3 above 4 GiB, then node 2, bottom-up */
		{ SWIOTLB_RC4, 3, 4 * GiB },
		{ SWIOTLB_NODE0, 0, 16 * MiB },         /* from MAX_DMA_ADDRESS up */
		{ SWIOTLB_LOW, 2, 3 * GiB - 64 * MiB },
		{ SWIOTLB_NEAREST, 0, 1 * GiB - 64 * MiB },
	};

	for (u32 i = 0; i < ARRAY_SIZE(want); i++) {
		struct swiotlb_placement p;

		bootmem_init(bm);
		bootmem_add_memory(bm, 0, 1 * GiB, 0);
		bootmem_add_memory(bm, 1 * GiB, 2 * GiB, 1);
		bootmem_add_memory(bm, 2 * GiB, 3 * GiB, 2);
		bootmem_add_memory(bm, 4 * GiB, 5 * GiB, 3);
		bootmem_reserve(bm, 0, 1 * MiB);
		bootmem_reserve(bm, 2 * MiB, 8 * MiB);
		flat_distances(4);
		EXPECT_TRUE(t, swiotlb_place(bm, 4, dist, 0, want[i].policy, 64 * MiB, &p));
		EXPECT_EQ(t, p.node, want[i].node);
		EXPECT_EQ(t, p.base, want[i].base);
	}
}

static void one_node_every_policy_below_4g(struct ktest *t)
{
	struct swiotlb_placement p;

	flat_distances(1);
	for (enum swiotlb_policy policy = 0; policy < SWIOTLB_NR_POLICIES; policy++) {
		if (swiotlb_policies[policy].walk == SWIOTLB_WALK_NONE)
			continue;
		bootmem_init(bm);
		bootmem_add_memory(bm, 0, 512 * MiB, 0);
		bootmem_reserve(bm, 0, 1 * MiB);
		EXPECT_TRUE(t, swiotlb_place(bm, 1, dist, 0, policy, 64 * MiB, &p));
		EXPECT_EQ(t, p.node, 0);
		EXPECT_LE(t, p.base + p.size, 4 * GiB);
	}
}

/* Node 1 boots, has only high memory; node 3 is nearer than node 0 by SLIT. */
static void nearest_follows_slit_distance(struct ktest *t)
{
	struct swiotlb_placement p;

	bootmem_init(bm);
	bootmem_add_memory(bm, 0, 1 * GiB, 0);
	bootmem_add_memory(bm, 4 * GiB, 5 * GiB, 1);
	bootmem_add_memory(bm, 1 * GiB, 2 * GiB, 2);
	bootmem_add_memory(bm, 2 * GiB, 3 * GiB, 3);
	flat_distances(4);
	dist[1][0] = 40, dist[1][2] = 30, dist[1][3] = 21;
	EXPECT_TRUE(t, swiotlb_place(bm, 4, dist, 1, SWIOTLB_NEAREST, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 3);
	dist[1][3] = 50;                        /* now node 2 is nearest */
	EXPECT_TRUE(t, swiotlb_place(bm, 4, dist, 1, SWIOTLB_NEAREST, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 2);
	dist[1][2] = 50, dist[1][0] = 60;       /* 2 and 3 tie at 50: the lower ID first */
	EXPECT_TRUE(t, swiotlb_place(bm, 4, dist, 1, SWIOTLB_NEAREST, 64 * MiB, &p));
	EXPECT_EQ(t, p.node, 2);
}

static void nothing_fits(struct ktest *t)
{
	struct swiotlb_placement p;

	bootmem_init(bm);
	bootmem_add_memory(bm, 4 * GiB, 6 * GiB, 0);    /* node 0: only high memory */
	flat_distances(1);
	EXPECT_FALSE(t, swiotlb_place(bm, 1, dist, 0, SWIOTLB_RC5, 64 * MiB, &p));
	EXPECT_STREQ(t, p.failed, "no node has room below 4 GiB");
	EXPECT_FALSE(t, swiotlb_place(bm, 1, dist, 0, SWIOTLB_NEAREST, 64 * MiB, &p));
	EXPECT_FALSE(t, swiotlb_place(bm, 1, dist, 0, SWIOTLB_LOW, 64 * MiB, &p));
	EXPECT_TRUE(t, swiotlb_place(bm, 1, dist, 0, SWIOTLB_NODE0, 64 * MiB, &p));  /* no limit */
	EXPECT_GE(t, p.base, 4 * GiB);
	EXPECT_TRUE(t, swiotlb_place(bm, 1, dist, 0, SWIOTLB_RC4, 64 * MiB, &p));  /* rc4 does not care */
	EXPECT_FALSE(t, swiotlb_place(bm, 1, dist, 0, SWIOTLB_RC4, 4 * GiB, &p));
	EXPECT_STREQ(t, p.failed, "no node has room");
}

/* --- slots ------------------------------------------------------------------- */

static struct swiotlb_slots pool;
static void *arrays;

/* A pool of nslabs slabs in (at most) nareas areas. */
static struct swiotlb_slots *fresh_areas(u32 nslabs, u32 nareas)
{
	u64 bytes = (swiotlb_slots_array_bytes(nslabs, nareas) + 8 + 63) / 64 * 64;

	free(arrays);
	arrays = aligned_alloc(64, bytes);
	memset(arrays, 0, bytes);
	swiotlb_slots_init(&pool, nslabs, nareas, arrays);
	return &pool;
}

static struct swiotlb_slots *fresh(u32 nslabs)
{
	return fresh_areas(nslabs, 1);
}

/* Every invariant holds (the message names the broken one on failure). */
#define CHECK(t, s) EXPECT_TRUE((t), swiotlb_slots_check(s) == NULL)

static void fresh_pool_is_whole_segments(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(4 * SEG + 5);

	EXPECT_EQ(t, s->nslabs, 4 * SEG);       /* the partial segment is dropped */
	EXPECT_EQ(t, s->free[0], SEG);
	EXPECT_EQ(t, s->free[SEG - 1], 1);
	EXPECT_EQ(t, s->free[SEG], SEG);
	CHECK(t, s);
	EXPECT_EQ(t, swiotlb_slots_init(&pool, SEG - 1, 1, arrays), 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(&pool, 0, 64, 0), -1);
}

static void sizes_round_up_to_slabs(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);

	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 1, 0x1000), 0);
	EXPECT_EQ(t, s->nslabs_at[0], 1);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, SWIOTLB_SLAB_SIZE + 1, 0x2000), 1);
	EXPECT_EQ(t, s->nslabs_at[1], 2);
	EXPECT_EQ(t, s->orig[1], 0x2000);
	EXPECT_EQ(t, swiotlb_slots_used(s), 3);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 0, 0), -1);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, SWIOTLB_MAX_MAPPING + 1, 0), -1);
	CHECK(t, s);
}

static void page_sized_mappings_are_page_aligned(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(2 * SEG);

	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 64, 0), 0);            /* slab 0 */
	s64 i = swiotlb_slots_alloc(s, 0, 4096, 0);                    /* not slab 1: odd */
	EXPECT_EQ(t, i, 2);
	i = swiotlb_slots_alloc(s, 0, 3 * 4096, 0);
	EXPECT_EQ(t, i % 2, 0);
	CHECK(t, s);
}

static void no_mapping_crosses_a_segment(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(2 * SEG);

	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, (SEG - 2) * SWIOTLB_SLAB_SIZE, 0), 0);
	/* 4 slabs do not fit in the 2 left in segment 0: they go to segment 1. */
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 4 * SWIOTLB_SLAB_SIZE, 0), SEG);
	EXPECT_EQ(t, s->free[SEG - 2], 2);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, SWIOTLB_MAX_MAPPING, 0), -1);  /* no whole segment */
	CHECK(t, s);
	/* A whole-segment mapping takes exactly one segment. */
	s = fresh(2 * SEG);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, SWIOTLB_MAX_MAPPING, 0), 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, SWIOTLB_MAX_MAPPING, 0), SEG);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 1, 0), -1);
	CHECK(t, s);
}

static void frees_merge_with_neighbours(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	u64 two = 2 * SWIOTLB_SLAB_SIZE - 100;  /* 2 slabs, under a page: no alignment */
	s64 a = swiotlb_slots_alloc(s, 0, two, 0);
	s64 b = swiotlb_slots_alloc(s, 0, two, 0);
	s64 c = swiotlb_slots_alloc(s, 0, two, 0);

	EXPECT_EQ(t, a, 0);
	EXPECT_EQ(t, b, 2);
	EXPECT_EQ(t, c, 4);
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)a));
	EXPECT_EQ(t, s->free[0], 2);            /* ends at b */
	CHECK(t, s);
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)c));
	EXPECT_EQ(t, s->free[4], SEG - 4);      /* merged with the rest of the segment */
	CHECK(t, s);
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)b));
	EXPECT_EQ(t, s->free[0], SEG);          /* one free run again */
	EXPECT_EQ(t, swiotlb_slots_used(s), 0);
	EXPECT_EQ(t, swiotlb_slots_peak(s), 6);
	CHECK(t, s);
}

static void exhaustion_then_recovery(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(2 * SEG);
	s64 got[2 * SEG];
	u32 n = 0;

	while (n < 2 * SEG && (got[n] = swiotlb_slots_alloc(s, 0, 1024, n)) >= 0)
		n++;
	EXPECT_EQ(t, n, 2 * SEG);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 1024, 0), -1);          /* full */
	EXPECT_EQ(t, swiotlb_slots_used(s), 2 * SEG);
	CHECK(t, s);
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)got[10]));
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 1024, 0), 10);        /* the one hole */
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 1024, 0), -1);
	for (u32 i = 0; i < n; i++)
		EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)got[i]));
	EXPECT_EQ(t, swiotlb_slots_used(s), 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, SWIOTLB_MAX_MAPPING, 0) >= 0, true);
	CHECK(t, s);
}

static void fragmentation_can_refuse_a_large_mapping(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	s64 got[SEG];

	for (u32 i = 0; i < SEG; i++)
		got[i] = swiotlb_slots_alloc(s, 0, 64, 0);
	for (u32 i = 0; i < SEG; i += 2)        /* every other slab free: half the pool */
		swiotlb_slots_free(s, (u32)got[i]);
	EXPECT_EQ(t, swiotlb_slots_used(s), SEG / 2);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 2 * SWIOTLB_SLAB_SIZE, 0), -1);
	EXPECT_GE(t, swiotlb_slots_alloc(s, 0, 64, 0), 0);
	CHECK(t, s);
}

static void bad_frees_are_refused(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	s64 a = swiotlb_slots_alloc(s, 0, 3 * SWIOTLB_SLAB_SIZE, 0);

	EXPECT_FALSE(t, swiotlb_slots_free(s, (u32)a + 1));         /* inside, not the start */
	EXPECT_FALSE(t, swiotlb_slots_free(s, SEG));                /* outside the pool */
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)a));
	EXPECT_FALSE(t, swiotlb_slots_free(s, (u32)a));             /* twice */
	CHECK(t, s);
}

/* --- areas (Linux 6.0) ---------------------------------------------------------- */

static void nareas_is_a_power_of_two_of_whole_segments(struct ktest *t)
{
	EXPECT_EQ(t, swiotlb_nareas(0, 512 * SEG), 1);
	EXPECT_EQ(t, swiotlb_nareas(1, 512 * SEG), 1);
	EXPECT_EQ(t, swiotlb_nareas(3, 512 * SEG), 4);     /* rounded up, as Linux */
	EXPECT_EQ(t, swiotlb_nareas(4, 512 * SEG), 4);
	EXPECT_EQ(t, swiotlb_nareas(5, 512 * SEG), 8);
	EXPECT_EQ(t, swiotlb_nareas(8, 3 * SEG), 2);       /* each area at least a segment */
	EXPECT_EQ(t, swiotlb_nareas(2, SEG), 1);
	EXPECT_EQ(t, swiotlb_nareas(5000, 1U << 20), SWIOTLB_MAX_AREAS);
}

static void areas_split_the_pool_in_whole_segments(struct ktest *t)
{
	struct swiotlb_slots *s = fresh_areas(5 * SEG, 4);

	EXPECT_EQ(t, s->nareas, 4);
	for (u32 a = 0; a < 3; a++) {
		EXPECT_EQ(t, s->areas[a].first, a * SEG);
		EXPECT_EQ(t, s->areas[a].nslabs, SEG);
	}
	EXPECT_EQ(t, s->areas[3].nslabs, 2 * SEG);           /* the last takes the rest */
	EXPECT_EQ(t, swiotlb_slots_area_of(s, 4 * SEG + 5), 3);
	EXPECT_EQ(t, swiotlb_slots_area_of(s, SEG - 1), 0);
	CHECK(t, s);
	s = fresh_areas(3 * SEG, 4);                          /* too small for 4: 2 areas */
	EXPECT_EQ(t, s->nareas, 2);
	CHECK(t, s);
}

static void each_cpu_starts_in_its_own_area(struct ktest *t)
{
	struct swiotlb_slots *s = fresh_areas(4 * SEG, 4);

	for (u32 cpu = 0; cpu < 8; cpu++) {
		s64 i = swiotlb_slots_alloc(s, cpu, 64, cpu);
		ASSERT_GE(t, i, 0);
		EXPECT_EQ(t, swiotlb_slots_area_of(s, (u32)i), cpu & 3);
		EXPECT_EQ(t, (u32)i, (cpu & 3) * SEG + cpu / 4);  /* round robin inside the area */
	}
	EXPECT_EQ(t, s->areas[2].used, 2);
	CHECK(t, s);
}

/* Fill area a with single slabs (mappings started from a): SEG of them. */
static void fill_area(struct ktest *t, struct swiotlb_slots *s, u32 a)
{
	for (u32 k = 0; k < s->areas[a].nslabs; k++)
		ASSERT_EQ(t, swiotlb_slots_area_of(s, (u32)swiotlb_slots_alloc(s, a, 64, k)), a);
}

static void a_full_area_moves_on_to_the_next(struct ktest *t)
{
	struct swiotlb_slots *s = fresh_areas(4 * SEG, 4);
	s64 i;

	fill_area(t, s, 2);
	i = swiotlb_slots_alloc(s, 2, 64, 0);           /* 2 is full: the next, 3 */
	EXPECT_EQ(t, swiotlb_slots_area_of(s, (u32)i), 3);
	fill_area(t, s, 0);
	fill_area(t, s, 1);
	i = swiotlb_slots_alloc(s, 0, 4096, 0);         /* 0, 1, 2 full: the last area serves */
	ASSERT_GE(t, i, 0);
	EXPECT_EQ(t, swiotlb_slots_area_of(s, (u32)i), 3);
	EXPECT_EQ(t, i % 2, 0);
	s = fresh_areas(4 * SEG, 4);
	fill_area(t, s, 3);
	i = swiotlb_slots_alloc(s, 3, 64, 0);           /* from the last area, wrapping to 0 */
	EXPECT_EQ(t, swiotlb_slots_area_of(s, (u32)i), 0);
	CHECK(t, s);
}

static void all_areas_full_refuse_without_moving(struct ktest *t)
{
	struct swiotlb_slots *s = fresh_areas(4 * SEG, 4);
	u32 index[4];

	for (u32 a = 0; a < 4; a++)
		fill_area(t, s, a);
	for (u32 a = 0; a < 4; a++)
		index[a] = s->areas[a].index;
	for (u32 cpu = 0; cpu < 4; cpu++)
		EXPECT_EQ(t, swiotlb_slots_alloc(s, cpu, 64, 0), -1);
	for (u32 a = 0; a < 4; a++)
		EXPECT_EQ(t, s->areas[a].index, index[a]);
	EXPECT_EQ(t, swiotlb_slots_used(s), 4 * SEG);
	ASSERT_TRUE(t, swiotlb_slots_free(s, 3 * SEG + 7));
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 1, 64, 0), 3 * SEG + 7);   /* the one hole, wherever */
	CHECK(t, s);
}

/* The early exit: an area with exactly the slabs a mapping needs is searched, not passed over. */
static void an_area_with_exactly_enough_free_serves(struct ktest *t)
{
	struct swiotlb_slots *s = fresh_areas(2 * SEG, 2);

	for (u32 k = 0; k < SEG - 1; k++)
		ASSERT_GE(t, swiotlb_slots_alloc(s, 0, 64, k), 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 64, 0), SEG - 1);       /* the last free slab of 0 */
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 64, 0), SEG);           /* then area 1 */
	ASSERT_TRUE(t, swiotlb_slots_free(s, 10));
	ASSERT_TRUE(t, swiotlb_slots_free(s, 11));
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 2 * SWIOTLB_SLAB_SIZE, 0), 10);  /* two, two free */
	CHECK(t, s);
}

static void an_unmap_claims_its_mapping_once(struct ktest *t)
{
	struct swiotlb_slots *s = fresh_areas(2 * SEG, 2);
	s64 i = swiotlb_slots_alloc(s, 1, 3000, 0x5000);
	u64 orig;
	u32 bytes;

	ASSERT_GE(t, i, 0);
	EXPECT_FALSE(t, swiotlb_slots_lookup(s, (u32)i + 1, &orig, &bytes));  /* inside, not a start */
	EXPECT_TRUE(t, swiotlb_slots_lookup(s, (u32)i, &orig, &bytes));
	EXPECT_EQ(t, orig, 0x5000);
	EXPECT_EQ(t, bytes, 3000);
	EXPECT_TRUE(t, swiotlb_slots_claim(s, (u32)i, &orig, &bytes));
	EXPECT_EQ(t, orig, 0x5000);
	EXPECT_EQ(t, bytes, 3000);
	EXPECT_FALSE(t, swiotlb_slots_claim(s, (u32)i, &orig, &bytes));  /* the second unmap loses */
	EXPECT_FALSE(t, swiotlb_slots_lookup(s, (u32)i, &orig, &bytes)); /* no sync during the unmap */
	CHECK(t, s);
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)i));
	EXPECT_FALSE(t, swiotlb_slots_claim(s, (u32)i, &orig, &bytes));  /* gone */
	EXPECT_FALSE(t, swiotlb_slots_claim(s, 2 * SEG, &orig, &bytes)); /* outside */
	EXPECT_EQ(t, swiotlb_slots_used(s), 0);
	CHECK(t, s);
}

/*
 * A map publishes its mapping with the orig store, after the slab's length
 * and bytes: in between, a stale unmap (a driver's double unmap) or a sync
 * racing it must find no mapping. Forge that moment on a slab that held a
 * mapping before: with orig 0 meaning "free", the claim took it and its
 * unmap copied to physical address 0.
 */
static void a_claim_during_a_map_finds_no_mapping(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	s64 i = swiotlb_slots_alloc(s, 0, 64, 0x7000);
	u64 orig = 0x1234;
	u32 bytes = 99;

	ASSERT_EQ(t, i, 0);
	ASSERT_TRUE(t, swiotlb_slots_free(s, 0));
	s->nslabs_at[0] = 1;                    /* what area_alloc writes before orig */
	s->bytes_at[0] = 64;
	EXPECT_FALSE(t, swiotlb_slots_claim(s, 0, &orig, &bytes));
	EXPECT_FALSE(t, swiotlb_slots_lookup(s, 0, &orig, &bytes));
	EXPECT_EQ(t, orig, 0x1234);             /* nothing handed out */
	s->nslabs_at[0] = 0;
	s->bytes_at[0] = 0;
	CHECK(t, s);
}

/* Physical address 0 is a buffer like any other: mapped, looked up, claimed, freed. */
static void a_mapping_of_physical_address_0_is_a_mapping(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	s64 i = swiotlb_slots_alloc(s, 0, 100, 0);
	u64 orig = 1;
	u32 bytes = 0;

	ASSERT_GE(t, i, 0);
	CHECK(t, s);
	EXPECT_TRUE(t, swiotlb_slots_lookup(s, (u32)i, &orig, &bytes));
	EXPECT_EQ(t, orig, 0);
	EXPECT_EQ(t, bytes, 100);
	orig = 1;
	EXPECT_TRUE(t, swiotlb_slots_claim(s, (u32)i, &orig, &bytes));
	EXPECT_EQ(t, orig, 0);
	EXPECT_FALSE(t, swiotlb_slots_claim(s, (u32)i, &orig, &bytes));
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)i));
	EXPECT_FALSE(t, swiotlb_slots_lookup(s, (u32)i, &orig, &bytes));
	EXPECT_EQ(t, swiotlb_slots_used(s), 0);
	CHECK(t, s);
}

/* --- per-node pools (testbed's own) --------------------------------------------- */

static void pernode_places_a_pool_on_every_low_node(struct ktest *t)
{
	struct swiotlb_placement p[MAX_NODES];
	int pool_node[MAX_NODES];
	u8 order[MAX_NODES];

	bootmem_init(bm);                       /* wide: node 3 above 4 GiB */
	bootmem_add_memory(bm, 0, 1 * GiB, 0);
	bootmem_add_memory(bm, 1 * GiB, 2 * GiB, 1);
	bootmem_add_memory(bm, 2 * GiB, 3 * GiB, 2);
	bootmem_add_memory(bm, 4 * GiB, 5 * GiB, 3);
	bootmem_reserve(bm, 0, 1 * MiB);
	flat_distances(4);
	dist[3][2] = 15, dist[2][3] = 15;       /* node 3 sits next to node 2 */
	u32 n = swiotlb_place_per_node(bm, 4, dist, 0, 64 * MiB, p);
	ASSERT_EQ(t, n, 3);
	for (u32 i = 0; i < n; i++) {
		EXPECT_EQ(t, p[i].node, (int)i);        /* boot node first, then by distance */
		EXPECT_EQ(t, p[i].base, (i + 1) * GiB - 64 * MiB);     /* top-down */
		pool_node[i] = p[i].node;
	}
	EXPECT_EQ(t, swiotlb_pool_order(4, dist, 1, 0, pool_node, n, order), 3);
	EXPECT_EQ(t, order[0], 1);              /* its own node's pool first */
	EXPECT_EQ(t, order[1], 0);
	EXPECT_EQ(t, order[2], 2);
	swiotlb_pool_order(4, dist, 3, 0, pool_node, n, order);
	EXPECT_EQ(t, order[0], 2);              /* node 3 has no pool: the nearest by SLIT */
	swiotlb_pool_order(4, dist, NODE_ANY, 0, pool_node, n, order);
	EXPECT_EQ(t, order[0], 0);              /* no node: the boot CPU's */
	story();                                /* story: only node 1 has memory below 4 GiB */
	ASSERT_EQ(t, swiotlb_place_per_node(bm, 3, dist, 0, 64 * MiB, p), 1);
	EXPECT_EQ(t, p[0].node, 1);
	bootmem_init(bm);
	bootmem_add_memory(bm, 4 * GiB, 6 * GiB, 0);
	EXPECT_EQ(t, swiotlb_place_per_node(bm, 1, dist, 0, 64 * MiB, p), 0);
	EXPECT_STREQ(t, p[0].failed, "no node has room below 4 GiB");
}

/* Random map/unmap from random CPUs against a model: which slabs each live mapping owns. */
static void random_run_matches_a_model(struct ktest *t)
{
	enum { SLABS = 4 * SEG, LIVE = 64 };
	struct swiotlb_slots *s = fresh_areas(SLABS, 4);
	static u8 owner[SLABS];         /* 0 free, else 1 + index in live[] */
	s64 live[LIVE];
	u32 seed = 12345, fails = 0;

	memset(owner, 0, sizeof(owner));
	for (u32 k = 0; k < LIVE; k++)
		live[k] = -1;
	for (u32 step = 0; step < 20000; step++) {
		seed = seed * 1103515245 + 12345;
		u32 k = (seed >> 8) % LIVE;
		if (live[k] >= 0) {
			u32 first = (u32)live[k], n = s->nslabs_at[first];
			ASSERT_TRUE(t, swiotlb_slots_free(s, first));
			for (u32 j = first; j < first + n; j++) {
				ASSERT_EQ(t, owner[j], k + 1);
				owner[j] = 0;
			}
			live[k] = -1;
		} else {
			u64 size = 1 + (seed >> 12) % (16 * SWIOTLB_SLAB_SIZE);
			s64 i = swiotlb_slots_alloc(s, seed >> 29, size, k);      /* from any CPU */
			if (i < 0) {
				fails++;
				continue;
			}
			u32 n = s->nslabs_at[i];
			ASSERT_EQ(t, (u64)n, (size + SWIOTLB_SLAB_SIZE - 1) / SWIOTLB_SLAB_SIZE);
			ASSERT_TRUE(t, size < 4096 || i % 2 == 0);
			ASSERT_EQ(t, i / SEG, (i + n - 1) / SEG);
			for (u32 j = (u32)i; j < (u32)i + n; j++) {
				ASSERT_EQ(t, owner[j], 0);      /* never handed out twice */
				owner[j] = (u8)(k + 1);
			}
			live[k] = i;
		}
		const char *why = swiotlb_slots_check(s);
		if (why) {              /* name the broken invariant */
			ktest_check(t, false, __FILE__, __LINE__, why);
			return;
		}
	}
	EXPECT_LT(t, fails, 20000u);
}

static const struct ktest_case swiotlb_pool_cases[] = {
	KTEST(story_rc5_lands_low_on_node1),
	KTEST(story_rc4_lands_above_4g_on_node2),
	KTEST(story_node0_falls_back_above_4g),
	KTEST(story_low_takes_the_top_below_4g),
	KTEST(story_nearest_lands_below_4g_on_node1),
	KTEST(wide_each_policy_picks_its_node),
	KTEST(one_node_every_policy_below_4g),
	KTEST(nearest_follows_slit_distance),
	KTEST(nothing_fits),
	KTEST(fresh_pool_is_whole_segments),
	KTEST(sizes_round_up_to_slabs),
	KTEST(page_sized_mappings_are_page_aligned),
	KTEST(no_mapping_crosses_a_segment),
	KTEST(frees_merge_with_neighbours),
	KTEST(exhaustion_then_recovery),
	KTEST(fragmentation_can_refuse_a_large_mapping),
	KTEST(bad_frees_are_refused),
	KTEST(nareas_is_a_power_of_two_of_whole_segments),
	KTEST(areas_split_the_pool_in_whole_segments),
	KTEST(each_cpu_starts_in_its_own_area),
	KTEST(a_full_area_moves_on_to_the_next),
	KTEST(all_areas_full_refuse_without_moving),
	KTEST(an_area_with_exactly_enough_free_serves),
	KTEST(an_unmap_claims_its_mapping_once),
	KTEST(a_claim_during_a_map_finds_no_mapping),
	KTEST(a_mapping_of_physical_address_0_is_a_mapping),
	KTEST(pernode_places_a_pool_on_every_low_node),
	KTEST(random_run_matches_a_model),
	{},
};
KTEST_SUITE(swiotlb_pool, swiotlb_pool_cases);
