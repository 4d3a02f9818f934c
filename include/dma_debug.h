/* SPDX-License-Identifier: MIT */
/*
 * dma_debug.h - dma.debug=on: the DMA API checks how drivers use it, in the
 * spirit of Linux's CONFIG_DMA_API_DEBUG (kernel/dma/debug.c).
 *
 * Every mapping the API hands out is recorded with its device, address,
 * size, direction and the code that made it. Then each of these is reported
 * with both call sites, counted, and not carried out as asked:
 *
 *   an unmap or sync of a handle that was never mapped (or is gone)
 *   a double unmap (the handle was unmapped before: where)
 *   an unmap with another size or direction than the mapping's
 *       (the mapping's own are used instead)
 *   a sync that reaches past the end of its mapping (refused)
 *   a sync in another direction than the mapping's, unless it is
 *       BIDIRECTIONAL (the mapping's own is used instead)
 *   mappings still live when a driver lets go of its device
 *
 * With dma.debug=off (the default) nothing is recorded and every call is
 * let through, as on Linux without the option. More than DMA_DEBUG_ENTRIES
 * live mappings turn checking off for the rest of the boot, in one line:
 * a mapping that was not recorded could not be unmapped otherwise.
 */
#ifndef DMA_DEBUG_H
#define DMA_DEBUG_H

#include "dma.h"

#define DMA_DEBUG_ENTRIES 4096  /* live mappings recorded; one more turns checking off */
#define DMA_DEBUG_GONE    64    /* recent unmaps kept, to name a double unmap's first */

bool dma_debug_enabled(void);
u64 dma_debug_errors(void);     /* problems reported so far */

/* Called by dma.c; caller is the driver code that called the DMA API. */
void dma_debug_map(const struct device *dev, dma_addr_t addr, u64 size,
		   enum dma_data_direction dir, const void *caller);

/*
 * Before an unmap: true to go on, with *size and *dir the mapping's own;
 * false (reported) to refuse it.
 */
bool dma_debug_unmap(const struct device *dev, dma_addr_t addr, u64 *size,
		     enum dma_data_direction *dir, const void *caller);

/*
 * Before a sync of [addr, addr + size) in *dir: false (reported) to refuse
 * it; true to go on, with *dir the mapping's own.
 */
bool dma_debug_sync(const struct device *dev, dma_addr_t addr, u64 size,
		    enum dma_data_direction *dir, const void *caller);

/*
 * A driver lets go of dev (a reset, a removal): report each mapping of dev
 * still live. Returns how many there were.
 */
u32 dma_debug_device_done(const struct device *dev);

#ifdef HOST_TEST
void dma_debug_host_reset(void);
#endif

#endif
