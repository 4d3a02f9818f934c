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

#endif
