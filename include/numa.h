/* SPDX-License-Identifier: MIT */
/*
 * numa.h - which CPUs and which memory make up each NUMA node.
 *
 * The SRAT gives proximity domains for CPUs (by APIC ID) and memory
 * ranges; the SLIT gives distances between them. numa_build() turns them,
 * with the MADT's CPU list and the memory map, into numbered nodes:
 *
 *   node 0: cpus 0-1, no memory          (a memoryless node: story's node 0)
 *   node 1: cpu 2, 0-3 GiB               (memory below the PCI hole)
 *   node 2: cpu 3, 4-7 GiB
 *
 * Node IDs are the proximity domains when they are all below MAX_NODES
 * (QEMU numbers them so), else assigned in order of first appearance.
 * Without an SRAT, or with numa=off, there is one node holding all CPUs
 * and all memory. RAM the SRAT does not cover goes to the nearest node,
 * with a warning. Pure code, host-tested.
 */
#ifndef NUMA_H
#define NUMA_H

#include "acpi.h"
#include "cpumask.h"
#include "memmap.h"
#include "param.h"
#include "types.h"

#define NUMA_MAX_RANGES 32      /* memory ranges per node */
#define NUMA_MAX_ORPHANS 16     /* RAM ranges outside the SRAT */

struct numa_range {
	u64 base, end;
};

struct numa_node {
	bool present;                   /* has CPUs or memory */
	struct cpumask cpus;            /* logical CPU numbers */
	struct numa_range mem[NUMA_MAX_RANGES]; /* as the SRAT gives them, merged */
	u32 nmem;
	u64 ram_bytes;                  /* usable RAM of the memory map inside mem[] */
};

struct numa_layout {
	u32 nr_nodes;                   /* highest present node ID + 1 */
	struct numa_node nodes[MAX_NODES];
	u8 distance[MAX_NODES][MAX_NODES];
	u32 ncpus;                      /* logical CPUs: enabled MADT entries */
	u32 cpu_apic_id[MAX_CPUS];      /* logical CPU -> APIC ID; CPU 0 is the boot CPU */
	u8 cpu_node[MAX_CPUS];          /* logical CPU -> node */
	u32 node_pxm[MAX_NODES];        /* node -> its ACPI proximity domain (the SLIT's index) */
	struct numa_range orphan[NUMA_MAX_ORPHANS];     /* RAM outside the SRAT ... */
	u8 orphan_node[NUMA_MAX_ORPHANS];               /* ... and the node it joined */
	u32 norphans;
	bool from_srat;                 /* false: the single-node fallback */
	const char *why_single;         /* why there is one node, if so */
};

/*
 * Build the layout. madt may be NULL (then only the boot CPU); srat NULL
 * means no SRAT (or numa=off); slit may be NULL (then 10 local, 20
 * remote). bsp_apic_id is the boot CPU's APIC ID: it becomes CPU 0,
 * wherever the MADT lists it.
 */
void numa_build(struct numa_layout *nl, const struct madt_info *madt,
		const struct srat_info *srat, const struct slit_info *slit,
		const struct memmap *map, const char *why_no_srat, u32 bsp_apic_id);

/* The node owning physical address pa (SRAT ranges, then orphans), or -1. */
int numa_node_of_addr(const struct numa_layout *nl, u64 pa);

/*
 * Where the piece of memory starting at pa stops belonging to one node:
 * the end of the node range (SRAT or orphan) holding pa, or, if none holds
 * it, the start of the next range above; never past limit.
 */
u64 numa_piece_end(const struct numa_layout *nl, u64 pa, u64 limit);

/* Print the fact lines (docs/interface.md): "numa: node <id> cpus <list|none> mem <ranges|none>". */
void numa_print(const struct numa_layout *nl);

/* The kernel's layout, built at boot by numa_init() (kernel/mm.c; numa=on|off). */
extern struct numa_layout numa;
void numa_init(const struct memmap *map);

#endif
