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
 *
 * And the oracle, a model of the rings as the device sees them, kept by
 * the harness (which descriptors each chain in flight holds, how many
 * chains there are, the used entries taken):
 *   - virtq_add() fails exactly when the model says: -EIO once broken,
 *     -EINVAL for more buffers than the queue's size, -ENOSPC when fewer
 *     descriptors are free than the chain takes (n, or 1 if indirect);
 *   - a chain added is the avail ring's new entry; its descriptors, read
 *     from the ring as the device would, are free in the model, within
 *     the table, and carry the buffers in order (address, length, WRITE,
 *     NEXT on all but the last; indirect: one INDIRECT descriptor whose
 *     table carries them);
 *   - virtq_get_used() returns the token of the chain the used element
 *     names, with the element's length; and nothing, breaking the queue,
 *     when the used index runs ahead of the chains in flight or the
 *     element names no chain in flight.
 */
#include "errno.h"
#include "fuzz.h"
#include "virtqueue.h"

#define SIZE 16

static u8 mem[4096] __aligned(16);
static u8 out[1024];                    /* out[t]: token t is with the device */
static struct virtq_desc tables[SIZE][4];       /* indirect tables, one per possible head */

static s16 owner[SIZE];                  /* the model: descriptor -> head of its chain, or -1 */
static u32 token_head[1024];            /* the model: token -> head of its chain */

/* Does the chain just added at head carry bufs[0..n) on descriptors the model has free? */
static void check_chain(const struct virtq_ring *q, u16 qsize, u16 head, const struct virtq_buf *bufs,
			u32 n, bool indirect, u64 table_addr, const struct virtq_desc *table)
{
	volatile const struct virtq_desc *d = q->desc;
	u16 at = head;

	FUZZ_CHECK(head < qsize && owner[head] < 0);
	if (indirect) {
		FUZZ_CHECK(d[head].flags == VIRTQ_DESC_F_INDIRECT && d[head].addr == table_addr);
		FUZZ_CHECK(d[head].len == n * sizeof(struct virtq_desc));
		owner[head] = (s16)head;
		d = table;
		at = 0;
	}
	for (u32 i = 0; i < n; i++) {
		FUZZ_CHECK(at < (indirect ? 4 : qsize));
		FUZZ_CHECK(indirect || owner[at] < 0);
		FUZZ_CHECK(d[at].addr == bufs[i].addr && d[at].len == bufs[i].len);
		FUZZ_CHECK(!!(d[at].flags & VIRTQ_DESC_F_WRITE) == bufs[i].write);
		FUZZ_CHECK(!!(d[at].flags & VIRTQ_DESC_F_NEXT) == (i + 1 < n));
		if (!indirect)
			owner[at] = (s16)head;
		at = d[at].next;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct virtq_ring q;
	struct fuzz_input in = { data, size, 0 };
	u16 qsize = (u16)(1u << (fuzz_take(&in, 1) % 5));      /* 1 .. SIZE */
	u32 free = qsize, chains = 0;
	u16 taken = 0, published = 0;
	bool broken = false;

	fuzz_quiet();
	memset(mem, 0, sizeof(mem));
	memset(out, 0, sizeof(out));
	memset(owner, 0xff, sizeof(owner));
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
			struct virtq_desc *table = tables[q.free_head % SIZE];
			u32 takes = indirect ? 1 : n;
			int want = broken ? -EIO : n > qsize ? -EINVAL : free < takes ? -ENOSPC : 0;
			int err = indirect ? virtq_add_indirect(&q, bufs, n, &out[token], table, 0x1000)
					   : virtq_add(&q, bufs, n, &out[token]);
			if (fuzz_take(&in, 1) & 1)
				virtq_kick_prepare(&q);
			FUZZ_CHECK(err == want);
			if (err)
				break;
			FUZZ_CHECK(q.avail[1] == ++published);
			u16 head = q.avail[2 + (u16)(published - 1) % qsize];
			check_chain(&q, qsize, head, bufs, n, indirect, 0x1000, table);
			out[token] = 1;
			token_head[token] = head;
			free -= takes;
			chains++;
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
		for (;;) {
			volatile struct virtq_used_elem *e =
				(volatile struct virtq_used_elem *)(q.used + 2) + taken % qsize;
			u16 waiting = (u16)(q.used[1] - taken);
			u32 id = e->id, elen = e->len, len = ~elen;
			bool good = !broken && waiting && waiting <= chains && id < qsize &&
				    owner[id] == (s16)id;
			u8 *token = virtq_get_used(&q, &len);
			broken |= !broken && waiting && !good;
			if (!good) {
				FUZZ_CHECK(!token);
				break;
			}
			FUZZ_CHECK(token >= out && token < out + sizeof(out));
			FUZZ_CHECK(*token == 1);        /* given out, not back yet */
			FUZZ_CHECK(token_head[token - out] == id && len == elen);
			*token = 0;
			for (u32 d = 0; d < SIZE; d++)
				if (owner[d] == (s16)id) {
					owner[d] = -1;
					free++;
				}
			chains--;
			taken++;
		}
		FUZZ_CHECK(!!q.broken == broken);
		const char *why = virtq_check(&q);
		if (why) {
			fprintf(stderr, "virtqueue: %s\n", why);
			abort();
		}
	}
	return 0;
}
