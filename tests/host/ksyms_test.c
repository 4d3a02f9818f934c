// SPDX-License-Identifier: MIT
/*
 * ksyms_test.c - ksym_search() from kernel/ksyms.c on the host: empty
 * tables, addresses below, on, between and after symbols, and a large
 * random table checked against a linear scan.
 */
#include <stdlib.h>

#include "ksyms.h"
#include "ktest.h"

static const struct ksym three[] = {
	{ 0x1000, "alpha" },
	{ 0x2000, "beta" },
	{ 0x3000, "gamma" },
};

static void empty_table_finds_nothing(struct ktest *t)
{
	u64 off = 1, size = 1;

	EXPECT_EQ(t, ksym_search(NULL, 0, 0x1000, &off, &size), NULL);
	EXPECT_EQ(t, ksym_search(three, 0, 0x1000, &off, &size), NULL);
}

static void below_first_finds_nothing(struct ktest *t)
{
	EXPECT_EQ(t, ksym_search(three, 3, 0, NULL, NULL), NULL);
	EXPECT_EQ(t, ksym_search(three, 3, 0xfff, NULL, NULL), NULL);
}

static void exact_hit_has_offset_zero(struct ktest *t)
{
	u64 off = 99, size = 99;

	EXPECT_EQ(t, ksym_search(three, 3, 0x1000, &off, &size), &three[0]);
	EXPECT_EQ(t, off, 0);
	EXPECT_EQ(t, size, 0x1000);
	EXPECT_EQ(t, ksym_search(three, 3, 0x2000, &off, &size), &three[1]);
	EXPECT_EQ(t, off, 0);
	EXPECT_EQ(t, size, 0x1000);
}

static void between_symbols_gives_offset_and_size(struct ktest *t)
{
	u64 off = 0, size = 0;

	EXPECT_EQ(t, ksym_search(three, 3, 0x2345, &off, &size), &three[1]);
	EXPECT_EQ(t, off, 0x345);
	EXPECT_EQ(t, size, 0x1000);
	EXPECT_EQ(t, ksym_search(three, 3, 0x1fff, &off, &size), &three[0]);
	EXPECT_EQ(t, off, 0xfff);
}

static void after_last_has_size_zero(struct ktest *t)
{
	u64 off = 0, size = 99;

	EXPECT_EQ(t, ksym_search(three, 3, 0x3000, &off, &size), &three[2]);
	EXPECT_EQ(t, off, 0);
	EXPECT_EQ(t, size, 0);
	EXPECT_EQ(t, ksym_search(three, 3, UINT64_MAX, &off, &size), &three[2]);
	EXPECT_EQ(t, off, UINT64_MAX - 0x3000);
	EXPECT_EQ(t, size, 0);
}

static void single_entry_table(struct ktest *t)
{
	u64 off = 0, size = 99;

	EXPECT_EQ(t, ksym_search(three, 1, 0xfff, &off, &size), NULL);
	EXPECT_EQ(t, ksym_search(three, 1, 0x1010, &off, &size), &three[0]);
	EXPECT_EQ(t, off, 0x10);
	EXPECT_EQ(t, size, 0);
}

static void offset_and_size_are_optional(struct ktest *t)
{
	u64 off = 0, size = 0;

	EXPECT_EQ(t, ksym_search(three, 3, 0x2800, NULL, NULL), &three[1]);
	EXPECT_EQ(t, ksym_search(three, 3, 0x2800, &off, NULL), &three[1]);
	EXPECT_EQ(t, off, 0x800);
	EXPECT_EQ(t, ksym_search(three, 3, 0x2800, NULL, &size), &three[1]);
	EXPECT_EQ(t, size, 0x1000);
}

/* Aliases (same address): the last one at or below wins, as documented. */
static void aliases_resolve_to_last(struct ktest *t)
{
	static const struct ksym aliased[] = {
		{ 0x1000, "first" }, { 0x2000, "alias_a" }, { 0x2000, "alias_b" }, { 0x3000, "last" },
	};
	u64 off = 1, size = 0;

	EXPECT_EQ(t, ksym_search(aliased, 4, 0x2010, &off, &size), &aliased[2]);
	EXPECT_EQ(t, off, 0x10);
	EXPECT_EQ(t, size, 0x1000);
}

/* --- a big random table against a linear scan ------------------------------ */

#define NSYMS 1500
#define NPROBES 20000

static u64 rng_state;

static u64 rng(void)
{
	/* xorshift64: fixed seed, same table every run. */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The last entry at or below addr, the slow obvious way. */
static const struct ksym *linear(const struct ksym *table, u32 n, u64 addr)
{
	const struct ksym *found = NULL;

	for (u32 i = 0; i < n && table[i].addr <= addr; i++)
		found = &table[i];
	return found;
}

static struct ksym *random_table(void)
{
	struct ksym *table = malloc(NSYMS * sizeof(*table));
	u64 addr = 0xffffffff80000000ULL + (rng() % 4096);

	for (u32 i = 0; i < NSYMS; i++) {
		table[i].addr = addr;
		table[i].name = "sym";
		addr += 1 + rng() % 512;
	}
	return table;
}

/* Compare ksym_search with the model at addr; false on the first difference. */
static bool agrees(struct ktest *t, const struct ksym *table, u64 addr)
{
	const struct ksym *want = linear(table, NSYMS, addr);
	u64 off = 0, size = 0;
	const struct ksym *got = ksym_search(table, NSYMS, addr, &off, &size);
	u64 want_size;

	if (got != want) {
		ktest_log(t, "addr 0x%llx: got %p, want %p", addr,
			  (const void *)got, (const void *)want);
		return false;
	}
	if (!want)
		return true;
	want_size = want + 1 < table + NSYMS ? want[1].addr - want->addr : 0;
	if (off != addr - want->addr || size != want_size) {
		ktest_log(t, "addr 0x%llx: offset/size wrong", addr);
		return false;
	}
	return true;
}

static void many_entries_match_linear_model(struct ktest *t)
{
	struct ksym *table;
	u64 lo, span;
	bool ok = true;

	rng_state = 0x9e3779b97f4a7c15ULL;
	table = random_table();
	ASSERT_TRUE(t, table != NULL);
	lo = table[0].addr - 100;
	span = table[NSYMS - 1].addr + 1000 - lo;
	for (u32 i = 0; i < NPROBES && ok; i++)
		ok = agrees(t, table, lo + rng() % span);
	for (u32 i = 0; i < NSYMS && ok; i++)
		ok = agrees(t, table, table[i].addr) && agrees(t, table, table[i].addr - 1);
	EXPECT_TRUE(t, ok);
	free(table);
}

static const struct ktest_case ksyms_search_cases[] = {
	KTEST(empty_table_finds_nothing),
	KTEST(below_first_finds_nothing),
	KTEST(exact_hit_has_offset_zero),
	KTEST(between_symbols_gives_offset_and_size),
	KTEST(after_last_has_size_zero),
	KTEST(single_entry_table),
	KTEST(offset_and_size_are_optional),
	KTEST(aliases_resolve_to_last),
	KTEST(many_entries_match_linear_model),
	{},
};
KTEST_SUITE(ksyms_search, ksyms_search_cases);
