// SPDX-License-Identifier: MIT
/*
 * edu.c - a driver for QEMU's edu device (see edu.h): probe, MSI, DMA.
 *
 * The DMA waits by polling the command register's start bit, yielding the
 * CPU meanwhile; the completion interrupt (command bit 4) is counted, so
 * the tests can check that MSI works, but nothing depends on it. A
 * transfer that outlives edu.dma_timeout_ms is failed, and bus mastering
 * goes off until the engine is done with it: its caller's buffer is
 * unmapped and reused, and the late transfer must land nowhere (never
 * silent corruption); the next DMA after that turns it back on.
 */
#include "edu.h"
#include "apic.h"
#include "cmdline.h"
#include "io.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "time.h"

#define EDU_IDENT       0x00
#define EDU_LIVENESS    0x04
#define EDU_IRQ_STATUS  0x24
#define EDU_IRQ_RAISE   0x60
#define EDU_IRQ_ACK     0x64
#define EDU_DMA_SRC     0x80
#define EDU_DMA_DST     0x88
#define EDU_DMA_COUNT   0x90
#define EDU_DMA_CMD     0x98
#define EDU_CMD_START   1
#define EDU_CMD_TO_RAM  2
#define EDU_CMD_IRQ     4
#define PCI_COMMAND     0x04
#define PCI_COMMAND_MASTER 0x4          /* bus master enable */

static struct edu edu;
static bool probed;

/*
 * edu.dma_bits: the DMA mask the device was started with. QEMU's edu
 * clamps every DMA address to its dma_mask property (28 bits unless told
 * otherwise) and no register says which: the command line must. The story
 * machines start it with dma_mask=0xffffffff and pass edu.dma_bits=32.
 */
static u64 dma_bits = 28;
PARAM_U64("edu.dma_bits", dma_bits, 16, 64);

/* edu.dma_timeout_ms: how long a transfer may take (the device's take about 100 ms). */
static u64 dma_timeout_ms = 2000;
PARAM_U64("edu.dma_timeout_ms", dma_timeout_ms, 1, 60000);

u64 edu_set_dma_timeout_ms(u64 ms)
{
	u64 old = dma_timeout_ms;

	dma_timeout_ms = ms;
	return old;
}

/* Bus mastering: off, the device's DMA reaches no memory (PCI command register, bit 2). */
static void bus_master(struct edu *e, bool on)
{
	u16 cmd = pci_read16(e->pci, PCI_COMMAND);

	pci_write16(e->pci, PCI_COMMAND, on ? cmd | PCI_COMMAND_MASTER : cmd & ~PCI_COMMAND_MASTER);
}

u32 edu_read32(struct edu *e, u32 reg)
{
	return readl(e->mmio + reg);
}

void edu_write32(struct edu *e, u32 reg, u32 v)
{
	writel(v, e->mmio + reg);
}

static void edu_write64(struct edu *e, u32 reg, u64 v)
{
	writeq(v, e->mmio + reg);
}

static u64 edu_read64(struct edu *e, u32 reg)
{
	return readq(e->mmio + reg);
}

static void edu_interrupt(struct trap_frame *f)
{
	u32 status = edu_read32(&edu, EDU_IRQ_STATUS);

	edu.last_irq_status = status;
	edu_write32(&edu, EDU_IRQ_ACK, status);
	__atomic_fetch_add(&edu.irqs, 1, __ATOMIC_RELEASE);
	apic_eoi();
}

static bool start_and_wait(struct edu *e, dma_addr_t ram, u32 off, u32 len, bool to_ram);
static bool dma_engine_free(struct edu *e);

static const char *probe_failure;      /* why a device that is there is not used */

static bool unusable(const char *why)
{
	probe_failure = why;
	pr_warn("edu: %s: %s; not used\n", edu.pci->name, why);
	return false;
}

static bool probe(void)
{
	struct pci_dev *d = pci_find(0x1234, 0x11e8, 0);

	if (!d)
		return false;
	edu.pci = d;
	edu.vector = -1;
	edu.mmio = pci_map_bar(d, 0);
	if (!edu.mmio)
		return unusable("BAR 0 cannot be mapped");
	u32 id = edu_read32(&edu, EDU_IDENT);
	if ((id & 0xff) != 0xed)
		return unusable("its identification register is not 0xRRrr00ed");
	edu_write32(&edu, EDU_LIVENESS, 0x12345678);
	if (edu_read32(&edu, EDU_LIVENESS) != ~0x12345678u)
		return unusable("the liveness check failed");
	d->dma.dma_mask = d->dma.coherent_dma_mask = DMA_BIT_MASK(dma_bits);
	mutex_init(&edu.lock, "edu");
	int v = trap_alloc_vector(edu_interrupt);
	if (v >= 0 && pci_enable_msi(d, (u8)v, raw_smp_processor_id()))
		edu.vector = v;
	else
		trap_free_vector(v);            /* polling: nothing may keep the vector */
	pci_enable(d, edu.vector >= 0);
	pr_info("edu: %s version %u.%u, DMA buffer at 0x%x, %s, DMA mask 0x%llx\n", d->name,
		id >> 24, (id >> 16) & 0xff, EDU_BUFFER, edu.vector >= 0 ? "MSI" : "polling",
		d->dma.dma_mask);
	return true;
}

const char *edu_probe_failure(void)
{
	edu_get();
	return probe_failure;
}

struct edu *edu_get(void)
{
	static bool usable;

	if (!probed) {
		probed = true;
		usable = probe();
	}
	return usable ? &edu : NULL;
}

void edu_raise_irq(struct edu *e, u32 status)
{
	edu_write32(e, EDU_IRQ_RAISE, status);
}

bool edu_dma_running(struct edu *e)
{
	return edu_read64(e, EDU_DMA_CMD) & EDU_CMD_START;
}

bool edu_dma(struct edu *e, dma_addr_t ram, u32 off, u32 len, bool to_ram)
{
	/* Written so that nothing wraps: QEMU aborts the whole VM on a transfer leaving its buffer. */
	if (!len || len > EDU_DMA_MAX || off > EDU_BUFFER_SIZE || len > EDU_BUFFER_SIZE - off) {
		pr_err("edu: DMA of %u bytes at buffer offset %u does not fit the device buffer\n",
		       len, off);
		return false;
	}
	mutex_lock(&e->lock);                   /* one transfer's registers at a time */
	bool ok = dma_engine_free(e) && start_and_wait(e, ram, off, len, to_ram);
	mutex_unlock(&e->lock);
	return ok;
}

/*
 * After a timeout the engine may still be working on a transfer whose RAM
 * its caller has since unmapped and reused: bus mastering stays off until
 * the engine says it is done, so that transfer lands nowhere. Under e->lock.
 */
static bool dma_engine_free(struct edu *e)
{
	if (!e->dma_stuck)
		return true;
	if (edu_read64(e, EDU_DMA_CMD) & EDU_CMD_START) {
		pr_err("edu: the transfer that timed out is still running; DMA refused\n");
		return false;
	}
	bus_master(e, true);
	e->dma_stuck = false;
	pr_info("edu: the transfer that timed out is over; bus mastering back on\n");
	return true;
}

static bool start_and_wait(struct edu *e, dma_addr_t ram, u32 off, u32 len, bool to_ram)
{
	edu_write64(e, EDU_DMA_SRC, to_ram ? EDU_BUFFER + off : ram);
	edu_write64(e, EDU_DMA_DST, to_ram ? ram : EDU_BUFFER + off);
	edu_write64(e, EDU_DMA_COUNT, len);
	edu_write64(e, EDU_DMA_CMD, EDU_CMD_START | (to_ram ? EDU_CMD_TO_RAM : 0) |
		    (e->vector >= 0 ? EDU_CMD_IRQ : 0));
	u64 deadline = ktime_ns() + dma_timeout_ms * 1000000;
	while (edu_read64(e, EDU_DMA_CMD) & EDU_CMD_START) {
		if (ktime_ns() > deadline) {
			/*
			 * The caller will unmap and reuse its buffer: the engine
			 * must not write it (or read it) later. Linux drivers stop
			 * a device's DMA the same way (pci_clear_master).
			 */
			bus_master(e, false);
			e->dma_stuck = true;
			pr_err("edu: DMA did not finish in %llu ms; bus mastering off until it does\n",
			       dma_timeout_ms);
			return false;
		}
		yield();
	}
	return true;
}

bool edu_use_intx(struct edu *e, bool intx)
{
	if (e->vector < 0)
		return false;
	if (intx)
		return pci_enable_intx(e->pci, (u8)e->vector, raw_smp_processor_id());
	ioapic_mask_gsi(e->pci->irq_line);      /* (the pin; identity-mapped on QEMU) */
	pci_enable(e->pci, true);
	return pci_enable_msi(e->pci, (u8)e->vector, raw_smp_processor_id());
}
