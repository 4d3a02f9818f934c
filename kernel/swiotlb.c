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
#include "sched.h"
#include "spinlock.h"
#include "time.h"
#include "vm.h"

static int policy_arg = SWIOTLB_RC5;
PARAM_ENUM("swiotlb", policy_arg, swiotlb_policies);
static u64 pool_bytes = 64UL << 20;
PARAM_SIZE("swiotlb.size", pool_bytes, SWIOTLB_MAX_MAPPING, 1UL << 30);
static int copyin_off;
PARAM_CHOICE("swiotlb.copyin", copyin_off, "on", "off");

#define BEING_UNMAPPED (~0ULL)  /* orig[] of a mapping whose unmap is copying out */

static struct {
	struct spinlock lock;
	bool ready;
	struct swiotlb_placement where;
	u8 *va;                         /* the pool through the direct map */
	struct swiotlb_slots slots;
	struct swiotlb_stats stats;
	u64 room;                       /* counts unmaps: a waiter for room watches it */
	struct waitqueue room_wq;
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

/* The pool's size: swiotlb.size, in whole segments (256 KiB), never past 1 GiB. */
u64 swiotlb_size(void)
{
	return ALIGN_DOWN(pool_bytes, (u64)SWIOTLB_MAX_MAPPING);
}

bool swiotlb_copyin(void)
{
	return !copyin_off;
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
	waitqueue_init(&pool.room_wq);
	if (pool_bytes % SWIOTLB_MAX_MAPPING)
		pr_warn("swiotlb: swiotlb.size=%llu is not whole segments of %u bytes; %llu used\n",
			pool_bytes, SWIOTLB_MAX_MAPPING, swiotlb_size());
	if (!swiotlb_place(&bootmem, numa.nr_nodes, numa.distance, numa.cpu_node[0],
			   policy_arg, swiotlb_size(), w)) {
		printk("swiotlb: policy=%s failed: %s\n", name, w->failed);
		if (policy->walk != SWIOTLB_WALK_NONE)
			pr_warn("swiotlb: no bounce buffers: DMA for devices that cannot reach a "
				"buffer will be refused\n");
		return;
	}
	u32 nslabs = (u32)(w->size / SWIOTLB_SLAB_SIZE);
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
	if (w->size % (1UL << 20))
		printk("swiotlb: policy=%s base=0x%llx end=0x%llx size=%lluK node=%d\n", name,
		       w->base, w->base + w->size, w->size >> 10, w->node);
	else
		printk("swiotlb: policy=%s base=0x%llx end=0x%llx size=%lluM node=%d\n", name,
		       w->base, w->base + w->size, w->size >> 20, w->node);
	if (w->base + w->size > DMA32_LIMIT)
		pr_warn("swiotlb: the pool lies above 4 GiB, where 32-bit devices cannot reach it: "
			"the bug of 2.6.14-rc4 (no address limit on the allocation)\n");
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

#define WARN_INTERVAL_NS (1000UL * 1000 * 1000)        /* at most one "full" warning a second */

/* Say why a mapping was refused (full, or too large), at most once a second. */
static void refused(u64 size, bool full)
{
	static u64 last;
	u64 now = ktime_ns();

	if (last && now - last < WARN_INTERVAL_NS)
		return;
	last = now;
	if (full)
		pr_err("swiotlb buffer is full (sz: %llu bytes), total %u slots, used %u\n", size,
		       pool.slots.nslabs, pool.slots.used);
	else
		pr_err("swiotlb: a mapping of %llu bytes is larger than a bounce buffer can be "
		       "(%u bytes)\n", size, SWIOTLB_MAX_MAPPING);
}

u64 swiotlb_map(u64 orig, u64 size, enum dma_data_direction dir)
{
	bool full;

	return swiotlb_map_why(orig, size, dir, &full);
}

u64 swiotlb_map_why(u64 orig, u64 size, enum dma_data_direction dir, bool *full)
{
	*full = false;
	if (!pool.ready)
		return SWIOTLB_NO_MAPPING;
	if (!size || size > SWIOTLB_MAX_MAPPING) {
		__atomic_fetch_add(&pool.stats.too_large, 1, __ATOMIC_RELAXED);
		refused(size, false);
		return SWIOTLB_NO_MAPPING;
	}
	u64 flags = spin_lock_irqsave(&pool.lock);
	s64 slab = swiotlb_slots_alloc(&pool.slots, size, orig);
	if (slab < 0)
		pool.stats.full++;
	else
		pool.stats.maps++;
	spin_unlock_irqrestore(&pool.lock, flags);
	if (slab < 0) {
		*full = true;
		refused(size, true);
		return SWIOTLB_NO_MAPPING;
	}
	u64 addr = pool.where.base + (u64)slab * SWIOTLB_SLAB_SIZE;
	/*
	 * Copy the buffer in for every direction, FROM_DEVICE too: if the device
	 * writes less than size, unmap copies back what it did not write, and
	 * that must be the caller's own bytes, not what the slot held before
	 * (another mapping's data: CVE-2022-0854). swiotlb.copyin=off replays
	 * 2.6.14, which copied in for TO_DEVICE and BIDIRECTIONAL only.
	 */
	if (to_device(dir) || !copyin_off) {
		copy_in(addr, orig, size);
		__atomic_fetch_add(&pool.stats.bytes_copied, size, __ATOMIC_RELAXED);
	}
	return addr;
}

/*
 * The mapping at addr, pool.lock held: its first slab, original and bytes,
 * or false. Bounded by the real slab count: an address in the pool's tail
 * beyond its last whole segment is no mapping.
 */
static bool find_mapping(u64 addr, u32 *slab, u64 *orig, u64 *bytes)
{
	u64 off = addr - pool.where.base;

	if (!is_swiotlb_buffer(addr) || off % SWIOTLB_SLAB_SIZE)
		return false;
	*slab = (u32)(off / SWIOTLB_SLAB_SIZE);
	if (*slab >= pool.slots.nslabs || !pool.slots.nslabs_at[*slab] ||
	    pool.slots.orig[*slab] == BEING_UNMAPPED)
		return false;
	*orig = pool.slots.orig[*slab];
	*bytes = pool.slots.bytes_at[*slab];
	return true;
}

/* Never copy more than was mapped (Linux's alloc_size check). */
static u64 clamp_size(u64 addr, u64 size, u64 bytes, const char *what)
{
	if (size <= bytes)
		return size;
	__atomic_fetch_add(&pool.stats.overflows, 1, __ATOMIC_RELAXED);
	pr_err("swiotlb: %s of 0x%llx: buffer overflow detected: %llu bytes mapped, %llu asked; "
	       "only %llu copied\n", what, addr, bytes, size, bytes);
	return bytes;
}

bool swiotlb_unmap(u64 addr, u64 size, enum dma_data_direction dir)
{
	u32 slab;
	u64 orig, bytes;
	u64 flags = spin_lock_irqsave(&pool.lock);

	if (!find_mapping(addr, &slab, &orig, &bytes)) {
		pool.stats.bad_unmaps++;
		spin_unlock_irqrestore(&pool.lock, flags);
		pr_err("swiotlb: unmap of 0x%llx (%llu bytes), which is no mapping; refused\n",
		       addr, size);
		return false;
	}
	/* Claimed under the lock: a second unmap of it now finds no mapping. */
	pool.slots.orig[slab] = BEING_UNMAPPED;
	spin_unlock_irqrestore(&pool.lock, flags);
	size = clamp_size(addr, size, bytes, "unmap");
	if (to_cpu(dir)) {
		copy_out(addr, orig, size);
		__atomic_fetch_add(&pool.stats.bytes_copied, size, __ATOMIC_RELAXED);
	}
	flags = spin_lock_irqsave(&pool.lock);
	swiotlb_slots_free(&pool.slots, slab);
	pool.stats.unmaps++;
	pool.room++;
	spin_unlock_irqrestore(&pool.lock, flags);
	wake_up_all(&pool.room_wq);
	return true;
}

static bool sync(u64 addr, u64 size, bool for_cpu)
{
	u32 slab;
	u64 orig, bytes;
	u64 flags = spin_lock_irqsave(&pool.lock);
	bool ok = find_mapping(addr, &slab, &orig, &bytes);

	spin_unlock_irqrestore(&pool.lock, flags);
	if (!ok) {
		pr_err("swiotlb: sync of 0x%llx (%llu bytes), which is no mapping; refused\n",
		       addr, size);
		return false;
	}
	size = clamp_size(addr, size, bytes, "sync");
	if (for_cpu)
		copy_out(addr, orig, size);
	else
		copy_in(addr, orig, size);
	__atomic_fetch_add(&pool.stats.bytes_copied, size, __ATOMIC_RELAXED);
	return true;
}

bool swiotlb_sync_for_cpu(u64 addr, u64 size, enum dma_data_direction dir)
{
	return !to_cpu(dir) || sync(addr, size, true);
}

bool swiotlb_sync_for_device(u64 addr, u64 size, enum dma_data_direction dir)
{
	return !to_device(dir) || sync(addr, size, false);
}

static bool room_changed(void *arg)
{
	return __atomic_load_n(&pool.room, __ATOMIC_ACQUIRE) != *(u64 *)arg;
}

bool swiotlb_wait_for_room(u64 since, u64 timeout_ns)
{
	return wait_event_timeout(&pool.room_wq, room_changed, &since, timeout_ns);
}

u64 swiotlb_room(void)
{
	return __atomic_load_n(&pool.room, __ATOMIC_ACQUIRE);
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
