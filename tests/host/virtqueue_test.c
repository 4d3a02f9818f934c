// SPDX-License-Identifier: MIT
/*
 * virtqueue_test.c - the split virtqueue's rings on plain memory, with the
 * test playing the device: chains go out and come back in any order, direct
 * or through indirect tables, the device is notified once a batch unless
 * it said not to, and a device that writes nonsense breaks the queue
 * instead of the driver.
 */
#include <stdlib.h>
#include <string.h>

#include "errno.h"
#include "ktest.h"
#include "virtqueue.h"

#define SIZE 8

static u8 mem[4096] __aligned(16);
static struct virtq_ring q;
static int tokens[64];
static struct virtq_desc tables[64][SIZE] __aligned(16);        /* an indirect table per tag */

#define TABLE_ADDR(tag) (0x100000 + 0x1000 * (u64)(tag))        /* its bus address, made up */

static void fresh(void)
{
	memset(mem, 0, sizeof(mem));
	virtq_init(&q, mem, SIZE);
}

/* A chain of n buffers; its token is &tokens[tag]. */
static int add(u32 n, int tag)
{
	struct virtq_buf bufs[SIZE + 1];

	for (u32 i = 0; i < n && i < ARRAY_SIZE(bufs); i++)
		bufs[i] = (struct virtq_buf){ 0x1000 * (u64)(i + 1), 512, i == n - 1 };
	return virtq_add(&q, bufs, n, &tokens[tag]);
}

/* The same chain through tables[tag]. */
static int add_indirect(u32 n, int tag)
{
	struct virtq_buf bufs[SIZE + 1];

	for (u32 i = 0; i < n && i < ARRAY_SIZE(bufs); i++)
		bufs[i] = (struct virtq_buf){ 0x1000 * (u64)(i + 1), 512, i == n - 1 };
	return virtq_add_indirect(&q, bufs, n, &tokens[tag], tables[tag], TABLE_ADDR(tag));
}

/* The device gives back the chain that starts at head, having written len bytes. */
static void device_uses(u16 head, u32 len)
{
	volatile struct virtq_used_elem *elems = (volatile struct virtq_used_elem *)(q.used + 2);
	u16 idx = q.used[1];

	elems[idx % SIZE].id = head;
	elems[idx % SIZE].len = len;
	q.used[1] = (u16)(idx + 1);
}

/* The head the device would read at avail position i. */
static u16 avail_head(u16 i)
{
	return q.avail[2 + i % SIZE];
}

static void layout_follows_the_spec(struct ktest *t)
{
	EXPECT_EQ(t, virtq_avail_offset(SIZE), 16 * SIZE);
	EXPECT_EQ(t, virtq_used_offset(SIZE) % 4, 0);
	EXPECT_EQ(t, virtq_mem_bytes(256), 4096 + 6 + 512 + 2 + 6 + 8 * 256);
}

static void chains_go_out_and_come_back(struct ktest *t)
{
	u32 len = 0;

	fresh();
	ASSERT_EQ(t, add(3, 1), 0);
	ASSERT_EQ(t, add(2, 2), 0);
	EXPECT_EQ(t, q.num_free, SIZE - 5);
	EXPECT_EQ(t, q.avail[1], 2);
	u16 first = avail_head(0), second = avail_head(1);
	EXPECT_TRUE(t, q.desc[first].flags & VIRTQ_DESC_F_NEXT);
	EXPECT_EQ(t, virtq_get_used(&q, &len), NULL);           /* nothing used yet */
	device_uses(second, 99);                                /* out of order */
	EXPECT_EQ(t, virtq_get_used(&q, &len), &tokens[2]);
	EXPECT_EQ(t, len, 99);
	device_uses(first, 7);
	EXPECT_EQ(t, virtq_get_used(&q, &len), &tokens[1]);
	EXPECT_EQ(t, q.num_free, SIZE);
	EXPECT_EQ(t, q.in_flight, 0);
	EXPECT_EQ(t, virtq_check(&q), NULL);
}

static void a_full_ring_says_so(struct ktest *t)
{
	fresh();
	EXPECT_EQ(t, add(5, 1), 0);
	EXPECT_EQ(t, add(4, 2), -ENOSPC);
	EXPECT_EQ(t, add(3, 3), 0);
	EXPECT_EQ(t, add(1, 4), -ENOSPC);
	EXPECT_EQ(t, add(0, 5), -EINVAL);
	EXPECT_EQ(t, add(SIZE + 1, 6), -EINVAL);
	EXPECT_EQ(t, virtq_check(&q), NULL);
}

/* What the device writes into desc[] is never followed back. */
static void scribbled_descriptors_do_not_matter(struct ktest *t)
{
	fresh();
	ASSERT_EQ(t, add(3, 1), 0);
	u16 head = avail_head(0);
	memset((void *)q.desc, 0xff, 16 * SIZE);        /* NEXT everywhere, next = 65535 */
	device_uses(head, 0);
	EXPECT_EQ(t, virtq_get_used(&q, NULL), &tokens[1]);
	EXPECT_EQ(t, q.num_free, SIZE);
	EXPECT_EQ(t, virtq_check(&q), NULL);
}

static void a_bogus_used_id_breaks_the_queue(struct ktest *t)
{
	fresh();
	ASSERT_EQ(t, add(2, 1), 0);
	ASSERT_EQ(t, add(2, 2), 0);
	u16 second = avail_head(1);
	device_uses((u16)(second + 1), 0);              /* inside a chain, not its head */
	EXPECT_EQ(t, virtq_get_used(&q, NULL), NULL);
	EXPECT_NE(t, q.broken, NULL);
	EXPECT_EQ(t, add(1, 3), -EIO);                  /* no more work for a broken device */
	EXPECT_EQ(t, virtq_check(&q), NULL);            /* and the driver's record is intact */
	fresh();
	ASSERT_EQ(t, add(1, 1), 0);
	device_uses(SIZE + 3, 0);                       /* beyond the table */
	EXPECT_EQ(t, virtq_get_used(&q, NULL), NULL);
	EXPECT_NE(t, q.broken, NULL);
}

static void a_used_id_given_back_twice_breaks_the_queue(struct ktest *t)
{
	fresh();
	ASSERT_EQ(t, add(1, 1), 0);
	u16 head = avail_head(0);
	device_uses(head, 0);
	EXPECT_EQ(t, virtq_get_used(&q, NULL), &tokens[1]);
	ASSERT_EQ(t, add(1, 2), 0);
	device_uses(head, 0);                           /* the same head again: it is free now... */
	if (avail_head(1) == head) {
		EXPECT_EQ(t, virtq_get_used(&q, NULL), &tokens[2]); /* ...unless reused at once */
		device_uses(head, 0);
	}
	EXPECT_EQ(t, virtq_get_used(&q, NULL), NULL);
	EXPECT_NE(t, q.broken, NULL);
}

static void a_used_index_ahead_breaks_the_queue(struct ktest *t)
{
	fresh();
	ASSERT_EQ(t, add(1, 1), 0);
	q.used[1] = 5;                                  /* five used, one in flight */
	EXPECT_EQ(t, virtq_get_used(&q, NULL), NULL);
	EXPECT_NE(t, q.broken, NULL);
}

/* A block request's three buffers: one ring descriptor, pointing at a table of three. */
static void an_indirect_chain_takes_one_ring_descriptor(struct ktest *t)
{
	fresh();
	memset(tables, 0xee, sizeof(tables));
	ASSERT_EQ(t, add_indirect(3, 1), 0);
	EXPECT_EQ(t, q.num_free, SIZE - 1);
	u16 head = avail_head(0);
	EXPECT_EQ(t, q.desc[head].flags, VIRTQ_DESC_F_INDIRECT);       /* not with NEXT (2.6.5.3.1) */
	EXPECT_EQ(t, q.desc[head].addr, TABLE_ADDR(1));
	EXPECT_EQ(t, q.desc[head].len, 3 * sizeof(struct virtq_desc));
	for (u16 i = 0; i < 3; i++) {
		EXPECT_EQ(t, tables[1][i].addr, 0x1000 * (u64)(i + 1));
		EXPECT_EQ(t, tables[1][i].len, 512);
	}
	EXPECT_EQ(t, tables[1][0].flags, VIRTQ_DESC_F_NEXT);
	EXPECT_EQ(t, tables[1][0].next, 1);
	EXPECT_EQ(t, tables[1][1].flags, VIRTQ_DESC_F_NEXT);
	EXPECT_EQ(t, tables[1][1].next, 2);
	EXPECT_EQ(t, tables[1][2].flags, VIRTQ_DESC_F_WRITE);   /* the end: no NEXT */
	EXPECT_EQ(t, virtq_check(&q), NULL);
	device_uses(head, 1);
	EXPECT_EQ(t, virtq_get_used(&q, NULL), &tokens[1]);
	EXPECT_EQ(t, q.num_free, SIZE);
	EXPECT_EQ(t, virtq_check(&q), NULL);
}

/* SIZE indirect chains fill a queue of SIZE; direct chains share it. */
static void a_queue_holds_size_indirect_chains(struct ktest *t)
{
	fresh();
	for (int tag = 0; tag < SIZE; tag++)
		ASSERT_EQ(t, add_indirect(3, tag), 0);
	EXPECT_EQ(t, q.in_flight, SIZE);
	EXPECT_EQ(t, q.max_in_flight, SIZE);
	EXPECT_EQ(t, add_indirect(3, SIZE), -ENOSPC);
	EXPECT_EQ(t, add_indirect(SIZE + 1, SIZE), -EINVAL);    /* no chain longer than the queue */
	device_uses(avail_head(2), 0);
	EXPECT_EQ(t, virtq_get_used(&q, NULL), &tokens[2]);
	EXPECT_EQ(t, add(2, 40), -ENOSPC);              /* one free: a direct pair does not fit */
	EXPECT_EQ(t, add(1, 40), 0);                    /* one does */
	EXPECT_EQ(t, virtq_check(&q), NULL);
}

/* One kick a batch; none when nothing was added, or when the device says NO_NOTIFY. */
static void a_batch_is_one_kick_unless_the_device_declines(struct ktest *t)
{
	fresh();
	EXPECT_FALSE(t, virtq_kick_prepare(&q));        /* nothing to tell */
	for (int tag = 0; tag < 4; tag++)
		ASSERT_EQ(t, add_indirect(3, tag), 0);
	EXPECT_EQ(t, q.avail[1], 4);                    /* each published at once */
	EXPECT_TRUE(t, virtq_kick_prepare(&q));
	EXPECT_FALSE(t, virtq_kick_prepare(&q));        /* the same batch: told already */
	ASSERT_EQ(t, add(1, 10), 0);
	q.used[0] = VIRTQ_USED_F_NO_NOTIFY;             /* the device is at work on the queue */
	EXPECT_FALSE(t, virtq_kick_prepare(&q));
	EXPECT_EQ(t, q.kicks, 1);
	EXPECT_EQ(t, q.kicks_suppressed, 1);
	q.used[0] = 0;
	ASSERT_EQ(t, add(1, 11), 0);
	EXPECT_TRUE(t, virtq_kick_prepare(&q));
	EXPECT_EQ(t, q.kicks, 2);
}

/* Random traffic against a model: which tokens are out, and in what chains. */
static void random_traffic_matches_the_model(struct ktest *t)
{
	u32 seed = 2005;
	int out[64] = { 0 };
	u16 head_of[64];

	fresh();
	for (u32 step = 0; step < 5000; step++) {
		seed = seed * 1103515245 + 12345;
		int tag = (int)(seed >> 16) % 64;
		if ((seed >> 8) & 1) {
			if (out[tag])
				continue;
			u32 n = 1 + (seed >> 24) % 3;
			u16 head = q.free_head;
			int err = (seed >> 12) & 1 ? add_indirect(n, tag) : add(n, tag);
			ASSERT_TRUE(t, err == 0 || err == -ENOSPC);
			if (!err) {
				out[tag] = 1;
				head_of[tag] = head;
			}
		} else if (out[tag]) {
			device_uses(head_of[tag], (u32)tag);
			u32 len;
			ASSERT_EQ(t, virtq_get_used(&q, &len), &tokens[tag]);
			EXPECT_EQ(t, len, (u32)tag);
			out[tag] = 0;
		}
		const char *why = virtq_check(&q);
		if (why)
			KTEST_FAIL(t, "step %u: %s", step, why);
	}
	EXPECT_EQ(t, q.broken, NULL);
}

static const struct ktest_case virtqueue_cases[] = {
	KTEST(layout_follows_the_spec),
	KTEST(chains_go_out_and_come_back),
	KTEST(a_full_ring_says_so),
	KTEST(scribbled_descriptors_do_not_matter),
	KTEST(a_bogus_used_id_breaks_the_queue),
	KTEST(a_used_id_given_back_twice_breaks_the_queue),
	KTEST(a_used_index_ahead_breaks_the_queue),
	KTEST(an_indirect_chain_takes_one_ring_descriptor),
	KTEST(a_queue_holds_size_indirect_chains),
	KTEST(a_batch_is_one_kick_unless_the_device_declines),
	KTEST(random_traffic_matches_the_model),
	{},
};
KTEST_SUITE(virtqueue, virtqueue_cases);
