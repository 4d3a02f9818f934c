/*
 * swiotlb.c - the bounce-buffer pool at run time (see swiotlb.h).
 *
 * The pool is one physically contiguous block from the boot allocator,
 * used through the direct map; its slot arrays come from the boot
 * allocator too. One spinlock guards the slots and the statistics; the
 * copies run outside it (a slot run belongs to one mapping until it is
 * freed, so nobody else touches its bytes).
 *
 * Invariants:
 *   - a mapping's address is the pool's base plus its first slab times
 *     SWIOTLB_SLAB_SIZE; the slot allocator keeps its length and original;
 *   - with policy off, or after a failed placement, there is no pool and
 *     every swiotlb_map() fails.
 */
#include "swiotlb.h"
#include "cmdline.h"
#include "kstring.h"
#include "mm.h"
#include "numa.h"
#include "printk.h"
#include "spinlock.h"
#include "time.h"
#include "vm.h"

static int policy_arg = SWIOTLB_SCAN;
PARAM_ENUM("swiotlb", policy_arg, swiotlb_policies);
static u64 pool_bytes = 64UL << 20;
PARAM_SIZE("swiotlb.size", pool_bytes, SWIOTLB_MAX_MAPPING, 1UL << 30);

static struct {
	struct spinlock lock;
	bool ready;
	struct swiotlb_placement where;
	u8 *va;                         /* the pool through the direct map */
	struct swiotlb_slots slots;
	struct swiotlb_stats stats;
	u64 last_full_warning_ns;
} pool = { .lock = SPINLOCK_INIT("swiotlb") };

static struct bootmem before_pool;      /* the boot allocator as the pool found it */

const char *swiotlb_policy_name(enum swiotlb_policy p)
{
	return p < SWIOTLB_NR_POLICIES ? swiotlb_policies[p].name : "?";
}

enum swiotlb_policy swiotlb_policy(void)
{
	return policy_arg;
}

u64 swiotlb_size(void)
{
	return pool_bytes;
}

bool swiotlb_force(void)
{
	return pool.ready && swiotlb_policies[policy_arg].bounce_all;
}

bool swiotlb_place_what_if(enum swiotlb_policy p, u64 size, struct swiotlb_placement *out)
{
	static struct bootmem scratch;  /* 12 KiB: not on a 16 KiB stack */
	static struct spinlock scratch_lock = SPINLOCK_INIT("swiotlb what-if");

	spin_lock(&scratch_lock);
	scratch = before_pool;
	bool ok = swiotlb_place(&scratch, numa.nr_nodes, numa.distance, numa.cpu_node[0], p, size, out);
	spin_unlock(&scratch_lock);
	return ok;
}

u64 swiotlb_boot_free_bytes(int node, u64 max_addr)
{
	return bootmem_free_bytes(&before_pool, node, max_addr);
}

void swiotlb_init(void)
{
	const struct swiotlb_policy_info *policy = &swiotlb_policies[policy_arg];
	const char *name = policy->name;
	struct swiotlb_placement *w = &pool.where;

	before_pool = bootmem;
	if (!swiotlb_place(&bootmem, numa.nr_nodes, numa.distance, numa.cpu_node[0],
			   policy_arg, pool_bytes, w)) {
		printk("swiotlb: policy=%s failed: %s\n", name, w->failed);
		if (policy->walk != SWIOTLB_WALK_NONE)
			pr_warn("swiotlb: no bounce buffers: DMA for devices that cannot reach a "
				"buffer will be refused\n");
		return;
	}
	u32 nslabs = (u32)(pool_bytes / SWIOTLB_SLAB_SIZE);
	u64 arrays = bootmem_alloc(&bootmem, swiotlb_slots_array_bytes(nslabs), 64, NODE_ANY,
				   BOOTMEM_NO_LIMIT);
	if (!arrays) {
		bootmem_free(&bootmem, w->base, w->size);
		printk("swiotlb: policy=%s failed: no memory for the slot arrays\n", name);
		return;
	}
	swiotlb_slots_init(&pool.slots, nslabs, phys_to_virt(arrays));
	pool.va = phys_to_virt(w->base);
	pool.ready = true;
	printk("swiotlb: policy=%s base=0x%llx end=0x%llx size=%lluM node=%d\n", name,
	       w->base, w->base + w->size, w->size >> 20, w->node);
	if (w->base + w->size > DMA32_LIMIT)
		pr_warn("swiotlb: the pool lies above 4 GiB, where 32-bit devices cannot reach it: "
			"this is the 2.6.14-rc4 bug (highest node first, no address limit)\n");
}

bool swiotlb_pool_range(u64 *base, u64 *end, int *node)
{
	if (!pool.ready)
		return false;
	*base = pool.where.base;
	*end = pool.where.base + pool.where.size;
	*node = pool.where.node;
	return true;
}

bool is_swiotlb_buffer(u64 addr)
{
	return pool.ready && addr >= pool.where.base && addr < pool.where.base + pool.where.size;
}

static void copy_in(u64 slot_addr, u64 orig, u64 size)
{
	memcpy(pool.va + (slot_addr - pool.where.base), phys_to_virt(orig), size);
}

static void copy_out(u64 slot_addr, u64 orig, u64 size)
{
	memcpy(phys_to_virt(orig), pool.va + (slot_addr - pool.where.base), size);
}

static bool to_device(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE || dir == DMA_BIDIRECTIONAL;
}

static bool to_cpu(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE || dir == DMA_BIDIRECTIONAL;
}

#define FULL_WARN_INTERVAL_NS (1000UL * 1000 * 1000)

u64 swiotlb_map(u64 orig, u64 size, enum dma_data_direction dir)
{
	if (!pool.ready)
		return ~0UL;
	u64 flags = spin_lock_irqsave(&pool.lock);
	s64 slab = swiotlb_slots_alloc(&pool.slots, size, orig);
	bool warn = false;

	if (slab < 0) {
		pool.stats.full++;
		u64 now = ktime_ns();
		if (!pool.last_full_warning_ns || now - pool.last_full_warning_ns > FULL_WARN_INTERVAL_NS) {
			pool.last_full_warning_ns = now;
			warn = true;
		}
	} else {
		pool.stats.maps++;
	}
	u32 used = pool.slots.used, total = pool.slots.nslabs;
	spin_unlock_irqrestore(&pool.lock, flags);

	if (slab < 0) {
		if (warn)
			pr_err("swiotlb buffer is full (sz: %llu bytes), total %u slots (%u KiB), "
			       "used %u\n", size, total, total * (SWIOTLB_SLAB_SIZE / 1024), used);
		return ~0UL;
	}
	u64 addr = pool.where.base + (u64)slab * SWIOTLB_SLAB_SIZE;
	if (to_device(dir)) {
		copy_in(addr, orig, size);
		__atomic_fetch_add(&pool.stats.bytes_copied, size, __ATOMIC_RELAXED);
	}
	return addr;
}

/* The mapping at addr: its first slab and original, or false (said once per call). */
static bool find_mapping(u64 addr, u64 size, const char *what, u32 *slab, u64 *orig)
{
	u64 off = addr - pool.where.base;

	if (!is_swiotlb_buffer(addr) || off % SWIOTLB_SLAB_SIZE ||
	    !pool.slots.nslabs_at[off / SWIOTLB_SLAB_SIZE] ||
	    size > (u64)pool.slots.nslabs_at[off / SWIOTLB_SLAB_SIZE] * SWIOTLB_SLAB_SIZE) {
		__atomic_fetch_add(&pool.stats.bad_unmaps, 1, __ATOMIC_RELAXED);
		pr_err("swiotlb: %s of 0x%llx (%llu bytes), which is no mapping; ignored\n", what,
		       addr, size);
		return false;
	}
	*slab = (u32)(off / SWIOTLB_SLAB_SIZE);
	*orig = pool.slots.orig[*slab];
	return true;
}

void swiotlb_unmap(u64 addr, u64 size, enum dma_data_direction dir)
{
	u32 slab;
	u64 orig;
	u64 flags = spin_lock_irqsave(&pool.lock);

	if (!find_mapping(addr, size, "unmap", &slab, &orig)) {
		spin_unlock_irqrestore(&pool.lock, flags);
		return;
	}
	spin_unlock_irqrestore(&pool.lock, flags);
	if (to_cpu(dir)) {
		copy_out(addr, orig, size);
		__atomic_fetch_add(&pool.stats.bytes_copied, size, __ATOMIC_RELAXED);
	}
	flags = spin_lock_irqsave(&pool.lock);
	swiotlb_slots_free(&pool.slots, slab);
	pool.stats.unmaps++;
	spin_unlock_irqrestore(&pool.lock, flags);
}

static void sync(u64 addr, u64 size, bool for_cpu)
{
	u32 slab;
	u64 orig;
	u64 flags = spin_lock_irqsave(&pool.lock);
	bool ok = find_mapping(addr, size, "sync", &slab, &orig);

	spin_unlock_irqrestore(&pool.lock, flags);
	if (!ok)
		return;
	if (for_cpu)
		copy_out(addr, orig, size);
	else
		copy_in(addr, orig, size);
	__atomic_fetch_add(&pool.stats.bytes_copied, size, __ATOMIC_RELAXED);
}

void swiotlb_sync_for_cpu(u64 addr, u64 size, enum dma_data_direction dir)
{
	if (to_cpu(dir))
		sync(addr, size, true);
}

void swiotlb_sync_for_device(u64 addr, u64 size, enum dma_data_direction dir)
{
	if (to_device(dir))
		sync(addr, size, false);
}

void swiotlb_get_stats(struct swiotlb_stats *out)
{
	u64 flags = spin_lock_irqsave(&pool.lock);

	*out = pool.stats;
	out->slabs = pool.slots.nslabs;         /* the slot allocator keeps these */
	out->used_slabs = pool.slots.used;
	out->peak_slabs = pool.slots.peak;
	spin_unlock_irqrestore(&pool.lock, flags);
}
