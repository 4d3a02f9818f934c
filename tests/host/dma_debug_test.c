// SPDX-License-Identifier: MIT
/*
 * dma_debug_test.c - kernel/dma_debug.c on the host: what dma.debug=on
 * reports, and that it never refuses what it cannot judge. A table of
 * DMA_DEBUG_ENTRIES live mappings that overflows turns checking off in one
 * line (every later unmap goes through, so no bounce slot leaks); a sync in
 * another direction is reported and done in the mapping's; a driver's
 * invalid direction is named, not used as an index (ASan watches); a
 * double unmap names the most recent unmap of its handle.
 */
#include <string.h>

#include "dma_debug.h"
#include "host.h"
#include "ktest.h"

static struct device disk = { .name = "disk", .dma_mask = ~0UL };

/* Fake code addresses, so a report can be read for who did what. */
#define SITE(n) ((const void *)(0x1000UL * (n)))

static void a_full_table_turns_checking_off_and_lets_unmaps_through(struct ktest *t)
{
	dma_debug_host_reset();
	host_log_clear();
	for (u64 i = 0; i < DMA_DEBUG_ENTRIES; i++)
		dma_debug_map(&disk, 0x100000 + i * 64, 64, DMA_FROM_DEVICE, SITE(1));
	EXPECT_TRUE(t, dma_debug_enabled());
	dma_debug_map(&disk, 0x900000, 64, DMA_FROM_DEVICE, SITE(1));  /* one too many */
	EXPECT_FALSE(t, dma_debug_enabled());
	EXPECT_TRUE(t, host_log_has("out of entries, checking turned off for this boot"));

	u64 size = 64;
	enum dma_data_direction dir = DMA_FROM_DEVICE;
	EXPECT_TRUE(t, dma_debug_unmap(&disk, 0x900000, &size, &dir, SITE(2)));
	EXPECT_TRUE(t, dma_debug_unmap(&disk, 0x100000, &size, &dir, SITE(2)));
	EXPECT_TRUE(t, dma_debug_sync(&disk, 0x100040, 64, &dir, SITE(2)));
	EXPECT_EQ(t, dma_debug_errors(), 0);
	dma_debug_map(&disk, 0xa00000, 64, DMA_FROM_DEVICE, SITE(1));
	EXPECT_EQ(t, host_log_count("out of entries"), 1);              /* said once */
}

static void a_sync_in_another_direction_is_reported_and_done_in_the_mappings(struct ktest *t)
{
	enum dma_data_direction dir = DMA_FROM_DEVICE;

	dma_debug_host_reset();
	host_log_clear();
	dma_debug_map(&disk, 0x2000, 512, DMA_TO_DEVICE, SITE(1));
	EXPECT_TRUE(t, dma_debug_sync(&disk, 0x2000, 512, &dir, SITE(3)));
	EXPECT_EQ(t, dir, DMA_TO_DEVICE);
	EXPECT_EQ(t, dma_debug_errors(), 1);
	EXPECT_TRUE(t, host_log_has("sync with direction FROM_DEVICE (not the mapping's)"));

	dma_debug_map(&disk, 0x4000, 512, DMA_BIDIRECTIONAL, SITE(1));
	dir = DMA_FROM_DEVICE;
	EXPECT_TRUE(t, dma_debug_sync(&disk, 0x4000, 512, &dir, SITE(3)));
	EXPECT_EQ(t, dir, DMA_FROM_DEVICE);     /* a bidirectional mapping syncs either way */
	EXPECT_EQ(t, dma_debug_errors(), 1);
}

static void an_invalid_direction_is_named_not_indexed(struct ktest *t)
{
	u64 size = 64;
	enum dma_data_direction dir = (enum dma_data_direction)7;

	dma_debug_host_reset();
	host_log_clear();
	dma_debug_map(&disk, 0x3000, 64, (enum dma_data_direction)9, SITE(1));
	EXPECT_TRUE(t, dma_debug_unmap(&disk, 0x3000, &size, &dir, SITE(2)));
	EXPECT_TRUE(t, host_log_has("unmap with direction an invalid direction (not the mapping's)"));
	EXPECT_TRUE(t, host_log_has("mapped 64 bytes an invalid direction"));
}

static void a_double_unmap_names_the_latest_unmap(struct ktest *t)
{
	u64 size = 64;
	enum dma_data_direction dir = DMA_TO_DEVICE;

	dma_debug_host_reset();
	host_log_clear();
	dma_debug_map(&disk, 0x5000, 64, DMA_TO_DEVICE, SITE(1));
	EXPECT_TRUE(t, dma_debug_unmap(&disk, 0x5000, &size, &dir, SITE(0xa)));
	dma_debug_map(&disk, 0x5000, 64, DMA_TO_DEVICE, SITE(1));
	EXPECT_TRUE(t, dma_debug_unmap(&disk, 0x5000, &size, &dir, SITE(0xb)));
	EXPECT_FALSE(t, dma_debug_unmap(&disk, 0x5000, &size, &dir, SITE(0xc)));
	EXPECT_TRUE(t, host_log_has("double unmap of 0x5000"));
	EXPECT_TRUE(t, host_log_has("unmapped at 0x000000000000b000"));
}

static const struct ktest_case dma_debug_cases[] = {
	KTEST(a_full_table_turns_checking_off_and_lets_unmaps_through),
	KTEST(a_sync_in_another_direction_is_reported_and_done_in_the_mappings),
	KTEST(an_invalid_direction_is_named_not_indexed),
	KTEST(a_double_unmap_names_the_latest_unmap),
	{},
};
KTEST_SUITE(dma_debug, dma_debug_cases);
