/* SPDX-License-Identifier: MIT */
/*
 * iommu.h - does the firmware describe an IOMMU, and could it be
 * translating DMA right now?
 *
 * testbed drives no IOMMU: every DMA address it hands a device is a
 * physical address (kernel/dma.c), and a device that cannot reach the
 * buffer gets a bounce buffer from the swiotlb (docs/dma.md). That holds
 * only while no IOMMU translates DMA. Firmware describes Intel VT-d units
 * in the DMAR table (one DRHD per unit) and AMD-Vi IOMMUs in the IVRS
 * (IVHD blocks); firmware normally leaves them off (a pre-boot DMA
 * protection setup may leave them on). iommu_report() reads each unit's
 * status register once, read-only:
 *
 *   VT-d:   Global Status Register, offset 0x1c, bit 31 TES (translation
 *           enable status) (VT-d spec 3.x, 11.4.5)
 *   AMD-Vi: IOMMU Control Register, offset 0x18, bit 0 IommuEn (AMD
 *           48882, 3.4.x MMIO Offset 0018h)
 *
 * and prints one fact line (docs/interface.md):
 *
 *   iommu: DMAR with 2 DRHD units, translation off (firmware left DMA untranslated)
 */
#ifndef IOMMU_H
#define IOMMU_H

#include "types.h"

enum iommu_kind { IOMMU_NONE, IOMMU_DMAR, IOMMU_IVRS };

/* What the tables say and the registers read. */
struct iommu_facts {
	enum iommu_kind kind;
	u32 units;              /* DRHD units, or AMD IOMMUs */
	u32 translating;        /* units whose status says translation is on */
	u32 unreadable;         /* units that could not be mapped or read all ones */
};

extern struct iommu_facts iommu;

#define DMAR_GSTS               0x1c            /* VT-d Global Status Register */
#define DMAR_GSTS_TES           (1u << 31)      /* translation enable status */
#define AMD_IOMMU_CONTROL       0x18            /* AMD-Vi IOMMU Control Register */
#define AMD_IOMMU_EN            (1u << 0)

/* The fact line for f (without "iommu: " or the newline), into buf. Pure. */
void iommu_describe(const struct iommu_facts *f, char *buf, size_t size);

/* After acpi_init() and vm_init(): fill `iommu` from the DMAR or IVRS and print the line. */
void iommu_report(void);

#endif
