// SPDX-License-Identifier: MIT
/*
 * swiotlb.c - the bounce-buffer pool at run time (see swiotlb.h).
 *
 * A pool is one physically contiguous block from the boot allocator, used
 * through the direct map; its slot arrays and areas come from the boot
 * allocator too. Every policy places one pool but pernode, which places one
 * on every node with room below 4 GiB.
 *
 * Locks and cache lines. The slot allocator (swiotlb_pool.c) splits each
 * pool into areas with a lock each (Linux 6.0); a CPU maps from area
 * cpu & (nareas - 1) first. A map takes one area lock (more only when its
 * area is full), an unmap one: its lookup takes none, since a mapping
 * belongs to its mapper until unmapped, and a compare-and-swap claims it
 * so that two racing unmaps cannot both free it. The copies run outside
 * every lock. What is read on every map, unmap and sync (ready, the pools'
 * places, the slot arrays' addresses) is written once at boot and sits in
 * its own cache lines (struct swiotlb_mem); the counters are per CPU, each
 * on its own line, added up when read; the areas have a line each.
 *
 * Invariants:
 *   - a mapping's address is its pool's base plus its first slab times
 *     SWIOTLB_SLAB_SIZE; the slot allocator keeps its length and original;
 *   - with policy off, or after a failed placement, there is no pool and
 *     every swiotlb_map() fails.
 */
#include "swiotlb.h"
#include "cmdline.h"
#include "kstring.h"
#include "mm.h"
#include "numa.h"
#include "percpu.h"
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
static u64 areas_arg;                   /* 0: one per CPU, rounded up to a power of two */
PARAM_U64("swiotlb.areas", areas_arg, 0, SWIOTLB_MAX_AREAS);

struct pool {
	struct swiotlb_placement where;
	u8 *va;                         /* the pool through the direct map */
	struct swiotlb_slots slots;     /* its arrays and areas (the areas are written, not this) */
};

/* Written at boot, read on every mapping: nothing in here changes afterwards. */
static struct swiotlb_mem {
	bool ready;
	u32 npools;
	u64 lo, hi;                     /* every pool lies within [lo, hi) */
	struct pool pools[MAX_NODES];   /* pools[0]: the one swiotlb_pool_range() names */
	u8 order[MAX_NODES][MAX_NODES]; /* per node: the pools it tries, nearest first */
} mem __attribute__((aligned(64)));

/* Each CPU's counters, on a cache line of its own: summed by swiotlb_get_stats(). */
struct cpu_stats {
	u64 maps, unmaps, bytes_copied, full, too_large, bad_unmaps, overflows;
} __attribute__((aligned(64)));
static struct cpu_stats cpu_stats[MAX_CPUS];

/* Mappers waiting for room (rare: a full pool); an unmap wakes them only if there are any. */
static struct {
	u32 waiters;
	struct waitqueue wq;
} room __attribute__((aligned(64)));

static struct bootmem before_pool;      /* the boot allocator as the pool found it */

/* Into some CPU's counters, atomically: which CPU does not matter if the thread moves. */
#define COUNT(field, n) __atomic_fetch_add(&cpu_stats[raw_smp_processor_id()].field, (n), __ATOMIC_RELAXED)

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
	return mem.ready && swiotlb_policies[policy_arg].bounce_all;
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

/* The number of areas: swiotlb.areas=, or the CPUs; said when it is not what was asked. */
static u32 nareas_wanted(void)
{
	u32 want = areas_arg ? (u32)areas_arg : MAX(numa.ncpus, 1u);   /* nr_cpus is set later, by smp.c */

	if (areas_arg && (areas_arg & (areas_arg - 1)))
		pr_warn("swiotlb: swiotlb.areas=%llu is not a power of two; %u used\n", areas_arg,
			swiotlb_nareas(want, ~0U));
	return want;
}

/* Set pool p up over the block where says: its slot arrays, its areas. False if no memory. */
static bool pool_setup(struct pool *p, const struct swiotlb_placement *where, u32 nareas)
{
	u32 nslabs = (u32)(where->size / SWIOTLB_SLAB_SIZE);
	u32 fit = swiotlb_nareas(nareas, nslabs);
	/*
	 * From the top of the highest node, wherever the pool is. On the
	 * pool's node would spare a remote access on every map and unmap on
	 * NUMA hardware; under QEMU both placements tried cost the boot or the
	 * storms host faults (docs/boot.md), so not yet.
	 */
	u64 arrays = bootmem_alloc(&bootmem, swiotlb_slots_array_bytes(nslabs, fit), 64, NODE_ANY,
				   BOOTMEM_NO_LIMIT);

	if (!arrays)
		return false;
	if (areas_arg && fit < swiotlb_nareas(nareas, ~0U))
		pr_warn("swiotlb: swiotlb.areas=%llu: a pool of %u segments has room for %u areas of a "
			"whole segment; %u used\n", areas_arg, nslabs / SWIOTLB_SEGSIZE, fit, fit);
	p->where = *where;
	p->va = phys_to_virt(where->base);
	swiotlb_slots_init(&p->slots, nslabs, fit, phys_to_virt(arrays));
	return true;
}

static void print_pool(const char *name, const struct pool *p)
{
	const struct swiotlb_placement *w = &p->where;

	if (w->size % (1UL << 20))
		printk("swiotlb: policy=%s base=0x%llx end=0x%llx size=%lluK node=%d\n", name,
		       w->base, w->base + w->size, w->size >> 10, w->node);
	else
		printk("swiotlb: policy=%s base=0x%llx end=0x%llx size=%lluM node=%d\n", name,
		       w->base, w->base + w->size, w->size >> 20, w->node);
}

void swiotlb_init(void)
{
	const struct swiotlb_policy_info *policy = &swiotlb_policies[policy_arg];
	const char *name = policy->name;
	struct swiotlb_placement where[MAX_NODES];
	u32 placed, nareas;
	int pool_node[MAX_NODES];

	before_pool = bootmem;
	waitqueue_init(&room.wq);
	if (pool_bytes % SWIOTLB_MAX_MAPPING)
		pr_warn("swiotlb: swiotlb.size=%llu is not whole segments of %u bytes; %llu used\n",
			pool_bytes, SWIOTLB_MAX_MAPPING, swiotlb_size());
	if (policy_arg == SWIOTLB_PERNODE)
		placed = swiotlb_place_per_node(&bootmem, numa.nr_nodes, numa.distance,
						numa.cpu_node[0], swiotlb_size(), where);
	else
		placed = swiotlb_place(&bootmem, numa.nr_nodes, numa.distance, numa.cpu_node[0],
				       policy_arg, swiotlb_size(), &where[0]);
	if (!placed) {
		printk("swiotlb: policy=%s failed: %s\n", name, where[0].failed);
		if (policy->walk != SWIOTLB_WALK_NONE)
			pr_warn("swiotlb: no bounce buffers: DMA for devices that cannot reach a "
				"buffer will be refused\n");
		return;
	}
	nareas = nareas_wanted();
	for (u32 i = 0; i < placed; i++) {
		struct pool *p = &mem.pools[mem.npools];
		if (!pool_setup(p, &where[i], nareas)) {
			bootmem_free(&bootmem, where[i].base, where[i].size);
			printk("swiotlb: policy=%s failed: no memory for the slot arrays\n", name);
			continue;
		}
		pool_node[mem.npools++] = where[i].node;
		print_pool(name, p);
		if (p->where.base + p->where.size > DMA32_LIMIT)
			pr_warn("swiotlb: the pool lies above 4 GiB, where 32-bit devices cannot reach it: "
				"the bug of 2.6.14-rc4 (no address limit on the allocation)\n");
	}
	if (!mem.npools)
		return;
	mem.lo = ~0ULL;
	for (u32 i = 0; i < mem.npools; i++) {
		mem.lo = MIN(mem.lo, mem.pools[i].where.base);
		mem.hi = MAX(mem.hi, mem.pools[i].where.base + mem.pools[i].where.size);
	}
	for (u32 node = 0; node < MAX_NODES; node++)
		swiotlb_pool_order(numa.nr_nodes, numa.distance, (int)node, numa.cpu_node[0], pool_node,
				   mem.npools, mem.order[node]);
	__atomic_store_n(&mem.ready, true, __ATOMIC_RELEASE);
}

bool swiotlb_pool_range(u64 *base, u64 *end, int *node)
{
	if (!mem.ready)
		return false;
	*base = mem.pools[0].where.base;
	*end = mem.pools[0].where.base + mem.pools[0].where.size;
	*node = mem.pools[0].where.node;
	return true;
}

u32 swiotlb_pools(void)
{
	return mem.ready ? mem.npools : 0;
}

bool swiotlb_pool_info(u32 i, struct swiotlb_pool_info *out)
{
	if (!mem.ready || i >= mem.npools)
		return false;
	const struct pool *p = &mem.pools[i];
	*out = (struct swiotlb_pool_info){
		.base = p->where.base, .end = p->where.base + p->where.size, .node = p->where.node,
		.nareas = p->slots.nareas, .slabs = p->slots.nslabs,
		.used_slabs = swiotlb_slots_used(&p->slots),
	};
	return true;
}

bool swiotlb_reachable(u64 mask)
{
	for (u32 i = 0; mem.ready && i < mem.npools; i++)
		if (mem.pools[i].where.base + mem.pools[i].where.size - 1 <= mask)
			return true;
	return false;
}

/* The pool addr lies in, or NULL. */
static struct pool *pool_of(u64 addr)
{
	if (addr < mem.lo || addr >= mem.hi)
		return NULL;
	for (u32 i = 0; i < mem.npools; i++)
		if (addr >= mem.pools[i].where.base &&
		    addr < mem.pools[i].where.base + mem.pools[i].where.size)
			return &mem.pools[i];
	return NULL;
}

bool is_swiotlb_buffer(u64 addr)
{
	return pool_of(addr) != NULL;
}

int swiotlb_area_of(u64 addr)
{
	struct pool *p = pool_of(addr);

	return p ? (int)swiotlb_slots_area_of(&p->slots,
					      (u32)((addr - p->where.base) / SWIOTLB_SLAB_SIZE)) : -1;
}

static void copy_in(struct pool *p, u64 slot_addr, u64 orig, u64 size)
{
	memcpy(p->va + (slot_addr - p->where.base), phys_to_virt(orig), size);
}

static void copy_out(struct pool *p, u64 slot_addr, u64 orig, u64 size)
{
	memcpy(phys_to_virt(orig), p->va + (slot_addr - p->where.base), size);
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
	if (full) {
		struct swiotlb_stats st;
		swiotlb_get_stats(&st);
		pr_err("swiotlb buffer is full (sz: %llu bytes), total %u slots, used %u\n", size,
		       st.slabs, st.used_slabs);
	} else
		pr_err("swiotlb: a mapping of %llu bytes is larger than a bounce buffer can be "
		       "(%u bytes)\n", size, SWIOTLB_MAX_MAPPING);
}

u64 swiotlb_map(u64 orig, u64 size, enum dma_data_direction dir)
{
	bool full;

	return swiotlb_map_for(orig, size, dir, NODE_ANY, ~0ULL, &full);
}

u64 swiotlb_map_for(u64 orig, u64 size, enum dma_data_direction dir, int node, u64 mask,
		    bool *full)
{
	*full = false;
	if (!__atomic_load_n(&mem.ready, __ATOMIC_ACQUIRE))
		return SWIOTLB_NO_MAPPING;
	if (!size || size > SWIOTLB_MAX_MAPPING) {
		COUNT(too_large, 1);
		refused(size, false);
		return SWIOTLB_NO_MAPPING;
	}
	/*
	 * The CPU picks the nearest pool and the area to try first; any area
	 * serves, under its own lock, so a thread that moves meanwhile only
	 * starts elsewhere (Linux's swiotlb picks its first area so, with
	 * raw_smp_processor_id()).
	 */
	u32 cpu = raw_smp_processor_id();
	const u8 *order = mem.order[node >= 0 && node < MAX_NODES ? (u32)node : numa.cpu_node[cpu]];
	struct pool *p = NULL;
	s64 slab = -1;
	for (u32 i = 0; i < mem.npools && slab < 0; i++) {
		p = &mem.pools[order[i]];
		if (p->where.base + p->where.size - 1 <= mask)
			slab = swiotlb_slots_alloc(&p->slots, cpu, size, orig);
	}
	if (slab < 0) {
		COUNT(full, 1);
		*full = true;
		refused(size, true);
		return SWIOTLB_NO_MAPPING;
	}
	COUNT(maps, 1);
	u64 addr = p->where.base + (u64)slab * SWIOTLB_SLAB_SIZE;
	/*
	 * Copy the buffer in for every direction, FROM_DEVICE too: if the device
	 * writes less than size, unmap copies back what it did not write, and
	 * that must be the caller's own bytes, not what the slot held before
	 * (another mapping's data: CVE-2022-0854). swiotlb.copyin=off replays
	 * 2.6.14, which copied in for TO_DEVICE and BIDIRECTIONAL only.
	 */
	if (to_device(dir) || !copyin_off) {
		copy_in(p, addr, orig, size);
		COUNT(bytes_copied, size);
	}
	return addr;
}

/*
 * The mapping at addr, without a lock: its pool, first slab, original and
 * bytes, or NULL. claim: take it for an unmap (a racing second unmap then
 * finds none). Bounded by the real slab count: an address in a pool's
 * tail beyond its last whole segment is no mapping.
 */
static struct pool *find_mapping(u64 addr, bool claim, u32 *slab, u64 *orig, u64 *bytes)
{
	struct pool *p = pool_of(addr);
	u32 b;

	if (!p || (addr - p->where.base) % SWIOTLB_SLAB_SIZE)
		return NULL;
	*slab = (u32)((addr - p->where.base) / SWIOTLB_SLAB_SIZE);
	struct swiotlb_slots *s = &p->slots;
	if (!(claim ? swiotlb_slots_claim(s, *slab, orig, &b) : swiotlb_slots_lookup(s, *slab, orig, &b)))
		return NULL;
	*bytes = b;
	return p;
}

/* Never copy more than was mapped (Linux's alloc_size check). */
static u64 clamp_size(u64 addr, u64 size, u64 bytes, const char *what)
{
	if (size <= bytes)
		return size;
	COUNT(overflows, 1);
	pr_err("swiotlb: %s of 0x%llx: buffer overflow detected: %llu bytes mapped, %llu asked; "
	       "only %llu copied\n", what, addr, bytes, size, bytes);
	return bytes;
}

bool swiotlb_unmap(u64 addr, u64 size, enum dma_data_direction dir)
{
	u32 slab;
	u64 orig, bytes;
	struct pool *p = find_mapping(addr, true, &slab, &orig, &bytes);

	if (!p) {
		COUNT(bad_unmaps, 1);
		pr_err("swiotlb: unmap of 0x%llx (%llu bytes), which is no mapping; refused\n",
		       addr, size);
		return false;
	}
	size = clamp_size(addr, size, bytes, "unmap");
	if (to_cpu(dir)) {
		copy_out(p, addr, orig, size);
		COUNT(bytes_copied, size);
	}
	swiotlb_slots_free(&p->slots, slab);      /* the one lock taken */
	COUNT(unmaps, 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);        /* the count before the look at waiters */
	if (__atomic_load_n(&room.waiters, __ATOMIC_RELAXED))
		wake_up_all(&room.wq);
	return true;
}

static bool sync(u64 addr, u64 size, bool for_cpu)
{
	u32 slab;
	u64 orig, bytes;
	struct pool *p = find_mapping(addr, false, &slab, &orig, &bytes);

	if (!p) {
		pr_err("swiotlb: sync of 0x%llx (%llu bytes), which is no mapping; refused\n",
		       addr, size);
		return false;
	}
	size = clamp_size(addr, size, bytes, "sync");
	if (for_cpu)
		copy_out(p, addr, orig, size);
	else
		copy_in(p, addr, orig, size);
	COUNT(bytes_copied, size);
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

u64 swiotlb_room(void)
{
	u64 unmaps = 0;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		unmaps += __atomic_load_n(&cpu_stats[cpu].unmaps, __ATOMIC_ACQUIRE);
	return unmaps;
}

static bool room_changed(void *arg)
{
	return swiotlb_room() != *(u64 *)arg;
}

bool swiotlb_wait_for_room(u64 since, u64 timeout_ns)
{
	__atomic_fetch_add(&room.waiters, 1, __ATOMIC_SEQ_CST);        /* before the first look */
	bool ok = wait_event_timeout(&room.wq, room_changed, &since, timeout_ns);
	__atomic_fetch_sub(&room.waiters, 1, __ATOMIC_RELAXED);
	return ok;
}

void swiotlb_get_stats(struct swiotlb_stats *out)
{
	*out = (struct swiotlb_stats){ 0 };
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		const struct cpu_stats *c = &cpu_stats[cpu];
		out->maps += __atomic_load_n(&c->maps, __ATOMIC_RELAXED);
		out->unmaps += __atomic_load_n(&c->unmaps, __ATOMIC_RELAXED);
		out->bytes_copied += __atomic_load_n(&c->bytes_copied, __ATOMIC_RELAXED);
		out->full += __atomic_load_n(&c->full, __ATOMIC_RELAXED);
		out->too_large += __atomic_load_n(&c->too_large, __ATOMIC_RELAXED);
		out->bad_unmaps += __atomic_load_n(&c->bad_unmaps, __ATOMIC_RELAXED);
		out->overflows += __atomic_load_n(&c->overflows, __ATOMIC_RELAXED);
	}
	for (u32 i = 0; mem.ready && i < mem.npools; i++) {
		const struct swiotlb_slots *s = &mem.pools[i].slots;
		out->slabs += s->nslabs;        /* the slot allocator keeps these */
		out->used_slabs += swiotlb_slots_used(s);
		out->peak_slabs += swiotlb_slots_peak(s);
	}
}
