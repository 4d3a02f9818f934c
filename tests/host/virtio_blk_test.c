// SPDX-License-Identifier: MIT
/*
 * virtio_blk_test.c - drivers/virtio.c and drivers/virtio_blk.c, the
 * kernel's own source, against a virtio-blk function that lies
 * (tests/host/virtio_fake.h): requests come back with the disk's data; a
 * stalled or lying device is reset and the disk comes back; a device that
 * does not come back after its reset leaves a dead disk whose requests
 * fail at once, with nothing the device can reach freed; a device that
 * asks for a reset on every interrupt is reset outside the handler and
 * only so often; a reset never acknowledged keeps the rings; a
 * configuration that never holds still and capabilities too short to
 * hold what is read are refused. ASan and UBSan watch every access the
 * driver and the fake device make.
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

/* A device that lies after its reset: every later request fails at once, said once. */
static void dies_after_its_reset(struct ktest *t, void (*lie)(void))
{
	struct virtio_blk *vb = start(true);
	ASSERT_TRUE(t, vb != NULL);
	short_patience(vb);
	fake_faults.stall = true;
	lie();
	EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -ETIMEDOUT);
	u32 notifies = fake_counts.notifies, requests = fake_counts.requests;
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -EIO);
		EXPECT_EQ(t, virtio_blk_write(vb, 1, buf, VIRTIO_BLK_SECTOR), -EIO);
		EXPECT_EQ(t, virtio_blk_flush(vb), -EIO);
	}
	EXPECT_EQ(t, fake_counts.notifies, notifies);           /* never told the device */
	EXPECT_EQ(t, fake_counts.requests, requests);
	EXPECT_EQ(t, fake_counts.yields_in_a_row, 0);           /* nothing retried */
	EXPECT_EQ(t, fake_counts.mapped, 0);
	EXPECT_EQ(t, host_log_count("the disk is dead"), 1);
	fake_touch_rings();                                     /* a reset device has none */
	fake_stop();
}

static void refuse_features_ok(void) { fake_faults.refuse_features_ok = true; }
static void no_queue(void) { fake_faults.queue_size_zero = true; }
static void bad_notify(void) { fake_faults.bad_notify_off = true; }
static void no_memory(void) { fake_faults.fail_coherent = 1; }

static void features_refused_after_a_reset_kill_the_disk(struct ktest *t)
{
	dies_after_its_reset(t, refuse_features_ok);
}

static void a_queue_gone_after_a_reset_kills_the_disk(struct ktest *t)
{
	dies_after_its_reset(t, no_queue);
}

static void a_doorbell_outside_its_capability_after_a_reset_kills_the_disk(struct ktest *t)
{
	dies_after_its_reset(t, bad_notify);
}

static void no_memory_for_the_ring_after_a_reset_kills_the_disk(struct ktest *t)
{
	dies_after_its_reset(t, no_memory);
}

static void needs_reset_is_answered_outside_the_handler_and_only_so_often(struct ktest *t)
{
	struct virtio_blk *vb = start(true);
	ASSERT_TRUE(t, vb != NULL);
	fake_faults.needs_reset = true;
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -EIO);
	EXPECT_TRUE(t, fake_counts.interrupts > 0);
	EXPECT_EQ(t, fake_counts.resets_in_irq, 0);
	EXPECT_EQ(t, recoveries(vb), VIRTIO_BLK_RESETS_IN_A_ROW + 1);    /* the last one leaves it dead */
	EXPECT_EQ(t, host_log_count("the disk is dead"), 1);
	EXPECT_EQ(t, fake_counts.mapped, 0);
	fake_stop();
}

static void a_device_that_breaks_its_used_ring_is_reset(struct ktest *t)
{
	struct virtio_blk *vb = start(true);
	ASSERT_TRUE(t, vb != NULL);
	short_patience(vb);
	fake_faults.garbage_used = true;
	EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -EIO);
	fake_faults.garbage_used = false;
	fake_faults.complete_twice = true;
	EXPECT_EQ(t, virtio_blk_read(vb, 2, buf, VIRTIO_BLK_SECTOR), -EIO);   /* seen at once: a lie */
	fake_faults.complete_twice = false;
	EXPECT_EQ(t, virtio_blk_read(vb, 3, buf, VIRTIO_BLK_SECTOR), 0);
	EXPECT_TRUE(t, holds_sector(buf, 3));
	EXPECT_EQ(t, recoveries(vb), 2);                /* one a lie */
	EXPECT_EQ(t, fake_counts.resets_in_irq, 0);
	EXPECT_EQ(t, fake_counts.mapped, 0);
	fake_stop();
}

static void a_reset_never_acknowledged_keeps_the_rings(struct ktest *t)
{
	struct virtio_blk *vb = start(true);
	ASSERT_TRUE(t, vb != NULL);
	short_patience(vb);
	u32 live = fake_counts.coherent_live;
	fake_faults.stall = true;
	fake_faults.never_reset = true;
	EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -ETIMEDOUT);
	EXPECT_EQ(t, fake_counts.coherent_live, live);  /* the device may still reach them */
	EXPECT_FALSE(t, fake_bus_master());             /* and is told to reach nothing */
	fake_touch_rings();
	EXPECT_EQ(t, virtio_blk_read(vb, 1, buf, VIRTIO_BLK_SECTOR), -EIO);
	EXPECT_EQ(t, host_log_count("the disk is dead"), 1);
	EXPECT_TRUE(t, host_log_has("never acknowledged its reset"));
	fake_stop();
}

static void a_configuration_that_never_holds_still_is_given_up(struct ktest *t)
{
	fake_start(&(struct fake_shape){ .msix = true });
	fake_faults.generation_moves = true;
	EXPECT_TRUE(t, virtio_blk_get() == NULL);
	EXPECT_TRUE(t, fake_counts.generation_reads <= 2 * 16);
	EXPECT_TRUE(t, virtio_blk_probe_failure() != NULL);
	fake_stop();
}

static void a_common_configuration_too_short_is_refused(struct ktest *t)
{
	fake_start(&(struct fake_shape){ .msix = true, .common_len = 0x20 });
	EXPECT_TRUE(t, virtio_blk_get() == NULL);
	EXPECT_TRUE(t, host_log_has("too short"));
	fake_stop();
}

static void a_device_configuration_too_short_for_the_capacity_is_refused(struct ktest *t)
{
	fake_start(&(struct fake_shape){ .msix = true, .device_len = 4 });
	EXPECT_TRUE(t, virtio_blk_get() == NULL);
	EXPECT_TRUE(t, host_log_has("too short"));
	fake_stop();
}

static const struct ktest_case virtio_blk_cases[] = {
	KTEST(a_request_comes_back_with_the_disks_data),
	KTEST(a_stalled_request_is_reset_and_the_disk_comes_back),
	KTEST(features_refused_after_a_reset_kill_the_disk),
	KTEST(a_queue_gone_after_a_reset_kills_the_disk),
	KTEST(a_doorbell_outside_its_capability_after_a_reset_kills_the_disk),
	KTEST(no_memory_for_the_ring_after_a_reset_kills_the_disk),
	KTEST(needs_reset_is_answered_outside_the_handler_and_only_so_often),
	KTEST(a_device_that_breaks_its_used_ring_is_reset),
	KTEST(a_reset_never_acknowledged_keeps_the_rings),
	KTEST(a_configuration_that_never_holds_still_is_given_up),
	KTEST(a_common_configuration_too_short_is_refused),
	KTEST(a_device_configuration_too_short_for_the_capacity_is_refused),
	{}
};
KTEST_SUITE(virtio_blk_host, virtio_blk_cases);
