// SPDX-License-Identifier: MIT
/*
 * memmap.c - fuzz target: the memory-map sanitizer (kernel/memmap.c) on any
 * list of (base, length, type) entries a firmware could report: overlaps,
 * wraps, zero lengths, unknown types.
 *
 * Checked: the result is sorted, without overlaps or empty ranges, below
 * 2^52, RAM in whole pages; and sanitizing it again changes nothing.
 */
#include "fuzz.h"
#include "memmap.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct memmap map, again;
	struct fuzz_input in = { data, size, 0 };

	fuzz_quiet();
	map.n = 0;
	while (fuzz_more(&in) && map.n < MMAP_MAX) {
		u64 base = fuzz_take(&in, 8), len = fuzz_take(&in, 8);
		map.e[map.n++] = (struct memmap_entry){ base, base + len, (u32)fuzz_take(&in, 1) };
	}
	memmap_sanitize(&map);
	for (u32 i = 0; i < map.n; i++) {
		const struct memmap_entry *e = &map.e[i];
		FUZZ_CHECK(e->base < e->end);
		FUZZ_CHECK(e->end <= PHYS_ADDR_MAX);
		FUZZ_CHECK(i == 0 || map.e[i - 1].end <= e->base);
		if (e->type == E820_USABLE)
			FUZZ_CHECK(e->base % 4096 == 0 && e->end % 4096 == 0);
	}
	again = map;
	FUZZ_CHECK(!memmap_sanitize(&again));
	return 0;
}
