/* SPDX-License-Identifier: MIT */
/*
 * edu.h - QEMU's educational PCI device (1234:11e8), used here as a device
 * whose DMA mask the hardware itself enforces.
 *
 * It truncates every DMA address to its dma_mask property (QEMU prints
 * "EDU: clamping DMA ..." and uses the low alias): 28 bits by default, 32
 * bits when started with -device edu,dma_mask=0xffffffff. The driver takes
 * the mask from edu.dma_bits= (default 28, the device's own default). Its DMA engine copies up to a page between RAM and a 4 KiB
 * buffer inside the device, at device address EDU_BUFFER, and finishes
 * about 100 ms of virtual time later. Registers (BAR0, 32-bit accesses
 * below 0x80): 0x00 identification (0xRRrr00ed), 0x04 liveness (reads back
 * inverted), 0x24/0x60/0x64 interrupt status/raise/acknowledge, 0x80 DMA
 * source, 0x88 destination, 0x90 count, 0x98 command (1 start, 2 to RAM,
 * 4 interrupt when done).
 */
#ifndef EDU_H
#define EDU_H

#include "dma.h"
#include "pci.h"
#include "sched.h"
#include "types.h"

#define EDU_BUFFER      0x40000         /* device address of its DMA buffer */
#define EDU_BUFFER_SIZE 4096
#define EDU_DMA_MAX     4000            /* QEMU aborts on a transfer leaving the buffer */

struct edu {
	struct pci_dev *pci;
	u8 __iomem *mmio;               /* BAR 0, read and written by edu_read32() and edu_write32() */
	int vector;                     /* MSI vector, -1 if polling */
	u32 irqs;                       /* interrupts taken */
	u32 last_irq_status;
	struct mutex lock;              /* one DMA's registers at a time */
	bool dma_stuck;                 /* a transfer timed out: bus mastering off until it is done */
};

/* The first edu device, probed (identification, liveness) and with MSI on; NULL if none. */
struct edu *edu_get(void);

/* Why the edu device this machine has is not usable; NULL if it is, or if there is none. */
const char *edu_probe_failure(void);

u32 edu_read32(struct edu *e, u32 reg);
void edu_write32(struct edu *e, u32 reg, u32 v);

/* Deliver its interrupt by INTx through the I/O APIC (true) or by MSI again (false). */
bool edu_use_intx(struct edu *e, bool intx);

/* Raise the device's interrupt with this status value (it acknowledges it in the handler). */
void edu_raise_irq(struct edu *e, u32 status);

/*
 * One DMA between RAM address ram (as the device is given it) and the
 * device buffer at offset off, len bytes (<= EDU_DMA_MAX); to_ram: from the
 * device into RAM. Waits for the engine; false on a bad request or a
 * timeout (said; bus mastering is then off until the engine is done, so
 * the late transfer reaches no memory).
 */
bool edu_dma(struct edu *e, dma_addr_t ram, u32 off, u32 len, bool to_ram);

/* Is the device's DMA engine still busy (with a transfer that timed out, say)? */
bool edu_dma_running(struct edu *e);

/* edu.dma_timeout_ms, set (for the tests); returns the old value. */
u64 edu_set_dma_timeout_ms(u64 ms);

#endif
