/* SPDX-License-Identifier: MIT */
/*
 * swiotlb_pool.h - the bounce-buffer pool's pure logic, shared by the
 * kernel (kernel/swiotlb.c) and the host tests: where the pool lands (the
 * policies of the 2005 story), and its slot allocator, as Linux's swiotlb
 * has it.
 *
 * Placement (swiotlb_place), on a struct bootmem, before the page
 * allocator takes over. Each policy (swiotlb=, enum swiotlb_policy) is a
 * row of swiotlb_policies[]: an order in which to try the nodes, an
 * address limit, which end of a node to take first (2.6's bootmem scanned
 * bottom-up, memblock allocates top-down), and whether every mapping
 * bounces. The first node with room below the limit gets the pool:
 *
 *   rc5      2.6.14 as released (Yasunori Goto's fix, 2.6.14-rc5): the
 *            nodes in pgdat order, which was the highest first, each below
 *            4 GiB, bottom-up
 *   rc4      2.6.14-rc4: the same walk with no address limit: above 4 GiB
 *            on a NUMA box whose highest node is all high memory
 *   node0    the patch posted with the report: node 0 from 16 MiB up, no
 *            limit, then every node as rc4 (its fallback): above 4 GiB
 *            again when node 0 has no memory
 *   low      Linux today (memblock_alloc_low): any node, the highest block
 *            below 4 GiB
 *   nearest  testbed's own: the boot CPU's node, then the others by SLIT
 *            distance (ties: lower ID), each below 4 GiB, top-down
 *   pernode  testbed's own (mainline Linux has no per-node bounce pools that
 *            we found): a pool on every node with room below 4 GiB
 *            (swiotlb_place_per_node),
 *            the first where nearest puts its one; a device maps from the
 *            pool of its own node, else the nearest by SLIT distance, and
 *            moves on to the next nearest when that one is full
 *   force    placed like low, and every mapping bounces (kernel/swiotlb.c)
 *   off      no pool
 *
 * Slots.
 * The pool is cut into slabs of SWIOTLB_SLAB_SIZE (2 KiB) bytes, grouped in
 * segments of SWIOTLB_SEGSIZE (128) slabs. A mapping takes a run of
 * consecutive slabs that never crosses a segment boundary, so the largest
 * mapping is one segment (256 KiB).
 *
 * The picture, one segment of 8 slabs for short (the real one has 128):
 *
 *   slab:     0  1  2  3  4  5  6  7
 *   free[]:   2  1  0  0  0  4  3  2 ... 1     (after taking slabs 2-4)
 *
 * free[i] is the number of free slabs from i to the first used slab or the
 * end of i's segment, whichever comes first; 0 means slab i is in use. So a
 * run of n slabs fits at i exactly when free[i] >= n, and the allocator
 * never has to look past one entry to decide.
 *
 * Areas (Linux 6.0: Tianyu Lan, "swiotlb: split up the global swiotlb
 * lock", 20347fca71a3). The slabs are split into nareas areas (a power of
 * two) of whole segments, each with its own lock, search index and count
 * of slabs in use, on a cache line of its own. A mapping is looked for in
 * one area first (the kernel passes the CPU number: area cpu & (nareas - 1))
 * and in the next one when that is full, wrapping around, until every area
 * was tried. An area whose free count cannot hold the mapping is passed
 * over without a search, and without its lock when the count, read at a
 * glance, already says so (a full pool refuses without taking a lock). Since mappings never cross a segment, they never
 * cross an area either: freeing takes the one lock of the mapping's area.
 *
 *   area:   |  0: slabs 0..A-1 | 1: A..2A-1 | ... | nareas-1: the rest |
 *   CPU c starts in area c & (nareas - 1), then +1, +2, ... (mod nareas)
 *
 * The lookups (the original address and size of the mapping at a slab)
 * take no lock: a mapping belongs to whoever mapped it until it is
 * unmapped, and its entries do not change meanwhile. An unmap first claims
 * the mapping by swapping its orig[] for SWIOTLB_BEING_UNMAPPED (one
 * compare-and-swap), so of two unmaps of one mapping racing, one wins.
 *
 * orig[] is also what says whether a mapping starts at a slab, for the
 * lookups: a map writes the length and bytes first and publishes the
 * mapping last, by storing its orig (release); a free clears the length
 * and bytes, then stores SWIOTLB_NO_ORIG. Neither mark is an address
 * (physical addresses end at 2^52), so a buffer at physical address 0 is
 * a mapping like any other, and a lookup racing a map of the same slab
 * sees no mapping until it is whole (with 0 for "free", a stale unmap
 * there once claimed it and copied to physical address 0).
 *
 * Invariants (checked by swiotlb_slots_check(), which the tests call after
 * every step):
 *   - free[i] == 0 for a used slab, and for a free one the count above;
 *   - nslabs_at[i] is non-zero exactly at the first slab of each mapping,
 *     where it keeps the mapping's length in slabs, bytes_at[i] the bytes
 *     mapped (what unmap and sync may copy, never more: Linux's
 *     alloc_size), and orig[i] the original buffer's address (or
 *     SWIOTLB_BEING_UNMAPPED once claimed); every other slab's orig[] is
 *     SWIOTLB_NO_ORIG;
 *   - each area's used equals the used slabs inside it, and its peak >=
 *     used; its index lies inside it;
 *   - the areas are whole segments, in order, covering the pool.
 *
 * Thread-safe: every change happens under the lock of the area it touches
 * (a spinlock taken with interrupts off); swiotlb_slots_check() wants no
 * one else at work.
 */
#ifndef SWIOTLB_POOL_H
#define SWIOTLB_POOL_H

#include "bootmem.h"
#include "param.h"
#include "spinlock.h"
#include "types.h"

/* The policies, in the order swiotlb= lists them (rc5, the default, first). */
enum swiotlb_policy {
	SWIOTLB_RC5,
	SWIOTLB_RC4,
	SWIOTLB_NODE0,
	SWIOTLB_LOW,
	SWIOTLB_NEAREST,
	SWIOTLB_PERNODE,
	SWIOTLB_FORCE,
	SWIOTLB_OFF,
	SWIOTLB_NR_POLICIES,
};

/* The order in which a policy tries the nodes. */
enum swiotlb_walk {
	SWIOTLB_WALK_PGDAT,     /* 2.6.14's pgdat list: the highest node ID first, down to node 0 */
	SWIOTLB_WALK_NODE0,     /* node 0, then the pgdat list (alloc_bootmem_node's fallback) */
	SWIOTLB_WALK_ANY,       /* no node order: the whole of memory at once */
	SWIOTLB_WALK_NEAREST,   /* the boot CPU's node, then by SLIT distance, ties by ID */
	SWIOTLB_WALK_NONE,      /* no node: no pool */
};

struct swiotlb_policy_info {
	const char *name;       /* first: swiotlb= (a PARAM_ENUM) reads it */
	const char *history;    /* which kernel or patch it replays */
	enum swiotlb_walk walk;
	u64 limit;              /* the pool ends at or below this: DMA32_LIMIT or BOOTMEM_NO_LIMIT */
	bool bottom_up;         /* the lowest fitting block of a node, as 2.6's bootmem */
	u64 goal;               /* bottom-up: try from this address first (alloc_bootmem_node: 16 MiB) */
	bool bounce_all;        /* every mapping bounces, reachable or not */
};

extern const struct swiotlb_policy_info swiotlb_policies[SWIOTLB_NR_POLICIES];

struct swiotlb_placement {
	u64 base, size;         /* the pool, [base, base + size) */
	int node;               /* the node it came from */
	const char *failed;     /* NULL on success, else why, as the fact line prints it */
};

/*
 * Place a pool of size bytes by policy, taking it from bm; nr_nodes and
 * distance describe the nodes, boot_node is where the boot CPU sits.
 * Returns true with *out filled, or false with out->failed saying why.
 */
bool swiotlb_place(struct bootmem *bm, u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES],
		   u32 boot_node, enum swiotlb_policy policy, u64 size, struct swiotlb_placement *out);

/*
 * pernode: a pool of size bytes on every node that has room below 4 GiB,
 * top-down, in nearest's order (out[0] is where nearest would put its
 * pool). Returns how many were placed; 0 with out[0].failed saying why.
 */
u32 swiotlb_place_per_node(struct bootmem *bm, u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES],
			   u32 boot_node, u64 size, struct swiotlb_placement out[MAX_NODES]);

/*
 * The order in which a device on node tries the pools placed on
 * pool_node[0..npools): its own node's first, then by SLIT distance from
 * node, ties by lower node ID. Fills order[] with pool indexes; returns
 * npools. A node out of range (NODE_ANY) counts as the boot CPU's node.
 */
u32 swiotlb_pool_order(u32 nr_nodes, const u8 distance[MAX_NODES][MAX_NODES], int node,
		       u32 boot_node, const int pool_node[], u32 npools, u8 order[MAX_NODES]);

#define SWIOTLB_SLAB_SHIFT   11
#define SWIOTLB_SLAB_SIZE    (1U << SWIOTLB_SLAB_SHIFT)        /* 2 KiB */
#define SWIOTLB_SEGSIZE      128                               /* slabs per segment */
#define SWIOTLB_MAX_MAPPING  (SWIOTLB_SEGSIZE * SWIOTLB_SLAB_SIZE)

#define SWIOTLB_MAX_AREAS   1024                             /* swiotlb.areas= at most */
#define SWIOTLB_BEING_UNMAPPED (~0ULL)  /* orig[] of a mapping an unmap has claimed */
#define SWIOTLB_NO_ORIG   (~0ULL - 1)   /* orig[] of a slab where no mapping starts */

struct swiotlb_area {
	struct spinlock lock;   /* guards index, used, peak and the slot entries of its slabs */
	u32 first, nslabs;      /* its slabs, [first, first + nslabs): whole segments */
	u32 index;              /* where its next search starts (round robin inside it) */
	u32 used, peak;         /* its slabs in use now, and at most so far */
} __attribute__((aligned(64)));

struct swiotlb_slots {          /* read-only once set up: the areas hold what changes */
	u32 nslabs;             /* a multiple of SWIOTLB_SEGSIZE */
	u32 nareas;             /* a power of two, each area at least one segment */
	u32 *free;              /* [nslabs], see above */
	u32 *nslabs_at;         /* [nslabs]: a mapping's length, at its first slab */
	u32 *bytes_at;          /* [nslabs]: the bytes it maps, at its first slab */
	u64 *orig;              /* [nslabs]: the original buffer, at the first slab; else SWIOTLB_NO_ORIG */
	struct swiotlb_area *areas;     /* [nareas] */
};

/*
 * The number of areas for nslabs slabs when want are asked for (0: 1):
 * want rounded up to a power of two (as Linux's swiotlb_adjust_nareas()),
 * then halved until every area holds at least one segment (Linux's
 * limit_nareas(), Petr Tesarik, 8ac04063354a, keeps the count it computes,
 * which need not be a power of two; testbed keeps the power of two the
 * area choice cpu & (nareas - 1) relies on). At most SWIOTLB_MAX_AREAS.
 */
u32 swiotlb_nareas(u32 want, u32 nslabs);

/* The memory needed for nslabs slabs in nareas areas, in bytes (one allocation, 64-byte aligned). */
u64 swiotlb_slots_array_bytes(u32 nslabs, u32 nareas);

/*
 * Set up s over nslabs slabs (rounded down to whole segments) in
 * swiotlb_nareas(nareas, nslabs) areas, with its arrays carved from mem
 * (swiotlb_slots_array_bytes() bytes, 64-byte aligned). Returns the number
 * of slabs, 0 if fewer than one segment.
 */
u32 swiotlb_slots_init(struct swiotlb_slots *s, u32 nslabs, u32 nareas, void *mem);

/* The area slab lies in. */
u32 swiotlb_slots_area_of(const struct swiotlb_slots *s, u32 slab);

/*
 * Take a run for a mapping of size bytes (1..SWIOTLB_MAX_MAPPING) of the
 * buffer at orig, looking in area start & (nareas - 1) first, then in the
 * next ones. Mappings of a page or more start on a page boundary (every
 * other slab), as Linux does. Returns the first slab, or -1 if no run fits
 * anywhere (the pool is full, or too fragmented), or if orig is one of the
 * two marks (no physical address). An area with fewer free slabs than the
 * mapping needs is passed over at once, without a search.
 */
s64 swiotlb_slots_alloc(struct swiotlb_slots *s, u32 start, u64 size, u64 orig);

/*
 * Without a lock: the mapping starting at slab first, its original buffer
 * and bytes; false if none starts there or its unmap is under way.
 */
bool swiotlb_slots_lookup(const struct swiotlb_slots *s, u32 first, u64 *orig, u32 *bytes);

/*
 * Without a lock: claim the mapping starting at first for its unmap (its
 * orig becomes SWIOTLB_BEING_UNMAPPED), with its original buffer and
 * bytes; false if none starts there or another unmap claimed it first.
 */
bool swiotlb_slots_claim(struct swiotlb_slots *s, u32 first, u64 *orig, u32 *bytes);

/* Give back the mapping that starts at slab first (one lock round trip); false if none starts there. */
bool swiotlb_slots_free(struct swiotlb_slots *s, u32 first);

/* Slabs in use (the areas' sum, read without their locks), and the sum of the areas' peaks. */
u32 swiotlb_slots_used(const struct swiotlb_slots *s);
u32 swiotlb_slots_peak(const struct swiotlb_slots *s);

/* Check every invariant; NULL if all hold, else what is wrong (a static string). */
const char *swiotlb_slots_check(const struct swiotlb_slots *s);

#endif
