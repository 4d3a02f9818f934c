/* SPDX-License-Identifier: MIT */
/*
 * unaligned.h - read little-endian fields at any address.
 *
 * Firmware structures (multiboot2 tags, ACPI tables) put fields wherever
 * their layout says, not where the C compiler would align them. memcpy into
 * a local is the portable way to read them; it compiles to one mov on x86,
 * and UBSan does not flag it, as it would a cast to a misaligned pointer.
 */
#ifndef UNALIGNED_H
#define UNALIGNED_H

#include "kstring.h"
#include "types.h"

static inline u16 rd16(const u8 *p)
{
	u16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u32 rd32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline u64 rd64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#endif
