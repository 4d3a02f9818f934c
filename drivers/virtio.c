// SPDX-License-Identifier: MIT
/*
 * virtio.c - the virtio 1.x PCI transport and split virtqueues (see
 * virtio.h). Facts from the virtio 1.1 specification: the capability
 * layout (4.1.4), the common configuration structure (4.1.4.3), the
 * initialization order (3.1.1) and the split virtqueue (2.6), with its
 * indirect descriptors (2.6.5.3) and notification suppression (2.6.10).
 *
 * The rings themselves, and the invariants of a queue, are virtqueue.c's;
 * this file finds the device's registers, negotiates, and tells the device
 * where a queue's rings are.
 *
 * The device is not trusted, so what stays true whatever it says:
 *   - no register is read outside the structure its capability describes:
 *     the common configuration must hold all of 4.1.4.3's fields, a
 *     doorbell lie inside the notify capability (4.1.4.4), and a device
 *     configuration field inside its length (virtio_read_config());
 *   - a configuration that changes on every read is read COMMON_CFG_TRIES
 *     times, then given up (2.4.1 asks for the loop, not for its end);
 *   - virtio_reset() says whether the device acknowledged the reset
 *     (4.1.4.3.2); until it has, it may still DMA, and its caller must
 *     keep everything it reaches (virtio_stop_dma() turns bus mastering
 *     off, the one thing left to do);
 *   - virtio_setup_queue() tells the device about the rings only once
 *     nothing can fail any more, and leaves the queue empty on failure.
 */
#include "virtio.h"
#include "errno.h"
#include "io.h"
#include "kstring.h"
#include "printk.h"
#include "time.h"
#include "x86.h"

/* Capability cfg_type values and common configuration offsets. */
#define VIRTIO_PCI_CAP_COMMON   1
#define VIRTIO_PCI_CAP_NOTIFY   2
#define VIRTIO_PCI_CAP_ISR      3
#define VIRTIO_PCI_CAP_DEVICE   4

#define COMMON_DFSELECT   0x00
#define COMMON_DF         0x04
#define COMMON_GFSELECT   0x08
#define COMMON_GF         0x0c
#define COMMON_MSIX       0x10
#define COMMON_NUMQ       0x12
#define COMMON_STATUS     0x14
#define COMMON_CFGGEN     0x15
#define COMMON_Q_SELECT   0x16
#define COMMON_Q_SIZE     0x18
#define COMMON_Q_MSIX     0x1a
#define COMMON_Q_ENABLE   0x1c
#define COMMON_Q_NOFF     0x1e
#define COMMON_Q_DESC     0x20
#define COMMON_Q_AVAIL    0x28
#define COMMON_Q_USED     0x30

#define STATUS_ACKNOWLEDGE 1
#define STATUS_DRIVER      2
#define STATUS_DRIVER_OK   4
#define STATUS_FEATURES_OK 8
#define STATUS_FAILED      0x80

#define RESET_TIMEOUT_NS (1000UL * 1000 * 1000)
#define COMMON_CFG_LEN   0x38   /* virtio 1.1's struct virtio_pci_common_cfg, to queue_used */
#define COMMON_CFG_TRIES 16     /* reads of a configuration that keeps changing, then give up */
#define PCI_COMMAND        0x04
#define PCI_COMMAND_MASTER 0x4

static u8 rd8(u8 __iomem *base, u32 off) { return readb(base + off); }
static u16 rd16(u8 __iomem *base, u32 off) { return readw(base + off); }
static u32 rd32(u8 __iomem *base, u32 off) { return readl(base + off); }
static void wr8(u8 __iomem *base, u32 off, u8 v) { writeb(v, base + off); }
static void wr16(u8 __iomem *base, u32 off, u16 v) { writew(v, base + off); }
static void wr32(u8 __iomem *base, u32 off, u32 v) { writel(v, base + off); }
static void wr64(u8 __iomem *base, u32 off, u64 v)
{
	wr32(base, off, (u32)v);
	wr32(base, off + 4, (u32)(v >> 32));
}

/* Map the region a virtio capability describes, *len long; NULL if it does not fit its BAR. */
static u8 __iomem *map_cap(struct pci_dev *d, u8 cap, u32 *len_out)
{
	u8 bar = pci_read8(d, cap + 4u);
	u32 off = pci_read32(d, cap + 8u), len = pci_read32(d, cap + 12u);

	*len_out = len;
	if (bar > 5 || !d->bar[bar].size || (u64)off + len > d->bar[bar].size) {
		pr_warn("virtio: %s: capability at 0x%x points outside BAR%u\n", d->name, cap, bar);
		return NULL;
	}
	u8 __iomem *base = pci_map_bar(d, bar);
	return base ? base + off : NULL;
}

bool virtio_pci_probe(struct virtio_dev *vd, struct pci_dev *d)
{
	*vd = (struct virtio_dev){ .pci = d, .vector = -1 };
	for (u8 cap = pci_find_cap(d, PCI_CAP_VENDOR, 0); cap; cap = pci_find_cap(d, PCI_CAP_VENDOR, cap)) {
		u8 type = pci_read8(d, cap + 3u);
		u8 __iomem **slot = type == VIRTIO_PCI_CAP_COMMON ? &vd->common :
				    type == VIRTIO_PCI_CAP_NOTIFY ? &vd->notify_base :
				    type == VIRTIO_PCI_CAP_ISR ? &vd->isr :
				    type == VIRTIO_PCI_CAP_DEVICE ? &vd->device_cfg : NULL;
		if (!slot || *slot)
			continue;               /* the first of each type is the one to use */
		u32 len;
		*slot = map_cap(d, cap, &len);
		if (type == VIRTIO_PCI_CAP_NOTIFY) {
			vd->notify_mult = pci_read32(d, cap + 16u);
			vd->notify_len = len;
		} else if (type == VIRTIO_PCI_CAP_COMMON) {
			vd->common_len = len;
		} else if (type == VIRTIO_PCI_CAP_ISR) {
			vd->isr_len = len;
		} else {
			vd->device_len = len;
		}
	}
	if (!vd->common || !vd->notify_base || !vd->isr || !vd->device_cfg) {
		pr_warn("virtio: %s: not a modern virtio device (missing capabilities)\n", d->name);
		return false;
	}
	if (vd->common_len < COMMON_CFG_LEN || vd->isr_len < 1) {
		pr_warn("virtio: %s: its common configuration (%u bytes) or ISR (%u) is too short; "
			"not used\n", d->name, vd->common_len, vd->isr_len);
		return false;
	}
	pci_enable(d, true);
	return true;
}

u8 virtio_status(struct virtio_dev *vd)
{
	return rd8(vd->common, COMMON_STATUS);
}

u8 virtio_config_generation(struct virtio_dev *vd)
{
	return rd8(vd->common, COMMON_CFGGEN);
}

bool virtio_reset(struct virtio_dev *vd)
{
	u64 deadline = ktime_ns() + RESET_TIMEOUT_NS;

	wr8(vd->common, COMMON_STATUS, 0);
	while (rd8(vd->common, COMMON_STATUS) != 0) {   /* 4.1.4.3.2: wait for it to read 0 */
		if (ktime_ns() > deadline) {
			pr_err("virtio: %s: the device never acknowledged its reset\n", vd->pci->name);
			return false;
		}
		cpu_relax();
	}
	return true;
}

void virtio_stop_dma(struct virtio_dev *vd)
{
	u16 cmd = pci_read16(vd->pci, PCI_COMMAND);

	pci_write16(vd->pci, PCI_COMMAND, cmd & (u16)~PCI_COMMAND_MASTER);
}

void virtio_fail(struct virtio_dev *vd)
{
	wr8(vd->common, COMMON_STATUS, rd8(vd->common, COMMON_STATUS) | STATUS_FAILED);  /* 3.1.1 */
}

bool virtio_read_config(struct virtio_dev *vd, u32 off, u32 *words, u32 n)
{
	if ((u64)off + 4ULL * n > vd->device_len) {
		pr_warn("virtio: %s: its device configuration (%u bytes) is too short for %u bytes "
			"at %u\n", vd->pci->name, vd->device_len, 4 * n, off);
		return false;
	}
	for (u32 tries = 0; tries < COMMON_CFG_TRIES; tries++) {
		u8 generation = virtio_config_generation(vd);
		for (u32 i = 0; i < n; i++)
			words[i] = rd32(vd->device_cfg, off + 4 * i);
		if (generation == virtio_config_generation(vd))
			return true;            /* the fields of one generation, not of two (2.4.1) */
	}
	pr_warn("virtio: %s: its configuration changed on each of %u reads\n", vd->pci->name,
		COMMON_CFG_TRIES);
	return false;
}

bool virtio_negotiate(struct virtio_dev *vd, u64 wanted)
{
	if (!virtio_reset(vd))
		return false;
	wr8(vd->common, COMMON_STATUS, STATUS_ACKNOWLEDGE);
	wr8(vd->common, COMMON_STATUS, STATUS_ACKNOWLEDGE | STATUS_DRIVER);
	wr32(vd->common, COMMON_DFSELECT, 0);
	u64 offered = rd32(vd->common, COMMON_DF);
	wr32(vd->common, COMMON_DFSELECT, 1);
	offered |= (u64)rd32(vd->common, COMMON_DF) << 32;
	vd->offered = offered;
	if (!(offered & (1UL << VIRTIO_F_VERSION_1))) {
		pr_warn("virtio: %s: no VERSION_1: a legacy device, not supported\n", vd->pci->name);
		wr8(vd->common, COMMON_STATUS, STATUS_FAILED);
		return false;
	}
	/*
	 * ACCESS_PLATFORM: the device's DMA goes through the platform's
	 * translation (an IOMMU, or the shared pages of an SEV/TDX guest).
	 * Every address this driver gives goes through the DMA API already, so
	 * it can accept it; a device that offers it refuses FEATURES_OK without.
	 */
	vd->features = offered & (wanted | 1ULL << VIRTIO_F_VERSION_1 |
				  1ULL << VIRTIO_F_ACCESS_PLATFORM);
	wr32(vd->common, COMMON_GFSELECT, 0);
	wr32(vd->common, COMMON_GF, (u32)vd->features);
	wr32(vd->common, COMMON_GFSELECT, 1);
	wr32(vd->common, COMMON_GF, (u32)(vd->features >> 32));
	wr8(vd->common, COMMON_STATUS, STATUS_ACKNOWLEDGE | STATUS_DRIVER | STATUS_FEATURES_OK);
	if (!(rd8(vd->common, COMMON_STATUS) & STATUS_FEATURES_OK)) {
		pr_warn("virtio: %s: the device refused features 0x%llx\n", vd->pci->name,
			vd->features);
		wr8(vd->common, COMMON_STATUS, STATUS_FAILED);
		return false;
	}
	wr16(vd->common, COMMON_MSIX, VIRTIO_MSI_NO_VECTOR);   /* no config interrupts */
	return true;
}

static bool within(const struct device *dev, dma_addr_t addr, u64 len, const char *what)
{
	if (dma_reachable(dev->dma_mask, addr, len))
		return true;
	pr_err("virtio: %s: %s at 0x%llx (%llu bytes) is beyond the DMA mask 0x%llx; refused\n",
	       dev->name, what, addr, len, dev->dma_mask);
	return false;
}

bool virtio_setup_queue(struct virtio_dev *vd, struct virtq *vq, u16 index, u16 max_size)
{
	struct device *dev = &vd->pci->dma;

	/* Empty first, the lock left alone: another CPU may be spinning on it. */
	memset(&vq->ring, 0, sizeof(vq->ring));
	vq->index = index;
	vq->mem = NULL;
	vq->notify = NULL;
	wr16(vd->common, COMMON_Q_SELECT, index);
	u16 size = rd16(vd->common, COMMON_Q_SIZE);
	if (!size) {
		pr_warn("virtio: %s: queue %u does not exist\n", vd->pci->name, index);
		return false;
	}
	if (size > max_size)
		size = max_size;
	if (size > VIRTQ_MAX)
		size = VIRTQ_MAX;
	while (size & (size - 1))               /* a power of two, as virtio 1.0 has it */
		size &= (u16)(size - 1);
	u64 doorbell = (u64)rd16(vd->common, COMMON_Q_NOFF) * vd->notify_mult;
	if (doorbell + 2 > vd->notify_len) {
		pr_warn("virtio: %s: queue %u's doorbell at 0x%llx is outside its notify capability "
			"(%u bytes)\n", vd->pci->name, index, doorbell, vd->notify_len);
		return false;
	}
	vq->mem_size = virtq_mem_bytes(size);
	dma_addr_t base;
	u8 *mem = dma_alloc_coherent(dev, vq->mem_size, &base);
	if (!mem) {
		pr_warn("virtio: %s: no memory for queue %u's rings\n", vd->pci->name, index);
		return false;
	}
	if (!within(dev, base, vq->mem_size, "the virtqueue")) {
		dma_free_coherent(dev, vq->mem_size, mem, base);
		return false;
	}
	vq->mem = mem;
	virtq_init(&vq->ring, mem, size);
	vq->notify = (u16 __iomem *)(vd->notify_base + doorbell);
	vq->desc_dma = base;
	vq->avail_dma = base + virtq_avail_offset(size);
	vq->used_dma = base + virtq_used_offset(size);
	wr16(vd->common, COMMON_Q_SIZE, size);
	wr64(vd->common, COMMON_Q_DESC, vq->desc_dma);
	wr64(vd->common, COMMON_Q_AVAIL, vq->avail_dma);
	wr64(vd->common, COMMON_Q_USED, vq->used_dma);
	if (vd->vector >= 0) {
		wr16(vd->common, COMMON_Q_MSIX, 0);            /* MSI-X table entry 0 */
		if (rd16(vd->common, COMMON_Q_MSIX) != 0) {
			pr_warn("virtio: %s: queue %u refused its MSI-X vector; polling\n",
				vd->pci->name, index);
			vd->vector = -1;
		}
	} else {
		wr16(vd->common, COMMON_Q_MSIX, VIRTIO_MSI_NO_VECTOR);
	}
	wr16(vd->common, COMMON_Q_ENABLE, 1);
	return true;
}

void virtio_driver_ok(struct virtio_dev *vd)
{
	wr8(vd->common, COMMON_STATUS, rd8(vd->common, COMMON_STATUS) | STATUS_DRIVER_OK);
}

void virtio_free_queue(struct virtio_dev *vd, struct virtq *vq)
{
	if (vq->mem)
		dma_free_coherent(&vd->pci->dma, vq->mem_size, vq->mem, vq->desc_dma);
	vq->mem = NULL;
	memset(&vq->ring, 0, sizeof(vq->ring));         /* nothing left pointing at it */
	vq->notify = NULL;
}

int virtqueue_add(struct virtio_dev *vd, struct virtq *vq, const struct virtq_buf *bufs, u32 n,
		  void *token)
{
	for (u32 i = 0; i < n; i++)
		if (!within(&vd->pci->dma, bufs[i].addr, bufs[i].len, "a buffer"))
			return -ERANGE;
	return virtq_add(&vq->ring, bufs, n, token);
}

int virtqueue_add_indirect(struct virtio_dev *vd, struct virtq *vq, const struct virtq_buf *bufs,
			   u32 n, void *token, volatile struct virtq_desc *table, dma_addr_t table_dma)
{
	if (!(vd->features & (1ULL << VIRTIO_F_INDIRECT_DESC)))
		return -EINVAL;                 /* 2.6.5.3.1: not unless negotiated */
	if (!within(&vd->pci->dma, table_dma, (u64)n * sizeof(struct virtq_desc), "an indirect table"))
		return -ERANGE;
	for (u32 i = 0; i < n; i++)
		if (!within(&vd->pci->dma, bufs[i].addr, bufs[i].len, "a buffer"))
			return -ERANGE;
	return virtq_add_indirect(&vq->ring, bufs, n, token, table, table_dma);
}

bool virtqueue_kick(struct virtio_dev *vd, struct virtq *vq)
{
	(void)vd;
	if (!virtq_kick_prepare(&vq->ring))     /* its barrier orders the index before the doorbell */
		return false;
	writew(vq->index, vq->notify);
	return true;
}
