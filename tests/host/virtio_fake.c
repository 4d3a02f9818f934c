// SPDX-License-Identifier: MIT
/*
 * virtio_fake.c - the lying virtio-blk function of virtio_fake.h, and the
 * kernel services drivers/virtio.c and drivers/virtio_blk.c call on the
 * host: PCI configuration space, coherent and streaming DMA, completions,
 * the clock, interrupt vectors.
 *
 * What stays true: every coherent allocation is on one list until it is
 * freed (fake_counts.coherent_live counts it; fake_stop() frees what the
 * driver kept on purpose); a bus address is its host address; the device
 * touches the rings only between its queue's enable and its next reset,
 * as virtio 1.1 (2.1.2, 4.1.4.3.2) lets a device; the driver's interrupt
 * handler is called only from a wait, never inside the driver's lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma.h"
#include "dma_debug.h"
#include "host.h"
#include "pci.h"
#include "sched.h"
#include "swiotlb.h"
#include "time.h"
#include "virtio.h"
#include "virtio_blk.h"
#include "virtio_fake.h"

/* The BAR: the four structures, the device configuration last (its length ends the BAR). */
#define OFF_COMMON  0x0000
#define OFF_ISR     0x1000
#define OFF_NOTIFY  0x2000
#define OFF_DEVICE  0x3000
#define NOTIFY_MULT 4
#define NOTIFY_LEN  0x1000

/* Common configuration offsets (virtio 1.1, 4.1.4.3), as drivers/virtio.c has them. */
#define C_DFSELECT 0x00
#define C_DF       0x04
#define C_NUMQ     0x12
#define C_STATUS   0x14
#define C_CFGGEN   0x15
#define C_QSELECT  0x16
#define C_QSIZE    0x18
#define C_QMSIX    0x1a
#define C_QENABLE  0x1c
#define C_QNOFF    0x1e
#define C_QDESC    0x20
#define C_QAVAIL   0x28
#define C_QUSED    0x30

#define ST_DRIVER_OK   4
#define ST_FEATURES_OK 8
#define QUEUE_MAX_SIZE 128
#define VECTOR         0x40

struct fake_faults fake_faults;
struct fake_counts fake_counts;

struct coherent {
	struct coherent *next;
	void *mem;
};

static struct {
	bool up;
	struct fake_shape shape;
	struct pci_dev pci;
	u8 config[256];
	u8 *bar;
	u32 bar_size;
	u8 status;
	u16 qsize;
	bool enabled;
	volatile struct virtq_desc *desc;       /* the queue as the device was told, while enabled */
	volatile u16 *avail, *used;
	u16 size, last_avail, used_idx;
	u8 generation;
	bool irq_pending, in_irq;
	trap_handler_t handler;
	struct coherent *coherent;
	u8 disk[FAKE_SECTORS * VIRTIO_BLK_SECTOR];
	u64 now;
} f;

static const u64 offered = 1ULL << VIRTIO_F_VERSION_1 | 1ULL << VIRTIO_F_INDIRECT_DESC |
			   1ULL << 9 /* FLUSH */;

/* --- the device ------------------------------------------------------------- */

static void reset_device(void)
{
	f.status = 0;
	f.enabled = false;
	f.desc = NULL;
	f.avail = f.used = NULL;
	f.last_avail = f.used_idx = 0;
	f.irq_pending = false;
	memset(f.bar + OFF_COMMON, 0, 0x38);
}

static void *bus(u64 addr) { return (void *)(uintptr_t)addr; }

/* Do one request: its chain of header, data, status, direct or through a table. */
static void serve(u16 head)
{
	volatile struct virtq_desc *table = f.desc;
	u16 d = head, n = 0;
	struct virtq_desc chain[3];

	if (f.desc[head].flags & VIRTQ_DESC_F_INDIRECT) {
		table = bus(f.desc[head].addr);
		d = 0;
	}
	for (;;) {
		chain[n++] = table[d];
		if (!(table[d].flags & VIRTQ_DESC_F_NEXT) || n == 3)
			break;
		d = table[d].next;
	}
	const struct { u32 type, reserved; u64 sector; } __attribute__((packed)) *hdr = bus(chain[0].addr);
	u8 *status = bus(chain[n - 1].addr);
	*status = 0;
	if (n == 3) {
		u64 at = hdr->sector * VIRTIO_BLK_SECTOR;
		if (at + chain[1].len > sizeof(f.disk))
			*status = 1;
		else if (hdr->type == VIRTIO_BLK_T_IN)
			memcpy(bus(chain[1].addr), f.disk + at, chain[1].len);
		else
			memcpy(f.disk + at, bus(chain[1].addr), chain[1].len);
	}
	volatile struct virtq_used_elem *ring = (volatile struct virtq_used_elem *)(f.used + 2);
	for (int times = fake_faults.complete_twice ? 2 : 1; times; times--) {
		ring[f.used_idx % f.size].id = fake_faults.garbage_used ? (u32)(head + 1) % f.size : head;
		ring[f.used_idx % f.size].len = n == 3 ? chain[1].len : 0;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		f.used[1] = ++f.used_idx;
	}
}

/* The device looks at its avail ring: what a doorbell makes it do. */
static void run_device(void)
{
	if (!f.enabled || !(f.status & ST_DRIVER_OK))
		return;
	if (fake_faults.needs_reset) {
		f.status |= VIRTIO_STATUS_NEEDS_RESET;
		f.irq_pending = true;
		return;
	}
	while (f.last_avail != f.avail[1]) {
		u16 head = f.avail[2 + f.last_avail % f.size];
		f.last_avail++;
		fake_counts.requests++;
		if (fake_faults.stall)
			continue;
		serve(head);
		if (!(f.avail[0] & VIRTQ_AVAIL_F_NO_INTERRUPT))
			f.irq_pending = true;
	}
}

/* Time passes: the device runs, and its interrupt (if any) is delivered. */
static void device_time(void)
{
	run_device();
	if (f.irq_pending && f.handler && f.shape.msix) {
		f.irq_pending = false;
		f.in_irq = true;
		fake_counts.interrupts++;
		f.handler(NULL);
		f.in_irq = false;
	}
}

void fake_write_used(u32 id, u32 len, u16 skip)
{
	if (!f.enabled)
		return;
	volatile struct virtq_used_elem *ring = (volatile struct virtq_used_elem *)(f.used + 2);
	ring[f.used_idx % f.size].id = id;
	ring[f.used_idx % f.size].len = len;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	f.used_idx = (u16)(f.used_idx + 1 + skip);
	f.used[1] = f.used_idx;
	f.irq_pending = true;
}

void fake_run(void) { device_time(); }

void fake_touch_rings(void)
{
	if (!f.enabled)
		return;
	(void)f.avail[1];               /* read by the device: ASan sees a freed ring */
	f.used[0] = f.used[0];
	(void)f.desc[0].addr;
}

bool fake_bus_master(void) { return f.config[4] & 4; }
u8 fake_status(void) { return f.status; }

/* --- its registers ---------------------------------------------------------- */

static bool mine(const volatile void *addr, u32 *off)
{
	uintptr_t a = (uintptr_t)addr, b = (uintptr_t)f.bar;

	if (!f.up || a < b || a >= b + f.bar_size)
		return false;
	*off = (u32)(a - b);
	return true;
}

static bool reg_read(const volatile void *addr, u32 size, u64 *v)
{
	u32 off;

	if (!mine(addr, &off))
		return false;
	switch (off) {
	case OFF_COMMON + C_DF: {
		u32 sel = *(u32 *)(f.bar + OFF_COMMON + C_DFSELECT);
		*v = sel == 0 ? (u32)offered : sel == 1 ? (u32)(offered >> 32) : 0;
		return true;
	}
	case OFF_COMMON + C_NUMQ: *v = 1; return true;
	case OFF_COMMON + C_STATUS: *v = f.status; return true;
	case OFF_COMMON + C_CFGGEN:
		fake_counts.generation_reads++;
		if (fake_counts.generation_reads > 100000) {
			fprintf(stderr, "virtio_fake: config_generation read 100000 times: a loop that never ends\n");
			abort();
		}
		*v = fake_faults.generation_moves ? f.generation++ : f.generation;
		return true;
	case OFF_COMMON + C_QSIZE:
		*v = *(u16 *)(f.bar + OFF_COMMON + C_QSELECT) ? 0 : f.qsize;
		return true;
	case OFF_COMMON + C_QNOFF: *v = fake_faults.bad_notify_off ? 0x7777 : 0; return true;
	case OFF_ISR: *v = 1; return true;
	}
	return false;
}

static bool reg_write(volatile void *addr, u32 size, u64 v)
{
	u32 off;

	if (!mine(addr, &off))
		return false;
	if (off == OFF_COMMON + C_STATUS) {
		if (v == 0) {
			fake_counts.resets++;
			fake_counts.resets_in_irq += f.in_irq;
			if (!fake_faults.never_reset)
				reset_device();
			f.qsize = fake_faults.queue_size_zero ? 0 : QUEUE_MAX_SIZE;
			return true;
		}
		if ((v & ST_FEATURES_OK) && fake_faults.refuse_features_ok)
			v &= ~(u64)ST_FEATURES_OK;
		f.status = (u8)v;
		return true;
	}
	if (off == OFF_COMMON + C_QSIZE) {
		f.qsize = (u16)v;
		return true;
	}
	if (off == OFF_COMMON + C_QENABLE && v == 1) {
		u8 *c = f.bar + OFF_COMMON;
		f.size = f.qsize;
		f.desc = bus(*(u64 *)(c + C_QDESC));
		f.avail = bus(*(u64 *)(c + C_QAVAIL));
		f.used = bus(*(u64 *)(c + C_QUSED));
		f.enabled = true;
		return false;                   /* and remember it */
	}
	if (off >= OFF_NOTIFY && off < OFF_NOTIFY + NOTIFY_LEN) {
		fake_counts.notifies++;
		run_device();
		return true;
	}
	return false;
}

static const struct host_mmio_hook hook = { reg_read, reg_write };

/* --- making and unmaking it ------------------------------------------------- */

static void put_cap(u8 at, u8 next, u8 type, u32 off, u32 len)
{
	f.config[at] = PCI_CAP_VENDOR;
	f.config[at + 1] = next;
	f.config[at + 2] = type == 2 ? 20 : 16;
	f.config[at + 3] = type;
	f.config[at + 4] = 0;                   /* BAR0 */
	memcpy(f.config + at + 8, &off, 4);
	memcpy(f.config + at + 12, &len, 4);
	if (type == 2) {
		u32 mult = NOTIFY_MULT;
		memcpy(f.config + at + 16, &mult, 4);
	}
}

void fake_start(const struct fake_shape *shape)
{
	fake_stop();
	f.up = true;
	f.shape = *shape;
	u32 common_len = shape->common_len ? shape->common_len : 0x38;
	u32 device_len = shape->device_len ? shape->device_len : 8;
	f.bar_size = OFF_DEVICE + device_len;
	f.bar = calloc(1, f.bar_size);          /* exactly: a read past the device configuration is ASan's */
	u64 sectors = FAKE_SECTORS;
	memcpy(f.bar + OFF_DEVICE, &sectors, device_len < 8 ? device_len : 8);
	f.qsize = QUEUE_MAX_SIZE;
	f.pci = (struct pci_dev){ .vendor = 0x1af4, .device = 0x1042, .slot = 4 };
	strcpy(f.pci.name, "00:04.0");
	f.pci.bar[0] = (struct pci_bar){ .base = 0xfe000000, .size = f.bar_size };
	f.pci.dma = (struct device){ .name = f.pci.name, .dma_mask = ~0ULL, .coherent_dma_mask = ~0ULL };
	f.config[0x34] = 0x40;
	put_cap(0x40, 0x50, 1, OFF_COMMON, common_len);
	put_cap(0x50, 0x60, 3, OFF_ISR, 1);
	put_cap(0x60, 0x78, 4, OFF_DEVICE, device_len);
	put_cap(0x78, 0x00, 2, OFF_NOTIFY, NOTIFY_LEN);
	for (u32 i = 0; i < sizeof(f.disk); i++)
		f.disk[i] = (u8)(i * 7 + i / VIRTIO_BLK_SECTOR);
	host_mmio_hook = &hook;
	host_log_clear();
}

void fake_stop(void)
{
	virtio_blk_host_forget();
	while (f.coherent) {
		struct coherent *c = f.coherent;
		f.coherent = c->next;
		free(c->mem);
		free(c);
	}
	free(f.bar);
	host_mmio_hook = NULL;
	memset(&f, 0, sizeof(f));
	memset(&fake_faults, 0, sizeof(fake_faults));
	memset(&fake_counts, 0, sizeof(fake_counts));
}

/* --- what the driver calls: PCI -------------------------------------------- */

struct pci_dev *pci_find(u16 vendor, u16 device, u32 index)
{
	return f.up && vendor == f.pci.vendor && device == f.pci.device && !index ? &f.pci : NULL;
}

u8 pci_read8(const struct pci_dev *d, u32 off) { return f.config[off & 0xff]; }
u16 pci_read16(const struct pci_dev *d, u32 off)
{
	u16 v;
	memcpy(&v, f.config + (off & 0xfe), 2);
	return v;
}
u32 pci_read32(const struct pci_dev *d, u32 off)
{
	u32 v;
	memcpy(&v, f.config + (off & 0xfc), 4);
	return v;
}
void pci_write16(const struct pci_dev *d, u32 off, u16 v) { memcpy(f.config + (off & 0xfe), &v, 2); }

u8 pci_find_cap(const struct pci_dev *d, u8 id, u8 from)
{
	for (u8 at = from ? f.config[from + 1] : f.config[0x34]; at; at = f.config[at + 1])
		if (f.config[at] == id)
			return at;
	return 0;
}

/* Another fake's function (tests/host/xhci_fake.c): its BAR's base is a host address. */
void __iomem *pci_map_bar(struct pci_dev *d, int bar)
{
	if (d != &f.pci)
		return (void __iomem *)(uintptr_t)d->bar[bar].base;
	return bar == 0 ? (void __iomem *)f.bar : NULL;
}

void pci_enable(struct pci_dev *d, bool msi)
{
	if (d == &f.pci)
		f.config[4] |= 7;
}
bool pci_enable_msix(struct pci_dev *d, u32 entry, u8 vector, u32 cpu) { return f.shape.msix; }
void pci_disable_msi(struct pci_dev *d) { }

int trap_alloc_vector(trap_handler_t handler)
{
	f.handler = handler;
	return VECTOR;
}

void trap_free_vector(int vector)
{
	if (vector == VECTOR)
		f.handler = NULL;
}

void apic_eoi(void) { }

/* --- DMA -------------------------------------------------------------------- */

void *dma_alloc_coherent(struct device *dev, u64 size, dma_addr_t *handle)
{
	if (fake_faults.fail_coherent > 0 && --fake_faults.fail_coherent == 0)
		return NULL;
	struct coherent *c = malloc(sizeof(*c));
	c->mem = aligned_alloc(4096, ALIGN_UP(size, 4096));
	memset(c->mem, 0, size);
	c->next = f.coherent;
	f.coherent = c;
	fake_counts.coherent_live++;
	*handle = (dma_addr_t)(uintptr_t)c->mem;
	return c->mem;
}

void dma_free_coherent(struct device *dev, u64 size, void *cpu_addr, dma_addr_t handle)
{
	for (struct coherent **p = &f.coherent; *p; p = &(*p)->next) {
		if ((*p)->mem == cpu_addr) {
			struct coherent *c = *p;
			*p = c->next;
			free(c->mem);
			free(c);
			fake_counts.coherent_live--;
			return;
		}
	}
	fprintf(stderr, "virtio_fake: dma_free_coherent of %p, never allocated\n", cpu_addr);
	abort();
}

dma_addr_t dma_map_single_wait(struct device *dev, void *cpu_addr, u64 size,
			       enum dma_data_direction dir, u64 timeout_ns)
{
	fake_counts.mapped++;
	return (dma_addr_t)(uintptr_t)cpu_addr;
}

void dma_unmap_single(struct device *dev, dma_addr_t addr, u64 size, enum dma_data_direction dir)
{
	fake_counts.mapped--;
}

bool dma_mapping_error(struct device *dev, dma_addr_t addr) { return addr == DMA_MAPPING_ERROR; }
bool is_swiotlb_buffer(u64 addr) { return false; }

/* --- time and threads ------------------------------------------------------- */

u64 ktime_ns(void)
{
	f.now += FAKE_TICK_NS;
	return f.now;
}

void completion_init(struct completion *c) { c->done = 0; }
void complete(struct completion *c) { c->done++; }

bool wait_for_completion_timeout(struct completion *c, u64 timeout_ns)
{
	fake_counts.yields_in_a_row = 0;
	device_time();
	if (c->done) {
		c->done--;
		return true;
	}
	f.now += timeout_ns;
	return false;
}

void yield(void)
{
	device_time();
	if (++fake_counts.yields_in_a_row > 10000) {
		fprintf(stderr, "virtio_fake: yield() 10000 times in a row: a retry that never ends\n");
		abort();
	}
}
