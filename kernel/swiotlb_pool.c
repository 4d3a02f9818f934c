// SPDX-License-Identifier: MIT
/*
 * swiotlb_pool.c - the bounce-buffer slot allocator (see swiotlb_pool.h
 * for the picture and the invariants).
 *
 * Allocation tries the areas from the one it is given, in turn. Inside an
 * area it first compares the area's free count with the run, once at a
 * glance without the lock (a full pool refuses without taking one) and
 * again under it (no search when the run cannot fit), then scans from the area's
 * index in steps of the alignment, wrapping once around the area, for a
 * slab whose free count covers the run; it zeroes the run's counts, then
 * renumbers the free slabs just before it in the same segment, which now
 * end at the run. Freeing writes the counts back, continuing those of the
 * free slabs just after the run (within the segment), and renumbers the
 * free slabs before it the same way: runs merge by arithmetic, not by
 * lists.
 */
#include "swiotlb_pool.h"

#define PAGE_SLABS (4096 / SWIOTLB_SLAB_SIZE)   /* slabs per 4 KiB page */

const struct swiotlb_policy_info swiotlb_policies[SWIOTLB_NR_POLICIES] = {
	[SWIOTLB_RC5] = {
		.name = "rc5",
		.history = "2.6.14-rc5 and 2.6.14: Yasunori Goto, \"swiotlb: make sure initial DMA "
			   "allocations really are in DMA memory\" (281dd25cdc0d, 19 Oct 2005): "
			   "every node in pgdat order, below 4 GiB",
		.walk = SWIOTLB_WALK_PGDAT,
		.limit = DMA32_LIMIT,
		.bottom_up = true,
	},
	[SWIOTLB_RC4] = {
		.name = "rc4",
		.history = "2.6.14-rc4 on x86-64 NUMA: the pgdat list highest node first and no limit, "
			   "so the pool above 4 GiB (Ravikiran Thirumalai, \"x86_64: 2.6.14-rc4 swiotlb "
			   "broken\", 17 Oct 2005)",
		.walk = SWIOTLB_WALK_PGDAT,
		.limit = BOOTMEM_NO_LIMIT,
		.bottom_up = true,
	},
	[SWIOTLB_NODE0] = {
		.name = "node0",
		.history = "the patch posted with that report: alloc_bootmem_node(NODE_DATA(0), ...), "
			   "no 4 GiB limit, falling back to every node",
		.walk = SWIOTLB_WALK_NODE0,
		.limit = BOOTMEM_NO_LIMIT,
		.bottom_up = true,
		.goal = 16UL << 20,     /* __pa(MAX_DMA_ADDRESS) */
	},
	[SWIOTLB_LOW] = {
		.name = "low",
		.history = "Linux today: memblock_alloc_low(), any node, top-down below 4 GiB",
		.walk = SWIOTLB_WALK_ANY,
		.limit = DMA32_LIMIT,
	},
	[SWIOTLB_NEAREST] = {
		.name = "nearest",
		.history = "testbed's own: the boot CPU's node, then the others by SLIT distance, "
			   "below 4 GiB",
		.walk = SWIOTLB_WALK_NEAREST,
		.limit = DMA32_LIMIT,
	},
	[SWIOTLB_PERNODE] = {
		.name = "pernode",
		.history = "testbed's own: a pool on every node with room below 4 GiB, each device "
			   "mapping from its node's or the nearest (mainline Linux has no per-node pools "
			   "that we found)",
		.walk = SWIOTLB_WALK_NEAREST,
		.limit = DMA32_LIMIT,
	},
	[SWIOTLB_FORCE] = {
		.name = "force",
		.history = "placed like low, and every mapping bounces, as Linux's swiotlb=force",
		.walk = SWIOTLB_WALK_ANY,
		.limit = DMA32_LIMIT,
		.bounce_all = true,
	},
	[SWIOTLB_OFF] = {
		.name = "off",
		.history = "no pool",
		.walk = SWIOTLB_WALK_NONE,
	},
};

/* Nodes in scan order: boot_node first, then by distance from it, ties by ID. */
static u32 scan_order(u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES], u32 boot_node,
		      u32 order[MAX_NODES])
{
	const u8 *from = distance[boot_node < nr_nodes ? boot_node : 0];
	u32 n = 0;

	if (boot_node < nr_nodes)
		order[n++] = boot_node;
	for (u32 node = 0; node < nr_nodes; node++) {
		if (node == boot_node)
			continue;
		u32 at = n++;           /* insertion sort; strictly farther moves up, so ties keep ID order */
		for (; at > 0 && order[at - 1] != boot_node && from[order[at - 1]] > from[node]; at--)
			order[at] = order[at - 1];
		order[at] = node;
	}
	return n;
}

bool swiotlb_place(struct bootmem *bm, u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES],
		   u32 boot_node, enum swiotlb_policy policy, u64 size, struct swiotlb_placement *out)
{
	const struct swiotlb_policy_info *p = &swiotlb_policies[policy];
	u32 order[MAX_NODES + 1], n = 0;

	*out = (struct swiotlb_placement){ .size = size, .node = -1 };
	switch (p->walk) {
	case SWIOTLB_WALK_NONE:
		out->failed = "no pool (swiotlb=off)";
		return false;
	case SWIOTLB_WALK_NODE0:
		order[n++] = 0;                 /* then alloc_bootmem_node()'s fallback: */
		__attribute__((fallthrough));
	case SWIOTLB_WALK_PGDAT:
		for (u32 node = nr_nodes; node-- > 0;)
			order[n++] = node;
		break;
	case SWIOTLB_WALK_ANY:
		break;
	case SWIOTLB_WALK_NEAREST:
		n = scan_order(nr_nodes, distance, boot_node, order);
		break;
	}
	if (p->walk == SWIOTLB_WALK_ANY) {
		u64 pa = bootmem_alloc(bm, size, 4096, NODE_ANY, p->limit);
		if (pa) {
			out->base = pa;
			out->node = bootmem_node_of(bm, pa);
			return true;
		}
	}
	for (u32 i = 0; i < n; i++) {
		u64 pa = p->bottom_up ?
			bootmem_alloc_bottom_up(bm, size, 4096, (int)order[i], p->goal, p->limit) :
			bootmem_alloc(bm, size, 4096, (int)order[i], p->limit);
		if (pa) {
			out->base = pa;
			out->node = (int)order[i];
			return true;
		}
	}
	if (p->limit == BOOTMEM_NO_LIMIT)
		out->failed = "no node has room";
	else
		out->failed = "no node has room below 4 GiB";
	return false;
}

u32 swiotlb_place_per_node(struct bootmem *bm, u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES],
			   u32 boot_node, u64 size, struct swiotlb_placement out[MAX_NODES])
{
	u32 order[MAX_NODES], n = scan_order(nr_nodes, distance, boot_node, order), placed = 0;

	out[0] = (struct swiotlb_placement){ .size = size, .node = -1,
					     .failed = "no node has room below 4 GiB" };
	for (u32 i = 0; i < n; i++) {
		u64 pa = bootmem_alloc(bm, size, 4096, (int)order[i], DMA32_LIMIT);
		if (pa)
			out[placed++] = (struct swiotlb_placement){ .base = pa, .size = size,
								    .node = (int)order[i] };
	}
	return placed;
}

u32 swiotlb_pool_order(u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES], int node,
		       u32 boot_node, const int pool_node[], u32 npools, u8 order[MAX_NODES])
{
	u32 nodes[MAX_NODES], from = node >= 0 && (u32)node < nr_nodes ? (u32)node : boot_node;
	u32 n = scan_order(nr_nodes, distance, from, nodes), k = 0;

	for (u32 i = 0; i < n; i++)
		for (u32 p = 0; p < npools; p++)
			if (pool_node[p] == (int)nodes[i])
				order[k++] = (u8)p;
	for (u32 p = 0; p < npools && k < npools; p++) {        /* a pool on no listed node: last */
		bool listed = false;
		for (u32 j = 0; j < k; j++)
			listed |= order[j] == p;
		if (!listed)
			order[k++] = (u8)p;
	}
	return k;
}

static u32 segment_end(u32 i)
{
	return (i / SWIOTLB_SEGSIZE + 1) * SWIOTLB_SEGSIZE;
}

static bool segment_start(u32 i)
{
	return i % SWIOTLB_SEGSIZE == 0;
}

u32 swiotlb_nareas(u32 want, u32 nslabs)
{
	u32 n = 1;

	while (n < want && n < SWIOTLB_MAX_AREAS)
		n <<= 1;
	while (n > 1 && nslabs / SWIOTLB_SEGSIZE < n)
		n >>= 1;
	return n;
}

/* The areas come first in the block (their cache lines want its 64-byte alignment), then the arrays. */
u64 swiotlb_slots_array_bytes(u32 nslabs, u32 nareas)
{
	return (u64)nareas * sizeof(struct swiotlb_area) +
	       (u64)nslabs * (sizeof(u64) + 3 * sizeof(u32));
}

u32 swiotlb_slots_init(struct swiotlb_slots *s, u32 nslabs, u32 nareas, void *mem)
{
	nslabs -= nslabs % SWIOTLB_SEGSIZE;
	*s = (struct swiotlb_slots){ .nslabs = nslabs };
	if (!nslabs)
		return 0;
	s->nareas = swiotlb_nareas(nareas, nslabs);
	s->areas = mem;
	s->orig = (u64 *)(s->areas + s->nareas);
	s->free = (u32 *)(s->orig + nslabs);
	s->nslabs_at = s->free + nslabs;
	s->bytes_at = s->nslabs_at + nslabs;
	u32 per_area = nslabs / SWIOTLB_SEGSIZE / s->nareas * SWIOTLB_SEGSIZE;
	for (u32 a = 0; a < s->nareas; a++) {
		struct swiotlb_area *area = &s->areas[a];
		*area = (struct swiotlb_area){ .first = a * per_area, .index = a * per_area };
		area->nslabs = a + 1 < s->nareas ? per_area : nslabs - area->first;  /* the last: the rest */
		spin_lock_init(&area->lock, "swiotlb area");
	}
	for (u32 i = 0; i < nslabs; i++) {
		s->free[i] = segment_end(i) - i;
		s->nslabs_at[i] = 0;
		s->bytes_at[i] = 0;
		s->orig[i] = SWIOTLB_NO_ORIG;
	}
	return nslabs;
}

u32 swiotlb_slots_area_of(const struct swiotlb_slots *s, u32 slab)
{
	u32 per_area = s->areas[0].nslabs;
	u32 a = slab / per_area;

	return a < s->nareas ? a : s->nareas - 1;
}

/* The free slabs just before slab i (same segment) now end at i: renumber them. */
static void renumber_before(struct swiotlb_slots *s, u32 i, u32 count)
{
	while (i > 0 && !segment_start(i) && s->free[i - 1]) {
		i--;
		s->free[i] = ++count;
	}
}

/* A run of n slabs in one area, every stride-th slab a candidate; -1 if none fits. */
static s64 area_alloc(struct swiotlb_slots *s, struct swiotlb_area *a, u32 n, u32 stride,
		      u64 size, u64 orig)
{
	if (a->nslabs - __atomic_load_n(&a->used, __ATOMIC_RELAXED) < n)
		return -1;                      /* full, at a glance: not even the lock */
	u64 flags = spin_lock_irqsave(&a->lock);
	s64 found = -1;

	if (a->nslabs - a->used < n)
		goto out;                       /* not enough free here: no search needed to know */
	u32 start = a->index - a->index % stride - a->first;    /* areas start on a segment */
	for (u32 tried = 0; tried < a->nslabs; tried += stride) {
		u32 i = a->first + (start + tried) % a->nslabs;
		if (s->free[i] < n)
			continue;
		for (u32 j = i; j < i + n; j++)
			s->free[j] = 0;
		renumber_before(s, i, 0);
		s->nslabs_at[i] = n;
		s->bytes_at[i] = (u32)size;
		__atomic_store_n(&s->orig[i], orig, __ATOMIC_RELEASE);   /* last: the mapping is whole */
		__atomic_store_n(&a->used, a->used + n, __ATOMIC_RELAXED);    /* read without the lock */
		if (a->used > a->peak)
			__atomic_store_n(&a->peak, a->used, __ATOMIC_RELAXED);
		a->index = a->first + (i - a->first + n) % a->nslabs;
		found = i;
		break;
	}
out:
	spin_unlock_irqrestore(&a->lock, flags);
	return found;
}

s64 swiotlb_slots_alloc(struct swiotlb_slots *s, u32 start, u64 size, u64 orig)
{
	if (!s->nslabs || size == 0 || size > SWIOTLB_MAX_MAPPING || orig >= SWIOTLB_NO_ORIG)
		return -1;
	u32 n = (u32)((size + SWIOTLB_SLAB_SIZE - 1) >> SWIOTLB_SLAB_SHIFT);
	u32 stride = size >= 4096 ? PAGE_SLABS : 1;
	u32 first = start & (s->nareas - 1);

	for (u32 k = 0; k < s->nareas; k++) {          /* first, first + 1, ... around */
		s64 i = area_alloc(s, &s->areas[(first + k) & (s->nareas - 1)], n, stride, size, orig);
		if (i >= 0)
			return i;
	}
	return -1;
}

bool swiotlb_slots_lookup(const struct swiotlb_slots *s, u32 first, u64 *orig, u32 *bytes)
{
	if (first >= s->nslabs)
		return false;
	u64 o = __atomic_load_n(&s->orig[first], __ATOMIC_ACQUIRE);
	if (o == SWIOTLB_BEING_UNMAPPED || o == SWIOTLB_NO_ORIG ||
	    !__atomic_load_n(&s->nslabs_at[first], __ATOMIC_ACQUIRE))
		return false;
	*orig = o;
	*bytes = __atomic_load_n(&s->bytes_at[first], __ATOMIC_RELAXED);
	return true;
}

bool swiotlb_slots_claim(struct swiotlb_slots *s, u32 first, u64 *orig, u32 *bytes)
{
	if (first >= s->nslabs)
		return false;
	u64 o = __atomic_load_n(&s->orig[first], __ATOMIC_ACQUIRE);
	if (o == SWIOTLB_BEING_UNMAPPED || o == SWIOTLB_NO_ORIG ||
	    !__atomic_load_n(&s->nslabs_at[first], __ATOMIC_ACQUIRE))
		return false;
	/* Of two unmaps racing, the one whose swap lands claims it; the other sees BEING_UNMAPPED. */
	if (!__atomic_compare_exchange_n(&s->orig[first], &o, SWIOTLB_BEING_UNMAPPED, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	*orig = o;
	*bytes = __atomic_load_n(&s->bytes_at[first], __ATOMIC_RELAXED);
	return true;
}

bool swiotlb_slots_free(struct swiotlb_slots *s, u32 first)
{
	if (first >= s->nslabs)
		return false;
	struct swiotlb_area *a = &s->areas[swiotlb_slots_area_of(s, first)];
	u64 flags = spin_lock_irqsave(&a->lock);
	u32 n = s->nslabs_at[first], end = first + n;

	if (!n) {
		spin_unlock_irqrestore(&a->lock, flags);
		return false;
	}
	u32 count = end < segment_end(first) ? s->free[end] : 0;
	for (u32 j = end; j-- > first;)
		s->free[j] = ++count;
	renumber_before(s, first, count);
	__atomic_store_n(&s->nslabs_at[first], 0, __ATOMIC_RELAXED);
	s->bytes_at[first] = 0;
	__atomic_store_n(&s->orig[first], SWIOTLB_NO_ORIG, __ATOMIC_RELEASE);
	__atomic_store_n(&a->used, a->used - n, __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&a->lock, flags);
	return true;
}

u32 swiotlb_slots_used(const struct swiotlb_slots *s)
{
	u32 used = 0;

	for (u32 a = 0; a < s->nareas; a++)
		used += __atomic_load_n(&s->areas[a].used, __ATOMIC_RELAXED);
	return used;
}

u32 swiotlb_slots_peak(const struct swiotlb_slots *s)
{
	u32 peak = 0;

	for (u32 a = 0; a < s->nareas; a++)
		peak += __atomic_load_n(&s->areas[a].peak, __ATOMIC_RELAXED);
	return peak;
}

const char *swiotlb_slots_check(const struct swiotlb_slots *s)
{
	u32 at = 0;

	if (s->nslabs % SWIOTLB_SEGSIZE)
		return "nslabs is not whole segments";
	if (!s->nslabs)
		return NULL;
	if (!s->nareas || (s->nareas & (s->nareas - 1)))
		return "nareas is not a power of two";
	for (u32 a = 0; a < s->nareas; a++) {
		const struct swiotlb_area *area = &s->areas[a];
		u32 used = 0;
		if (area->first != at || !area->nslabs || area->nslabs % SWIOTLB_SEGSIZE)
			return "the areas are not whole segments in order";
		at += area->nslabs;
		if (area->index < area->first || area->index >= at)
			return "an area's index lies outside it";
		for (u32 i = area->first; i < at;) {
			if (s->nslabs_at[i]) {  /* a mapping: all its slabs used, inside a segment */
				u32 n = s->nslabs_at[i];
				if (i + n > segment_end(i))
					return "a mapping crosses a segment boundary";
				if (!s->bytes_at[i] || s->bytes_at[i] > n * SWIOTLB_SLAB_SIZE ||
				    s->bytes_at[i] <= (n - 1) * SWIOTLB_SLAB_SIZE)
					return "a mapping's bytes do not fit its slabs";
				if (s->orig[i] == SWIOTLB_NO_ORIG)
					return "a mapping has no original buffer";
				for (u32 j = i; j < i + n; j++) {
					if (s->free[j])
						return "a slab of a mapping is counted free";
					if (j > i && (s->nslabs_at[j] || s->orig[j] != SWIOTLB_NO_ORIG))
						return "a mapping starts inside another";
				}
				used += n;
				i += n;
				continue;
			}
			if (!s->free[i])
				return "a used slab belongs to no mapping";
			if (s->orig[i] != SWIOTLB_NO_ORIG)
				return "a free slab has an original buffer";
			u32 expect = (i + 1 == segment_end(i) || !s->free[i + 1]) ? 1 : s->free[i + 1] + 1;
			if (s->free[i] != expect)
				return "a free count is wrong";
			i++;
		}
		if (used != area->used)
			return "an area's used does not match its mappings";
		if (area->peak < area->used)
			return "an area's peak is below its used";
	}
	if (at != s->nslabs)
		return "the areas do not cover the pool";
	return NULL;
}
