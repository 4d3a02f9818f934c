/* SPDX-License-Identifier: MIT */
/*
 * swiotlb.h - the software IO TLB: a pool of bounce buffers below 4 GiB for
 * devices that cannot reach the memory they are given.
 *
 * At boot (swiotlb_init(), between the boot allocator and the page
 * allocator) the pool is placed by policy, swiotlb= (see swiotlb_pool.h),
 * and its size is swiotlb.size= (64M); swiotlb=pernode places one such pool
 * on every node with room below 4 GiB. Each pool is split into areas with
 * a lock each (swiotlb.areas=, default one per CPU, see swiotlb_pool.h).
 * It prints a fact line per pool (docs/interface.md),
 *
 *   swiotlb: policy=rc5 base=0x4f5000 end=0x44f5000 size=64M node=1
 *   swiotlb: policy=node0 failed: no node has room
 *
 * A mapping takes a run of slots and remembers the original buffer and its
 * size; data is copied into the slot at map for every direction (so a
 * device that writes less than it was given hands back the caller's own
 * bytes: swiotlb.copyin=off replays 2.6.14, which copied in only for
 * TO_DEVICE and BIDIRECTIONAL, and leaked the slot's old contents), back for
 * the CPU (FROM_DEVICE, BIDIRECTIONAL) at unmap, and each way at the syncs;
 * never more than was mapped. The DMA API (dma.h) decides when to bounce;
 * this is the pool.
 */
#ifndef SWIOTLB_H
#define SWIOTLB_H

#include "swiotlb_pool.h"
#include "types.h"

enum dma_data_direction {
	DMA_BIDIRECTIONAL = 0,
	DMA_TO_DEVICE = 1,
	DMA_FROM_DEVICE = 2,
};

struct swiotlb_stats {
	u64 maps, unmaps;       /* bounce mappings made and undone */
	u64 bytes_copied;       /* both ways */
	u64 full;               /* mappings refused: no run of slots free */
	u64 too_large;          /* mappings refused: larger than SWIOTLB_MAX_MAPPING */
	u64 bad_unmaps;         /* unmaps refused: the address was no mapping (or being unmapped) */
	u64 overflows;          /* unmaps and syncs asking for more than was mapped (clamped) */
	u32 slabs, used_slabs;  /* every pool's slabs, and those in use */
	u32 peak_slabs;         /* the areas' peaks added up: at least the most ever in use at once */
};

struct swiotlb_pool_info {
	u64 base, end;
	int node;
	u32 nareas, slabs, used_slabs;
};

/* Place the pool (bootmem) and print the fact line. Before mm_init(). */
void swiotlb_init(void);

/*
 * The pool: true if there is one, with its [base, end) and node (with
 * pernode, the first: the boot CPU's node's, or the nearest to it).
 */
bool swiotlb_pool_range(u64 *base, u64 *end, int *node);
u32 swiotlb_pools(void);                /* how many pools (0: none) */
bool swiotlb_pool_info(u32 i, struct swiotlb_pool_info *out);
bool swiotlb_reachable(u64 mask);       /* does some pool lie within mask? */
int swiotlb_area_of(u64 addr);          /* the area of its pool addr lies in; -1: no pool's */
enum swiotlb_policy swiotlb_policy(void);
const char *swiotlb_policy_name(enum swiotlb_policy p);
bool swiotlb_force(void);               /* swiotlb=force: bounce everything */
bool swiotlb_copyin(void);              /* swiotlb.copyin=on: copy in for every direction */

/* Is addr inside the pool? */
bool is_swiotlb_buffer(u64 addr);

#define SWIOTLB_NO_MAPPING (~0ULL)

/*
 * Bounce size bytes at physical address orig: a slot run's address, with
 * the data copied in; SWIOTLB_NO_MAPPING if the pool is absent, full, or
 * the size is larger than SWIOTLB_MAX_MAPPING (said on the console, at
 * most once a second).
 */
u64 swiotlb_map(u64 orig, u64 size, enum dma_data_direction dir);

/*
 * swiotlb_map() for a device on node (NODE_ANY: this CPU's) that reaches up
 * to mask: its own node's pool first, then the nearest by SLIT, each only
 * if it lies within mask; in each pool, this CPU's area first. On a
 * refusal, *full says whether the pools were full (worth a wait).
 */
u64 swiotlb_map_for(u64 orig, u64 size, enum dma_data_direction dir, int node, u64 mask,
		    bool *full);

/*
 * Undo a mapping; copy back for FROM_DEVICE and BIDIRECTIONAL, never more
 * than was mapped. False (said, and counted in bad_unmaps) if addr starts
 * no mapping, or one whose unmap is already under way.
 */
bool swiotlb_unmap(u64 addr, u64 size, enum dma_data_direction dir);

/* Copy back (for the CPU) or in (for the device), as dir says, without unmapping. */
bool swiotlb_sync_for_cpu(u64 addr, u64 size, enum dma_data_direction dir);
bool swiotlb_sync_for_device(u64 addr, u64 size, enum dma_data_direction dir);

/*
 * Back-pressure for a full pool: swiotlb_room() counts the unmaps so far;
 * swiotlb_wait_for_room(since, timeout) sleeps until one more happened
 * (false on timeout). A driver whose mapping was refused for a full pool
 * takes swiotlb_room() first, then waits and tries again.
 */
u64 swiotlb_room(void);
bool swiotlb_wait_for_room(u64 since, u64 timeout_ns);

void swiotlb_get_stats(struct swiotlb_stats *out);

/*
 * What policy p would have done on the boot allocator as the pool found it
 * (a copy; nothing is taken): for tests that compare policies in one boot.
 */
bool swiotlb_place_what_if(enum swiotlb_policy p, u64 size, struct swiotlb_placement *out);

/* Free bytes of node (NODE_ANY: all) below max_addr, as the pool found the boot allocator. */
u64 swiotlb_boot_free_bytes(int node, u64 max_addr);
u64 swiotlb_size(void);                 /* swiotlb.size=, in whole segments */

#endif
