/* SPDX-License-Identifier: MIT */
/*
 * ksyms.h - the kernel's own symbol table, for backtraces.
 *
 * The build links the kernel three times (see the Makefile): the symbols
 * of one link, sorted by address, become a table compiled into the next.
 * Its size is fixed after the second link, so the third link's addresses
 * equal the second's and the table is exact; the Makefile checks that.
 */
#ifndef KSYMS_H
#define KSYMS_H

#include "types.h"

struct ksym {
	u64 addr;
	const char *name;
};

/* Generated: text symbols sorted by address. */
extern const struct ksym ksyms[];
extern const u32 ksyms_count;

/*
 * Search table[0..n) (sorted by addr) for the symbol containing addr:
 * the last one at or below it. *offset = addr - symbol, *size = distance to
 * the next symbol (0 for the last). NULL if addr is below the first.
 * Pure, for the host tests.
 */
const struct ksym *ksym_search(const struct ksym *table, u32 n, u64 addr, u64 *offset,
			       u64 *size);

/* ksym_search() on the kernel's table, for addresses inside the kernel text. */
const char *ksym_lookup(u64 addr, u64 *offset, u64 *size);

#endif
