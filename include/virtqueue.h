/* SPDX-License-Identifier: MIT */
/*
 * virtqueue.h - a split virtqueue (virtio 1.1, 2.6): the rings a driver and
 * a device share, and the driver's own record of what it handed out.
 *
 * One block of memory the device reaches by DMA holds three parts:
 *
 *   desc[size]         16 bytes each: addr, len, flags (NEXT, WRITE), next
 *   avail              flags, idx, ring[size]: heads of chains for the device
 *   used               flags, idx, ring[size] of {id, len}: chains given back
 *
 * The device may write any of it (it writes used; a broken or hostile
 * device could write the rest). So the driver never follows what the
 * device wrote: it keeps its own copy of each chain (Linux's desc_extra)
 * in next[] and chain_len[], and takes from the used ring only an id (which
 * must be the head of a chain in flight) and a length. A device that says
 * anything else breaks the queue: virtq_get_used() and virtq_add() then
 * refuse all work, and the driver must reset the device.
 *
 * Indirect descriptors (virtio 1.1, 2.6.5.3; 1.2, 2.7.5.3; Linux since Mark
 * McLoughlin's "virtio: indirect ring entries", 2009): with
 * VIRTIO_F_INDIRECT_DESC negotiated, virtq_add_indirect() writes a chain into
 * a table the caller owns (DMA-reachable memory, like the rings) and puts
 * one descriptor in the ring pointing at it, flags INDIRECT and nothing
 * else: a three-buffer block request takes one ring descriptor instead of
 * three. To the driver's own record it is a chain of length 1.
 *
 * Notifications (2.6.13.4, 2.6.10): virtq_add() publishes each chain at
 * once (the device may start on it) but never notifies; the caller kicks
 * once after a batch, and virtq_kick_prepare() says whether the device
 * wants that kick (it sets VIRTQ_USED_F_NO_NOTIFY while it is processing
 * the queue anyway). EVENT_IDX is not negotiated.
 *
 * Invariants (checked by virtq_check()):
 *   - the free descriptors form a list from free_head through next[], num_free long;
 *   - chain_len[h] > 0 exactly for the heads h of chains in flight, and
 *     num_free plus the lengths of those chains is size;
 *   - in_flight counts those chains, token[h] is set for each.
 *
 * Pure: no locks, no devices; the caller holds the queue's lock. The host
 * tests and the fuzzer (tests/fuzz/virtqueue.c) run it on plain memory.
 */
#ifndef VIRTQUEUE_H
#define VIRTQUEUE_H

#include "types.h"

#define VIRTQ_MAX            256        /* descriptors per queue, at most */
#define VIRTQ_DESC_F_NEXT    1
#define VIRTQ_DESC_F_WRITE   2
#define VIRTQ_DESC_F_INDIRECT 4        /* addr, len: a table of descriptors */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1
#define VIRTQ_USED_F_NO_NOTIFY 1        /* the device: do not kick me */

struct virtq_desc {
	u64 addr;
	u32 len;
	u16 flags;
	u16 next;
} __attribute__((packed));

struct virtq_used_elem {
	u32 id;
	u32 len;
} __attribute__((packed));

/* One buffer of a chain: a bus address already mapped for the device. */
struct virtq_buf {
	u64 addr;
	u32 len;
	bool write;             /* the device writes it */
};

struct virtq_ring {
	u16 size;
	volatile struct virtq_desc *desc;
	volatile u16 *avail;            /* flags, idx, ring[size] */
	volatile u16 *used;             /* flags, idx, then elems */
	u16 free_head, num_free;
	u16 last_used;                  /* used entries taken so far */
	u16 avail_idx;                  /* chains made available so far */
	u16 in_flight;                  /* chains the device holds */
	u32 added;                      /* chains made available since the last kick_prepare */
	u16 max_in_flight;              /* the most in_flight has been since virtq_init() */
	u64 kicks, kicks_suppressed;    /* virtq_kick_prepare()'s answers: kick, NO_NOTIFY */
	const char *broken;             /* why the device broke the queue, or NULL */
	/* the driver's own copy: never written by the device */
	u16 next[VIRTQ_MAX];            /* free list, and each chain's links */
	u16 chain_len[VIRTQ_MAX];       /* at a head in flight: its length; 0 elsewhere */
	void *token[VIRTQ_MAX];         /* at a head in flight: the caller's */
};

/* Bytes of device memory for a queue of size descriptors (avail and used aligned as 2.6 asks). */
u64 virtq_mem_bytes(u16 size);

/* Lay the rings out in mem (zeroed, virtq_mem_bytes(size) long) and start empty. */
void virtq_init(struct virtq_ring *q, void *mem, u16 size);

/* Where avail and used start in mem, for the device's registers. */
u64 virtq_avail_offset(u16 size);
u64 virtq_used_offset(u16 size);

/*
 * Give the device a chain of n buffers with token (not NULL): 0, -ENOSPC
 * if fewer than n descriptors are free, -EINVAL for n out of 1..size, -EIO
 * if the queue is broken. The caller kicks the device after.
 */
int virtq_add(struct virtq_ring *q, const struct virtq_buf *bufs, u32 n, void *token);

/*
 * The same chain through an indirect table: the n buffers are written to
 * table[0..n) (at bus address table_addr, n * 16 bytes), and one ring
 * descriptor (flags INDIRECT) points at it. Only when the device offered
 * VIRTIO_F_INDIRECT_DESC; the table must stay untouched until the chain
 * comes back from virtq_get_used(). Results as virtq_add().
 */
int virtq_add_indirect(struct virtq_ring *q, const struct virtq_buf *bufs, u32 n, void *token,
		       volatile struct virtq_desc *table, u64 table_addr);

/*
 * After adding a batch: true if the device is to be notified, false if it
 * said it needs no kick (VIRTQ_USED_F_NO_NOTIFY) or nothing was added. The
 * full barrier between the published avail index and reading used->flags
 * is here (2.6.13.4.1); counted in kicks and kicks_suppressed.
 */
bool virtq_kick_prepare(struct virtq_ring *q);

/*
 * The token of the next chain the device gave back, with the length it
 * says it wrote; NULL when there is none, or when the device broke the queue
 * (q->broken says why; said once on the console).
 */
void *virtq_get_used(struct virtq_ring *q, u32 *len);

/* Check every invariant; NULL if all hold, else what is wrong. */
const char *virtq_check(const struct virtq_ring *q);

#endif
