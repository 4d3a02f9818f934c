// SPDX-License-Identifier: MIT
/*
 * virtio_blk_test.c - drivers/virtio.c and drivers/virtio_blk.c, the
 * kernel's own source, against a virtio-blk function that lies
 * (tests/host/virtio_fake.h): requests come back with the disk's data; a
 * stalled device is reset and the disk comes back; a common configuration
 * too short for its fields is refused. ASan and UBSan watch
 * every access the driver and the fake device make.
 */
#include <string.h>

#include "errno.h"
#include "host.h"
#include "ktest.h"
#include "virtio_blk.h"
#include "virtio_fake.h"

#define SHORT_TIMEOUT_NS (10UL * 1000 * 1000)   /* a request's patience, in the fake's time */

static u8 buf[2 * VIRTIO_BLK_SECTOR];

/* The byte the fake disk holds at offset i when made. */
static u8 disk_byte(u32 i) { return (u8)(i * 7 + i / VIRTIO_BLK_SECTOR); }

static bool holds_sector(const u8 *p, u64 sector)
{
	for (u32 i = 0; i < VIRTIO_BLK_SECTOR; i++)
		if (p[i] != disk_byte((u32)(sector * VIRTIO_BLK_SECTOR + i)))
			return false;
	return true;
}

static struct virtio_blk *start(bool msix)
{
	fake_start(&(struct fake_shape){ .msix = msix });
	return virtio_blk_get();
}

static u64 recoveries(struct virtio_blk *vb)
{
	struct virtio_blk_stats stats;

	virtio_blk_get_stats(vb, &stats);
	return stats.resets;
}

static void short_patience(struct virtio_blk *vb)
{
	virtio_blk_set_faults(vb, &(struct virtio_blk_faults){ .timeout_ns = SHORT_TIMEOUT_NS });
}

static void a_request_comes_back_with_the_disks_data(struct ktest *t)
{
	for (int msix = 0; msix < 2; msix++) {
		struct virtio_blk *vb = start(msix);
		ASSERT_TRUE(t, vb != NULL);
		EXPECT_EQ(t, virtio_blk_has_irq(vb), (bool)msix);
		EXPECT_EQ(t, virtio_blk_capacity(vb), FAKE_SECTORS);
		EXPECT_EQ(t, virtio_blk_read(vb, 3, buf, VIRTIO_BLK_SECTOR), 0);
		EXPECT_TRUE(t, holds_sector(buf, 3));
		memset(buf, 0xab, VIRTIO_BLK_SECTOR);
		EXPECT_EQ(t, virtio_blk_write(vb, 5, buf, VIRTIO_BLK_SECTOR), 0);
		memset(buf, 0, VIRTIO_BLK_SECTOR);
		EXPECT_EQ(t, virtio_blk_read(vb, 5, buf, VIRTIO_BLK_SECTOR), 0);
		EXPECT_EQ(t, buf[0], 0xab);
		EXPECT_EQ(t, buf[VIRTIO_BLK_SECTOR - 1], 0xab);
		EXPECT_EQ(t, fake_counts.mapped, 0);
		EXPECT_EQ(t, recoveries(vb), 0);
		fake_stop();
	}
}

static void a_stalled_request_is_reset_and_the_disk_comes_back(struct ktest *t)
{
	for (int msix = 0; msix < 2; msix++) {
		struct virtio_blk *vb = start(msix);
		ASSERT_TRUE(t, vb != NULL);
		short_patience(vb);
		fake_faults.stall = true;
		EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -ETIMEDOUT);
		EXPECT_EQ(t, recoveries(vb), 1);
		EXPECT_EQ(t, fake_counts.resets_in_irq, 0);
		fake_faults.stall = false;
		EXPECT_EQ(t, virtio_blk_read(vb, 2, buf, VIRTIO_BLK_SECTOR), 0);
		EXPECT_TRUE(t, holds_sector(buf, 2));
		EXPECT_EQ(t, fake_counts.mapped, 0);
		fake_stop();
	}
}

static void a_common_configuration_too_short_is_refused(struct ktest *t)
{
	fake_start(&(struct fake_shape){ .msix = true, .common_len = 0x20 });
	EXPECT_TRUE(t, virtio_blk_get() == NULL);
	EXPECT_TRUE(t, host_log_has("too short"));
	fake_stop();
}

static const struct ktest_case virtio_blk_cases[] = {
	KTEST(a_request_comes_back_with_the_disks_data),
	KTEST(a_stalled_request_is_reset_and_the_disk_comes_back),
	KTEST(a_common_configuration_too_short_is_refused),
	{}
};
KTEST_SUITE(virtio_blk_host, virtio_blk_cases);
