/* SPDX-License-Identifier: MIT */
/*
 * bootmem.h - the boot allocator: physical memory before the page allocator.
 *
 * Like Linux's memblock, two sorted lists of [base, end) ranges:
 *
 *   memory:   the RAM the memory map calls usable, each range on one node
 *   reserved: what is taken (kernel image, the first MiB, GRUB modules,
 *             earlier allocations)
 *
 * Free memory is memory minus reserved. bootmem_alloc() takes the highest
 * free block that fits on the asked node below max_addr (top-down, as
 * memblock does), and reserves it. The caller chooses the order in which
 * nodes are tried, which is exactly what the swiotlb policies differ in:
 * 2.6.14-rc4 tried the highest node first with no address limit; the posted
 * patch only node 0; the merged fix every node with a 4 GiB limit.
 *
 * All state lives in a struct bootmem, so a copy can be taken to ask "what
 * would happen if" without touching the real one. Pure code: host-tested.
 */
#ifndef BOOTMEM_H
#define BOOTMEM_H

#include "param.h"
#include "types.h"

#define NODE_ANY      (-1)
#define BOOTMEM_NO_LIMIT (~0UL)

struct bootmem_range {
	u64 base, end;          /* end exclusive */
	int node;               /* memory list only; -1 in the reserved list */
};

struct bootmem {
	struct bootmem_range memory[BOOTMEM_MAX_RANGES];
	u32 nmemory;
	struct bootmem_range reserved[BOOTMEM_MAX_RANGES];
	u32 nreserved;
};

void bootmem_init(struct bootmem *bm);

/*
 * Add RAM [base, end) on node. Overlaps with memory already added are
 * dropped (the first claim wins) with a warning. False if the list is full.
 */
bool bootmem_add_memory(struct bootmem *bm, u64 base, u64 end, int node);

/* Mark [base, end) taken; overlapping or adjacent reservations merge. */
bool bootmem_reserve(struct bootmem *bm, u64 base, u64 end);

/* Give back [base, base + size) (part of a reservation): it becomes free. */
void bootmem_free(struct bootmem *bm, u64 base, u64 size);

/*
 * Allocate size bytes aligned to align (a power of two) from node (or any
 * node with NODE_ANY), entirely below max_addr; the highest fitting block
 * wins. Returns its physical address, or 0 if nothing fits (page 0 is
 * always reserved, so 0 is never a valid result).
 */
u64 bootmem_alloc(struct bootmem *bm, u64 size, u64 align, int node, u64 max_addr);

/*
 * The same, bottom-up, as 2.6's bootmem allocator scanned its bitmap: the
 * lowest fitting block at or above goal wins; if none, the lowest at all
 * (2.6.14's __alloc_bootmem_core() restarted its scan from the node's
 * start). Everything below max_addr.
 */
u64 bootmem_alloc_bottom_up(struct bootmem *bm, u64 size, u64 align, int node, u64 goal,
			    u64 max_addr);

/* Free bytes on node (NODE_ANY: all) below max_addr. */
u64 bootmem_free_bytes(const struct bootmem *bm, int node, u64 max_addr);

/*
 * Walk the free ranges in address order: start with *cursor = 0; each call
 * fills *out with the next free range and returns true, false at the end.
 */
bool bootmem_next_free(const struct bootmem *bm, u64 *cursor, struct bootmem_range *out);

/* The node that owns physical address pa, or -1 if it is not RAM. */
int bootmem_node_of(const struct bootmem *bm, u64 pa);

#endif
