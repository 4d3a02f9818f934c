// SPDX-License-Identifier: MIT
/*
 * virtqueue.c - fuzz target: the split virtqueue (drivers/virtqueue.c)
 * against a device that writes whatever it likes into the rings: the used
 * ring's index and elements, and the descriptors themselves; chains go
 * out direct or through indirect tables, and the device's NO_NOTIFY flag
 * comes and goes.
 *
 * Checked after every step: virtq_check() (the driver's own record stays
 * whole), and every token that comes back was given out and comes back
 * once. A device that lies may break the queue; it may never make the
 * driver read or write outside the rings or hand back a token twice.
 */
#include "errno.h"
#include "fuzz.h"
#include "virtqueue.h"

#define SIZE 16

static u8 mem[4096] __aligned(16);
static u8 out[1024];                    /* out[t]: token t is with the device */
static struct virtq_desc tables[SIZE][4];       /* indirect tables, one per possible head */

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct virtq_ring q;
	struct fuzz_input in = { data, size, 0 };
	u16 qsize = (u16)(1u << (fuzz_take(&in, 1) % 5));      /* 1 .. SIZE */

	fuzz_quiet();
	memset(mem, 0, sizeof(mem));
	memset(out, 0, sizeof(out));
	virtq_init(&q, mem, qsize);
	FUZZ_CHECK(virtq_mem_bytes(SIZE) <= sizeof(mem));
	while (fuzz_more(&in)) {
		switch (fuzz_take(&in, 1) % 4) {
		case 0: {                       /* the driver gives a chain */
			u32 shape = (u32)fuzz_take(&in, 1);
			u32 n = 1 + shape % 4, token = (u32)fuzz_take(&in, 2) % sizeof(out);
			bool indirect = shape & 0x80;
			struct virtq_buf bufs[4];
			for (u32 i = 0; i < n; i++)
				bufs[i] = (struct virtq_buf){ fuzz_take(&in, 8), (u32)fuzz_take(&in, 4),
							      fuzz_take(&in, 1) & 1 };
			if (out[token])
				break;
			int err = indirect ? virtq_add_indirect(&q, bufs, n, &out[token],
							       tables[q.free_head % SIZE], 0x1000)
					   : virtq_add(&q, bufs, n, &out[token]);
			if (fuzz_take(&in, 1) & 1)
				virtq_kick_prepare(&q);
			FUZZ_CHECK(err == 0 || err == -ENOSPC || err == -EINVAL || err == -EIO);
			if (!err)
				out[token] = 1;
			break;
		}
		case 1: {                       /* the device writes a used element */
			u16 at = (u16)fuzz_take(&in, 2);
			volatile struct virtq_used_elem *e =
				(volatile struct virtq_used_elem *)(q.used + 2) + at % qsize;
			e->id = (u32)fuzz_take(&in, 4);
			e->len = (u32)fuzz_take(&in, 4);
			break;
		}
		case 2:                         /* the device moves its used index, sets its flags */
			q.used[1] = (u16)(q.used[1] + fuzz_take(&in, 1) % 4);
			q.used[0] = (u16)fuzz_take(&in, 1);
			break;
		case 3: {                       /* the device scribbles on the descriptors */
			u32 at = (u32)fuzz_take(&in, 2) % (16u * qsize);
			((volatile u8 *)q.desc)[at] = (u8)fuzz_take(&in, 1);
			break;
		}
		}
		u8 *token;
		u32 len;
		while ((token = virtq_get_used(&q, &len))) {
			FUZZ_CHECK(token >= out && token < out + sizeof(out));
			FUZZ_CHECK(*token == 1);        /* given out, not back yet */
			*token = 0;
		}
		const char *why = virtq_check(&q);
		if (why) {
			fprintf(stderr, "virtqueue: %s\n", why);
			abort();
		}
	}
	return 0;
}
