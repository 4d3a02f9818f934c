// SPDX-License-Identifier: MIT
/*
 * dma_test.c - the DMA API's one piece of pure arithmetic: can a device
 * whose mask is mask reach [addr, addr + size)? The swiotlb decides to
 * bounce, and virtio checks every address it hands a device, on this.
 */
#include "dma.h"
#include "ktest.h"

#define MASK32 0xffffffffULL

static void a_buffer_ending_at_the_mask_is_reachable(struct ktest *t)
{
	EXPECT_TRUE(t, dma_reachable(MASK32, 0xfffff000, 0x1000));     /* last byte 0xffffffff */
	EXPECT_TRUE(t, dma_reachable(MASK32, MASK32, 1));
	EXPECT_TRUE(t, dma_reachable(MASK32, 0, 1));
	EXPECT_TRUE(t, dma_reachable(~0ULL, ~0ULL - 0xfff, 0x1000));  /* a 64-bit mask, to the top */
}

static void one_byte_past_the_mask_is_not(struct ktest *t)
{
	EXPECT_FALSE(t, dma_reachable(MASK32, 0xfffff000, 0x1001));
	EXPECT_FALSE(t, dma_reachable(MASK32, 0x100000000ULL, 1));
	EXPECT_FALSE(t, dma_reachable(0x0fffffff, 0x0ffffff0, 0x20));  /* edu's 28-bit mask */
}

static void empty_and_wrapping_ranges_are_not(struct ktest *t)
{
	EXPECT_FALSE(t, dma_reachable(MASK32, 0x1000, 0));
	EXPECT_FALSE(t, dma_reachable(~0ULL, ~0ULL - 0xff, 0x200));     /* wraps past 2^64 */
}

static const struct ktest_case dma_api_cases[] = {
	KTEST(a_buffer_ending_at_the_mask_is_reachable),
	KTEST(one_byte_past_the_mask_is_not),
	KTEST(empty_and_wrapping_ranges_are_not),
	{},
};
KTEST_SUITE(dma_api, dma_api_cases);
