// SPDX-License-Identifier: MIT
/*
 * string_test.c - memcpy, memset and memmove move exactly the bytes asked
 * for: every length from 0 to 40 at every alignment of both ends, with
 * guard bytes around the destination that must stay as they were (the
 * quadword loop and its byte tail, kernel/string.c, must meet exactly).
 */
#include "kstring.h"
#include "ktest.h"

#define SPAN  64
#define GUARD 0xa5

static u8 src[SPAN + 16], dst[SPAN + 16];

static u8 pattern(u32 i)
{
	return (u8)(i * 7 + 3);
}

/* Bytes of dst outside [at, at + n) that are not GUARD. */
static u32 guards_broken(u32 at, u32 n)
{
	u32 broken = 0;

	for (u32 i = 0; i < sizeof(dst); i++)
		if ((i < at || i >= at + n) && dst[i] != GUARD)
			broken++;
	return broken;
}

static void memcpy_moves_exactly_n_bytes(struct ktest *t)
{
	u32 wrong = 0, broken = 0;

	for (u32 i = 0; i < sizeof(src); i++)
		src[i] = pattern(i);
	for (u32 n = 0; n <= 40; n++)
		for (u32 s = 0; s < 8; s++)
			for (u32 d = 0; d < 8; d++) {
				memset(dst, GUARD, sizeof(dst));
				if (memcpy(dst + d, src + s, n) != dst + d)
					wrong++;
				for (u32 i = 0; i < n; i++)
					wrong += dst[d + i] != pattern(s + i);
				broken += guards_broken(d, n);
			}
	EXPECT_EQ(t, wrong, 0);
	EXPECT_EQ(t, broken, 0);
}

static void memset_fills_exactly_n_bytes(struct ktest *t)
{
	u32 wrong = 0, broken = 0;

	for (u32 n = 0; n <= 40; n++)
		for (u32 d = 0; d < 8; d++) {
			for (u32 i = 0; i < sizeof(dst); i++)
				dst[i] = GUARD;
			if (memset(dst + d, 0x1c3, n) != dst + d)      /* only the low byte counts */
				wrong++;
			for (u32 i = 0; i < n; i++)
				wrong += dst[d + i] != 0xc3;
			broken += guards_broken(d, n);
		}
	EXPECT_EQ(t, wrong, 0);
	EXPECT_EQ(t, broken, 0);
}

static void memmove_handles_overlap_both_ways(struct ktest *t)
{
	u32 wrong = 0;

	for (u32 n = 0; n <= 40; n++)
		for (int shift = -9; shift <= 9; shift++) {
			u32 from = 12, to = (u32)(12 + shift);

			for (u32 i = 0; i < sizeof(dst); i++)
				dst[i] = pattern(i);
			memmove(dst + to, dst + from, n);
			for (u32 i = 0; i < n; i++)
				wrong += dst[to + i] != pattern(from + i);
		}
	EXPECT_EQ(t, wrong, 0);
}

static const struct ktest_case string_cases[] = {
	KTEST(memcpy_moves_exactly_n_bytes),
	KTEST(memset_fills_exactly_n_bytes),
	KTEST(memmove_handles_overlap_both_ways),
	{},
};
KTEST_SUITE(string, string_cases);
