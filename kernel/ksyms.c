// SPDX-License-Identifier: MIT
/*
 * ksyms.c - find the function an address belongs to.
 *
 * The table is sorted by address, so a binary search finds the last symbol
 * at or below addr in log2(n) steps. Pure code, tested on the host.
 */
#include "ksyms.h"

const struct ksym *ksym_search(const struct ksym *table, u32 n, u64 addr, u64 *offset,
			       u64 *size)
{
	u32 lo = 0, hi = n;     /* invariant: table[0..lo) <= addr < table[hi..n) */

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (table[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ksym *s = &table[lo - 1];
	if (offset)
		*offset = addr - s->addr;
	if (size)
		*size = lo < n ? table[lo].addr - s->addr : 0;
	return s;
}
