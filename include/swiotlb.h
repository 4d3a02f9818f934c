/*
 * swiotlb.h - the software IO TLB: a pool of bounce buffers below 4 GiB for
 * devices that cannot reach the memory they are given.
 *
 * At boot (swiotlb_init(), between the boot allocator and the page
 * allocator) the pool is placed by policy, swiotlb= (see swiotlb_pool.h),
 * and its size is swiotlb.size= (64M). It prints its fact line (docs/interface.md),
 *
 *   swiotlb: policy=scan base=0xbc000000 end=0xc0000000 size=64M node=1
 *   swiotlb: policy=node0 failed: node 0 has no memory
 *
 * A mapping takes a run of slots and remembers the original buffer; data
 * is copied into the slot for the device (TO_DEVICE, BIDIRECTIONAL) and
 * back for the CPU (FROM_DEVICE, BIDIRECTIONAL), at map/unmap and at the
 * syncs. The DMA API (dma.h) decides when to bounce; this is the pool.
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
	u64 bad_unmaps;         /* unmaps of addresses that were no mapping */
	u32 slabs, peak_slabs;  /* the pool's slabs, and most ever in use */
	u32 used_slabs;
};

/* Place the pool (bootmem) and print the fact line. Before mm_init(). */
void swiotlb_init(void);

/* The pool: true if there is one, with its [base, end) and node. */
bool swiotlb_pool_range(u64 *base, u64 *end, int *node);
enum swiotlb_policy swiotlb_policy(void);
const char *swiotlb_policy_name(enum swiotlb_policy p);
bool swiotlb_force(void);               /* swiotlb=force: bounce everything */

/* Is addr inside the pool? */
bool is_swiotlb_buffer(u64 addr);

/*
 * Bounce size bytes at physical address orig: a slot run's address, with
 * the data copied in for TO_DEVICE and BIDIRECTIONAL; ~0 if the pool is
 * full or absent (said on the console, rate-limited).
 */
u64 swiotlb_map(u64 orig, u64 size, enum dma_data_direction dir);

/* Undo a mapping; copy back for FROM_DEVICE and BIDIRECTIONAL. */
void swiotlb_unmap(u64 addr, u64 size, enum dma_data_direction dir);

/* Copy back (for the CPU) or in (for the device), as dir says, without unmapping. */
void swiotlb_sync_for_cpu(u64 addr, u64 size, enum dma_data_direction dir);
void swiotlb_sync_for_device(u64 addr, u64 size, enum dma_data_direction dir);

void swiotlb_get_stats(struct swiotlb_stats *out);

/*
 * What policy p would have done on the boot allocator as the pool found it
 * (a copy; nothing is taken): for tests that compare policies in one boot.
 */
bool swiotlb_place_what_if(enum swiotlb_policy p, u64 size, struct swiotlb_placement *out);

/* Free bytes of node (NODE_ANY: all) below max_addr, as the pool found the boot allocator. */
u64 swiotlb_boot_free_bytes(int node, u64 max_addr);
u64 swiotlb_size(void);                 /* swiotlb.size= */

#endif
