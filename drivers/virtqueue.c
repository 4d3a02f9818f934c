// SPDX-License-Identifier: MIT
/*
 * virtqueue.c - the split virtqueue's rings (see virtqueue.h).
 *
 * virtq_add() links free descriptors into a chain through the driver's
 * own next[], writes them for the device, and puts the head in the avail
 * ring; virtq_get_used() reads one used element, checks that its id is the
 * head of a chain in flight, and gives the chain back by walking next[],
 * chain_len[id] steps: what the device wrote into desc[] is never read
 * back. virtq_add_indirect() writes the same chain into the caller's table
 * and takes one ring descriptor for it. The barriers are the ones 2.6.13
 * asks for: the descriptors and the ring entry before avail->idx; avail->idx
 * before used->flags (virtq_kick_prepare()); used->idx before its element.
 */
#include "virtqueue.h"
#include "errno.h"
#include "kstring.h"
#include "printk.h"

u64 virtq_avail_offset(u16 size)
{
	return 16UL * size;
}

u64 virtq_used_offset(u16 size)
{
	return ALIGN_UP(virtq_avail_offset(size) + 6 + 2UL * size, 4);
}

u64 virtq_mem_bytes(u16 size)
{
	return virtq_used_offset(size) + 6 + 8UL * size;
}

void virtq_init(struct virtq_ring *q, void *mem, u16 size)
{
	u8 *base = mem;

	*q = (struct virtq_ring){
		.size = size,
		.desc = (volatile struct virtq_desc *)base,
		.avail = (volatile u16 *)(base + virtq_avail_offset(size)),
		.used = (volatile u16 *)(base + virtq_used_offset(size)),
		.num_free = size,
	};
	for (u16 i = 0; i < size; i++)
		q->next[i] = (u16)(i + 1);
}

/* The chain of n ring descriptors at head is ready: record it and make it available. */
static void publish(struct virtq_ring *q, u16 head, u16 last, u32 n, void *token)
{
	q->free_head = q->next[last];
	q->num_free = (u16)(q->num_free - n);
	q->chain_len[head] = (u16)n;
	q->token[head] = token;
	q->in_flight++;
	if (q->in_flight > q->max_in_flight)
		q->max_in_flight = q->in_flight;
	q->avail[2 + q->avail_idx % q->size] = head;
	__atomic_thread_fence(__ATOMIC_RELEASE);        /* the ring entry before the index */
	q->avail_idx++;
	q->avail[1] = q->avail_idx;
	q->added++;
}

static int refuse(const struct virtq_ring *q, u32 n, u32 ring_descs, const void *token)
{
	if (q->broken)
		return -EIO;
	if (!n || n > q->size || !token)
		return -EINVAL;                 /* no chain longer than the queue (2.6.5.3.1) */
	if (q->num_free < ring_descs)
		return -ENOSPC;
	return 0;
}

/*
 * Write bufs[0..n) as one chain into table from first on, each linked to
 * next[] of its own (the ring's free list) or, without next, to the one
 * after it (an indirect table); the last descriptor's index.
 */
static u16 write_chain(volatile struct virtq_desc *table, u16 first, const u16 *next,
		       const struct virtq_buf *bufs, u32 n)
{
	u16 d = first;

	for (u32 i = 0; ; i++) {
		bool more = i + 1 < n;
		u16 after = next ? next[d] : (u16)(d + 1);
		table[d].addr = bufs[i].addr;
		table[d].len = bufs[i].len;
		table[d].flags = (u16)((bufs[i].write ? VIRTQ_DESC_F_WRITE : 0) |
				       (more ? VIRTQ_DESC_F_NEXT : 0));
		table[d].next = more ? after : 0;
		if (!more)
			return d;
		d = after;
	}
}

int virtq_add(struct virtq_ring *q, const struct virtq_buf *bufs, u32 n, void *token)
{
	int err = refuse(q, n, n, token);
	if (err)
		return err;
	u16 head = q->free_head;
	publish(q, head, write_chain(q->desc, head, q->next, bufs, n), n, token);
	return 0;
}

int virtq_add_indirect(struct virtq_ring *q, const struct virtq_buf *bufs, u32 n, void *token,
		       volatile struct virtq_desc *table, u64 table_addr)
{
	int err = refuse(q, n, 1, token);
	if (err)
		return err;
	write_chain(table, 0, NULL, bufs, n);
	u16 head = q->free_head;
	q->desc[head].addr = table_addr;
	q->desc[head].len = n * (u32)sizeof(struct virtq_desc);
	q->desc[head].flags = VIRTQ_DESC_F_INDIRECT;   /* never with NEXT (2.6.5.3.1) */
	q->desc[head].next = 0;
	publish(q, head, head, 1, token);
	return 0;
}

bool virtq_kick_prepare(struct virtq_ring *q)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);        /* avail->idx out before used->flags in */
	bool added = q->added != 0;
	q->added = 0;
	if (!added)
		return false;
	if (__atomic_load_n(&q->used[0], __ATOMIC_RELAXED) & VIRTQ_USED_F_NO_NOTIFY) {
		q->kicks_suppressed++;
		return false;
	}
	q->kicks++;
	return true;
}

static void *broken(struct virtq_ring *q, const char *why)
{
	if (!q->broken)
		pr_err("virtqueue: the device broke the queue: %s; it needs a reset\n", why);
	q->broken = why;
	return NULL;
}

void *virtq_get_used(struct virtq_ring *q, u32 *len)
{
	if (q->broken)
		return NULL;
	u16 used_idx = __atomic_load_n(&q->used[1], __ATOMIC_RELAXED);
	u16 waiting = (u16)(used_idx - q->last_used);

	if (!waiting)
		return NULL;
	if (waiting > q->in_flight)
		return broken(q, "its used index is ahead of what it was given");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);        /* the element after the index */
	volatile struct virtq_used_elem *elem =
		(volatile struct virtq_used_elem *)(q->used + 2) + q->last_used % q->size;
	u32 id = elem->id, written = elem->len;         /* read once: the device may change them */

	if (id >= q->size || !q->chain_len[id])
		return broken(q, "it gave back a descriptor that heads no chain in flight");
	q->last_used++;
	void *token = q->token[id];
	u16 last = (u16)id;
	for (u16 i = 1; i < q->chain_len[id]; i++)
		last = q->next[last];
	q->next[last] = q->free_head;                   /* the whole chain back on the free list */
	q->free_head = (u16)id;
	q->num_free = (u16)(q->num_free + q->chain_len[id]);
	q->chain_len[id] = 0;
	q->token[id] = NULL;
	q->in_flight--;
	if (len)
		*len = written;
	return token;
}

const char *virtq_check(const struct virtq_ring *q)
{
	u8 seen[VIRTQ_MAX] = { 0 };
	u32 free = 0, held = 0, chains = 0;

	if (q->size == 0 || q->size > VIRTQ_MAX)
		return "size out of 1..VIRTQ_MAX";
	for (u16 d = q->free_head; free < q->num_free; d = q->next[d], free++) {
		if (d >= q->size || seen[d]++)
			return "the free list leaves the table or loops";
	}
	for (u16 h = 0; h < q->size; h++) {
		if (!q->chain_len[h]) {
			if (q->token[h])
				return "a token without a chain";
			continue;
		}
		if (!q->token[h])
			return "a chain in flight without its token";
		chains++;
		u16 d = h;
		for (u16 i = 0; i < q->chain_len[h]; i++, d = q->next[d]) {
			if (d >= q->size || seen[d]++)
				return "a chain shares a descriptor with another or the free list";
			held++;
		}
	}
	if (free + held != q->size)
		return "free and chained descriptors do not add up to size";
	if (chains != q->in_flight)
		return "in_flight is not the number of chains";
	return NULL;
}
