/* SPDX-License-Identifier: MIT */
/*
 * pattern.h - a byte pattern to write into a buffer and check after it
 * went somewhere and back (a disk, a device, a bounce buffer).
 *
 * Byte i of the pattern for seed s is the top byte of (i + s * 65537) times
 * Knuth's multiplicative-hash constant: neighbouring bytes differ, so a
 * copy that is shifted, truncated or taken from the wrong place shows; two
 * seeds give two different patterns, so data from another buffer shows.
 */
#ifndef PATTERN_H
#define PATTERN_H

#include "types.h"

static inline u8 pattern_byte(size_t i, u32 seed)
{
	return (u8)(((u32)i + seed * 65537u) * 2654435761u >> 24);
}

static inline void pattern_fill(void *buf, size_t n, u32 seed)
{
	u8 *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = pattern_byte(i, seed);
}

/* The offset of the first byte that is not the pattern's, or n if none. */
static inline size_t pattern_mismatch(const void *buf, size_t n, u32 seed)
{
	const u8 *p = buf;

	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern_byte(i, seed))
			return i;
	return n;
}

/* True if buf holds the pattern for seed. */
static inline bool pattern_ok(const void *buf, size_t n, u32 seed)
{
	return pattern_mismatch(buf, n, seed) == n;
}

#endif
