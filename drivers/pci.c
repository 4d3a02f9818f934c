// SPDX-License-Identifier: MIT
/*
 * pci.c - configuration space, enumeration, BARs, capabilities, MSI/MSI-X
 * (see pci.h).
 *
 * Invariants:
 *   - a BAR is sized with decoding off (command register), then restored;
 *   - MMIO is reached only through pci_map_bar() (ioremap, uncached): OVMF
 *     puts 64-bit BARs far above RAM, where nothing is mapped by default;
 *     its registers, and ECAM's, only with readl() and its kind (io.h);
 *   - pci_devs[] is filled once, at boot, and never changes after.
 */
#include "pci.h"
#include "mb2.h"
#include "acpi.h"
#include "apic.h"
#include "format.h"
#include "io.h"
#include "kstring.h"
#include "numa.h"
#include "percpu.h"
#include "printk.h"
#include "spinlock.h"
#include "vm.h"
#include "x86.h"

#define PCI_CONFIG_ADDR 0xcf8
#define PCI_CONFIG_DATA 0xcfc
#define PCI_COMMAND_IO      0x1
#define PCI_COMMAND_MEMORY  0x2
#define PCI_COMMAND_MASTER  0x4
#define PCI_COMMAND_INTX_OFF 0x400
#define PCI_STATUS_CAPS     0x10

static struct pci_dev pci_devs[PCI_MAX_DEVICES];
static u32 pci_ndevs;
static struct spinlock cf8_lock = SPINLOCK_INIT("pci cf8");
static u8 __iomem *ecam;        /* segment 0's window, buses bus_start..bus_end */
static u8 ecam_bus_start, ecam_bus_end;

/* --- configuration space ----------------------------------------------------- */

static u8 __iomem *ecam_addr(u8 bus, u8 slot, u8 fn, u32 off)
{
	if (!ecam || bus < ecam_bus_start || bus > ecam_bus_end)
		return NULL;
	return ecam + ((u64)(bus - ecam_bus_start) << 20 | (u64)slot << 15 | (u64)fn << 12 |
		       (off & 0xfff));
}

/*
 * One access of size bytes (1, 2 or 4, aligned) at off: through ECAM, or
 * mechanism #1, whose data port is read or written at 0xcfc + (off & 3)
 * with the same width. A 16-bit register is never written as part of a
 * dword: the Status register next to Command has bits that a 1 clears.
 */
static u32 config_read(const struct pci_dev *d, u32 off, u32 size)
{
	u8 __iomem *p = ecam_addr(d->bus, d->slot, d->fn, off);

	if (p)
		return size == 1 ? readb(p) : size == 2 ? readw(p) : readl(p);
	if (off >= 256)
		return ~0u >> (32 - 8 * size);
	spin_lock(&cf8_lock);
	outl(PCI_CONFIG_ADDR, 0x80000000u | (u32)d->bus << 16 | (u32)d->slot << 11 |
	     (u32)d->fn << 8 | (off & 0xfc));
	u16 port = (u16)(PCI_CONFIG_DATA + (off & 3));
	u32 v = size == 1 ? inb(port) : size == 2 ? inw(port) : inl(port);
	spin_unlock(&cf8_lock);
	return v;
}

static void config_write(const struct pci_dev *d, u32 off, u32 size, u32 v)
{
	u8 __iomem *p = ecam_addr(d->bus, d->slot, d->fn, off);

	if (p) {
		if (size == 1)
			writeb((u8)v, p);
		else if (size == 2)
			writew((u16)v, p);
		else
			writel(v, p);
		return;
	}
	if (off >= 256)
		return;
	spin_lock(&cf8_lock);
	outl(PCI_CONFIG_ADDR, 0x80000000u | (u32)d->bus << 16 | (u32)d->slot << 11 |
	     (u32)d->fn << 8 | (off & 0xfc));
	u16 port = (u16)(PCI_CONFIG_DATA + (off & 3));
	if (size == 1)
		outb(port, (u8)v);
	else if (size == 2)
		outw(port, (u16)v);
	else
		outl(port, v);
	spin_unlock(&cf8_lock);
}

static const struct pci_config_ops hardware = { config_read, config_write };

static const struct pci_config_ops *ops(const struct pci_dev *d)
{
	return d->config ? d->config : &hardware;
}

u32 pci_read32(const struct pci_dev *d, u32 off)
{
	return ops(d)->read(d, off & ~3u, 4);
}

u16 pci_read16(const struct pci_dev *d, u32 off)
{
	return (u16)ops(d)->read(d, off & ~1u, 2);
}

u8 pci_read8(const struct pci_dev *d, u32 off)
{
	return (u8)ops(d)->read(d, off, 1);
}

void pci_write32(const struct pci_dev *d, u32 off, u32 v)
{
	ops(d)->write(d, off & ~3u, 4, v);
}

void pci_write16(const struct pci_dev *d, u32 off, u16 v)
{
	ops(d)->write(d, off & ~1u, 2, v);
}

void pci_write8(const struct pci_dev *d, u32 off, u8 v)
{
	ops(d)->write(d, off, 1, v);
}

u8 pci_find_cap(const struct pci_dev *d, u8 id, u8 from)
{
	u8 off = from ? pci_read8(d, from + 1u) : pci_read8(d, 0x34);

	if (!from && !(pci_read16(d, 0x06) & PCI_STATUS_CAPS))
		return 0;
	for (u32 hops = 0; off >= 0x40 && hops < 48; hops++) {      /* a loop in the list ends too */
		if (pci_read8(d, off) == id)
			return off;
		off = pci_read8(d, off + 1u) & 0xfc;
	}
	return 0;
}

/* --- enumeration ----------------------------------------------------------------- */

static void size_bars(struct pci_dev *d)
{
	u32 nbars = d->header_type == 0 ? 6 : 2;
	u16 cmd = pci_read16(d, 0x04);

	pci_write16(d, 0x04, cmd & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (u32 i = 0; i < nbars; i++) {
		u32 off = 0x10 + 4 * i, lo = pci_read32(d, off);
		struct pci_bar *b = &d->bar[i];

		pci_write32(d, off, ~0u);
		u32 mask = pci_read32(d, off);
		pci_write32(d, off, lo);
		if (!mask || mask == ~0u)
			continue;
		if (lo & 1) {                           /* I/O */
			b->io = true;
			b->base = lo & ~3u;
			b->size = (u16)~(mask & ~3u) + 1u;
			continue;
		}
		b->prefetch = lo & 8;
		u64 base = lo & ~0xfu, size_mask = 0xffffffff00000000UL | (mask & ~0xfu);
		if (((lo >> 1) & 3) == 2 && i + 1 < nbars) {    /* 64-bit: the next BAR is the top half */
			u32 hi = pci_read32(d, off + 4);
			pci_write32(d, off + 4, ~0u);
			u32 hmask = pci_read32(d, off + 4);
			pci_write32(d, off + 4, hi);
			b->is64 = true;
			base |= (u64)hi << 32;
			size_mask = (u64)hmask << 32 | (mask & ~0xfu);
			i++;
		}
		b->base = base;
		b->size = ~size_mask + 1;
	}
	pci_write16(d, 0x04, cmd);
}

/* pci_sizing() for d, from its BARs' current values (read, never written). */
static const char *sizing_refused(struct pci_dev *d)
{
	u32 nbars = d->header_type == 0 ? 6 : 2, n = 0;
	u64 bases[6];

	for (u32 i = 0; i < nbars; i++) {
		u32 lo = pci_read32(d, 0x10 + 4 * i);

		if (lo & 1)
			continue;                       /* I/O */
		u64 base = lo & ~0xfu;
		if (((lo >> 1) & 3) == 2 && i + 1 < nbars)
			base |= (u64)pci_read32(d, 0x10 + 4 * ++i) << 32;
		bases[n++] = base;
	}
	return pci_sizing(d->class_code, d->subclass, bases, n,
			  boot_info.has_fb ? boot_info.fb.addr : 0);
}

static const char *class_name(u8 cls, u8 sub)
{
	switch (cls << 8 | sub) {
	case 0x0100: return "SCSI storage controller";
	case 0x0101: return "IDE interface";
	case 0x0106: return "SATA controller";
	case 0x0180: return "mass storage controller";
	case 0x0200: return "Ethernet controller";
	case 0x0300: return "VGA compatible controller";
	case 0x0600: return "Host bridge";
	case 0x0601: return "ISA bridge";
	case 0x0604: return "PCI bridge";
	case 0x0680: return "bridge";
	case 0x0c03: return "USB controller";
	case 0x0c05: return "SMBus";
	case 0x00ff: return "unclassified device";
	}
	return cls == 0x01 ? "storage" : "device";
}

static void print_dev(const struct pci_dev *d)
{
	char caps[48] = "";
	const char *sep = "";

	if (d->cap_msi) {
		kstrlcpy(caps + strlen(caps), "msi", sizeof(caps) - strlen(caps));
		sep = ",";
	}
	if (d->cap_msix)
		snprintf(caps + strlen(caps), sizeof(caps) - strlen(caps), "%smsi-x", sep);
	char irq[16] = "";
	if (d->irq_pin >= 1 && d->irq_pin <= 4)
		snprintf(irq, sizeof(irq), " irq %c/%u", 'A' + d->irq_pin - 1, d->irq_line);
	pr_info("pci: %s [%04x:%04x] class %02x%02x rev %02x %s%s%s%s\n", d->name, d->vendor,
		d->device, d->class_code, d->subclass, d->revision,
		class_name(d->class_code, d->subclass), irq, caps[0] ? " caps " : "", caps);
	if (d->not_sized)
		pr_info("pci: %s BARs not sized: %s\n", d->name, d->not_sized);
	for (u32 i = 0; i < 6; i++) {
		const struct pci_bar *b = &d->bar[i];
		if (!b->size)
			continue;
		pr_info("pci: %s BAR%u %s 0x%llx size %llu%s%s\n", d->name, i,
			b->io ? "io" : b->is64 ? "mem64" : "mem32", b->base,
			(b->size >= (1UL << 20) ? b->size >> 20 :
					     b->size >= 1024 ? b->size >> 10 : b->size),
			b->size >= (1UL << 20) ? "M" : b->size >= 1024 ? "K" : "",
			b->prefetch ? " prefetchable" : "");
	}
}

static void scan_bus(u8 bus, u32 depth);

/* A dword of a function not yet recorded (enumeration only). */
static u32 config_read_bdf(u8 bus, u8 slot, u8 fn, u32 off)
{
	struct pci_dev probe = { .bus = bus, .slot = slot, .fn = fn };

	return config_read(&probe, off, 4);
}

static void add_function(u8 bus, u8 slot, u8 fn, u32 depth)
{
	u32 id = config_read_bdf(bus, slot, fn, 0);

	if ((id & 0xffff) == 0xffff)
		return;
	if (pci_ndevs == PCI_MAX_DEVICES) {
		pr_warn("pci: more than %u functions; %02x:%02x.%u and later ignored\n",
			PCI_MAX_DEVICES, bus, slot, fn);
		return;
	}
	struct pci_dev *d = &pci_devs[pci_ndevs++];
	u32 class_reg = config_read_bdf(bus, slot, fn, 0x08), irq = config_read_bdf(bus, slot, fn, 0x3c);

	*d = (struct pci_dev){ .bus = bus, .slot = slot, .fn = fn, .vendor = (u16)id,
			       .device = (u16)(id >> 16), .class_code = (u8)(class_reg >> 24),
			       .subclass = (u8)(class_reg >> 16), .prog_if = (u8)(class_reg >> 8),
			       .revision = (u8)class_reg,
			       .header_type = (u8)(config_read_bdf(bus, slot, fn, 0x0c) >> 16) & 0x7f,
			       .irq_line = (u8)irq, .irq_pin = (u8)(irq >> 8) };
	snprintf(d->name, sizeof(d->name), "%02x:%02x.%u", bus, slot, fn);
	d->dma = (struct device){ .name = d->name, .dma_mask = DMA_BIT_MASK(32),
				  .coherent_dma_mask = DMA_BIT_MASK(32), .node = NODE_ANY };
	if (d->header_type <= 1 && !(d->not_sized = sizing_refused(d)))
		size_bars(d);
	d->cap_msi = pci_find_cap(d, PCI_CAP_MSI, 0);
	d->cap_msix = pci_find_cap(d, PCI_CAP_MSIX, 0);
	print_dev(d);
	if (d->header_type == 1 && depth < 8) {         /* a bridge: the bus behind it */
		u8 secondary = (u8)(config_read_bdf(bus, slot, fn, 0x18) >> 8);
		if (secondary > bus)
			scan_bus(secondary, depth + 1);
	}
}

static void scan_bus(u8 bus, u32 depth)
{
	for (u8 slot = 0; slot < 32; slot++) {
		if ((config_read_bdf(bus, slot, 0, 0) & 0xffff) == 0xffff)
			continue;
		bool multi = (config_read_bdf(bus, slot, 0, 0x0c) >> 16) & 0x80;
		for (u8 fn = 0; fn < (multi ? 8 : 1); fn++)
			add_function(bus, slot, fn, depth);
	}
}

void pci_init(void)
{
	if (acpi.has_mcfg) {
		for (u32 i = 0; i < acpi.mcfg.n; i++) {
			const struct mcfg_entry *e = &acpi.mcfg.e[i];
			if (e->segment || e->bus_end < e->bus_start)
				continue;
			u64 size = ((u64)(e->bus_end - e->bus_start) + 1) << 20;
			ecam = ioremap(e->base, size, VM_UC);
			ecam_bus_start = e->bus_start;
			ecam_bus_end = e->bus_end;
			if (ecam)
				pr_info("pci: ECAM at 0x%llx, buses %u-%u\n", e->base,
					e->bus_start, e->bus_end);
			break;
		}
	}
	if (!ecam)
		pr_info("pci: configuration mechanism #1 (ports 0xcf8/0xcfc)\n");
	scan_bus(0, 0);
	pr_info("pci: %u functions\n", pci_ndevs);
}

struct pci_dev *pci_find(u16 vendor, u16 device, u32 index)
{
	for (u32 i = 0; i < pci_ndevs; i++)
		if (pci_devs[i].vendor == vendor && pci_devs[i].device == device && index-- == 0)
			return &pci_devs[i];
	return NULL;
}

struct pci_dev *pci_dev_at(u32 index)
{
	return index < pci_ndevs ? &pci_devs[index] : NULL;
}

void __iomem *pci_map_bar(struct pci_dev *d, int bar)
{
	struct pci_bar *b = bar >= 0 && bar < 6 ? &d->bar[bar] : NULL;

	if (!b || !b->size || b->io || !b->base) {
		pr_warn("pci: %s: BAR%d is not a usable memory BAR\n", d->name, bar);
		return NULL;
	}
	if (!b->va)
		b->va = ioremap(b->base, b->size, VM_UC);
	return b->va;
}

void pci_enable(struct pci_dev *d, bool msi)
{
	u16 cmd = pci_read16(d, 0x04) | PCI_COMMAND_MEMORY | PCI_COMMAND_IO | PCI_COMMAND_MASTER;

	if (msi)
		cmd |= PCI_COMMAND_INTX_OFF;
	pci_write16(d, 0x04, cmd);
}

static u32 msi_address(u32 cpu)
{
	return 0xfee00000u | (percpu[cpu].apic_id & 0xff) << 12;
}

#define MSI_CTRL_ENABLE     0x0001
#define MSI_CTRL_64BIT      0x0080
#define MSI_CTRL_MASKABLE   0x0100      /* per-vector mask bits */
#define MSIX_CTRL_ENABLE    0x8000
#define MSIX_CTRL_MASKALL   0x4000

static void msi_off(struct pci_dev *d)
{
	if (d->cap_msi)
		pci_write16(d, d->cap_msi + 2u, pci_read16(d, d->cap_msi + 2u) & ~MSI_CTRL_ENABLE);
}

static void msix_off(struct pci_dev *d)
{
	if (d->cap_msix)
		pci_write16(d, d->cap_msix + 2u, pci_read16(d, d->cap_msix + 2u) & ~MSIX_CTRL_ENABLE);
}

bool pci_enable_msi(struct pci_dev *d, u8 vector, u32 cpu)
{
	u8 cap = d->cap_msi;

	if (!cap || cpu >= nr_cpus || percpu[cpu].apic_id > 0xff)
		return false;
	msix_off(d);                            /* never both (PCI 3.0, 6.8) */
	u16 ctrl = pci_read16(d, cap + 2u);
	bool is64 = ctrl & MSI_CTRL_64BIT;
	pci_write32(d, cap + 4u, msi_address(cpu));
	if (is64)
		pci_write32(d, cap + 8u, 0);
	pci_write16(d, cap + (is64 ? 12u : 8u), vector);
	if (ctrl & MSI_CTRL_MASKABLE)           /* the mask bits follow the data word */
		pci_write32(d, cap + (is64 ? 16u : 12u),
			    pci_read32(d, cap + (is64 ? 16u : 12u)) & ~1u);
	pci_write16(d, cap + 2u, (u16)((ctrl & ~0x70u) | MSI_CTRL_ENABLE)); /* one vector */
	return true;
}

bool pci_enable_msix(struct pci_dev *d, u32 entry, u8 vector, u32 cpu)
{
	u8 cap = d->cap_msix;

	if (!cap || cpu >= nr_cpus || percpu[cpu].apic_id > 0xff)
		return false;
	u16 ctrl = pci_read16(d, cap + 2u);
	u32 table = pci_read32(d, cap + 4u), nentries = (ctrl & 0x7ffu) + 1;
	u32 bir = table & 7;
	u64 offset = table & ~7u;
	if (entry >= nentries)
		return false;
	if (bir > 5 || offset + 16ULL * nentries > d->bar[bir].size) {
		pr_warn("pci: %s: its MSI-X table (%u entries at BAR%u + 0x%llx) does not fit the BAR\n",
			d->name, nentries, bir, offset);
		return false;
	}
	u8 __iomem *bar = pci_map_bar(d, (int)bir);
	if (!bar)
		return false;
	msi_off(d);                             /* never both (PCI 3.0, 6.8) */
	u32 __iomem *e = (u32 __iomem *)(bar + offset + 16 * entry);
	writel(1, &e[3]);                       /* masked while it is written */
	writel(msi_address(cpu), &e[0]);
	writel(0, &e[1]);
	writel(vector, &e[2]);
	writel(0, &e[3]);
	pci_write16(d, cap + 2u, (u16)((ctrl & ~MSIX_CTRL_MASKALL) | MSIX_CTRL_ENABLE));
	return true;
}

void pci_disable_msi(struct pci_dev *d)
{
	msi_off(d);
	msix_off(d);
}

bool pci_enable_intx(struct pci_dev *d, u8 vector, u32 cpu)
{
	if (d->irq_pin < 1 || d->irq_pin > 4 || d->irq_line >= 16 || cpu >= nr_cpus) {
		pr_warn("pci: %s: no legacy interrupt line to route\n", d->name);
		return false;
	}
	pci_disable_msi(d);
	pci_write16(d, 0x04, pci_read16(d, 0x04) & ~PCI_COMMAND_INTX_OFF);
	return ioapic_route_irq(d->irq_line, vector, percpu[cpu].apic_id);
}

void pci_print(void)
{
	for (u32 i = 0; i < pci_ndevs; i++)
		print_dev(&pci_devs[i]);
}
