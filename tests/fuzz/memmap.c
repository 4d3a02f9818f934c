// SPDX-License-Identifier: MIT
/*
 * memmap.c - fuzz target: the memory-map sanitizer (kernel/memmap.c) on any
 * list of (base, length, type) entries a firmware could report: overlaps,
 * wraps, zero lengths, unknown types.
 *
 * The oracle is memmap_oracle.h's, against the entries as given: no byte
 * the firmware did not call usable becomes usable, nothing it kept for
 * itself is lost, the result is sorted, whole-page and stable.
 */
#include "fuzz.h"
#include "memmap_oracle.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct memmap map, given;
	struct fuzz_input in = { data, size, 0 };

	fuzz_quiet();
	map.n = 0;
	while (fuzz_more(&in) && map.n < MMAP_MAX) {
		u64 base = fuzz_take(&in, 8), len = fuzz_take(&in, 8);
		map.e[map.n++] = (struct memmap_entry){ base, base + len, (u32)fuzz_take(&in, 1) };
	}
	given = map;
	memmap_sanitize(&map);
	memmap_oracle(given.e, given.n, &map, true);
	return 0;
}
