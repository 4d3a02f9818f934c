/* SPDX-License-Identifier: MIT */
/*
 * dma.h - the DMA API: what a driver calls to let a device read or write
 * memory, whatever the device can reach.
 *
 * There is no IOMMU: a DMA address is the physical address. A device
 * states what it can reach with two masks, dma_mask for streaming mappings
 * and coherent_dma_mask for dma_alloc_coherent(); a 32-bit device has
 * DMA_BIT_MASK(32). dma_map_single() gives the device a buffer's own
 * address when the whole buffer lies within the mask, and otherwise a
 * bounce buffer from the swiotlb pool (always, with swiotlb=force).
 *
 * When the bounce buffer itself lies beyond the mask (the pool placed
 * above 4 GiB, swiotlb=rc4), the mapping is refused with a message naming
 * the policy, as Linux said "bounce buffer is not DMA'ble", unless the
 * device sets dma_map_unreachable: a test option that hands out the
 * unreachable address anyway, so a device that enforces its mask (edu)
 * can show what the 2005 bug did to real hardware.
 *
 *   dma_addr_t a = dma_map_single(dev, buf, len, DMA_TO_DEVICE);
 *   if (dma_mapping_error(dev, a)) ...;      // no pool, pool full, unreachable
 *   ... the device reads [a, a + len) ...
 *   dma_unmap_single(dev, a, len, DMA_TO_DEVICE);
 */
#ifndef DMA_H
#define DMA_H

#include "swiotlb.h"
#include "types.h"

typedef u64 dma_addr_t;

#define DMA_MAPPING_ERROR   (~(dma_addr_t)0)
#define DMA_BIT_MASK(n)     (~0ULL >> (64 - (n)))    /* n in 1..64: the low n bits */

struct dma_stats {
	u64 mappings;           /* dma_map_single() calls that succeeded */
	u64 bounces;            /* of those, through the swiotlb */
	u64 errors;             /* refused: no pool, pool full, unreachable, bad buffer */
	u64 waits;              /* dma_map_single_wait() waits for a full pool */
};

/*
 * A device's counters are kept per CPU (CPU n counts in slot n mod
 * DMA_STAT_SLOTS, a cache line each), so CPUs mapping for one device at
 * once do not pass one line around; dma_device_stats() adds them up.
 */
#define DMA_STAT_SLOTS 8
struct dma_stats_slot {
	struct dma_stats s;
} __attribute__((aligned(64)));

struct device {
	const char *name;
	u64 dma_mask;           /* highest address streaming DMA may use */
	u64 coherent_dma_mask;  /* the same for dma_alloc_coherent() */
	int node;               /* where its memory should come from (NODE_ANY: anywhere) */
	bool dma_map_unreachable;       /* test option, see above */
	struct dma_stats_slot stats[DMA_STAT_SLOTS];
};

/* dev's counters, added up over its slots. */
struct dma_stats dma_device_stats(const struct device *dev);

/* Can a device with this mask reach all of [addr, addr + size)? (size 0: no) */
static inline bool dma_reachable(u64 mask, dma_addr_t addr, u64 size)
{
	return size && addr + size - 1 >= addr && addr + size - 1 <= mask;
}

dma_addr_t dma_map_single(struct device *dev, void *cpu_addr, u64 size,
			  enum dma_data_direction dir);
void dma_unmap_single(struct device *dev, dma_addr_t addr, u64 size, enum dma_data_direction dir);
void dma_sync_single_for_cpu(struct device *dev, dma_addr_t addr, u64 size,
			     enum dma_data_direction dir);
void dma_sync_single_for_device(struct device *dev, dma_addr_t addr, u64 size,
				enum dma_data_direction dir);
bool dma_mapping_error(struct device *dev, dma_addr_t addr);

/*
 * dma_map_single(), but when the bounce pool is full, wait (up to
 * timeout_ns) for unmaps to make room and try again: back-pressure instead
 * of an I/O error. Other refusals return at once.
 */
dma_addr_t dma_map_single_wait(struct device *dev, void *cpu_addr, u64 size,
			       enum dma_data_direction dir, u64 timeout_ns);

/* The largest buffer one mapping can take for dev: SWIOTLB_MAX_MAPPING if it may bounce. */
u64 dma_max_mapping_size(const struct device *dev);

/* Zeroed memory both sides see, within coherent_dma_mask; NULL if none. */
void *dma_alloc_coherent(struct device *dev, u64 size, dma_addr_t *handle);
void dma_free_coherent(struct device *dev, u64 size, void *cpu_addr, dma_addr_t handle);

#endif
