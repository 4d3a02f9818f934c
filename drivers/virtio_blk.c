// SPDX-License-Identifier: MIT
/*
 * virtio_blk.c - the virtio block driver (see virtio_blk.h).
 *
 * Each in-flight request owns the header, status and indirect table slot
 * numbered like its ring descriptor (its chain's head: unique while it is
 * in flight), in coherent blocks below the device's coherent mask. With
 * VIRTIO_F_INDIRECT_DESC (virtio 1.1, 2.6.5.3) a request's three buffers
 * go in its table and it takes one ring descriptor, so a queue of 128
 * holds 128 requests, not 42; without the feature, or without the tables
 * (their allocation failed), a request is a direct chain of three. Data
 * buffers are mapped with dma_map_single_wait() when submitted (a full
 * bounce pool makes the request wait, not fail) and unmapped by the
 * waiter, in thread context: the interrupt handler only marks requests
 * done.
 *
 * Notifications are batched: virtio_blk_submit_batch() maps its requests,
 * puts them all in the ring under one lock round, and kicks the device
 * once, unless it set VIRTQ_USED_F_NO_NOTIFY (2.6.10); a single submit is
 * a batch of one.
 *
 * The device is not trusted. A request that is not done in
 * REQUEST_TIMEOUT_NS, a used ring the device broke (virtqueue.h), or a
 * device that sets DEVICE_NEEDS_RESET (virtio 1.1, 2.1.1) is answered the
 * same way, by recover(): reset the device (from then on it touches no
 * ring and no buffer), fail every request it held, and set the queue up
 * again. Only then does a waiter unmap its buffer and return: no
 * request's memory is left reachable from the device, and none of its
 * stack.
 *
 * Recovery runs in thread context only, with the lock dropped around the
 * reset (up to 1 s) and the setup: the interrupt handler and whoever
 * reaps only note why in vb->pending and wake the waiters of the
 * requests in flight; a waiter (or the next submitter) recovers. While
 * vb->recovering, nobody else touches the queue: the handler reaps
 * nothing, a submitter gets -ENOSPC (wait and retry).
 *
 * A disk dies, for good, when (each said once, "the disk is dead"):
 *   - the device never acknowledges its reset: it may still DMA, so its
 *     rings, headers and tables stay allocated for ever and its bus
 *     mastering goes off; the requests it held fail (with bus mastering
 *     off it can reach their buffers no more);
 *   - it does not come back after its reset (FEATURES_OK refused, no
 *     queue, a doorbell outside its capability, no memory): it is reset,
 *     so its rings could be freed;
 *   - it needed VIRTIO_BLK_RESETS_IN_A_ROW recoveries with no request
 *     done in between, and needs one more: it is reset, and left so.
 * A dead disk's requests fail with -EIO at once, before anything is
 * mapped or the device is told; vb->vq.ring is then never read again.
 *
 * Locking: vb->vq.lock guards the queue, the slots and the recovery
 * state (pending, recovering, dead); the swiotlb's own lock is never
 * taken while it is held.
 */
#include "virtio_blk.h"
#include "apic.h"
#include "dma_debug.h"
#include "io.h"
#include "format.h"
#include "errno.h"
#include "kstring.h"
#include "percpu.h"
#include "printk.h"
#include "time.h"
#include "x86.h"

#define VIRTIO_BLK_F_RO     5
#define VIRTIO_BLK_F_FLUSH  9
#define QUEUE_MAX           128
#define REQ_BUFS            3                           /* header, data, status */
#define REQUEST_TIMEOUT_NS  (5000UL * 1000 * 1000)      /* a request not done by then: reset */
#define MAP_WAIT_NS         (2000UL * 1000 * 1000)      /* how long a request waits for bounce room */

struct blk_header {
	u32 type;
	u32 reserved;
	u64 sector;
} __attribute__((packed));

/* A request's indirect descriptor table: its buffers, read by the device. */
struct req_table {
	struct virtq_desc desc[REQ_BUFS];
};

struct virtio_blk {
	struct virtio_dev vd;
	struct virtq vq;
	u64 capacity;
	bool read_only, can_flush;
	struct blk_header *hdr;         /* [QUEUE_MAX], then u8 status[QUEUE_MAX] */
	u8 *status;
	dma_addr_t hdr_dma, status_dma;        /* hdr is the coherent allocation */
	struct req_table *tables;       /* [QUEUE_MAX]; NULL: none, direct chains only */
	dma_addr_t tables_dma;
	bool indirect;                  /* VIRTIO_F_INDIRECT_DESC negotiated, tables there */
	struct virtio_blk_stats stats;
	bool polling;                   /* waiters poll; the device is asked not to interrupt */
	struct virtio_blk_faults faults;        /* for tests: a stuck device, a short timeout */
	const char *pending;            /* why the device needs a recovery, not yet begun */
	bool recovering;                /* recover() is at work: nobody else touches the queue */
	const char *dead;               /* why the disk is dead for good, or NULL */
	u32 resets_in_a_row;            /* recoveries since a request was last done */
};

static struct virtio_blk blk = { .faults = { .timeout_ns = REQUEST_TIMEOUT_NS } };
static bool probed, usable;

#define SLOTS_BYTES (QUEUE_MAX * (sizeof(struct blk_header) + 1))

static bool setup(struct virtio_blk *vb);

/* Mark req done with result and wake its waiter; req may be gone after. vq.lock held. */
static void finish(struct virtio_blk_req *req, int result)
{
	req->result = result;
	__atomic_store_n(&req->done, true, __ATOMIC_RELEASE);
	complete(&req->completion);
}

/* Fail every request the device held with result; vq.lock held, the device quiet. */
static void fail_in_flight(struct virtio_blk *vb, int result)
{
	struct virtq_ring *q = &vb->vq.ring;

	for (u16 head = 0; head < q->size; head++)
		if (q->chain_len[head] && q->token[head])
			finish(q->token[head], result);
}

/* The disk is dead for good: say so once, fail what is in flight. vq.lock held. */
static void kill_locked(struct virtio_blk *vb, const char *why)
{
	if (!vb->dead)
		pr_err("virtio-blk: %s: %s; the disk is dead, every request fails with -EIO\n",
		       vb->vd.pci->name, why);
	vb->dead = why;
	fail_in_flight(vb, -EIO);
}

/* setup() failed: quiet the device, then free what it was given, or keep it if it stays loud. */
static void abandon(struct virtio_blk *vb)
{
	if (virtio_reset(&vb->vd))
		virtio_free_queue(&vb->vd, &vb->vq);
	else
		virtio_stop_dma(&vb->vd);
	virtio_fail(&vb->vd);
}

/*
 * Answer vb->pending, if set and nobody else is at it: reset the device,
 * fail what it held, set it up again (see the opening comment for when
 * it dies instead). Thread context, vq.lock not held; counted: it counts
 * towards VIRTIO_BLK_RESETS_IN_A_ROW and the statistics.
 */
static void recover(struct virtio_blk *vb, bool counted)
{
	u64 flags = spin_lock_irqsave(&vb->vq.lock);
	const char *why = vb->pending;

	if (!why || vb->recovering || vb->dead) {
		if (vb->dead)
			vb->pending = NULL;     /* nothing left to recover */
		spin_unlock_irqrestore(&vb->vq.lock, flags);
		return;
	}
	vb->recovering = true;
	vb->stats.resets += counted;
	bool again = !counted || ++vb->resets_in_a_row <= VIRTIO_BLK_RESETS_IN_A_ROW;
	spin_unlock_irqrestore(&vb->vq.lock, flags);

	pr_err("virtio-blk: %s: %s; resetting the device\n", vb->vd.pci->name, why);
	bool quiet = virtio_reset(&vb->vd);
	flags = spin_lock_irqsave(&vb->vq.lock);
	if (!quiet) {
		virtio_stop_dma(&vb->vd);       /* its memory stays: it may still reach it */
		kill_locked(vb, "it never acknowledged its reset; its rings stay allocated and "
			    "bus mastering is off");
	} else if (!again) {
		kill_locked(vb, "it needed too many resets in a row");
		virtio_free_queue(&vb->vd, &vb->vq);
	} else {
		fail_in_flight(vb, -EIO);
		virtio_free_queue(&vb->vd, &vb->vq);
		spin_unlock_irqrestore(&vb->vq.lock, flags);
		bool ok = setup(vb);            /* nobody touches the queue: recovering */
		flags = spin_lock_irqsave(&vb->vq.lock);
		if (!ok) {
			spin_unlock_irqrestore(&vb->vq.lock, flags);
			abandon(vb);            /* whatever setup() left */
			flags = spin_lock_irqsave(&vb->vq.lock);
			kill_locked(vb, "it did not come back after its reset");
		}
	}
	vb->pending = NULL;
	vb->recovering = false;
	spin_unlock_irqrestore(&vb->vq.lock, flags);
}

/* Thread context: recover if it was asked for, or if the device broke the ring. */
static void recover_if_asked(struct virtio_blk *vb)
{
	u64 flags = spin_lock_irqsave(&vb->vq.lock);

	if (!vb->pending && !vb->dead && !vb->recovering && vb->vq.ring.broken)
		vb->pending = vb->vq.ring.broken;
	spin_unlock_irqrestore(&vb->vq.lock, flags);
	recover(vb, true);
}

/*
 * Take what the device finished; note a lying or stuck device in
 * vb->pending and wake every waiter, one of which recovers. vq.lock held;
 * any context.
 */
static void complete_used(struct virtio_blk *vb)
{
	struct virtio_blk_req *req;
	u32 written;

	if (vb->dead || vb->recovering)
		return;                 /* no ring to read, or one being rebuilt */
	while ((req = virtq_get_used(&vb->vq.ring, &written))) {
		u8 status = vb->status[req->slot];
		if (status == 0)
			vb->resets_in_a_row = 0;
		finish(req, status == 0 ? 0 : status == 2 ? -EINVAL : -EIO);
	}
	if (!vb->pending && vb->vq.ring.broken)
		vb->pending = vb->vq.ring.broken;
	else if (!vb->pending && (virtio_status(&vb->vd) & VIRTIO_STATUS_NEEDS_RESET))
		vb->pending = "it set DEVICE_NEEDS_RESET";
	if (!vb->pending)
		return;
	struct virtq_ring *q = &vb->vq.ring;
	for (u16 head = 0; head < q->size; head++)
		if (q->chain_len[head] && q->token[head])
			complete(&((struct virtio_blk_req *)q->token[head])->completion);
}

static void virtio_blk_interrupt(struct trap_frame *f)
{
	u64 flags = spin_lock_irqsave(&blk.vq.lock);

	if (!blk.polling)               /* a late one after switching to polling: leave it to the pollers */
		complete_used(&blk);
	blk.stats.interrupts++;
	spin_unlock_irqrestore(&blk.vq.lock, flags);
	apic_eoi();
}

static bool setup(struct virtio_blk *vb)
{
	struct virtio_dev *vd = &vb->vd;

	u64 wanted = 1UL << VIRTIO_BLK_F_FLUSH | 1UL << VIRTIO_BLK_F_RO |
		     (vb->tables ? 1UL << VIRTIO_F_INDIRECT_DESC : 0);

	if (!virtio_negotiate(vd, wanted))
		return false;
	vb->indirect = vd->features & (1UL << VIRTIO_F_INDIRECT_DESC);
	vb->read_only = vd->features & (1UL << VIRTIO_BLK_F_RO);
	vb->can_flush = vd->features & (1UL << VIRTIO_BLK_F_FLUSH);
	if (!virtio_setup_queue(vd, &vb->vq, 0, QUEUE_MAX))
		return false;
	vb->vq.ring.avail[0] = vb->polling || vd->vector < 0 ? VIRTQ_AVAIL_F_NO_INTERRUPT : 0;
	u32 capacity[2];                /* the two halves of one capacity, not of two */
	if (!virtio_read_config(vd, 0, capacity, 2))
		return false;
	vb->capacity = capacity[0] | (u64)capacity[1] << 32;
	virtio_driver_ok(vd);
	return true;
}

static const char *probe_failure;      /* why a device that is there is not used */

static bool unusable(const struct pci_dev *d, const char *why)
{
	probe_failure = why;
	pr_err("virtio-blk: %s: %s; not used\n", d->name, why);
	return false;
}

static bool probe(void)
{
	struct pci_dev *d = pci_find(0x1af4, 0x1042, 0);
	struct virtio_blk *vb = &blk;

	if (!d)
		return false;
	if (!virtio_pci_probe(&vb->vd, d))
		return unusable(d, "the virtio PCI transport did not come up");
	spin_lock_init(&vb->vq.lock, "virtqueue");
	vb->hdr = dma_alloc_coherent(&d->dma, SLOTS_BYTES, &vb->hdr_dma);
	if (!vb->hdr)
		return unusable(d, "no memory for the request headers below its mask");
	vb->status = (u8 *)(vb->hdr + QUEUE_MAX);
	vb->status_dma = vb->hdr_dma + QUEUE_MAX * sizeof(struct blk_header);
	vb->tables = dma_alloc_coherent(&d->dma, QUEUE_MAX * sizeof(struct req_table), &vb->tables_dma);
	if (!vb->tables)
		pr_warn("virtio-blk: %s: no memory for indirect tables below its mask; direct chains\n",
			d->name);
#ifndef HOST_TEST
	u32 cpu = raw_smp_processor_id();
#else
	u32 cpu = 0;                    /* the host tests' one CPU, which has no %gs */
#endif
	int v = trap_alloc_vector(virtio_blk_interrupt);
	if (v >= 0 && pci_enable_msix(d, 0, (u8)v, cpu))
		vb->vd.vector = v;
	else
		trap_free_vector(v);            /* polling: nothing may keep the vector */
	if (!setup(vb)) {
		abandon(vb);
		pci_disable_msi(d);
		trap_free_vector(vb->vd.vector);
		vb->vd.vector = -1;
		return unusable(d, "feature negotiation or queue setup failed");
	}
	pr_info("virtio-blk: %s: %llu sectors (%llu MiB), queue of %u%s, %s%s, DMA mask 0x%llx\n",
		d->name, vb->capacity, (vb->capacity * VIRTIO_BLK_SECTOR >> 20), vb->vq.ring.size,
		vb->indirect ? ", indirect descriptors" : "", vb->vd.vector >= 0 ? "MSI-X" : "polling", vb->read_only ? ", read-only" : "",
		d->dma.dma_mask);
	return true;
}

const char *virtio_blk_probe_failure(void)
{
	virtio_blk_get();
	return probe_failure;
}

struct virtio_blk *virtio_blk_get(void)
{
	if (!probed) {
		probed = true;
		usable = probe();
	}
	return usable ? &blk : NULL;
}

u64 virtio_blk_capacity(struct virtio_blk *vb) { return vb->capacity; }
u16 virtio_blk_queue_size(struct virtio_blk *vb) { return vb->vq.ring.size; }
bool virtio_blk_has_irq(struct virtio_blk *vb) { return vb->vd.vector >= 0 && !vb->polling; }
bool virtio_blk_indirect(struct virtio_blk *vb) { return vb->indirect; }
bool virtio_blk_indirect_offered(struct virtio_blk *vb)
{
	return vb->vd.offered & (1UL << VIRTIO_F_INDIRECT_DESC);
}

void virtio_blk_set_polling(struct virtio_blk *vb, bool polling)
{
	u64 flags = spin_lock_irqsave(&vb->vq.lock);

	vb->polling = polling;
	if (vb->vq.ring.avail && !vb->recovering)       /* a hint the device may ignore */
		vb->vq.ring.avail[0] = polling ? VIRTQ_AVAIL_F_NO_INTERRUPT : 0;
	spin_unlock_irqrestore(&vb->vq.lock, flags);
}
struct device *virtio_blk_device(struct virtio_blk *vb) { return &vb->vd.pci->dma; }

void virtio_blk_get_stats(struct virtio_blk *vb, struct virtio_blk_stats *out)
{
	u64 flags = spin_lock_irqsave(&vb->vq.lock);

	*out = vb->stats;
	spin_unlock_irqrestore(&vb->vq.lock, flags);
}

static enum dma_data_direction data_dir(const struct virtio_blk_req *req)
{
	return req->type == VIRTIO_BLK_T_IN ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/* Check req and map its data: 0, or why it cannot go (then nothing of it is mapped). */
static int prepare(struct virtio_blk *vb, struct virtio_blk_req *req)
{
	struct device *dev = &vb->vd.pci->dma;
	bool has_data = req->type != VIRTIO_BLK_T_FLUSH;

	if (req->type != VIRTIO_BLK_T_IN && req->type != VIRTIO_BLK_T_OUT &&
	    req->type != VIRTIO_BLK_T_FLUSH)
		return -EINVAL;                 /* nothing is mapped for a type we do not know */
	if (has_data && (!req->len || req->len % VIRTIO_BLK_SECTOR ||
			 req->len > VIRTIO_BLK_MAX_REQUEST || req->sector > vb->capacity ||
			 req->len / VIRTIO_BLK_SECTOR > vb->capacity - req->sector))
		return -EINVAL;                 /* written so that no sum can wrap */
	if ((req->type == VIRTIO_BLK_T_OUT && vb->read_only) ||
	    (req->type == VIRTIO_BLK_T_FLUSH && !vb->can_flush))
		return -EINVAL;
	req->done = false;
	req->result = -EIO;
	req->ring_descs = 0;
	completion_init(&req->completion);
	req->data_dma = DMA_MAPPING_ERROR;
	if (has_data) {
		req->data_dma = dma_map_single_wait(dev, req->buf, req->len, data_dir(req),
						    MAP_WAIT_NS);
		if (dma_mapping_error(dev, req->data_dma))
			return -ENOMEM;
	}
	return 0;
}

static void unmap(struct virtio_blk *vb, struct virtio_blk_req *req)
{
	if (req->data_dma != DMA_MAPPING_ERROR)
		dma_unmap_single(&vb->vd.pci->dma, req->data_dma, req->len, data_dir(req));
}

/* Put a prepared req in the ring, through its table when there is one; vq.lock held. */
static int queue_locked(struct virtio_blk *vb, struct virtio_blk_req *req)
{
	struct virtq_ring *q = &vb->vq.ring;
	bool has_data = req->type != VIRTIO_BLK_T_FLUSH;
	bool indirect = vb->indirect && !vb->faults.no_indirect_tables;
	u16 slot = q->free_head;                /* the head the chain will start at */
	struct virtq_buf bufs[REQ_BUFS];
	u32 n = 0;

	bufs[n++] = (struct virtq_buf){ vb->hdr_dma + slot * sizeof(struct blk_header),
					sizeof(struct blk_header), false };
	if (has_data)
		bufs[n++] = (struct virtq_buf){ req->data_dma, req->len, req->type == VIRTIO_BLK_T_IN };
	bufs[n++] = (struct virtq_buf){ vb->status_dma + slot, 1, true };
	u32 ring_descs = indirect ? 1 : n;
	if (vb->dead)
		return -EIO;
	if (vb->recovering)
		return -ENOSPC;                 /* the queue is being rebuilt: wait and retry */
	if (q->num_free < ring_descs)
		return q->broken ? -EIO : -ENOSPC;      /* slot is no free descriptor: leave it be */
	vb->hdr[slot] = (struct blk_header){ .type = req->type, .sector = req->sector };
	vb->status[slot] = 0xff;
	req->slot = slot;
	int err = indirect ? virtqueue_add_indirect(&vb->vd, &vb->vq, bufs, n, req,
						    vb->tables[slot].desc,
						    vb->tables_dma + slot * sizeof(struct req_table))
			   : virtqueue_add(&vb->vd, &vb->vq, bufs, n, req);
	if (err)
		return err;
	req->ring_descs = (u16)ring_descs;
	vb->stats.requests++;
	vb->stats.indirect += indirect;
	vb->stats.bytes += has_data ? req->len : 0;
	if (has_data && is_swiotlb_buffer(req->data_dma))
		vb->stats.bounced_bytes += req->len;
	if (q->in_flight > vb->stats.max_in_flight)
		vb->stats.max_in_flight = q->in_flight;
	return 0;
}

u32 virtio_blk_submit_batch(struct virtio_blk *vb, struct virtio_blk_req *reqs, u32 n, int *err)
{
	u32 mapped = 0, queued = 0;
	int why = 0;

	recover_if_asked(vb);                   /* here, in thread context */
	if (__atomic_load_n(&vb->dead, __ATOMIC_RELAXED)) {
		if (err)
			*err = n ? -EIO : 0;    /* nothing mapped, nothing told */
		return 0;
	}
	/* Map first (it may sleep for bounce room), then queue all under one lock round. */
	while (mapped < n && !(why = prepare(vb, &reqs[mapped])))
		mapped++;
	if (mapped) {
		u64 flags = spin_lock_irqsave(&vb->vq.lock);
		int refused = 0;
		while (queued < mapped && !(refused = queue_locked(vb, &reqs[queued])))
			queued++;
		if (queued < mapped)
			why = refused;          /* the first request that did not go */
		if (queued && !vb->faults.no_kick) {
			vb->stats.batches++;    /* one kick for all of them, if the device wants it */
			vb->stats.notifies += virtqueue_kick(&vb->vd, &vb->vq);
		}
		spin_unlock_irqrestore(&vb->vq.lock, flags);
		for (u32 i = queued; i < mapped; i++)
			unmap(vb, &reqs[i]);
	}
	if (err)
		*err = queued < n ? why : 0;
	return queued;
}

int virtio_blk_submit(struct virtio_blk *vb, struct virtio_blk_req *req)
{
	int err;

	virtio_blk_submit_batch(vb, req, 1, &err);
	return err;
}

/* The request took too long: unless it just finished, ask for a recovery; true if it was not. */
static bool timed_out(struct virtio_blk *vb, struct virtio_blk_req *req)
{
	u64 flags = spin_lock_irqsave(&vb->vq.lock);
	bool late = false;

	complete_used(vb);
	if (!__atomic_load_n(&req->done, __ATOMIC_ACQUIRE)) {
		static char why[80];    /* vb->pending's text: one recovery at a time, under the lock */
		if (!vb->pending) {
			snprintf(why, sizeof(why), "a request for sector %llu not done after %llu ms",
				 req->sector, vb->faults.timeout_ns / 1000000);
			vb->pending = why;
		}
		late = true;
	}
	spin_unlock_irqrestore(&vb->vq.lock, flags);
	return late;
}

int virtio_blk_wait(struct virtio_blk *vb, struct virtio_blk_req *req)
{
	u64 timeout = vb->faults.timeout_ns, deadline = ktime_ns() + timeout;
	bool late = false;

	while (!__atomic_load_n(&req->done, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&vb->pending, __ATOMIC_RELAXED) &&
		    !__atomic_load_n(&vb->recovering, __ATOMIC_RELAXED)) {
			recover(vb, true);      /* finishes req, unless another thread began first */
			continue;
		}                               /* else wait: the recovering thread finishes req */
		u64 now = ktime_ns();
		if (now > deadline) {
			late |= timed_out(vb, req);
			deadline = now + timeout;       /* for a recovery another thread runs */
			continue;
		}
		if (virtio_blk_has_irq(vb)) {
			wait_for_completion_timeout(&req->completion, deadline - now);
		} else {
			u64 flags = spin_lock_irqsave(&vb->vq.lock);
			complete_used(vb);
			spin_unlock_irqrestore(&vb->vq.lock, flags);
			cpu_relax();
		}
	}
	/*
	 * finish() stores done, then calls complete() on req's completion, all
	 * under vq.lock: seeing done, another CPU may still be inside it. Once
	 * we hold the lock it has left, and req (on our stack) is ours again.
	 */
	u64 flags = spin_lock_irqsave(&vb->vq.lock);
	spin_unlock_irqrestore(&vb->vq.lock, flags);
	/* Done, or failed after a reset or with the device's DMA off: it holds nothing of it. */
	if (late && req->result)
		req->result = -ETIMEDOUT;
	unmap(vb, req);
	return req->result;
}

int virtio_blk_wait_batch(struct virtio_blk *vb, struct virtio_blk_req *reqs, u32 n)
{
	int first = 0;

	for (u32 i = 0; i < n; i++) {
		int err = virtio_blk_wait(vb, &reqs[i]);
		if (err && !first)
			first = err;
	}
	return first;
}

static int do_request(struct virtio_blk *vb, u32 type, u64 sector, void *buf, u32 len)
{
	struct virtio_blk_req req = { .type = type, .sector = sector, .buf = buf, .len = len };
	int err;

	while ((err = virtio_blk_submit(vb, &req)) == -ENOSPC)
		yield();
	return err ? err : virtio_blk_wait(vb, &req);
}

int virtio_blk_read(struct virtio_blk *vb, u64 sector, void *buf, u32 len)
{
	return do_request(vb, VIRTIO_BLK_T_IN, sector, buf, len);
}

int virtio_blk_write(struct virtio_blk *vb, u64 sector, const void *buf, u32 len)
{
	return do_request(vb, VIRTIO_BLK_T_OUT, sector, (void *)buf, len);
}

int virtio_blk_flush(struct virtio_blk *vb)
{
	return do_request(vb, VIRTIO_BLK_T_FLUSH, 0, NULL, 0);
}

bool virtio_blk_reset(struct virtio_blk *vb)
{
	/*
	 * A recovery not counted as one: an interrupt handler still running
	 * on another CPU (it holds the lock) finishes before recover() marks
	 * the queue as being rebuilt; one that comes later leaves it alone.
	 */
	u64 flags = spin_lock_irqsave(&vb->vq.lock);
	if (!vb->pending)
		vb->pending = "a reset was asked for";
	spin_unlock_irqrestore(&vb->vq.lock, flags);
	recover(vb, false);
	dma_debug_device_done(&vb->vd.pci->dma);        /* nothing may be mapped across it */
	return !__atomic_load_n(&vb->dead, __ATOMIC_RELAXED);
}

void virtio_blk_set_faults(struct virtio_blk *vb, const struct virtio_blk_faults *faults)
{
	u64 flags = spin_lock_irqsave(&vb->vq.lock);

	vb->faults = *faults;
	if (!vb->faults.timeout_ns)
		vb->faults.timeout_ns = REQUEST_TIMEOUT_NS;
	spin_unlock_irqrestore(&vb->vq.lock, flags);
}

struct virtq_ring *virtio_blk_ring(struct virtio_blk *vb)
{
	return &vb->vq.ring;
}

#ifdef HOST_TEST
void virtio_blk_host_forget(void)
{
	blk = (struct virtio_blk){ .faults = { .timeout_ns = REQUEST_TIMEOUT_NS } };
	probed = usable = false;
	probe_failure = NULL;
}
#endif
