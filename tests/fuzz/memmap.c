// SPDX-License-Identifier: MIT
/*
 * memmap.c - fuzz target: the memory-map sanitizer (kernel/memmap.c) on any
 * list of (base, length, type) entries a firmware could report: overlaps,
 * wraps, zero lengths, unknown types.
 *
 * The oracle, against the entries as given (an entry whose end does not
 * lie above its base says nothing; bytes from 2^52 on are not memory):
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
 */
#include "fuzz.h"
#include "memmap.h"

static int strictness(u32 type)
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

/* Is every byte of [base, end) covered by input entries of type usable? */
static bool usable_in(const struct memmap *in, u64 base, u64 end)
{
	bool moved = true;

	while (base < end && moved) {
		moved = false;
		for (u32 i = 0; i < in->n; i++)
			if (in->e[i].type == E820_USABLE && in->e[i].base <= base &&
			    base < in->e[i].end) {
				base = in->e[i].end;
				moved = true;
			}
	}
	return base >= end;
}

/* Is every byte of [base, end) in ranges of out at least as strict as type? */
static bool kept_in(const struct memmap *out, u64 base, u64 end, u32 type)
{
	bool moved = true;

	while (base < end && moved) {
		moved = false;
		for (u32 i = 0; i < out->n; i++)
			if (out->e[i].base <= base && base < out->e[i].end &&
			    strictness(out->e[i].type) >= strictness(type) &&
			    out->e[i].type != E820_USABLE) {
				base = out->e[i].end;
				moved = true;
			}
	}
	return base >= end;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct memmap map, given, again;
	struct fuzz_input in = { data, size, 0 };

	fuzz_quiet();
	map.n = 0;
	while (fuzz_more(&in) && map.n < MMAP_MAX) {
		u64 base = fuzz_take(&in, 8), len = fuzz_take(&in, 8);
		map.e[map.n++] = (struct memmap_entry){ base, base + len, (u32)fuzz_take(&in, 1) };
	}
	given = map;
	memmap_sanitize(&map);
	for (u32 i = 0; i < map.n; i++) {
		const struct memmap_entry *e = &map.e[i];
		FUZZ_CHECK(e->base < e->end);
		FUZZ_CHECK(e->end <= PHYS_ADDR_MAX);
		FUZZ_CHECK(i == 0 || map.e[i - 1].end <= e->base);
		if (e->type != E820_USABLE)
			continue;
		FUZZ_CHECK(e->base % 4096 == 0 && e->end % 4096 == 0);
		FUZZ_CHECK(usable_in(&given, e->base, e->end));
		for (u32 j = 0; j < given.n; j++) {
			const struct memmap_entry *g = &given.e[j];
			if (g->type != E820_USABLE && g->base < g->end)
				FUZZ_CHECK(g->end <= e->base || e->end <= g->base);
		}
	}
	for (u32 j = 0; j < given.n; j++) {
		const struct memmap_entry *g = &given.e[j];
		if (g->type == E820_USABLE || g->base >= g->end || g->base >= PHYS_ADDR_MAX)
			continue;
		u64 base = ALIGN_DOWN(g->base, 4096UL);
		u64 end = g->end > PHYS_ADDR_MAX - 4096 ? PHYS_ADDR_MAX : ALIGN_UP(g->end, 4096UL);
		FUZZ_CHECK(kept_in(&map, base, end, g->type));
	}
	again = map;
	FUZZ_CHECK(!memmap_sanitize(&again));
	return 0;
}
