// SPDX-License-Identifier: MIT
/*
 * sanitize_test.c - memmap_sanitize(): sorted, disjoint, page-aligned ranges
 * whatever order and overlaps the firmware's map had.
 */
#include <stdlib.h>
#include "host.h"
#include "kstring.h"
#include "ktest.h"
#include "memmap.h"

static struct memmap *map_of(const struct memmap_entry *e, u32 n)
{
	static struct memmap m;

	memset(&m, 0, sizeof(m));
	for (u32 i = 0; i < n; i++)
		m.e[i] = e[i];
	m.n = n;
	m.source = "test";
	return &m;
}

#define E(b, e, t) { (b), (e), (t) }

static void clean_map_is_unchanged(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0, 0x9f000, E820_USABLE), E(0x9f000, 0xa0000, E820_RESERVED),
		E(0x100000, 0x40000000, E820_USABLE),
	};
	struct memmap *m = map_of(e, 3);

	EXPECT_FALSE(t, memmap_sanitize(m));
	ASSERT_EQ(t, m->n, 3);
	EXPECT_EQ(t, m->e[2].end, 0x40000000);
}

static void entries_are_sorted(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x100000, 0x200000, E820_USABLE), E(0, 0x9f000, E820_USABLE),
	};
	struct memmap *m = map_of(e, 2);

	EXPECT_TRUE(t, memmap_sanitize(m));
	ASSERT_EQ(t, m->n, 2);
	EXPECT_EQ(t, m->e[0].base, 0);
	EXPECT_EQ(t, m->e[1].base, 0x100000);
}

/* A reserved range inside usable RAM splits it in three. */
static void stricter_type_wins_an_overlap(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x100000, 0x800000, E820_USABLE), E(0x400000, 0x500000, E820_RESERVED),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 3);
	EXPECT_EQ(t, m->e[0].end, 0x400000);
	EXPECT_EQ(t, m->e[1].type, E820_RESERVED);
	EXPECT_EQ(t, m->e[2].base, 0x500000);
	EXPECT_EQ(t, m->e[2].type, E820_USABLE);
}

static void acpi_beats_usable_and_nvs_beats_acpi(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x1000, 0x5000, E820_USABLE), E(0x2000, 0x4000, E820_ACPI),
		E(0x3000, 0x4000, E820_NVS),
	};
	struct memmap *m = map_of(e, 3);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 4);
	EXPECT_EQ(t, m->e[1].type, E820_ACPI);
	EXPECT_EQ(t, m->e[2].type, E820_NVS);
	EXPECT_EQ(t, m->e[3].type, E820_USABLE);
}

static void unknown_type_counts_as_reserved(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x1000, 0x3000, 20), E(0x2000, 0x4000, E820_RESERVED),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 2);      /* equal strictness: the first piece keeps type 20 */
	EXPECT_EQ(t, m->e[0].type, 20);
	EXPECT_EQ(t, m->e[1].end, 0x4000);
}

static void usable_shrinks_to_whole_pages(struct ktest *t)
{
	static const struct memmap_entry e[] = { E(0x100, 0x9fc00, E820_USABLE) };
	struct memmap *m = map_of(e, 1);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 1);
	EXPECT_EQ(t, m->e[0].base, 0x1000);
	EXPECT_EQ(t, m->e[0].end, 0x9f000);
}

static void reserved_grows_to_whole_pages(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0, 0x9fc00, E820_USABLE), E(0x9fc00, 0xa0000, E820_RESERVED),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 2);
	EXPECT_EQ(t, m->e[0].end, 0x9f000);
	EXPECT_EQ(t, m->e[1].base, 0x9f000);
}

static void ranges_smaller_than_a_page_vanish(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x1100, 0x1f00, E820_USABLE), E(0x5000, 0x5000, E820_RESERVED),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	EXPECT_EQ(t, m->n, 0);
}

static void neighbours_of_one_type_merge(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x100000, 0x200000, E820_USABLE), E(0x200000, 0x300000, E820_USABLE),
		E(0x280000, 0x400000, E820_USABLE),
	};
	struct memmap *m = map_of(e, 3);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 1);
	EXPECT_EQ(t, m->e[0].base, 0x100000);
	EXPECT_EQ(t, m->e[0].end, 0x400000);
}

static void ranges_past_2_52_are_clipped(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x100000000UL, 0x20000000000000UL, E820_USABLE),
		E(0x20000000000000UL, 0x30000000000000UL, E820_USABLE),
	};
	struct memmap *m = map_of(e, 2);

	host_log_clear();
	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 1);
	EXPECT_EQ(t, m->e[0].end, 1UL << 52);
	EXPECT_TRUE(t, host_log_has("past 2^52"));
}

static void duplicate_entries_collapse(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x100000, 0x200000, E820_USABLE), E(0x100000, 0x200000, E820_USABLE),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	EXPECT_EQ(t, m->n, 1);
}

/* Random maps: the result is sorted, disjoint, aligned, and every byte keeps its strictest type. */
static u32 model_type(const struct memmap_entry *e, u32 n, u64 addr, bool *covered)
{
	static const int rank[9] = { 5, 1, 5, 3, 4, 6, 5, 2, 5 };
	u32 best = 0;

	*covered = false;
	for (u32 i = 0; i < n; i++) {
		struct memmap_entry a = e[i];
		bool usable = a.type == E820_USABLE;
		u64 lo = usable ? ALIGN_UP(a.base, 4096UL) : ALIGN_DOWN(a.base, 4096UL);
		u64 hi = usable ? ALIGN_DOWN(a.end, 4096UL) : ALIGN_UP(a.end, 4096UL);
		if (lo <= addr && addr < hi && (!*covered || rank[a.type] > rank[best])) {
			best = a.type;
			*covered = true;
		}
	}
	return best;
}

static void random_maps_match_a_model(struct ktest *t)
{
	static struct memmap_entry e[24];
	unsigned seed = 12345;

	for (int round = 0; round < 200; round++) {
		u32 n = 1 + rand_r(&seed) % 24;
		for (u32 i = 0; i < n; i++) {
			u64 base = (u64)(rand_r(&seed) % 64) * 0x800;
			e[i] = (struct memmap_entry){ base, base + 1 + rand_r(&seed) % 0x8000,
						      rand_r(&seed) % 9 };
		}
		struct memmap *m = map_of(e, n);
		memmap_sanitize(m);
		for (u32 i = 0; i < m->n; i++) {
			ASSERT_TRUE(t, m->e[i].base < m->e[i].end);
			ASSERT_TRUE(t, IS_ALIGNED(m->e[i].base, 4096UL) && IS_ALIGNED(m->e[i].end, 4096UL));
			if (i)
				ASSERT_TRUE(t, m->e[i - 1].end <= m->e[i].base);
		}
		for (u64 addr = 0; addr < 0x30000; addr += 0x1000) {
			u32 got = 0;
			bool found = false, covered;
			for (u32 i = 0; i < m->n; i++)
				if (m->e[i].base <= addr && addr < m->e[i].end) {
					got = m->e[i].type;
					found = true;
				}
			u32 want = model_type(e, n, addr, &covered);
			ASSERT_EQ(t, found, covered);
			if (covered)
				ASSERT_EQ(t, got, want);
		}
	}
}

/*
 * A usable entry in the last page below 2^64: its base rounded up to a page
 * wraps to 0 unless the entry is clipped to 2^52 first; it then said the
 * whole address space was RAM.
 */
static void a_usable_range_at_the_top_of_2_64_is_no_memory(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x100000, 0x200000, E820_USABLE),
		E(0xfffffffffffff001UL, 0xffffffffffffffffUL, E820_USABLE),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 1);
	EXPECT_EQ(t, m->e[0].base, 0x100000);
	EXPECT_EQ(t, m->e[0].end, 0x200000);
	EXPECT_EQ(t, memmap_usable_bytes(m), 0x100000);
}

/*
 * Type 0 is no E820 type: it is an unknown one, as strict as reserved, not
 * "nothing". Listed before a usable entry over it, it used to become usable;
 * after one, a hole.
 */
static void type_0_is_an_unknown_type_not_a_hole(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0x3000, 0x5000, 0), E(0, 0x10000, E820_USABLE), E(0x8000, 0x9000, 0),
	};
	struct memmap *m = map_of(e, 3);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 5);
	EXPECT_EQ(t, m->e[1].base, 0x3000);
	EXPECT_EQ(t, m->e[1].end, 0x5000);
	EXPECT_EQ(t, m->e[1].type, 0);
	EXPECT_EQ(t, m->e[3].base, 0x8000);
	EXPECT_EQ(t, m->e[3].type, 0);
	EXPECT_EQ(t, memmap_usable_bytes(m), 0xd000);
}

/* Persistent memory from mid-page: the page is not handed to the usable range around it. */
static void persistent_memory_keeps_its_partial_page(struct ktest *t)
{
	static const struct memmap_entry e[] = {
		E(0, 0x10000, E820_USABLE), E(0x2800, 0x7800, E820_PMEM),
	};
	struct memmap *m = map_of(e, 2);

	memmap_sanitize(m);
	ASSERT_EQ(t, m->n, 3);
	EXPECT_EQ(t, m->e[0].end, 0x2000);
	EXPECT_EQ(t, m->e[1].base, 0x2000);
	EXPECT_EQ(t, m->e[1].end, 0x8000);
	EXPECT_EQ(t, m->e[1].type, E820_PMEM);
	EXPECT_EQ(t, m->e[2].base, 0x8000);
}

/*
 * One usable range with MMAP_MAX - 1 reserved pages inside: 2 * MMAP_MAX - 1
 * pieces, more than the result holds. What does not fit must not lose a
 * reserved page: each stays out of every usable range.
 */
static void a_full_result_keeps_every_reserved_page(struct ktest *t)
{
	static struct memmap_entry e[MMAP_MAX];

	e[0] = (struct memmap_entry)E(0, (u64)(MMAP_MAX + 1) * 0x2000, E820_USABLE);
	for (u32 i = 1; i < MMAP_MAX; i++)
		e[i] = (struct memmap_entry)E(i * 0x2000UL, i * 0x2000UL + 0x1000, E820_RESERVED);
	struct memmap *m = map_of(e, MMAP_MAX);

	host_log_clear();
	memmap_sanitize(m);
	EXPECT_EQ(t, m->n, MMAP_MAX);
	EXPECT_TRUE(t, host_log_has("joined to the range before them"));
	for (u32 i = 1; i < MMAP_MAX; i++) {
		u64 page = i * 0x2000UL;
		bool kept = false;
		for (u32 j = 0; j < m->n; j++) {
			if (m->e[j].base <= page && page < m->e[j].end)
				kept = m->e[j].type != E820_USABLE;
		}
		if (!kept)
			ktest_log(t, "reserved page %#llx lost or made usable", page);
		ASSERT_TRUE(t, kept);
	}
}

static const struct ktest_case sanitize_cases[] = {
	KTEST(clean_map_is_unchanged),
	KTEST(entries_are_sorted),
	KTEST(stricter_type_wins_an_overlap),
	KTEST(acpi_beats_usable_and_nvs_beats_acpi),
	KTEST(unknown_type_counts_as_reserved),
	KTEST(usable_shrinks_to_whole_pages),
	KTEST(reserved_grows_to_whole_pages),
	KTEST(ranges_smaller_than_a_page_vanish),
	KTEST(neighbours_of_one_type_merge),
	KTEST(ranges_past_2_52_are_clipped),
	KTEST(duplicate_entries_collapse),
	KTEST(random_maps_match_a_model),
	KTEST(a_usable_range_at_the_top_of_2_64_is_no_memory),
	KTEST(type_0_is_an_unknown_type_not_a_hole),
	KTEST(persistent_memory_keeps_its_partial_page),
	KTEST(a_full_result_keeps_every_reserved_page),
	{},
};
KTEST_SUITE(memmap_sanitize, sanitize_cases);
