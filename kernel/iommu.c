// SPDX-License-Identifier: MIT
/*
 * iommu.c - report whether an IOMMU could be translating DMA (iommu.h).
 *
 * Read-only: each unit's 4 KiB register page is mapped uncached and one
 * 32-bit status register is read, once per unit (at most MAX_DRHD or
 * MAX_IVHD of them); nothing is written, so a unit that firmware left on
 * stays on. A register page that reads all ones has nothing behind it and
 * counts as unreadable, not as translating. iommu_describe() is pure and
 * host-tested (tests/host/acpi_test.c); the reads run only in the kernel.
 */
#include "iommu.h"
#include "format.h"

struct iommu_facts iommu;

void iommu_describe(const struct iommu_facts *f, char *buf, size_t size)
{
	const char *what = f->kind == IOMMU_DMAR ? "DMAR" : "IVRS";
	const char *unit = f->kind == IOMMU_DMAR ? "DRHD unit" : "IOMMU";
	char unreadable[32] = "";

	if (f->kind == IOMMU_NONE) {
		snprintf(buf, size, "none described (no DMAR or IVRS): DMA addresses are "
			 "physical addresses");
		return;
	}
	if (f->unreadable)
		snprintf(unreadable, sizeof(unreadable), ", %u unreadable", f->unreadable);
	if (f->translating)
		snprintf(buf, size, "%s with %u %s%s, translation on in %u%s (DMA addresses "
			 "may not be physical: see docs/dma.md)", what, f->units, unit,
			 f->units == 1 ? "" : "s", f->translating, unreadable);
	else
		snprintf(buf, size, "%s with %u %s%s, translation off%s (firmware left DMA "
			 "untranslated)", what, f->units, unit, f->units == 1 ? "" : "s",
			 unreadable);
}

#ifndef HOST_TEST
#include "acpi.h"
#include "io.h"
#include "printk.h"
#include "vm.h"

/* One status register of the unit at base, or ~0 if it cannot be read. */
static u32 read_status(u64 base, u32 offset)
{
	u32 __iomem *regs;

	if (!base || base >= PHYS_ADDR_MAX || (base & 0xfff))
		return ~0u;
	regs = ioremap(base, PAGE_SIZE, VM_UC);
	return regs ? readl(&regs[offset / 4]) : ~0u;
}

static void count_unit(u64 base, u32 offset, u32 on_bit)
{
	u32 v = read_status(base, offset);

	iommu.units++;
	if (v == ~0u)
		iommu.unreadable++;
	else if (v & on_bit)
		iommu.translating++;
}

void iommu_report(void)
{
	char line[160];

	if (acpi.has_dmar) {
		iommu.kind = IOMMU_DMAR;
		for (u32 i = 0; i < acpi.dmar.ndrhd; i++)
			count_unit(acpi.dmar.drhd[i].base, DMAR_GSTS, DMAR_GSTS_TES);
	} else if (acpi.has_ivrs) {
		iommu.kind = IOMMU_IVRS;
		for (u32 i = 0; i < acpi.ivrs.niommus; i++)
			count_unit(acpi.ivrs.iommu_base[i], AMD_IOMMU_CONTROL, AMD_IOMMU_EN);
	}
	iommu_describe(&iommu, line, sizeof(line));
	pr_info("iommu: %s\n", line);
}
#endif
