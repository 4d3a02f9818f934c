// SPDX-License-Identifier: MIT
/*
 * virtio_blk.c - fuzz target: the virtio-blk driver (drivers/virtio.c,
 * drivers/virtio_blk.c) against the lying fake function of
 * tests/host/virtio_fake.h, driven by the input: reads, writes, flushes
 * and resets, in between any mix of the fake's lies (a stall, refused
 * FEATURES_OK, no queue, a bad doorbell, NEEDS_RESET, a reset never
 * acknowledged, a moving generation, used entries twice or wrong, no
 * memory), and used elements of the input's choosing while a request
 * is in flight.
 *
 * Checked after every request: it ends (the fake aborts a retry or a
 * generation loop that does not), with a result the driver defines, and
 * with nothing left mapped. ASan sees any access to a ring or a request
 * the driver gave up, by the driver or by the device.
 */
#include "errno.h"
#include "fuzz.h"
#include "virtio_blk.h"
#include "virtio_fake.h"

static u8 buf[VIRTIO_BLK_SECTOR];

static bool a_result(int err)
{
	return err == 0 || err == -EIO || err == -ETIMEDOUT || err == -EINVAL;
}

static void lies(u8 bits, u8 more)
{
	fake_faults = (struct fake_faults){
		.stall = bits & 1, .refuse_features_ok = bits & 2, .queue_size_zero = bits & 4,
		.bad_notify_off = bits & 8, .needs_reset = bits & 16, .never_reset = bits & 32,
		.complete_twice = bits & 64, .garbage_used = bits & 128,
		.generation_moves = more & 1, .fail_coherent = (more >> 1) & 3,
	};
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };

	fuzz_quiet();
	fake_start(&(struct fake_shape){ .msix = fuzz_take(&in, 1) & 1 });
	struct virtio_blk *vb = virtio_blk_get();
	FUZZ_CHECK(vb != NULL);                 /* no lie yet: it comes up */
	virtio_blk_set_faults(vb, &(struct virtio_blk_faults){ .timeout_ns = 10UL * 1000 * 1000 });
	while (fuzz_more(&in)) {
		u64 sector = fuzz_take(&in, 1) % (FAKE_SECTORS + 1);     /* one past the end, too */
		int err = 0;
		switch (fuzz_take(&in, 1) % 6) {
		case 0:
			lies((u8)fuzz_take(&in, 1), (u8)fuzz_take(&in, 1));
			continue;
		case 1:
			err = virtio_blk_read(vb, sector, buf, VIRTIO_BLK_SECTOR);
			break;
		case 2:
			err = virtio_blk_write(vb, sector, buf, VIRTIO_BLK_SECTOR);
			break;
		case 3: {                       /* the device answers with what the input says */
			struct virtio_blk_req req = { .type = VIRTIO_BLK_T_IN, .sector = sector,
						      .buf = buf, .len = VIRTIO_BLK_SECTOR };
			u32 id = (u32)fuzz_take(&in, 2), len = (u32)fuzz_take(&in, 4);
			u16 skip = (u16)(fuzz_take(&in, 1) % 3);
			err = virtio_blk_submit(vb, &req);
			if (err)
				break;
			fake_write_used(id, len, skip);
			fake_run();
			err = virtio_blk_wait(vb, &req);
			break;
		}
		case 4:
			virtio_blk_reset(vb);
			break;
		case 5:
			err = virtio_blk_flush(vb);
			break;
		}
		FUZZ_CHECK(a_result(err) || err == -ENOSPC);
		FUZZ_CHECK(fake_counts.mapped == 0);
	}
	fake_stop();
	return 0;
}
