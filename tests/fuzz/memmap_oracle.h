/* SPDX-License-Identifier: MIT */
/*
 * memmap_oracle.h - what a sanitized memory map must satisfy against the
 * entries a firmware gave (kernel/memmap.c), for every fuzz target that
 * ends in one: memmap, mb2, numa_build.
 *
 * Against the entries as given (an entry whose end does not lie above its
 * base says nothing; bytes from 2^52 on are not memory):
 *   - every usable byte of the result was usable in the input, and no
 *     entry of another type covered it;
 *   - every byte below 2^52 that an entry of another type covered, and the
 *     rest of its page, is in a range of the result at least as strict
 *     (the sanitizer's order: usable < persistent < ACPI data < NVS <
 *     reserved and unknown < unusable): nothing the firmware kept for
 *     itself is lost or given away;
 *   - the result is sorted, without overlaps or empty ranges, below 2^52,
 *     usable ranges in whole pages; and sanitizing it again changes
 *     nothing.
 * The checks walk the entries themselves; they never call the sanitizer
 * except for the last one (sanitizing twice).
 */
#ifndef MEMMAP_ORACLE_H
#define MEMMAP_ORACLE_H

#include "fuzz.h"
#include "memmap.h"

static inline int memmap_oracle_strictness(u32 type)
{
	switch (type) {
	case E820_USABLE: return 1;
	case E820_PMEM: return 2;
	case E820_ACPI: return 3;
	case E820_NVS: return 4;
	case E820_UNUSABLE: return 6;
	default: return 5;
	}
}

/* Is every byte of [base, end) covered by given entries of type usable? */
static inline bool memmap_oracle_usable_in(const struct memmap_entry *g, u32 n, u64 base,
					   u64 end)
{
	bool moved = true;

	while (base < end && moved) {
		moved = false;
		for (u32 i = 0; i < n; i++)
			if (g[i].type == E820_USABLE && g[i].base <= base && base < g[i].end) {
				base = g[i].end;
				moved = true;
			}
	}
	return base >= end;
}

/* Is every byte of [base, end) in ranges of out at least as strict as type? */
static inline bool memmap_oracle_kept_in(const struct memmap *out, u64 base, u64 end, u32 type)
{
	bool moved = true;

	while (base < end && moved) {
		moved = false;
		for (u32 i = 0; i < out->n; i++)
			if (out->e[i].base <= base && base < out->e[i].end &&
			    memmap_oracle_strictness(out->e[i].type) >=
				    memmap_oracle_strictness(type) &&
			    out->e[i].type != E820_USABLE) {
				base = out->e[i].end;
				moved = true;
			}
	}
	return base >= end;
}

/*
 * Check the sanitized map against the n entries given (see above). With
 * all_kept false the map had no room for every entry of another type
 * (more than MMAP_MAX of them: memmap_from_boot() keeps those first), so
 * that some are lost is not checked.
 */
static inline void memmap_oracle(const struct memmap_entry *given, u32 n, const struct memmap *map,
				 bool all_kept)
{
	static struct memmap again;

	for (u32 i = 0; i < map->n; i++) {
		const struct memmap_entry *e = &map->e[i];
		FUZZ_CHECK(e->base < e->end);
		FUZZ_CHECK(e->end <= PHYS_ADDR_MAX);
		FUZZ_CHECK(i == 0 || map->e[i - 1].end <= e->base);
		if (e->type != E820_USABLE)
			continue;
		FUZZ_CHECK(e->base % 4096 == 0 && e->end % 4096 == 0);
		FUZZ_CHECK(memmap_oracle_usable_in(given, n, e->base, e->end));
		for (u32 j = 0; j < n; j++) {
			const struct memmap_entry *g = &given[j];
			if (g->type != E820_USABLE && g->base < g->end)
				FUZZ_CHECK(g->end <= e->base || e->end <= g->base);
		}
	}
	for (u32 j = 0; j < n; j++) {
		const struct memmap_entry *g = &given[j];
		if (!all_kept || g->type == E820_USABLE || g->base >= g->end ||
		    g->base >= PHYS_ADDR_MAX)
			continue;
		u64 base = ALIGN_DOWN(g->base, 4096UL);
		u64 end = g->end > PHYS_ADDR_MAX - 4096 ? PHYS_ADDR_MAX : ALIGN_UP(g->end, 4096UL);
		FUZZ_CHECK(memmap_oracle_kept_in(map, base, end, g->type));
	}
	again = *map;
	FUZZ_CHECK(!memmap_sanitize(&again));
}

#endif
