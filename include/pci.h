/* SPDX-License-Identifier: MIT */
/*
 * pci.h - PCI: configuration space, enumeration, BARs, capabilities, MSI
 * and MSI-X.
 *
 * Configuration space is 256 bytes per function through mechanism #1
 * (ports 0xcf8/0xcfc, every PC), or 4 KiB through ECAM, the memory window
 * the ACPI MCFG table gives (q35): bus b, device d, function f sit at
 * base + (b << 20 | d << 15 | f << 12). pci_init() walks bus 0, every
 * function of every device, and the buses behind bridges, records each
 * function with its BARs (sized by writing all ones) and prints one line
 * per function and per BAR:
 *
 *   pci: 00:03.0 [1234:11e8] class 00ff rev 10 irq A/11 caps msi,pcie
 *   pci: 00:03.0 BAR0 mem32 0xfea00000 size 1M
 *
 * Accesses have the register's own width: a byte, a word or a dword,
 * through ECAM or through port 0xcfc + (offset & 3). Never write a 16-bit
 * register as part of its dword: Status (0x06), next to Command, has error
 * bits that a written 1 clears (PCI 3.0, 6.2.3). A function can be given a
 * struct pci_config_ops of its own (tests/kernel/pci_test.c builds one).
 *
 * Interrupts: pci_enable_msix()/pci_enable_msi() send a vector to one CPU
 * (the message is an APIC write: address 0xfee00000 | apic_id << 12, data
 * = vector); pci_enable_intx() routes the legacy line through the I/O APIC
 * instead. Without any, drivers poll. MSI and MSI-X are never on together;
 * MSI's per-vector mask bit is cleared, an MSI-X entry is written while
 * masked, and a table that does not fit its BAR is refused. A driver that
 * falls back to polling gives its vector back (trap_free_vector()).
 */
#ifndef PCI_H
#define PCI_H

#include "dma.h"
#include "trap.h"
#include "types.h"

#define PCI_MAX_DEVICES 64

#define PCI_CAP_MSI     0x05
#define PCI_CAP_VENDOR  0x09
#define PCI_CAP_PCIE    0x10
#define PCI_CAP_MSIX    0x11

struct pci_dev;

/* How a function's configuration space is reached: the hardware's, or a test's. */
struct pci_config_ops {
	u32 (*read)(const struct pci_dev *d, u32 off, u32 size);       /* size 1, 2 or 4 */
	void (*write)(const struct pci_dev *d, u32 off, u32 size, u32 v);
};

struct pci_bar {
	u64 base, size;         /* size 0: not implemented */
	bool io, is64, prefetch;
	void __iomem *va;       /* pci_map_bar(): mapped uncached */
};

struct pci_dev {
	u8 bus, slot, fn;
	u16 vendor, device;
	u8 class_code, subclass, prog_if, revision;
	u8 header_type;         /* 0 device, 1 bridge */
	u8 irq_pin, irq_line;   /* INTA..INTD as 1..4 (0: none); the firmware's line */
	struct pci_bar bar[6];
	const char *not_sized;  /* why the BARs were left alone (pci_sizing()), or NULL */
	u8 cap_msi, cap_msix;   /* config offsets, 0 if absent */
	struct device dma;      /* the DMA API's view: name, masks, node */
	char name[16];          /* "00:03.0" */
	const struct pci_config_ops *config;    /* NULL: the hardware (ECAM or ports) */
};

void pci_init(void);
void pci_print(void);             /* the pci: lines again */

/* The index-th function with vendor:device, or NULL. */
struct pci_dev *pci_find(u16 vendor, u16 device, u32 index);
/* The index-th function found at boot (any kind), or NULL past the last. */
struct pci_dev *pci_dev_at(u32 index);

u32 pci_read32(const struct pci_dev *d, u32 off);
u16 pci_read16(const struct pci_dev *d, u32 off);
u8 pci_read8(const struct pci_dev *d, u32 off);
void pci_write32(const struct pci_dev *d, u32 off, u32 v);
void pci_write16(const struct pci_dev *d, u32 off, u16 v);
void pci_write8(const struct pci_dev *d, u32 off, u8 v);

/* The next capability with this ID after offset from (0: the first); 0 if none. */
u8 pci_find_cap(const struct pci_dev *d, u8 id, u8 from);

/*
 * Map a memory BAR uncached; NULL (said) if it is absent, I/O, or cannot be
 * mapped. Its registers are read and written with readl() and its kind (io.h).
 */
void __iomem *pci_map_bar(struct pci_dev *d, int bar);

/* Memory decoding and bus mastering on (and INTx off when msi is true). */
void pci_enable(struct pci_dev *d, bool msi);

/* MSI-X table entry `entry`, or MSI, delivering vector to cpu; false if the device has none. */
bool pci_enable_msix(struct pci_dev *d, u32 entry, u8 vector, u32 cpu);
bool pci_enable_msi(struct pci_dev *d, u8 vector, u32 cpu);
void pci_disable_msi(struct pci_dev *d);              /* MSI and MSI-X off */

/*
 * The fallback: INTx. The firmware's interrupt line (config 0x3c) is an ISA
 * IRQ number; the I/O APIC pin, trigger and polarity come from the MADT's
 * overrides (QEMU gives PCI's lines 5, 9, 10, 11 as level, active high).
 * MSI and MSI-X are turned off. The handler must quiet the device before
 * its EOI: the line is level-triggered.
 */
bool pci_enable_intx(struct pci_dev *d, u8 vector, u32 cpu);

/*
 * Sizing a BAR means writing all ones to it, with the function's decode
 * turned off, then its old value back: for that moment the function
 * answers nowhere. Two kinds are left alone, their BARs not sized:
 *   - host bridges (class 06/00): their registers at 0x10-0x24 are often
 *     not BARs at all, and the firmware's SMM code may use what they map
 *     at any time (Linux keeps their decode on: quirk_mmio_always_on() in
 *     drivers/pci/quirks.c, for PCI_CLASS_BRIDGE_HOST);
 *   - the display function whose memory BAR holds the framebuffer that
 *     fbcon draws on (from another CPU, at any moment): with decode off
 *     its writes would be lost, with the BAR moved they would land
 *     elsewhere. A BAR holds fb_addr when its base is the highest at or
 *     below it, less than 1 GiB below (a display BAR is aligned to its
 *     size, and none is that big).
 * Returns why a function is not sized, or NULL to size it; pure.
 */
static inline const char *pci_sizing(u8 class_code, u8 subclass, const u64 *mem_bases, u32 n,
				     u64 fb_addr)
{
	u64 best = 0;

	if (class_code == 0x06 && subclass == 0x00)
		return "a host bridge (the firmware owns its registers)";
	if (class_code != 0x03 || !fb_addr)
		return NULL;
	for (u32 i = 0; i < n; i++)
		if (mem_bases[i] && mem_bases[i] <= fb_addr && mem_bases[i] > best)
			best = mem_bases[i];
	return best && fb_addr - best < (1ULL << 30) ? "the framebuffer console draws through them" : NULL;
}

#endif
