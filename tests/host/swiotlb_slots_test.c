/*
 * swiotlb_slots_test.c - kernel/swiotlb_slots.c on the host: a fresh pool,
 * sizes to slabs, page alignment, segment edges, merging on free,
 * exhaustion and recovery, bad frees, and a random run checked against a
 * slab-by-slab model after every step.
 */
#include <stdlib.h>
#include <string.h>

#include "ktest.h"
#include "swiotlb_slots.h"
#include "host.h"

#define SEG SWIOTLB_SEGSIZE

static struct swiotlb_slots pool;
static void *arrays;

static struct swiotlb_slots *fresh(u32 nslabs)
{
	free(arrays);
	arrays = calloc(1, swiotlb_slots_array_bytes(nslabs) + 8);
	swiotlb_slots_init(&pool, nslabs, arrays);
	return &pool;
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
	EXPECT_EQ(t, swiotlb_slots_init(&pool, SEG - 1, arrays), 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(&pool, 64, 0), -1);
}

static void sizes_round_up_to_slabs(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);

	EXPECT_EQ(t, swiotlb_slots_alloc(s, 1, 0x1000), 0);
	EXPECT_EQ(t, s->nslabs_at[0], 1);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, SWIOTLB_SLAB_SIZE + 1, 0x2000), 1);
	EXPECT_EQ(t, s->nslabs_at[1], 2);
	EXPECT_EQ(t, s->orig[1], 0x2000);
	EXPECT_EQ(t, s->used, 3);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 0, 0), -1);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, SWIOTLB_MAX_MAPPING + 1, 0), -1);
	CHECK(t, s);
}

static void page_sized_mappings_are_page_aligned(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(2 * SEG);

	EXPECT_EQ(t, swiotlb_slots_alloc(s, 64, 0), 0);            /* slab 0 */
	s64 i = swiotlb_slots_alloc(s, 4096, 0);                    /* not slab 1: odd */
	EXPECT_EQ(t, i, 2);
	i = swiotlb_slots_alloc(s, 3 * 4096, 0);
	EXPECT_EQ(t, i % 2, 0);
	CHECK(t, s);
}

static void no_mapping_crosses_a_segment(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(2 * SEG);

	EXPECT_EQ(t, swiotlb_slots_alloc(s, (SEG - 2) * SWIOTLB_SLAB_SIZE, 0), 0);
	/* 4 slabs do not fit in the 2 left in segment 0: they go to segment 1. */
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 4 * SWIOTLB_SLAB_SIZE, 0), SEG);
	EXPECT_EQ(t, s->free[SEG - 2], 2);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, SWIOTLB_MAX_MAPPING, 0), -1);  /* no whole segment */
	CHECK(t, s);
	/* A whole-segment mapping takes exactly one segment. */
	s = fresh(2 * SEG);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, SWIOTLB_MAX_MAPPING, 0), 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, SWIOTLB_MAX_MAPPING, 0), SEG);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 1, 0), -1);
	CHECK(t, s);
}

static void frees_merge_with_neighbours(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	u64 two = 2 * SWIOTLB_SLAB_SIZE - 100;  /* 2 slabs, under a page: no alignment */
	s64 a = swiotlb_slots_alloc(s, two, 0);
	s64 b = swiotlb_slots_alloc(s, two, 0);
	s64 c = swiotlb_slots_alloc(s, two, 0);

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
	EXPECT_EQ(t, s->used, 0);
	EXPECT_EQ(t, s->peak, 6);
	CHECK(t, s);
}

static void exhaustion_then_recovery(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(2 * SEG);
	s64 got[2 * SEG];
	u32 n = 0;

	while (n < 2 * SEG && (got[n] = swiotlb_slots_alloc(s, 1024, n)) >= 0)
		n++;
	EXPECT_EQ(t, n, 2 * SEG);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 1024, 0), -1);          /* full */
	EXPECT_EQ(t, s->used, 2 * SEG);
	CHECK(t, s);
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)got[10]));
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 1024, 0), 10);        /* the one hole */
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 1024, 0), -1);
	for (u32 i = 0; i < n; i++)
		EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)got[i]));
	EXPECT_EQ(t, s->used, 0);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, SWIOTLB_MAX_MAPPING, 0) >= 0, true);
	CHECK(t, s);
}

static void fragmentation_can_refuse_a_large_mapping(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	s64 got[SEG];

	for (u32 i = 0; i < SEG; i++)
		got[i] = swiotlb_slots_alloc(s, 64, 0);
	for (u32 i = 0; i < SEG; i += 2)        /* every other slab free: half the pool */
		swiotlb_slots_free(s, (u32)got[i]);
	EXPECT_EQ(t, s->used, SEG / 2);
	EXPECT_EQ(t, swiotlb_slots_alloc(s, 2 * SWIOTLB_SLAB_SIZE, 0), -1);
	EXPECT_GE(t, swiotlb_slots_alloc(s, 64, 0), 0);
	CHECK(t, s);
}

static void bad_frees_are_refused(struct ktest *t)
{
	struct swiotlb_slots *s = fresh(SEG);
	s64 a = swiotlb_slots_alloc(s, 3 * SWIOTLB_SLAB_SIZE, 0);

	EXPECT_FALSE(t, swiotlb_slots_free(s, (u32)a + 1));         /* inside, not the start */
	EXPECT_FALSE(t, swiotlb_slots_free(s, SEG));                /* outside the pool */
	EXPECT_TRUE(t, swiotlb_slots_free(s, (u32)a));
	EXPECT_FALSE(t, swiotlb_slots_free(s, (u32)a));             /* twice */
	CHECK(t, s);
}

/* Random map/unmap against a model: which slabs each live mapping owns. */
static void random_run_matches_a_model(struct ktest *t)
{
	enum { SLABS = 4 * SEG, LIVE = 64 };
	struct swiotlb_slots *s = fresh(SLABS);
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
			s64 i = swiotlb_slots_alloc(s, size, k);
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

static const struct ktest_case swiotlb_slots_cases[] = {
	KTEST(fresh_pool_is_whole_segments),
	KTEST(sizes_round_up_to_slabs),
	KTEST(page_sized_mappings_are_page_aligned),
	KTEST(no_mapping_crosses_a_segment),
	KTEST(frees_merge_with_neighbours),
	KTEST(exhaustion_then_recovery),
	KTEST(fragmentation_can_refuse_a_large_mapping),
	KTEST(bad_frees_are_refused),
	KTEST(random_run_matches_a_model),
	{},
};
KTEST_SUITE(swiotlb_slots, swiotlb_slots_cases);
