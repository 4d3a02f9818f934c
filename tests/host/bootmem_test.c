// SPDX-License-Identifier: MIT
/*
 * bootmem_test.c - kernel/bootmem.c on the host: the two range lists
 * (merging, sorting, first claim wins, full lists refused), allocation
 * (top-down, inside the node, below max_addr, aligned, never address 0,
 * exhaustion), freeing, the free-range walk, then a random run checked
 * against a page-by-page model, and the swiotlb placement policies of the
 * story on QEMU's `story` layout.
 *
 * A struct bootmem is about 12 KiB, so the two used here are calloc'd once
 * and reset by each case.
 */
#include <stdlib.h>
#include <string.h>

#include "bootmem.h"
#include "ktest.h"
#include "vm.h"
#include "host.h"

#define KiB (1UL << 10)
#define MiB (1UL << 20)
#define GiB (1UL << 30)

static struct bootmem *bm, *other;

/* A freshly initialised bootmem (page 0 reserved, nothing else) and a clear log. */
static struct bootmem *fresh(void)
{
	if (!bm)
		bm = calloc(1, sizeof(*bm));
	if (!other)
		other = calloc(1, sizeof(*other));
	bootmem_init(bm);
	host_log_clear();
	return bm;
}

/* The free ranges, as next_free walks them, into out[]; their number. */
static u32 free_ranges(const struct bootmem *b, struct bootmem_range *out, u32 max)
{
	struct bootmem_range f;
	u64 cursor = 0;
	u32 n = 0;

	while (bootmem_next_free(b, &cursor, &f) && n < max)
		out[n++] = f;
	return n;
}

static bool reserved_is(const struct bootmem *b, u32 i, u64 base, u64 end)
{
	return i < b->nreserved && b->reserved[i].base == base && b->reserved[i].end == end;
}

/* --- the lists ------------------------------------------------------------------ */

static void init_reserves_page_zero(struct ktest *t)
{
	struct bootmem *b = fresh();

	EXPECT_EQ(t, b->nmemory, 0);
	EXPECT_EQ(t, b->nreserved, 1);
	EXPECT_TRUE(t, reserved_is(b, 0, 0, PAGE_SIZE));
}

static void reserve_merges_overlapping(struct ktest *t)
{
	struct bootmem *b = fresh();

	EXPECT_TRUE(t, bootmem_reserve(b, 1 * MiB, 2 * MiB));
	EXPECT_TRUE(t, bootmem_reserve(b, 1 * MiB + 512 * KiB, 3 * MiB));
	EXPECT_EQ(t, b->nreserved, 2);
	EXPECT_TRUE(t, reserved_is(b, 1, 1 * MiB, 3 * MiB));
}

static void reserve_merges_adjacent(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_reserve(b, 1 * MiB, 2 * MiB);
	bootmem_reserve(b, 2 * MiB, 3 * MiB);
	bootmem_reserve(b, 512 * KiB, 1 * MiB);
	EXPECT_EQ(t, b->nreserved, 2);
	EXPECT_TRUE(t, reserved_is(b, 1, 512 * KiB, 3 * MiB));
}

static void reserve_bridges_several(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_reserve(b, 1 * MiB, 2 * MiB);
	bootmem_reserve(b, 3 * MiB, 4 * MiB);
	bootmem_reserve(b, 5 * MiB, 6 * MiB);
	ASSERT_EQ(t, b->nreserved, 4);
	bootmem_reserve(b, 1 * MiB + 1, 5 * MiB);
	EXPECT_EQ(t, b->nreserved, 2);
	EXPECT_TRUE(t, reserved_is(b, 1, 1 * MiB, 6 * MiB));
}

static void reserve_keeps_disjoint_sorted(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_reserve(b, 5 * MiB, 6 * MiB);
	bootmem_reserve(b, 1 * MiB, 2 * MiB);
	bootmem_reserve(b, 3 * MiB, 4 * MiB);
	ASSERT_EQ(t, b->nreserved, 4);
	EXPECT_TRUE(t, reserved_is(b, 1, 1 * MiB, 2 * MiB));
	EXPECT_TRUE(t, reserved_is(b, 2, 3 * MiB, 4 * MiB));
	EXPECT_TRUE(t, reserved_is(b, 3, 5 * MiB, 6 * MiB));
}

static void reserve_empty_range_is_noop(struct ktest *t)
{
	struct bootmem *b = fresh();

	EXPECT_TRUE(t, bootmem_reserve(b, 1 * MiB, 1 * MiB));
	EXPECT_EQ(t, b->nreserved, 1);
}

/* Fill the reserved list with separate ranges (page 0 is the first). */
static void fill_reserved(struct bootmem *b)
{
	for (u64 i = 1; b->nreserved < BOOTMEM_MAX_RANGES; i++)
		bootmem_reserve(b, i * 2 * PAGE_SIZE, i * 2 * PAGE_SIZE + PAGE_SIZE);
}

static void reserve_full_list_refused(struct ktest *t)
{
	struct bootmem *b = fresh();

	fill_reserved(b);
	ASSERT_EQ(t, b->nreserved, BOOTMEM_MAX_RANGES);
	host_log_clear();
	EXPECT_FALSE(t, bootmem_reserve(b, 1 * GiB, 1 * GiB + PAGE_SIZE));
	EXPECT_EQ(t, b->nreserved, BOOTMEM_MAX_RANGES);
	EXPECT_TRUE(t, host_log_has("bootmem: reserved list full"));
	/* Growing an existing range needs no slot: still fine. */
	EXPECT_TRUE(t, bootmem_reserve(b, 3 * PAGE_SIZE, 4 * PAGE_SIZE));
	EXPECT_EQ(t, b->nreserved, BOOTMEM_MAX_RANGES - 1);
}

static void add_memory_sorts_and_merges_per_node(struct ktest *t)
{
	struct bootmem *b = fresh();

	EXPECT_TRUE(t, bootmem_add_memory(b, 2 * GiB, 3 * GiB, 0));
	EXPECT_TRUE(t, bootmem_add_memory(b, 1 * GiB, 2 * GiB, 0));
	EXPECT_TRUE(t, bootmem_add_memory(b, 3 * GiB, 4 * GiB, 1));
	ASSERT_EQ(t, b->nmemory, 2);
	EXPECT_EQ(t, b->memory[0].base, 1 * GiB);
	EXPECT_EQ(t, b->memory[0].end, 3 * GiB);
	EXPECT_EQ(t, b->memory[0].node, 0);
	EXPECT_EQ(t, b->memory[1].base, 3 * GiB);
	EXPECT_EQ(t, b->memory[1].node, 1);
	EXPECT_STREQ(t, host_log(), "");
}

static void add_memory_fills_gap_between_two(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 1 * GiB, 2);
	bootmem_add_memory(b, 2 * GiB, 3 * GiB, 2);
	bootmem_add_memory(b, 1 * GiB, 2 * GiB, 2);
	ASSERT_EQ(t, b->nmemory, 1);
	EXPECT_EQ(t, b->memory[0].end, 3 * GiB);
}

static void add_memory_overlap_first_claim_wins(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 2 * GiB, 1);
	EXPECT_TRUE(t, bootmem_add_memory(b, 1 * GiB, 3 * GiB, 2));
	EXPECT_EQ(t, b->nmemory, 2);
	EXPECT_EQ(t, bootmem_node_of(b, 1 * GiB + 5), 1);
	EXPECT_EQ(t, bootmem_node_of(b, 2 * GiB - 1), 1);
	EXPECT_EQ(t, bootmem_node_of(b, 2 * GiB), 2);
	EXPECT_TRUE(t, host_log_has("bootmem: 0x40000000-0x80000000 for node 2 is already node 1's; "
				    "the first claim wins"));
}

static void add_memory_over_existing_keeps_both_sides(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * GiB, 2 * GiB, 1);
	bootmem_add_memory(b, 3 * GiB, 4 * GiB, 1);
	EXPECT_TRUE(t, bootmem_add_memory(b, 0, 5 * GiB, 2));
	ASSERT_EQ(t, b->nmemory, 5);
	EXPECT_EQ(t, bootmem_node_of(b, 0), 2);
	EXPECT_EQ(t, bootmem_node_of(b, 1 * GiB), 1);
	EXPECT_EQ(t, bootmem_node_of(b, 2 * GiB), 2);
	EXPECT_EQ(t, bootmem_node_of(b, 3 * GiB), 1);
	EXPECT_EQ(t, bootmem_node_of(b, 4 * GiB), 2);
	EXPECT_EQ(t, bootmem_node_of(b, 5 * GiB), -1);
	EXPECT_EQ(t, host_log_count("the first claim wins"), 2);
}

static void add_memory_inside_existing_adds_nothing(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 4 * GiB, 0);
	EXPECT_TRUE(t, bootmem_add_memory(b, 1 * GiB, 2 * GiB, 1));
	EXPECT_EQ(t, b->nmemory, 1);
	EXPECT_EQ(t, bootmem_node_of(b, 1 * GiB), 0);
	EXPECT_TRUE(t, host_log_has("the first claim wins"));
}

static void add_memory_full_list_refused(struct ktest *t)
{
	struct bootmem *b = fresh();

	for (u64 i = 0; i < BOOTMEM_MAX_RANGES; i++)
		ASSERT_TRUE(t, bootmem_add_memory(b, i * 2 * MiB, i * 2 * MiB + MiB, 0));
	EXPECT_FALSE(t, bootmem_add_memory(b, 1 * GiB, 2 * GiB, 0));
	EXPECT_EQ(t, b->nmemory, BOOTMEM_MAX_RANGES);
	EXPECT_EQ(t, bootmem_node_of(b, 1 * GiB), -1);
	EXPECT_TRUE(t, host_log_has("bootmem: memory list full"));
	/* Joining a neighbour needs no slot. */
	EXPECT_TRUE(t, bootmem_add_memory(b, MiB, 2 * MiB, 0));
	EXPECT_EQ(t, b->nmemory, BOOTMEM_MAX_RANGES - 1);
}

static void add_memory_bad_arguments_refused(struct ktest *t)
{
	struct bootmem *b = fresh();

	EXPECT_FALSE(t, bootmem_add_memory(b, 0, GiB, -1));
	EXPECT_FALSE(t, bootmem_add_memory(b, 0, GiB, MAX_NODES));
	EXPECT_FALSE(t, bootmem_add_memory(b, 2 * GiB, GiB, 0));
	EXPECT_TRUE(t, bootmem_add_memory(b, GiB, GiB, 0));
	EXPECT_EQ(t, b->nmemory, 0);
	EXPECT_EQ(t, host_log_count("bootmem: "), 3);
}

static void node_of_finds_owner(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 3 * GiB, 1);
	bootmem_add_memory(b, 4 * GiB, 7 * GiB, 2);
	EXPECT_EQ(t, bootmem_node_of(b, 0), 1);
	EXPECT_EQ(t, bootmem_node_of(b, 3 * GiB - 1), 1);
	EXPECT_EQ(t, bootmem_node_of(b, 3 * GiB), -1);
	EXPECT_EQ(t, bootmem_node_of(b, 4 * GiB), 2);
	EXPECT_EQ(t, bootmem_node_of(b, 7 * GiB), -1);
}

/* --- allocation ------------------------------------------------------------------ */

static void alloc_is_top_down(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB, 0);
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 1 * GiB - PAGE_SIZE);
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT),
		  1 * GiB - 2 * PAGE_SIZE);
}

/* 2.6's bootmem scan: the lowest gap that fits, skipping reservations and small gaps. */
static void bottom_up_takes_the_lowest_fit(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 1 * GiB, 0);
	bootmem_reserve(b, 1 * MiB, 2 * MiB);
	bootmem_reserve(b, 2 * MiB + 64 * KiB, 8 * MiB);        /* a 64 KiB gap between */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, PAGE_SIZE, PAGE_SIZE, 0, 0, BOOTMEM_NO_LIMIT),
		  PAGE_SIZE);                                   /* page 0 is always reserved */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 64 * KiB, PAGE_SIZE, 0, 1 * MiB, BOOTMEM_NO_LIMIT),
		  2 * MiB);                                     /* the gap, from the goal up */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 1 * MiB, PAGE_SIZE, 0, 0, BOOTMEM_NO_LIMIT),
		  8 * MiB);                                     /* too big for what is left below */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 16 * KiB, 16 * KiB, 0, 0, BOOTMEM_NO_LIMIT),
		  16 * KiB);                                    /* aligned, in the first gap */
}

/* A goal past every fit: the scan restarts from the bottom, as __alloc_bootmem_core() did. */
static void bottom_up_goal_then_restart(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 64 * MiB, 0);
	bootmem_add_memory(b, 4 * GiB, 5 * GiB, 1);
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 1 * MiB, PAGE_SIZE, 0, 16 * MiB, BOOTMEM_NO_LIMIT),
		  16 * MiB);
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 8 * MiB, PAGE_SIZE, 0, 60 * MiB, BOOTMEM_NO_LIMIT),
		  PAGE_SIZE);                                   /* nothing from 60 MiB: restart */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 1 * MiB, PAGE_SIZE, 1, 16 * MiB, BOOTMEM_NO_LIMIT),
		  4 * GiB);                                     /* a goal below the node: its start */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 1 * MiB, PAGE_SIZE, 1, 0, 4 * GiB), 0); /* the limit */
	EXPECT_EQ(t, bootmem_alloc_bottom_up(b, 64 * MiB, PAGE_SIZE, 0, 0, BOOTMEM_NO_LIMIT), 0);
}

static void alloc_reserves_what_it_returns(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB, 0);
	u64 before = bootmem_free_bytes(b, NODE_ANY, BOOTMEM_NO_LIMIT);
	u64 pa = bootmem_alloc(b, 3 * MiB + 5, 8, 0, BOOTMEM_NO_LIMIT);

	ASSERT_NE(t, pa, 0);
	EXPECT_EQ(t, bootmem_free_bytes(b, NODE_ANY, BOOTMEM_NO_LIMIT), before - (3 * MiB + 5));
	EXPECT_TRUE(t, reserved_is(b, 1, pa, pa + 3 * MiB + 5));
}

static void alloc_honours_alignment(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB - 12345, 0);
	u64 pa = bootmem_alloc(b, PAGE_SIZE + 1, 2 * MiB, 0, BOOTMEM_NO_LIMIT);

	EXPECT_EQ(t, pa, 1 * GiB - 2 * MiB);
	EXPECT_TRUE(t, IS_ALIGNED(pa, 2 * MiB));
	pa = bootmem_alloc(b, 64, 64, 0, BOOTMEM_NO_LIMIT);
	EXPECT_EQ(t, pa, ALIGN_DOWN(1 * GiB - 12345 - 64, 64UL));
}

static void alloc_align_zero_means_bytes(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 2 * MiB - 1, 0);
	EXPECT_EQ(t, bootmem_alloc(b, 3, 0, 0, BOOTMEM_NO_LIMIT), 2 * MiB - 4);
}

static void alloc_bad_alignment_refused(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB, 0);
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, 3 * PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 0);
	EXPECT_EQ(t, bootmem_alloc(b, 0, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 0);
	EXPECT_EQ(t, host_log_count("bootmem: bad request"), 2);
	EXPECT_EQ(t, b->nreserved, 1);
}

static void alloc_stays_below_max_addr(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB, 0);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, 512 * MiB), 511 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, 512 * MiB + 1), 510 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, 2 * MiB), 1 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, 2 * MiB), 0);
}

static void alloc_skips_reserved_ranges(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 64 * MiB, 0);
	bootmem_reserve(b, 60 * MiB, 64 * MiB);
	bootmem_reserve(b, 50 * MiB, 55 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 42 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 4 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 56 * MiB);
}

static void alloc_stays_on_its_node(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB, 0);
	bootmem_add_memory(b, 1 * GiB, 2 * GiB, 1);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 1 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 1, BOOTMEM_NO_LIMIT), 2 * GiB - 1 * MiB);
	/* Never across the node boundary, although the addresses are contiguous. */
	EXPECT_EQ(t, bootmem_alloc(b, 2 * GiB - 4 * MiB, PAGE_SIZE, NODE_ANY, BOOTMEM_NO_LIMIT), 0);
}

static void alloc_walks_a_nodes_ranges_downwards(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * GiB, 1 * GiB + 16 * MiB, 1);
	bootmem_add_memory(b, 2 * GiB, 2 * GiB + 16 * MiB, 0);
	bootmem_add_memory(b, 3 * GiB, 3 * GiB + 16 * MiB, 1);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 1, BOOTMEM_NO_LIMIT), 3 * GiB + 8 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 1, BOOTMEM_NO_LIMIT), 3 * GiB);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 1, BOOTMEM_NO_LIMIT), 1 * GiB + 8 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 1, BOOTMEM_NO_LIMIT), 1 * GiB);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 1, BOOTMEM_NO_LIMIT), 0);
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), 16 * MiB);
}

static void alloc_node_any_takes_highest(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 1 * GiB, 3);
	bootmem_add_memory(b, 4 * GiB, 5 * GiB, 1);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, NODE_ANY, BOOTMEM_NO_LIMIT),
		  5 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, NODE_ANY, 4 * GiB), 1 * GiB - 1 * MiB);
}

static void alloc_until_exhausted(struct ktest *t)
{
	struct bootmem *b = fresh();
	u32 n = 0;

	bootmem_add_memory(b, 0, 16 * MiB, 0);
	while (bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT))
		n++;
	EXPECT_EQ(t, n, 15);    /* the lowest MiB holds page 0 */
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), 1 * MiB - PAGE_SIZE);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB - PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), PAGE_SIZE);
	EXPECT_EQ(t, bootmem_alloc(b, 1, 1, 0, BOOTMEM_NO_LIMIT), 0);
	EXPECT_EQ(t, bootmem_free_bytes(b, NODE_ANY, BOOTMEM_NO_LIMIT), 0);
}

static void alloc_on_memoryless_node_fails(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 1 * GiB, 1);
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 0);
	EXPECT_EQ(t, b->nreserved, 1);
}

static void alloc_never_returns_page_zero(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 2 * PAGE_SIZE, 0);
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), PAGE_SIZE);
	bootmem_free(b, 0, PAGE_SIZE);
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), PAGE_SIZE);
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 0);
}

static void alloc_fails_when_reserved_list_full(struct ktest *t)
{
	struct bootmem *b = fresh();

	u64 last_end;

	bootmem_add_memory(b, 0, 1 * GiB, 0);
	fill_reserved(b);
	last_end = b->reserved[BOOTMEM_MAX_RANGES - 1].end;
	host_log_clear();
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 0);
	EXPECT_TRUE(t, host_log_has("bootmem: reserved list full"));
	/* A block right above a reservation merges into it: that still works. */
	EXPECT_EQ(t, bootmem_alloc(b, PAGE_SIZE, PAGE_SIZE, 0, last_end + PAGE_SIZE), last_end);
	EXPECT_EQ(t, b->nreserved, BOOTMEM_MAX_RANGES);
}

/* --- freeing ---------------------------------------------------------------------- */

static void free_makes_space_reusable(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 1 * MiB, 64 * MiB, 0);
	u64 a = bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT);
	u64 c = bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT);

	ASSERT_EQ(t, a, 56 * MiB);
	ASSERT_EQ(t, c, 48 * MiB);
	bootmem_free(b, a, 8 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), 63 * MiB - 8 * MiB);
	EXPECT_EQ(t, bootmem_alloc(b, 8 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), a);
}

static void free_splits_a_reservation(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_reserve(b, 1 * MiB, 4 * MiB);
	bootmem_free(b, 2 * MiB, 1 * MiB);
	ASSERT_EQ(t, b->nreserved, 3);
	EXPECT_TRUE(t, reserved_is(b, 1, 1 * MiB, 2 * MiB));
	EXPECT_TRUE(t, reserved_is(b, 2, 3 * MiB, 4 * MiB));
}

static void free_trims_and_removes(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_reserve(b, 1 * MiB, 2 * MiB);
	bootmem_reserve(b, 3 * MiB, 4 * MiB);
	bootmem_reserve(b, 5 * MiB, 6 * MiB);
	bootmem_free(b, 1 * MiB + 512 * KiB, 4 * MiB);
	ASSERT_EQ(t, b->nreserved, 3);
	EXPECT_TRUE(t, reserved_is(b, 1, 1 * MiB, 1 * MiB + 512 * KiB));
	EXPECT_TRUE(t, reserved_is(b, 2, 5 * MiB + 512 * KiB, 6 * MiB));
}

static void free_of_unreserved_is_noop(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_reserve(b, 1 * MiB, 2 * MiB);
	bootmem_free(b, 4 * MiB, 1 * MiB);
	bootmem_free(b, 1 * MiB, 0);
	EXPECT_EQ(t, b->nreserved, 2);
	EXPECT_TRUE(t, reserved_is(b, 1, 1 * MiB, 2 * MiB));
}

static void free_split_with_full_list_keeps_reservation(struct ktest *t)
{
	struct bootmem *b = fresh();

	fill_reserved(b);
	host_log_clear();
	bootmem_free(b, 2 * PAGE_SIZE, 1);      /* trims the front: needs no slot */
	EXPECT_EQ(t, b->nreserved, BOOTMEM_MAX_RANGES);
	EXPECT_TRUE(t, reserved_is(b, 1, 2 * PAGE_SIZE + 1, 3 * PAGE_SIZE));
	EXPECT_FALSE(t, host_log_has("stays reserved"));
	bootmem_free(b, 4 * PAGE_SIZE + 1, 1);  /* would split in two: refused */
	EXPECT_TRUE(t, host_log_has("stays reserved"));
	EXPECT_TRUE(t, reserved_is(b, 2, 4 * PAGE_SIZE, 5 * PAGE_SIZE));
}

/* --- free ranges ------------------------------------------------------------------ */

static void next_free_in_address_order(struct ktest *t)
{
	struct bootmem *b = fresh();
	struct bootmem_range f[8];

	bootmem_add_memory(b, 4 * GiB, 5 * GiB, 1);
	bootmem_add_memory(b, 0, 1 * GiB, 0);
	bootmem_reserve(b, 0, 1 * MiB);
	bootmem_reserve(b, 2 * MiB, 3 * MiB);
	ASSERT_EQ(t, free_ranges(b, f, 8), 3);
	EXPECT_EQ(t, f[0].base, 1 * MiB);
	EXPECT_EQ(t, f[0].end, 2 * MiB);
	EXPECT_EQ(t, f[1].base, 3 * MiB);
	EXPECT_EQ(t, f[1].end, 1 * GiB);
	EXPECT_EQ(t, f[1].node, 0);
	EXPECT_EQ(t, f[2].base, 4 * GiB);
	EXPECT_EQ(t, f[2].end, 5 * GiB);
	EXPECT_EQ(t, f[2].node, 1);
}

static void next_free_never_spans_nodes(struct ktest *t)
{
	struct bootmem *b = fresh();
	struct bootmem_range f[4];

	bootmem_add_memory(b, 1 * MiB, 2 * GiB, 0);
	bootmem_add_memory(b, 2 * GiB, 4 * GiB, 1);
	ASSERT_EQ(t, free_ranges(b, f, 4), 2);
	EXPECT_EQ(t, f[0].end, 2 * GiB);
	EXPECT_EQ(t, f[0].node, 0);
	EXPECT_EQ(t, f[1].base, 2 * GiB);
	EXPECT_EQ(t, f[1].node, 1);
}

static void next_free_reservation_across_nodes(struct ktest *t)
{
	struct bootmem *b = fresh();
	struct bootmem_range f[4];

	bootmem_add_memory(b, 1 * MiB, 2 * GiB, 0);
	bootmem_add_memory(b, 2 * GiB, 4 * GiB, 1);
	bootmem_reserve(b, 1 * GiB, 3 * GiB);
	ASSERT_EQ(t, free_ranges(b, f, 4), 2);
	EXPECT_EQ(t, f[0].end, 1 * GiB);
	EXPECT_EQ(t, f[1].base, 3 * GiB);
	EXPECT_EQ(t, f[1].node, 1);
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), 1 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, 1, BOOTMEM_NO_LIMIT), 1 * GiB);
}

static void next_free_empty_when_all_reserved(struct ktest *t)
{
	struct bootmem *b = fresh();
	struct bootmem_range f[1];

	bootmem_add_memory(b, 1 * MiB, 2 * MiB, 0);
	bootmem_reserve(b, 0, 4 * MiB);
	EXPECT_EQ(t, free_ranges(b, f, 1), 0);
	EXPECT_EQ(t, free_ranges(fresh(), f, 1), 0);
}

static void free_bytes_by_node_and_limit(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 3 * GiB, 1);
	bootmem_add_memory(b, 4 * GiB, 7 * GiB, 2);
	bootmem_reserve(b, 0, 1 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, NODE_ANY, BOOTMEM_NO_LIMIT), 6 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, NODE_ANY, 4 * GiB), 3 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, 2, 5 * GiB), 1 * GiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, 1, 2 * GiB), 2 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), 0);
}

static void copy_is_independent(struct ktest *t)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 1 * GiB, 0);
	*other = *b;
	EXPECT_EQ(t, bootmem_alloc(other, 1 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 1 * GiB - 1 * MiB);
	EXPECT_EQ(t, bootmem_free_bytes(b, 0, BOOTMEM_NO_LIMIT), 1 * GiB - PAGE_SIZE);
	EXPECT_EQ(t, bootmem_alloc(b, 1 * MiB, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 1 * GiB - 1 * MiB);
}

/* --- random operations against a page-by-page model -------------------------------- */

#define MODEL_PAGES 256

struct model {
	s8 node[MODEL_PAGES];           /* -1: not RAM */
	bool reserved[MODEL_PAGES];
};

static u32 rng_state;

/* A fixed-seed generator (Numerical Recipes' LCG), so every run is the same. */
static u32 rnd(u32 n)
{
	rng_state = rng_state * 1664525u + 1013904223u;
	return (rng_state >> 8) % n;
}

static void model_set(struct model *m, u32 first, u32 end, bool reserved)
{
	for (u32 p = first; p < end && p < MODEL_PAGES; p++)
		m->reserved[p] = reserved;
}

static bool model_page_free(const struct model *m, u32 p, int node)
{
	return m->node[p] >= 0 && !m->reserved[p] && (node == NODE_ANY || m->node[p] == node);
}

/* The highest aligned block bootmem_alloc must return, in pages; 0 if none. */
static u32 model_alloc(const struct model *m, u32 size, u32 align, int node, u32 limit)
{
	for (u32 p = ALIGN_DOWN(MIN(limit, (u32)MODEL_PAGES) - size, align); p > 0; p -= align) {
		bool ok = true;

		for (u32 i = 0; i < size && ok; i++)
			ok = model_page_free(m, p + i, node) && m->node[p + i] == m->node[p];
		if (ok)
			return p;
	}
	return 0;
}

/* Whether bootmem's free ranges are exactly the model's, run by run. */
static bool matches_model(const struct bootmem *b, const struct model *m)
{
	struct bootmem_range f;
	u64 cursor = 0;
	u32 p = 0;

	while (bootmem_next_free(b, &cursor, &f)) {
		while (p < MODEL_PAGES && !model_page_free(m, p, NODE_ANY))
			p++;
		u32 end = p;

		while (end < MODEL_PAGES && model_page_free(m, end, NODE_ANY) && m->node[end] == m->node[p])
			end++;
		if (p == MODEL_PAGES || f.base != p * PAGE_SIZE || f.end != end * PAGE_SIZE ||
		    f.node != m->node[p])
			return false;
		p = end;
	}
	while (p < MODEL_PAGES && !model_page_free(m, p, NODE_ANY))
		p++;
	return p == MODEL_PAGES;
}

static void random_operations_match_model(struct ktest *t)
{
	static const struct { u32 first, end; int node; } layout[] = {
		{ 0, 100, 0 }, { 100, 180, 1 }, { 200, 256, 0 },
	};
	struct bootmem *b = fresh();
	struct model m;

	rng_state = 2005;
	memset(m.node, -1, sizeof(m.node));
	memset(m.reserved, 0, sizeof(m.reserved));
	m.reserved[0] = true;
	for (u32 i = 0; i < ARRAY_SIZE(layout); i++) {
		bootmem_add_memory(b, layout[i].first * PAGE_SIZE, layout[i].end * PAGE_SIZE,
				   layout[i].node);
		memset(m.node + layout[i].first, layout[i].node, layout[i].end - layout[i].first);
	}
	for (u32 step = 0; step < 3000; step++) {
		u32 kind = rnd(10), first = rnd(MODEL_PAGES), len = 1 + rnd(8);

		if (kind < 4) {
			ASSERT_TRUE(t, bootmem_reserve(b, first * PAGE_SIZE, (first + len) * PAGE_SIZE));
			model_set(&m, first, first + len, true);
		} else if (kind < 7) {
			bootmem_free(b, first * PAGE_SIZE, len * PAGE_SIZE);
			model_set(&m, first, first + len, false);
		} else {
			u32 align = 1u << rnd(4), limit = rnd(2) ? MODEL_PAGES : 16 + rnd(240);
			int node = (int)rnd(3) - 1;
			u32 want = model_alloc(&m, len, align, node, limit);
			u64 got = bootmem_alloc(b, len * PAGE_SIZE, align * PAGE_SIZE, node,
						limit == MODEL_PAGES ? BOOTMEM_NO_LIMIT : limit * PAGE_SIZE);

			ASSERT_EQ(t, got, want * PAGE_SIZE);
			model_set(&m, want, want ? want + len : 0, true);
		}
		ASSERT_TRUE(t, b->nreserved < BOOTMEM_MAX_RANGES);
		ASSERT_TRUE(t, matches_model(b, &m));
	}
	EXPECT_STREQ(t, host_log(), "");
}

/* --- the swiotlb story on QEMU's `story` machine ------------------------------------ */

#define STORY_NODES   3
#define SWIOTLB_BYTES (64 * MiB)

/* Node 0 has CPUs but no memory, node 1 is 0-3G, node 2 is 4G-7G; low MiB and kernel taken. */
static struct bootmem *story(void)
{
	struct bootmem *b = fresh();

	bootmem_add_memory(b, 0, 3 * GiB, 1);
	bootmem_add_memory(b, 4 * GiB, 7 * GiB, 2);
	bootmem_reserve(b, 0, 1 * MiB);
	bootmem_reserve(b, 2 * MiB, 8 * MiB);
	return b;
}

/* 2.6.14-rc4: the highest node first, no address limit. */
static u64 place_rc4(struct bootmem *b, int *node)
{
	for (*node = STORY_NODES - 1; *node >= 0; (*node)--) {
		u64 pa = bootmem_alloc(b, SWIOTLB_BYTES, PAGE_SIZE, *node, BOOTMEM_NO_LIMIT);

		if (pa)
			return pa;
	}
	return 0;
}

/* The merged fix: every node from 0 up, each below 4 GiB. */
static u64 place_scan(struct bootmem *b, int *node)
{
	for (*node = 0; *node < STORY_NODES; (*node)++) {
		u64 pa = bootmem_alloc(b, SWIOTLB_BYTES, PAGE_SIZE, *node, DMA32_LIMIT);

		if (pa)
			return pa;
	}
	return 0;
}

static void story_rc4_lands_above_4g(struct ktest *t)
{
	int node;
	u64 pa = place_rc4(story(), &node);

	EXPECT_EQ(t, node, 2);
	EXPECT_EQ(t, pa, 7 * GiB - SWIOTLB_BYTES);
	EXPECT_GE(t, pa, DMA32_LIMIT);
}

static void story_scan_lands_below_4g_on_node1(struct ktest *t)
{
	int node;
	u64 pa = place_scan(story(), &node);

	EXPECT_EQ(t, node, 1);
	EXPECT_EQ(t, pa, 3 * GiB - SWIOTLB_BYTES);
	EXPECT_LE(t, pa + SWIOTLB_BYTES, DMA32_LIMIT);
}

static void story_node0_alone_fails(struct ktest *t)
{
	struct bootmem *b = story();

	EXPECT_EQ(t, bootmem_alloc(b, SWIOTLB_BYTES, PAGE_SIZE, 0, BOOTMEM_NO_LIMIT), 0);
	EXPECT_EQ(t, bootmem_alloc(b, SWIOTLB_BYTES, PAGE_SIZE, 0, DMA32_LIMIT), 0);
	EXPECT_EQ(t, bootmem_alloc(b, SWIOTLB_BYTES, PAGE_SIZE, 2, DMA32_LIMIT), 0);
}

static void story_policies_on_copies(struct ktest *t)
{
	struct bootmem *b = story();
	u64 free = bootmem_free_bytes(b, NODE_ANY, BOOTMEM_NO_LIMIT);
	int node;

	*other = *b;
	EXPECT_GE(t, place_rc4(other, &node), DMA32_LIMIT);
	*other = *b;
	EXPECT_LT(t, place_scan(other, &node), DMA32_LIMIT);
	EXPECT_EQ(t, bootmem_free_bytes(b, NODE_ANY, BOOTMEM_NO_LIMIT), free);
	EXPECT_EQ(t, free, 6 * GiB - 7 * MiB);
}

static const struct ktest_case bootmem_cases[] = {
	KTEST(init_reserves_page_zero),
	KTEST(reserve_merges_overlapping),
	KTEST(reserve_merges_adjacent),
	KTEST(reserve_bridges_several),
	KTEST(reserve_keeps_disjoint_sorted),
	KTEST(reserve_empty_range_is_noop),
	KTEST(reserve_full_list_refused),
	KTEST(add_memory_sorts_and_merges_per_node),
	KTEST(add_memory_fills_gap_between_two),
	KTEST(add_memory_overlap_first_claim_wins),
	KTEST(add_memory_over_existing_keeps_both_sides),
	KTEST(add_memory_inside_existing_adds_nothing),
	KTEST(add_memory_full_list_refused),
	KTEST(add_memory_bad_arguments_refused),
	KTEST(node_of_finds_owner),
	KTEST(alloc_is_top_down),
	KTEST(bottom_up_takes_the_lowest_fit),
	KTEST(bottom_up_goal_then_restart),
	KTEST(alloc_reserves_what_it_returns),
	KTEST(alloc_honours_alignment),
	KTEST(alloc_align_zero_means_bytes),
	KTEST(alloc_bad_alignment_refused),
	KTEST(alloc_stays_below_max_addr),
	KTEST(alloc_skips_reserved_ranges),
	KTEST(alloc_stays_on_its_node),
	KTEST(alloc_walks_a_nodes_ranges_downwards),
	KTEST(alloc_node_any_takes_highest),
	KTEST(alloc_until_exhausted),
	KTEST(alloc_on_memoryless_node_fails),
	KTEST(alloc_never_returns_page_zero),
	KTEST(alloc_fails_when_reserved_list_full),
	KTEST(free_makes_space_reusable),
	KTEST(free_splits_a_reservation),
	KTEST(free_trims_and_removes),
	KTEST(free_of_unreserved_is_noop),
	KTEST(free_split_with_full_list_keeps_reservation),
	KTEST(next_free_in_address_order),
	KTEST(next_free_never_spans_nodes),
	KTEST(next_free_reservation_across_nodes),
	KTEST(next_free_empty_when_all_reserved),
	KTEST(free_bytes_by_node_and_limit),
	KTEST(copy_is_independent),
	KTEST(random_operations_match_model),
	KTEST(story_rc4_lands_above_4g),
	KTEST(story_scan_lands_below_4g_on_node1),
	KTEST(story_node0_alone_fails),
	KTEST(story_policies_on_copies),
	{},
};
KTEST_SUITE(bootmem, bootmem_cases);
