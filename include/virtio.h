/* SPDX-License-Identifier: MIT */
/*
 * virtio.h - the virtio 1.x PCI transport and split virtqueues.
 *
 * A modern virtio PCI function (vendor 0x1af4, device 0x1040 + type)
 * describes its register blocks with vendor capabilities: common
 * configuration (features, status, queues), notification (a doorbell per
 * queue), ISR status, and the device's own configuration. Bring-up
 * follows the spec's order: reset, ACKNOWLEDGE, DRIVER, features
 * (VERSION_1 required), FEATURES_OK (read back), queues, DRIVER_OK.
 *
 * A split virtqueue is three arrays in memory the device reads and writes:
 *
 *   descriptors: { addr, len, flags (NEXT, WRITE), next }   chains of buffers
 *   available:   { flags, idx, ring[] }    heads of chains, written by us
 *   used:        { flags, idx, ring[] of { id, len } }      written by the device
 *
 * Every address the device sees comes from the DMA API with the device's
 * masks (the rings from dma_alloc_coherent, buffers from dma_map_single);
 * QEMU would accept any address, so virtqueue_add() checks every one (and
 * an indirect table's own) against the mask and refuses, loudly, to hand
 * over one beyond it.
 */
#ifndef VIRTIO_H
#define VIRTIO_H

#include "dma.h"
#include "pci.h"
#include "spinlock.h"
#include "virtqueue.h"
#include "types.h"

#define VIRTIO_F_INDIRECT_DESC  28     /* descriptors may point at tables of descriptors */
#define VIRTIO_F_VERSION_1      32
#define VIRTIO_F_ACCESS_PLATFORM 33     /* the device's DMA goes through the platform (an IOMMU, SEV/TDX) */
#define VIRTIO_STATUS_NEEDS_RESET 0x40  /* the device went wrong and asks for a reset */
#define VIRTIO_MSI_NO_VECTOR    0xffff

/* A queue as the transport sees it: where its rings live, its doorbell, its lock. */
struct virtq {
	struct spinlock lock;   /* the driver initialises it once; setup and reset leave it */
	u16 index;
	struct virtq_ring ring; /* the rings and the driver's own record (virtqueue.h) */
	dma_addr_t desc_dma, avail_dma, used_dma;
	void *mem;                      /* the coherent allocation holding the rings */
	u64 mem_size;
	u16 __iomem *notify;            /* this queue's doorbell */
};

struct virtio_dev {
	struct pci_dev *pci;
	u8 __iomem *common, *isr, *device_cfg, *notify_base;   /* the capabilities' registers */
	u32 notify_mult;
	u32 notify_len;                 /* the notify capability's length: doorbells must lie inside */
	u32 common_len, isr_len, device_len;    /* the other capabilities' lengths */
	u64 offered;                    /* what the device offered */
	u64 features;                   /* negotiated */
	int vector;                     /* MSI-X vector for queue 0; -1: polling */
};

/* Find the capabilities and map their BARs; false (said) if unusable. */
bool virtio_pci_probe(struct virtio_dev *vd, struct pci_dev *pci);

/*
 * Reset, negotiate (wanted features & offered, VERSION_1 required) and
 * leave the device ready for virtio_setup_queue(); false (said) on failure.
 */
bool virtio_negotiate(struct virtio_dev *vd, u64 wanted);

/*
 * Set up queue index with at most max_size entries; on failure (said, but
 * for no memory) the queue is left empty: size 0, no rings, no doorbell. With vd->vector >= 0
 * the queue goes to MSI-X table entry 0; if the device refuses it,
 * vd->vector becomes -1 (polling). With vd->vector < 0 it gets no vector.
 */
bool virtio_setup_queue(struct virtio_dev *vd, struct virtq *vq, u16 index, u16 max_size);

void virtio_driver_ok(struct virtio_dev *vd);

/*
 * Reset the device and wait (at most 1 s, polling) until it says it is
 * reset: true then, and it touches no ring and no buffer any more. False
 * (said): it never acknowledged, may still DMA, and everything it was
 * given must stay allocated; virtio_stop_dma() is what is left to do.
 */
bool virtio_reset(struct virtio_dev *vd);

/* Turn the function's bus mastering off: it can issue no more DMA (PCI 3.0, 6.2.2). */
void virtio_stop_dma(struct virtio_dev *vd);

/* Set FAILED: the driver gave up on the device (3.1.1). */
void virtio_fail(struct virtio_dev *vd);

/*
 * Read n 32-bit words of the device configuration from off, all of one
 * config generation (2.4.1): false (said) if they lie outside the
 * capability, or the generation changed on every one of a few tries.
 */
bool virtio_read_config(struct virtio_dev *vd, u32 off, u32 *words, u32 n);

/* Free the queue's rings (only once the device is reset) and leave the queue empty. */
void virtio_free_queue(struct virtio_dev *vd, struct virtq *vq);
u8 virtio_status(struct virtio_dev *vd);

/* The device configuration's generation: it changes when the device changes its configuration. */
u8 virtio_config_generation(struct virtio_dev *vd);

/*
 * Queue a chain of n buffers (addresses already DMA-mapped; write: the
 * device writes it) under vq->lock, with token to get back from
 * virtq_get_used(&vq->ring, ...): virtq_add()'s results, and -ERANGE
 * (said) if an address is beyond the device's mask.
 */
int virtqueue_add(struct virtio_dev *vd, struct virtq *vq, const struct virtq_buf *bufs, u32 n,
		  void *token);

/*
 * The same through an indirect table of n descriptors at table (bus
 * address table_dma), which must stay the caller's until the chain comes
 * back; only with VIRTIO_F_INDIRECT_DESC negotiated (-EINVAL without).
 */
int virtqueue_add_indirect(struct virtio_dev *vd, struct virtq *vq, const struct virtq_buf *bufs,
			   u32 n, void *token, volatile struct virtq_desc *table, dma_addr_t table_dma);

/*
 * Once after a batch of adds, under vq->lock: notify the device unless it
 * said it needs no notification (virtq_kick_prepare()); true if it was.
 */
bool virtqueue_kick(struct virtio_dev *vd, struct virtq *vq);

#endif
