/* SPDX-License-Identifier: MIT */
/*
 * acpi_fixtures.h - real ACPI tables captured from QEMU 7.2 (see acpi_fixtures.c).
 *
 * fixture_<machine>_<table>: the table's bytes, sizes exact, so sizeof()
 * gives the length and ASan catches any read past a copy of the same size.
 *   story       SeaBIOS, pc, 4 CPUs in 3 nodes (tests/topologies/story.topo)
 *   story_slit  the same machine with -numa dist (the only SLIT)
 *   q35         OVMF, q35, the same 4 CPUs and 3 nodes (story-q35.topo)
 *   single      SeaBIOS, pc, one CPU, no NUMA (single.topo)
 */
#ifndef ACPI_FIXTURES_H
#define ACPI_FIXTURES_H

#include "types.h"


extern const u8 fixture_story_rsdp[20];
extern const u8 fixture_story_rsdt[56];
extern const u8 fixture_story_facp[116];
extern const u8 fixture_story_apic[144];
extern const u8 fixture_story_srat[312];
extern const u8 fixture_story_hpet[56];

extern const u8 fixture_story_slit[53];

extern const u8 fixture_q35_rsdp[36];
extern const u8 fixture_q35_xsdt[92];
extern const u8 fixture_q35_facp[244];
extern const u8 fixture_q35_apic[144];
extern const u8 fixture_q35_srat[312];
extern const u8 fixture_q35_mcfg[60];
extern const u8 fixture_q35_hpet[56];

extern const u8 fixture_single_apic[120];

/*
 * Synthetic tables (built by code, not captured): the big servers and
 * broken firmware QEMU's TCG cannot give us (x2APIC IDs, 512 CPUs, more
 * I/O APICs than MAX_IOAPICS, DMAR/IVRS). A table grows entry by entry;
 * synth_end() sets its length and checksum and returns a malloc'd buffer of
 * exactly that length (so ASan sees any read past it).
 */
struct synth {
	u8 *t;
	u32 len, cap;
};

/* Header (signature, revision, OEM "TESTBD") and fixed zero bytes up to body_start. */
void synth_begin(struct synth *s, const char *sig, u8 revision, u32 body_start);
/* Append n bytes (copied from bytes, or zeros if NULL); returns their offset. */
u32 synth_add(struct synth *s, const void *bytes, u32 n);
/* Write a u8/u16/u32/u64 at offset off. */
void synth_put(struct synth *s, u32 off, u64 v, u32 size);
/* Finish: length and checksum set; returns the table (free() it), *len its length. */
u8 *synth_end(struct synth *s, u32 *len);

/* MADT (body from 44) entries, SRAT (body from 48) entries. */
void synth_madt_lapic(struct synth *s, u8 apic_id, u8 uid, u32 flags);
void synth_madt_x2apic(struct synth *s, u32 apic_id, u32 uid, u32 flags);
void synth_madt_ioapic(struct synth *s, u8 id, u32 address, u32 gsi_base);
void synth_madt_override(struct synth *s, u8 irq, u32 gsi, u16 flags);
void synth_srat_x2apic(struct synth *s, u32 apic_id, u32 pxm);
void synth_srat_mem(struct synth *s, u64 base, u64 size, u32 pxm);

/* DMAR (body from 48): flags at 37; a DRHD unit with its register base. IVRS (body from 48). */
void synth_dmar_drhd(struct synth *s, u64 base, u16 segment, bool include_all);
void synth_dmar_rmrr(struct synth *s, u64 base, u64 end);
void synth_ivrs_ivhd(struct synth *s, u8 type, u64 base);

/*
 * A big server: ncpus x2APIC CPUs (IDs 0x100 + 2 * i: sparse, all above
 * 255) split evenly over nodes nodes, 1 GiB of memory per node from 4 GiB;
 * the boot CPU is CPU bsp_index in that numbering, listed last in the
 * MADT. *madt and *srat are malloc'd.
 */
#define BIG_APIC_ID(i)  (0x100u + 2u * (i))
#define BIG_NODE_MEM    (1ULL << 30)
#define BIG_MEM_BASE    (4ULL << 30)
void fixture_big_server(u32 ncpus, u32 nodes, u32 bsp_index, u8 **madt, u32 *madt_len,
			u8 **srat, u32 *srat_len);

#endif
