// SPDX-License-Identifier: MIT
/*
 * virtio_blk_test.c - virtio-blk with a 32-bit DMA mask on the machine as
 * booted: data integrity, buffers above 4 GiB bounced through the swiotlb
 * (and the same with a 64-bit mask for comparison), requests in flight
 * from every CPU, a full virtqueue, flush, reset, and the driver's refusal
 * to hand the device an address beyond its mask; indirect descriptors (one
 * ring descriptor a request, or three when the device does not offer them
 * or no table is to be had: the matrix boot story-noindirect) and batches
 * of a whole queue with one notification, intact.
 */
#include "dma.h"
#include "errno.h"
#include "kstring.h"
#include "ktest.h"
#include "pattern.h"
#include "page_alloc.h"
#include "percpu.h"
#include "sched.h"
#include "slab.h"
#include "swiotlb.h"
#include "time.h"
#include "virtio_blk.h"
#include "vm.h"

/* A machine without the disk skips; a disk the driver could not use fails. */
#define NEED_BLK(t, vb)                                                                 \
	struct virtio_blk *vb = virtio_blk_get();                                       \
	if (!vb && virtio_blk_probe_failure())                                          \
		KTEST_FAIL(t, "the virtio-blk device is there but unusable: %s",         \
			   virtio_blk_probe_failure());                                  \
	if (!vb)                                                                        \
		KTEST_SKIP(t, "no virtio-blk device (topology line \"disk:\")")

#define CHUNK (16 * 1024)               /* bytes per request in these cases */

/* 16 KiB (order 2) above 4 GiB (NULL if none is free), or below it. */
static struct page *chunk_pages(bool high)
{
	return alloc_pages(2, NODE_ANY, high ? ALLOC_HIGH : ALLOC_DMA32);
}

static void capacity_and_bounds(struct ktest *t)
{
	NEED_BLK(t, vb);
	u8 *buf = kmalloc(VIRTIO_BLK_SECTOR, 0);
	ASSERT_TRUE(t, buf != NULL);
	EXPECT_GE(t, virtio_blk_capacity(vb), 2048);            /* at least 1 MiB */
	EXPECT_EQ(t, virtio_blk_read(vb, virtio_blk_capacity(vb), buf, VIRTIO_BLK_SECTOR), -EINVAL);
	EXPECT_EQ(t, virtio_blk_read(vb, 0, buf, 100), -EINVAL);   /* not whole sectors */
	kfree(buf);
}

static void write_read_flush_low(struct ktest *t)
{
	NEED_BLK(t, vb);
	struct page *a = chunk_pages(false), *b = chunk_pages(false);
	ASSERT_TRUE(t, a && b);
	u8 *out = page_address(a), *in = page_address(b);

	pattern_fill(out, CHUNK, 1);
	memset(in, 0, CHUNK);
	EXPECT_EQ(t, virtio_blk_write(vb, 8, out, CHUNK), 0);
	EXPECT_EQ(t, virtio_blk_flush(vb), 0);
	EXPECT_EQ(t, virtio_blk_read(vb, 8, in, CHUNK), 0);
	EXPECT_TRUE(t, pattern_ok(in, CHUNK, 1));
	free_pages(a, 2);
	free_pages(b, 2);
}

/* Patterns from buffers above 4 GiB, read back into other high buffers. */
static void high_round_trip(struct ktest *t, struct virtio_blk *vb, u64 sector0, u32 seed,
			    u64 *bounced)
{
	struct virtio_blk_stats before, after;
	struct page *w[4] = { 0 }, *r[4] = { 0 };

	*bounced = ~0UL;
	virtio_blk_get_stats(vb, &before);
	for (u32 i = 0; i < 4; i++) {
		w[i] = chunk_pages(true);
		r[i] = chunk_pages(true);
		if (!w[i] || !r[i])
			goto out;
		pattern_fill(page_address(w[i]), CHUNK, seed + i);
		memset(page_address(r[i]), 0, CHUNK);
	}
	for (u32 i = 0; i < 4; i++)
		EXPECT_EQ(t, virtio_blk_write(vb, sector0 + i * (CHUNK / 512), page_address(w[i]), CHUNK), 0);
	for (u32 i = 0; i < 4; i++) {
		EXPECT_EQ(t, virtio_blk_read(vb, sector0 + i * (CHUNK / 512), page_address(r[i]), CHUNK), 0);
		EXPECT_TRUE(t, pattern_ok(page_address(r[i]), CHUNK, seed + i));
	}
	virtio_blk_get_stats(vb, &after);
	*bounced = after.bounced_bytes - before.bounced_bytes;
out:
	for (u32 i = 0; i < 4; i++) {
		if (w[i])
			free_pages(w[i], 2);
		if (r[i])
			free_pages(r[i], 2);
	}
}

static void high_buffers_bounced_and_intact(struct ktest *t)
{
	NEED_BLK(t, vb);
	struct device *dev = virtio_blk_device(vb);
	u64 base, end;
	int node;

	struct page *probe = chunk_pages(true);
	if (!probe)
		KTEST_SKIP(t, "no free memory above 4 GiB");
	free_pages(probe, 2);
	if (!swiotlb_pool_range(&base, &end, &node) || end > DMA32_LIMIT)
		KTEST_SKIP(t, "no bounce pool below 4 GiB (swiotlb=)");
	ASSERT_EQ(t, dev->dma_mask, DMA_BIT_MASK(32));
	u64 bounced32, bounced64;
	high_round_trip(t, vb, 64, 10, &bounced32);
	EXPECT_EQ(t, bounced32, 8UL * CHUNK);                   /* every byte, both ways */
	dev->dma_mask = DMA_BIT_MASK(64);
	high_round_trip(t, vb, 256, 20, &bounced64);
	dev->dma_mask = DMA_BIT_MASK(32);
	EXPECT_EQ(t, bounced64, 0);                             /* nothing to bounce */
	ktest_log(t, "32-bit mask: %llu bytes bounced through 0x%llx-0x%llx; 64-bit mask: %llu",
		  bounced32, base, end, bounced64);
}

/* Each CPU writes and reads back its own sectors, all at once. */
#define ROUNDS 20

static u32 cpu_errors;

static void io_on_cpu(void *arg)
{
	struct virtio_blk *vb = arg;
	u32 cpu = smp_processor_id();
	/* 8 KiB below 4 GiB (4 out, 4 in): no bounce needed, whatever swiotlb= says. */
	struct page *p = alloc_pages(1, NODE_ANY, ALLOC_DMA32);

	if (!p) {
		__atomic_fetch_add(&cpu_errors, 1, __ATOMIC_RELAXED);
		return;
	}
	u8 *out = page_address(p), *in = out + 4096;
	for (u32 i = 0; i < ROUNDS; i++) {
		u64 sector = 1024 + (u64)cpu * 8;
		pattern_fill(out, 4096, cpu * 100 + i);
		if (virtio_blk_write(vb, sector, out, 4096) || virtio_blk_read(vb, sector, in, 4096) ||
		    !pattern_ok(in, 4096, cpu * 100 + i))
			__atomic_fetch_add(&cpu_errors, 1, __ATOMIC_RELAXED);
	}
	free_pages(p, 1);
}

static void requests_from_every_cpu(struct ktest *t)
{
	NEED_BLK(t, vb);
	static struct thread *th[MAX_CPUS];
	struct virtio_blk_stats before, after;

	cpu_errors = 0;
	virtio_blk_get_stats(vb, &before);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		th[cpu] = percpu[cpu].online ? thread_create("blk-io", io_on_cpu, vb, cpu) : NULL;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (th[cpu])
			thread_join(th[cpu]);
	virtio_blk_get_stats(vb, &after);
	EXPECT_EQ(t, cpu_errors, 0);
	EXPECT_EQ(t, after.requests - before.requests, 2UL * ROUNDS * nr_cpus_online);
	if (virtio_blk_has_irq(vb))
		EXPECT_GT(t, after.interrupts, before.interrupts);
}

static void full_virtqueue_refuses_then_drains(struct ktest *t)
{
	NEED_BLK(t, vb);
	static struct virtio_blk_req reqs[256];
	struct page *page = alloc_pages(0, NODE_ANY, ALLOC_DMA32);     /* reachable: no bounce */
	u32 n = 0;
	int err = 0;

	ASSERT_TRUE(t, page != NULL);
	u8 *buf = page_address(page);
	/* Polling: nothing reaps completions until we wait, so the queue must fill. */
	virtio_blk_set_polling(vb, true);
	while (n < ARRAY_SIZE(reqs)) {
		reqs[n] = (struct virtio_blk_req){ .type = VIRTIO_BLK_T_IN, .sector = n % 64,
						   .buf = buf, .len = VIRTIO_BLK_SECTOR };
		err = virtio_blk_submit(vb, &reqs[n]);
		if (err)
			break;
		n++;
	}
	EXPECT_EQ(t, err, -ENOSPC);
	/* With indirect descriptors one ring descriptor a request, else three. */
	EXPECT_EQ(t, n, virtio_blk_queue_size(vb) / (virtio_blk_indirect(vb) ? 1 : 3));
	u32 ok = 0;
	for (u32 i = 0; i < n; i++)
		ok += virtio_blk_wait(vb, &reqs[i]) == 0;
	virtio_blk_set_polling(vb, false);
	EXPECT_EQ(t, ok, n);
	EXPECT_EQ(t, virtio_blk_read(vb, 0, buf, VIRTIO_BLK_SECTOR), 0);   /* room again */
	free_pages(page, 0);
}

static void reset_then_io_works(struct ktest *t)
{
	NEED_BLK(t, vb);
	struct page *p = chunk_pages(false);
	ASSERT_TRUE(t, p != NULL);
	u8 *buf = page_address(p);

	pattern_fill(buf, 4096, 77);
	EXPECT_EQ(t, virtio_blk_write(vb, 2048, buf, 4096), 0);
	ASSERT_TRUE(t, virtio_blk_reset(vb));
	memset(buf, 0, 4096);
	EXPECT_EQ(t, virtio_blk_read(vb, 2048, buf, 4096), 0);
	EXPECT_TRUE(t, pattern_ok(buf, 4096, 77));                  /* the disk kept it */
	free_pages(p, 2);
}

/* rc4 plus the map-anyway option: the driver itself refuses the address. */
static void driver_refuses_an_address_beyond_the_mask(struct ktest *t)
{
	NEED_BLK(t, vb);
	u64 base, end;
	int node;
	if (!swiotlb_pool_range(&base, &end, &node) || end <= DMA32_LIMIT)
		KTEST_SKIP(t, "the pool is below 4 GiB (swiotlb=rc4 puts it above)");
	struct page *p = chunk_pages(true);
	if (!p)
		KTEST_SKIP(t, "no free memory above 4 GiB");
	struct device *dev = virtio_blk_device(vb);
	u64 requests = 0;
	struct virtio_blk_stats st;

	virtio_blk_get_stats(vb, &st);
	requests = st.requests;
	dev->dma_map_unreachable = true;
	int err = virtio_blk_write(vb, 4096, page_address(p), 4096);
	dev->dma_map_unreachable = false;
	EXPECT_EQ(t, err, -ERANGE);
	virtio_blk_get_stats(vb, &st);
	EXPECT_EQ(t, st.requests, requests);                    /* nothing reached the device */
	free_pages(p, 2);
}

/* --- a device that lies, or stops: reset it, never follow it ---------------------- */

/* The disk still works: a sector written reads back. */
static bool disk_works(struct virtio_blk *vb, u8 *buf, u32 seed)
{
	pattern_fill(buf, 4096, seed);
	if (virtio_blk_write(vb, 4096, buf, 4096))
		return false;
	memset(buf, 0, 4096);
	return !virtio_blk_read(vb, 4096, buf, 4096) && pattern_ok(buf, 4096, seed);
}

static void a_lying_device_is_reset_not_followed(struct ktest *t)
{
	NEED_BLK(t, vb);
	struct page *p = chunk_pages(false);
	ASSERT_TRUE(t, p != NULL);
	u8 *buf = page_address(p);
	struct virtq_ring *ring = virtio_blk_ring(vb);
	struct virtio_blk_stats before, after;
	struct virtio_blk_req req = { .type = VIRTIO_BLK_T_IN, .sector = 0, .buf = buf, .len = 512 };

	virtio_blk_get_stats(vb, &before);
	virtio_blk_set_polling(vb, true);       /* nothing takes the completion before we lie */
	ASSERT_EQ(t, virtio_blk_submit(vb, &req), 0);
	u64 deadline = ktime_ns() + 5000UL * 1000 * 1000;
	while (ring->used[1] == ring->last_used && ktime_ns() < deadline)
		cpu_relax();                    /* the device has answered... */
	volatile struct virtq_used_elem *elem =
		(volatile struct virtq_used_elem *)(ring->used + 2) + ring->last_used % ring->size;
	elem->id = ring->size + 5;              /* ...and now it says it answered something else */
	EXPECT_EQ(t, virtio_blk_wait(vb, &req), -EIO);
	virtio_blk_set_polling(vb, false);
	virtio_blk_get_stats(vb, &after);
	EXPECT_EQ(t, after.resets, before.resets + 1);
	EXPECT_TRUE(t, disk_works(vb, buf, 41));
	free_pages(p, 2);
}

/* A request the device never sees: a reset, -ETIMEDOUT, and nothing left in the ring. */
static void stuck_request(struct ktest *t, struct virtio_blk *vb, bool polling)
{
	struct page *p = chunk_pages(false);
	ASSERT_TRUE(t, p != NULL);
	u8 *buf = page_address(p);
	struct virtio_blk_stats before, after;
	struct virtio_blk_faults stuck = { .no_kick = true, .timeout_ns = 200UL * 1000 * 1000 };
	struct virtio_blk_faults healthy = { 0 };

	virtio_blk_get_stats(vb, &before);
	virtio_blk_set_polling(vb, polling);
	virtio_blk_set_faults(vb, &stuck);
	EXPECT_EQ(t, virtio_blk_read(vb, 8, buf, 4096), -ETIMEDOUT);
	virtio_blk_set_faults(vb, &healthy);
	virtio_blk_set_polling(vb, false);
	virtio_blk_get_stats(vb, &after);
	EXPECT_EQ(t, after.resets, before.resets + 1);
	EXPECT_EQ(t, virtio_blk_ring(vb)->in_flight, 0);       /* no token left for the device */
	EXPECT_TRUE(t, disk_works(vb, buf, 42));
	free_pages(p, 2);
}

static void a_stuck_polled_request_is_answered_by_a_reset(struct ktest *t)
{
	NEED_BLK(t, vb);
	stuck_request(t, vb, true);
}

static void a_stuck_request_with_interrupts_is_answered_by_a_reset(struct ktest *t)
{
	NEED_BLK(t, vb);
	if (!virtio_blk_has_irq(vb))
		KTEST_SKIP(t, "no MSI-X: the driver polls");
	stuck_request(t, vb, false);
}

static void requests_out_of_reason_are_refused(struct ktest *t)
{
	NEED_BLK(t, vb);
	u8 buf[512];
	struct virtio_blk_req unknown = { .type = 11, .sector = 0, .buf = buf, .len = 512 };
	struct virtio_blk_req wraps = { .type = VIRTIO_BLK_T_IN, .sector = ~0ULL - 3, .buf = buf,
					.len = 8 * 512 };

	EXPECT_EQ(t, virtio_blk_submit(vb, &unknown), -EINVAL);
	EXPECT_EQ(t, virtio_blk_submit(vb, &wraps), -EINVAL);  /* sector + count wraps past 2^64 */
}

/* --- indirect descriptors and batches ------------------------------------------- */

/* The device offered VIRTIO_F_INDIRECT_DESC: the driver takes it (the tables are there). */
static void indirect_descriptors_are_used_when_offered(struct ktest *t)
{
	NEED_BLK(t, vb);
	EXPECT_EQ(t, virtio_blk_indirect(vb), virtio_blk_indirect_offered(vb));
	ktest_log(t, "the device %s VIRTIO_F_INDIRECT_DESC",
		  virtio_blk_indirect_offered(vb) ? "offers" : "does not offer");
}

/*
 * One read, looked at in the ring before it is reaped: with indirect
 * descriptors one ring descriptor (flags INDIRECT, len 3 * 16: a table of
 * header, data, status); else a chain of three. no_table: the table cannot
 * be had, and the request must go as a direct chain all the same.
 */
static void one_request_in_the_ring(struct ktest *t, struct virtio_blk *vb, bool no_table)
{
	struct page *p = chunk_pages(false);
	ASSERT_TRUE(t, p != NULL);
	u8 *buf = page_address(p);
	struct virtq_ring *ring = virtio_blk_ring(vb);
	struct virtio_blk_faults faults = { .no_indirect_tables = no_table };
	struct virtio_blk_faults healthy = { 0 };
	struct virtio_blk_stats before, after;
	bool indirect = virtio_blk_indirect(vb) && !no_table;

	pattern_fill(buf, 4096, 5);
	ASSERT_EQ(t, virtio_blk_write(vb, 512, buf, 4096), 0);
	memset(buf, 0, 4096);
	virtio_blk_get_stats(vb, &before);
	virtio_blk_set_polling(vb, true);       /* it stays in the ring until we wait */
	virtio_blk_set_faults(vb, &faults);
	struct virtio_blk_req req = { .type = VIRTIO_BLK_T_IN, .sector = 512, .buf = buf, .len = 4096 };
	u16 free_before = ring->num_free;
	int err = virtio_blk_submit(vb, &req);
	u16 taken = (u16)(free_before - ring->num_free);
	volatile struct virtq_desc *head = &ring->desc[req.slot];
	u16 flags = head->flags;
	u32 len = head->len;
	u64 addr = head->addr;
	if (!err)
		err = virtio_blk_wait(vb, &req);
	virtio_blk_set_faults(vb, &healthy);
	virtio_blk_set_polling(vb, false);
	virtio_blk_get_stats(vb, &after);
	EXPECT_EQ(t, err, 0);
	EXPECT_TRUE(t, pattern_ok(buf, 4096, 5));
	EXPECT_EQ(t, taken, indirect ? 1 : 3);
	EXPECT_EQ(t, req.ring_descs, taken);
	EXPECT_EQ(t, after.indirect - before.indirect, indirect ? 1 : 0);
	if (indirect) {
		EXPECT_EQ(t, flags, VIRTQ_DESC_F_INDIRECT);     /* not NEXT, not WRITE */
		EXPECT_EQ(t, len, 3 * sizeof(struct virtq_desc));
		/* The table is DMA memory too: within the device's (32-bit) mask. */
		EXPECT_TRUE(t, dma_reachable(virtio_blk_device(vb)->dma_mask, addr, len));
	} else {
		EXPECT_EQ(t, flags, VIRTQ_DESC_F_NEXT);         /* the header, then the data */
		EXPECT_EQ(t, len, 16);
	}
	free_pages(p, 2);
}

static void a_request_takes_one_ring_descriptor_with_indirect(struct ktest *t)
{
	NEED_BLK(t, vb);
	one_request_in_the_ring(t, vb, false);
}

static void without_a_table_a_request_is_a_direct_chain(struct ktest *t)
{
	NEED_BLK(t, vb);
	one_request_in_the_ring(t, vb, true);
}

#define DEEP 128                        /* the driver's queue: all of it in flight at once */

/* 128 buffers of 4 KiB in one block: above 4 GiB when the pool can bounce them, else below. */
static struct page *deep_pages(bool *high)
{
	u64 base, end;
	int node;
	struct page *p = NULL;

	if (swiotlb_pool_range(&base, &end, &node) && end <= DMA32_LIMIT)
		p = alloc_pages(7, NODE_ANY, ALLOC_HIGH);
	*high = p != NULL;
	return p ? p : alloc_pages(7, NODE_ANY, ALLOC_DMA32);
}

/* Submit reqs[0..n) in as few batches as the queue allows; 0 or the first error. */
static int submit_and_wait_all(struct virtio_blk *vb, struct virtio_blk_req *reqs, u32 n)
{
	int first = 0;

	for (u32 done = 0; done < n; ) {
		int err;
		u32 went = virtio_blk_submit_batch(vb, reqs + done, n - done, &err);
		int waited = virtio_blk_wait_batch(vb, reqs + done, went);
		if (!first)
			first = waited ? waited : err == -ENOSPC ? 0 : err;
		if (err && err != -ENOSPC)
			return first;
		done += went;
	}
	return first;
}

/*
 * A batch of 128 writes, each its own pattern and sectors, in the ring at
 * once with one notification; then read back as a batch: every byte intact.
 * Polling, so that nothing is reaped while the batch goes in.
 */
static void a_deep_batch_is_in_flight_at_once_and_intact(struct ktest *t)
{
	NEED_BLK(t, vb);
	static struct virtio_blk_req reqs[DEEP];
	bool high;
	struct page *out = deep_pages(&high), *in = alloc_pages(7, NODE_ANY, ALLOC_DMA32);
	struct virtq_ring *ring = virtio_blk_ring(vb);
	struct virtio_blk_stats before, after;
	u32 fit = virtio_blk_indirect(vb) ? virtio_blk_queue_size(vb) : virtio_blk_queue_size(vb) / 3;

	ASSERT_TRUE(t, out && in);
	ASSERT_EQ(t, virtio_blk_queue_size(vb), DEEP);
	u8 *w = page_address(out), *r = page_address(in);
	for (u32 i = 0; i < DEEP; i++) {
		pattern_fill(w + i * 4096, 4096, 300 + i);
		reqs[i] = (struct virtio_blk_req){ .type = VIRTIO_BLK_T_OUT, .sector = 2048 + i * 8,
						   .buf = w + i * 4096, .len = 4096 };
	}
	memset(r, 0, DEEP * 4096);
	virtio_blk_set_polling(vb, true);
	virtio_blk_get_stats(vb, &before);
	int err;
	u32 went = virtio_blk_submit_batch(vb, reqs, DEEP, &err);
	u16 in_flight = ring->in_flight;
	virtio_blk_get_stats(vb, &after);
	EXPECT_EQ(t, went, fit);
	EXPECT_EQ(t, err, went < DEEP ? -ENOSPC : 0);
	EXPECT_EQ(t, in_flight, fit);                   /* all of them in the ring at once */
	EXPECT_GE(t, after.max_in_flight, fit);
	EXPECT_EQ(t, after.batches - before.batches, 1);        /* one kick for the lot... */
	EXPECT_LE(t, after.notifies - before.notifies, 1);      /* ...or none: NO_NOTIFY */
	EXPECT_EQ(t, virtio_blk_wait_batch(vb, reqs, went), 0);
	if (went < DEEP)
		EXPECT_EQ(t, submit_and_wait_all(vb, reqs + went, DEEP - went), 0);
	for (u32 i = 0; i < DEEP; i++)
		reqs[i] = (struct virtio_blk_req){ .type = VIRTIO_BLK_T_IN, .sector = 2048 + i * 8,
						   .buf = r + i * 4096, .len = 4096 };
	EXPECT_EQ(t, submit_and_wait_all(vb, reqs, DEEP), 0);
	virtio_blk_set_polling(vb, false);
	u32 bad = 0;
	for (u32 i = 0; i < DEEP; i++)
		bad += !pattern_ok(r + i * 4096, 4096, 300 + i);
	EXPECT_EQ(t, bad, 0);
	ktest_log(t, "%u requests in flight at once (buffers %s 4 GiB), %llu notification(s)",
		  in_flight, high ? "above" : "below", after.notifies - before.notifies);
	free_pages(out, 7);
	free_pages(in, 7);
}

/*
 * A batch longer than the queue: what fits goes, the rest is refused with
 * -ENOSPC, and what went was notified (a short timeout: a request the
 * device never heard of would time out, and come back -ETIMEDOUT).
 */
static void a_batch_that_fills_the_queue_is_still_notified(struct ktest *t)
{
	NEED_BLK(t, vb);
	static struct virtio_blk_req reqs[DEEP + 16];
	struct page *p = alloc_pages(0, NODE_ANY, ALLOC_DMA32);
	struct virtio_blk_faults patient = { .timeout_ns = 500UL * 1000 * 1000 };
	struct virtio_blk_faults healthy = { 0 };

	ASSERT_TRUE(t, p != NULL);
	for (u32 i = 0; i < ARRAY_SIZE(reqs); i++)
		reqs[i] = (struct virtio_blk_req){ .type = VIRTIO_BLK_T_IN, .sector = i % 64,
						   .buf = page_address(p), .len = VIRTIO_BLK_SECTOR };
	virtio_blk_set_faults(vb, &patient);
	int err;
	u32 went = virtio_blk_submit_batch(vb, reqs, ARRAY_SIZE(reqs), &err);
	EXPECT_EQ(t, err, -ENOSPC);
	EXPECT_LT(t, went, ARRAY_SIZE(reqs));
	u32 ok = 0;
	for (u32 i = 0; i < went; i++)
		ok += virtio_blk_wait(vb, &reqs[i]) == 0;
	EXPECT_EQ(t, ok, went);
	virtio_blk_set_faults(vb, &healthy);
	free_pages(p, 0);
}

static const struct ktest_case virtio_blk_cases[] = {
	KTEST(capacity_and_bounds),
	KTEST(write_read_flush_low),
	KTEST(high_buffers_bounced_and_intact),
	KTEST(requests_from_every_cpu),
	KTEST(full_virtqueue_refuses_then_drains),
	KTEST(reset_then_io_works),
	KTEST(driver_refuses_an_address_beyond_the_mask),
	KTEST(a_lying_device_is_reset_not_followed),
	KTEST(a_stuck_polled_request_is_answered_by_a_reset),
	KTEST(a_stuck_request_with_interrupts_is_answered_by_a_reset),
	KTEST(requests_out_of_reason_are_refused),
	KTEST(indirect_descriptors_are_used_when_offered),
	KTEST(a_request_takes_one_ring_descriptor_with_indirect),
	KTEST(without_a_table_a_request_is_a_direct_chain),
	KTEST(a_deep_batch_is_in_flight_at_once_and_intact),
	KTEST(a_batch_that_fills_the_queue_is_still_notified),
	{},
};
KTEST_SUITE(virtio_blk, virtio_blk_cases);
