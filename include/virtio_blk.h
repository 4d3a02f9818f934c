/* SPDX-License-Identifier: MIT */
/*
 * virtio_blk.h - a virtio block device (1af4:1042) on the virtio 1.x
 * transport, with 32-bit DMA: every buffer goes through the DMA API, so a
 * buffer above 4 GiB is bounced through the swiotlb.
 *
 * A request is three buffers: a header the device reads ({type, reserved,
 * sector}), the data (the device writes it for a read), and a status byte
 * the device writes (0 OK, 1 I/O error, 2 unsupported). With indirect
 * descriptors they take one descriptor of the ring (the queue's size in
 * requests in flight), else three. Requests complete by MSI-X interrupt,
 * or by polling when there is none; several may be in flight from several
 * CPUs, and a caller may submit many at once with one notification.
 */
#ifndef VIRTIO_BLK_H
#define VIRTIO_BLK_H

#include "sched.h"
#include "virtio.h"

#define VIRTIO_BLK_SECTOR      512
#define VIRTIO_BLK_MAX_REQUEST (64 * 1024)      /* bytes per request: one bounce mapping at most */
#define VIRTIO_BLK_RESETS_IN_A_ROW 3    /* recoveries with no request done between; then it dies */

struct virtio_blk_req {
	u32 type;               /* VIRTIO_BLK_T_* */
	u64 sector;
	void *buf;              /* kernel address: direct map or image */
	u32 len;                /* a multiple of 512, at most one bounce mapping */
	int result;             /* 0, -EIO, -EINVAL, ... once done */
	bool done;
	struct completion completion;
	/* the driver's */
	dma_addr_t data_dma;
	u16 slot;               /* which header/status/table */
	u16 ring_descs;         /* ring descriptors it took: 1 through its table, else 2 or 3 */
};

#define VIRTIO_BLK_T_IN    0
#define VIRTIO_BLK_T_OUT   1
#define VIRTIO_BLK_T_FLUSH 4

struct virtio_blk_stats {
	u64 requests, bytes, bounced_bytes, interrupts;
	u64 indirect;           /* requests that went through an indirect table */
	u64 batches, notifies;  /* submissions that queued something; doorbell writes (fewer: NO_NOTIFY) */
	u64 max_in_flight;      /* the most requests the ring has held at once */
	u64 resets;             /* the device was reset: it lied, stuck, or asked to be */
};

/* Faults a test may inject: a device that never sees requests, a shorter patience. */
struct virtio_blk_faults {
	bool no_kick;           /* requests are queued but the device is never told */
	u64 timeout_ns;         /* how long a request may take before a reset (0: 5 s) */
	bool no_indirect_tables;        /* no table to be had: every request is a direct chain */
};

struct virtio_blk;

/* The first virtio-blk device, set up; NULL (said) if none is usable. */
struct virtio_blk *virtio_blk_get(void);

/* Why the virtio-blk device this machine has is not usable; NULL if it is, or if there is none. */
const char *virtio_blk_probe_failure(void);

u64 virtio_blk_capacity(struct virtio_blk *vb);         /* in 512-byte sectors */
u16 virtio_blk_queue_size(struct virtio_blk *vb);
bool virtio_blk_has_irq(struct virtio_blk *vb);        /* MSI-X, and not polling */
bool virtio_blk_indirect(struct virtio_blk *vb);       /* VIRTIO_F_INDIRECT_DESC in use */
bool virtio_blk_indirect_offered(struct virtio_blk *vb);       /* the device offers it */

/*
 * Polling mode: the device is asked not to interrupt and waiters reap
 * completions themselves (what the driver does without MSI-X). Switch only
 * with nothing in flight.
 */
void virtio_blk_set_polling(struct virtio_blk *vb, bool polling);
struct device *virtio_blk_device(struct virtio_blk *vb); /* its DMA masks, to change for tests */
void virtio_blk_get_stats(struct virtio_blk *vb, struct virtio_blk_stats *out);

/*
 * Submit req without waiting: 0, -ENOSPC if the queue is full, or another
 * error (then req is not queued). virtio_blk_wait() then sleeps (or polls)
 * until it is done and returns req->result.
 */
int virtio_blk_submit(struct virtio_blk *vb, struct virtio_blk_req *req);
int virtio_blk_wait(struct virtio_blk *vb, struct virtio_blk_req *req);

/*
 * Submit reqs[0..n) in order with one notification of the device after
 * the last: how many went (a prefix). When fewer than n did, *err (if not
 * NULL) says why the next did not: -ENOSPC (the queue is full: wait for
 * some and submit the rest), or an error of virtio_blk_submit(); else 0.
 * Each request that went is then waited for with virtio_blk_wait(), or
 * all with virtio_blk_wait_batch(): 0, or the first request's error.
 */
u32 virtio_blk_submit_batch(struct virtio_blk *vb, struct virtio_blk_req *reqs, u32 n, int *err);
int virtio_blk_wait_batch(struct virtio_blk *vb, struct virtio_blk_req *reqs, u32 n);

/* Submit and wait. */
int virtio_blk_read(struct virtio_blk *vb, u64 sector, void *buf, u32 len);
int virtio_blk_write(struct virtio_blk *vb, u64 sector, const void *buf, u32 len);
int virtio_blk_flush(struct virtio_blk *vb);

/*
 * Reset the device and set it up again (nothing may be in flight); false
 * if the disk is dead, now or before. Thread context.
 */
bool virtio_blk_reset(struct virtio_blk *vb);

/* For tests: inject faults (see struct virtio_blk_faults); the ring itself, to lie to. */
void virtio_blk_set_faults(struct virtio_blk *vb, const struct virtio_blk_faults *faults);
struct virtq_ring *virtio_blk_ring(struct virtio_blk *vb);

#ifdef HOST_TEST
/* Host tests (tests/host/virtio_fake.c): forget the device; the next virtio_blk_get() probes. */
void virtio_blk_host_forget(void);
#endif

#endif
