// SPDX-License-Identifier: MIT
/*
 * ioremap_range.c - fuzz target: the range check of ioremap() and
 * memremap() (vm_remap_range(), include/vm.h), for any physical address
 * and size a firmware table may name (XSDT entries, X_DSDT, X_PM_TMR_BLK,
 * the reset register, the MADT's local APIC address).
 *
 * Oracle, in 128-bit arithmetic that cannot wrap: (phys, size) fits when
 * size > 0 and phys + size <= DIRECT_MAP_SIZE. Every range that fits is
 * accepted, and no other. For an accepted range, the page-rounded start
 * and end do not wrap: both are page-aligned, start <= phys and end <=
 * DIRECT_MAP_SIZE; the end is above the start; [start, end) covers
 * [phys, phys + size); and no more than the pages that hold it (start
 * within a page below phys, end within a page past phys + size).
 *
 * Input: pairs of 8-byte little-endian numbers, phys then size. Each pair
 * is also tried moved next to both edges, DIRECT_MAP_SIZE and 2^64, where
 * the arithmetic breaks when it breaks.
 */
#include "fuzz.h"
#include "vm.h"

typedef unsigned __int128 u128;

static void check(u64 phys, u64 size)
{
	u128 want_end = (u128)phys + size;
	bool fits = size > 0 && want_end <= DIRECT_MAP_SIZE;
	u64 start = 0x1234, end = 0x5678;
	bool accepted = vm_remap_range(phys, size, &start, &end);

	FUZZ_CHECK(accepted == fits);
	if (!accepted)
		return;
	FUZZ_CHECK(start % PAGE_SIZE == 0 && end % PAGE_SIZE == 0);
	FUZZ_CHECK(start <= phys && end <= DIRECT_MAP_SIZE);
	FUZZ_CHECK(end > start);
	FUZZ_CHECK((u128)end >= want_end);
	FUZZ_CHECK(phys - start < PAGE_SIZE);
	FUZZ_CHECK((u128)end - want_end < PAGE_SIZE);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };

	do {
		u64 phys = fuzz_take(&in, 8), len = fuzz_take(&in, 8);
		u64 near = phys & 0x3ffff, small = len & 0x3ffff;

		check(phys, len);
		check(DIRECT_MAP_SIZE - near, small);   /* about the direct map's end */
		check(0 - near, small);                 /* about 2^64 */
		check(near, len);
	} while (fuzz_more(&in));
	return 0;
}
