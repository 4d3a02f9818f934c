// SPDX-License-Identifier: MIT
/*
 * dma.c - the DMA API over the direct map and the swiotlb (see dma.h).
 *
 * The decision, per mapping:
 *
 *   buffer within dma_mask, no swiotlb=force  -> its own physical address
 *   otherwise                                 -> a bounce buffer (swiotlb_map)
 *   bounce buffer beyond dma_mask             -> refused (unless the device
 *                                                set dma_map_unreachable)
 *
 * Only direct-map and kernel-image addresses can be mapped: they are the
 * ones whose physical address is virt - constant. A thread stack (vmalloc
 * style, page by page) is refused, as Linux's DMA debugging refuses it.
 */
#include "dma.h"
#include "cmdline.h"
#include "dma_debug.h"
#include "panic.h"
#include "errno.h"
#include "page_alloc.h"
#include "param.h"
#include "percpu.h"
#include "printk.h"
#include "time.h"
#include "vm.h"

/*
 * swiotlb.unreachable: what a mapping does when the bounce pool itself is
 * beyond the device's mask. refuse (the default) returns an error;
 * panic replays 2.6.14, whose swiotlb_map_single() (arch/ia64/lib/swiotlb.c,
 * shared by x86-64) ended in panic("map_single: bounce buffer is not DMA'ble").
 */
static int unreachable_panics;
PARAM_CHOICE("swiotlb.unreachable", unreachable_panics, "refuse", "panic");

static bool linear(const void *va)
{
	u64 v = (u64)va;

	return v >= KERNEL_VMA || (v >= PAGE_OFFSET && v < STACK_AREA);
}

/* Count one event in this CPU's slot of dev's counters. */
#define COUNT(dev, field) \
	__atomic_fetch_add(&(dev)->stats[raw_smp_processor_id() % DMA_STAT_SLOTS].s.field, 1, __ATOMIC_RELAXED)

struct dma_stats dma_device_stats(const struct device *dev)
{
	struct dma_stats sum = { 0 };

	for (u32 i = 0; i < DMA_STAT_SLOTS; i++) {
		const struct dma_stats *s = &dev->stats[i].s;
		sum.mappings += __atomic_load_n(&s->mappings, __ATOMIC_RELAXED);
		sum.bounces += __atomic_load_n(&s->bounces, __ATOMIC_RELAXED);
		sum.errors += __atomic_load_n(&s->errors, __ATOMIC_RELAXED);
		sum.waits += __atomic_load_n(&s->waits, __ATOMIC_RELAXED);
	}
	return sum;
}

static dma_addr_t refuse(struct device *dev)
{
	COUNT(dev, errors);
	return DMA_MAPPING_ERROR;
}

/* The mapping, or DMA_MAPPING_ERROR with *err: -ENOSPC for a full pool (worth a wait). */
static dma_addr_t map_one(struct device *dev, void *cpu_addr, u64 size, enum dma_data_direction dir,
			  int *err)
{
	*err = -EINVAL;
	if (!size || !linear(cpu_addr)) {
		pr_err("dma: %s: cannot map %p (%llu bytes): not in the direct map or the kernel "
		       "image\n", dev->name, cpu_addr, size);
		return refuse(dev);
	}
	u64 pa = virt_to_phys(cpu_addr);

	if (!swiotlb_force() && dma_reachable(dev->dma_mask, pa, size)) {
		COUNT(dev, mappings);
		return pa;
	}

	u64 base, end;
	int node;
	if (!swiotlb_pool_range(&base, &end, &node)) {
		pr_err("dma: %s: 0x%llx (%llu bytes) is beyond its mask 0x%llx and there is no "
		       "bounce pool (swiotlb=%s)\n", dev->name, pa, size, dev->dma_mask,
		       swiotlb_policy_name(swiotlb_policy()));
		return refuse(dev);
	}
	if (!swiotlb_reachable(dev->dma_mask) && !dev->dma_map_unreachable) {
		if (unreachable_panics)
			panic("map_single: bounce buffer is not DMA'ble (%s, pool 0x%llx-0x%llx, mask "
			      "0x%llx)", dev->name, base, end, dev->dma_mask);
		pr_err("dma: %s: bounce buffer is not DMA'ble: the pool 0x%llx-0x%llx is beyond "
		       "the mask 0x%llx (swiotlb=%s)\n", dev->name, base, end, dev->dma_mask,
		       swiotlb_policy_name(swiotlb_policy()));
		return refuse(dev);
	}
	bool full;
	u64 bounce = swiotlb_map_for(pa, size, dir, dev->node,
				     dev->dma_map_unreachable ? ~0ULL : dev->dma_mask, &full);
	if (bounce == SWIOTLB_NO_MAPPING) {
		*err = full ? -ENOSPC : -ENOMEM;
		return refuse(dev);
	}
	COUNT(dev, mappings);
	COUNT(dev, bounces);
	return bounce;
}

dma_addr_t dma_map_single(struct device *dev, void *cpu_addr, u64 size,
			  enum dma_data_direction dir)
{
	int err;
	dma_addr_t addr = map_one(dev, cpu_addr, size, dir, &err);

	if (addr != DMA_MAPPING_ERROR)
		dma_debug_map(dev, addr, size, dir, __builtin_return_address(0));
	return addr;
}

dma_addr_t dma_map_single_wait(struct device *dev, void *cpu_addr, u64 size,
			       enum dma_data_direction dir, u64 timeout_ns)
{
	u64 deadline = ktime_ns() + timeout_ns;

	for (;;) {
		u64 room = swiotlb_room();
		int err;
		dma_addr_t addr = map_one(dev, cpu_addr, size, dir, &err);
		if (addr != DMA_MAPPING_ERROR) {
			dma_debug_map(dev, addr, size, dir, __builtin_return_address(0));
			return addr;
		}
		u64 now = ktime_ns();
		if (err != -ENOSPC || now >= deadline)
			return DMA_MAPPING_ERROR;
		COUNT(dev, waits);
		swiotlb_wait_for_room(room, deadline - now);
	}
}

u64 dma_max_mapping_size(const struct device *dev)
{
	u64 base, end;
	int node;
	bool may_bounce = swiotlb_force() || dev->dma_mask < PHYS_ADDR_MAX - 1;

	return may_bounce && swiotlb_pool_range(&base, &end, &node) ? SWIOTLB_MAX_MAPPING : ~0ULL;
}

void dma_unmap_single(struct device *dev, dma_addr_t addr, u64 size, enum dma_data_direction dir)
{
	if (!dma_debug_unmap(dev, addr, &size, &dir, __builtin_return_address(0)))
		return;
	if (is_swiotlb_buffer(addr))
		swiotlb_unmap(addr, size, dir);
}

void dma_sync_single_for_cpu(struct device *dev, dma_addr_t addr, u64 size,
			     enum dma_data_direction dir)
{
	if (!dma_debug_sync(dev, addr, size, &dir, __builtin_return_address(0)))
		return;
	if (is_swiotlb_buffer(addr))
		swiotlb_sync_for_cpu(addr, size, dir);
}

void dma_sync_single_for_device(struct device *dev, dma_addr_t addr, u64 size,
				enum dma_data_direction dir)
{
	if (!dma_debug_sync(dev, addr, size, &dir, __builtin_return_address(0)))
		return;
	if (is_swiotlb_buffer(addr))
		swiotlb_sync_for_device(addr, size, dir);
}

bool dma_mapping_error(struct device *dev, dma_addr_t addr)
{
	return addr == DMA_MAPPING_ERROR;
}

void *dma_alloc_coherent(struct device *dev, u64 size, dma_addr_t *handle)
{
	unsigned order = page_order(size);
	unsigned flags = ALLOC_ZERO | (dev->coherent_dma_mask <= DMA_BIT_MASK(32) ? ALLOC_DMA32 : 0);
	struct page *p = size && order <= MAX_ORDER ? alloc_pages(order, dev->node, flags) : NULL;

	if (!p) {
		pr_err("dma: %s: no memory for a coherent buffer of %llu bytes\n", dev->name, size);
		refuse(dev);
		return NULL;
	}
	u64 pa = page_to_phys(p);
	if (!dma_reachable(dev->coherent_dma_mask, pa, PAGE_SIZE << order)) {
		pr_err("dma: %s: coherent buffer at 0x%llx is beyond its mask 0x%llx\n", dev->name,
		       pa, dev->coherent_dma_mask);
		free_pages(p, order);
		refuse(dev);
		return NULL;
	}
	*handle = pa;
	return page_address(p);
}

void dma_free_coherent(struct device *dev, u64 size, void *cpu_addr, dma_addr_t handle)
{
	if (cpu_addr)
		free_pages(phys_to_page(handle), page_order(size));
}
