/* SPDX-License-Identifier: MIT */
/*
 * page_alloc.h - the page allocator: buddy allocation of 2^order pages,
 * per NUMA node and per zone.
 *
 * Every node's RAM is split into two zones: ZONE_DMA32 below 4 GiB (what a
 * device with a 32-bit DMA mask can reach) and ZONE_NORMAL above. Each
 * zone keeps, per order 0..MAX_ORDER, a list of free blocks of 2^order
 * pages. Allocation takes the smallest free block that fits and splits it
 * in halves down to the asked order; freeing merges a block with its buddy
 * (the block whose page number differs only in bit `order`) as long as the
 * buddy is free too:
 *
 *   order 2: [ 0  1  2  3 ]  split ->  order 1: [ 0  1 ] [ 2  3 ]  buddy of pfn 0 at
 *                                      order 1 is pfn 0 ^ 2 = 2
 *
 * Every page frame has a struct page in its zone's mem_map; the free lists
 * link those, never the pages themselves, so the allocator's metadata is
 * apart from the memory it hands out.
 *
 * Per-CPU page lists (pcp, as Linux 2.6's per_cpu_pages: order 0 only).
 * Each CPU keeps, per zone, a short list of free single pages. An order-0
 * allocation takes from its own CPU's list and a free puts the page there,
 * with interrupts off and no lock; the list meets the zone (under the zone
 * lock) only in batches: refilled with `batch` pages when empty, `batch`
 * of its oldest pages given back when it reaches `high`. A page on a pcp
 * list is free (PG_PCP) but not in the buddy lists: nr_free_pages() counts
 * it, the zone's free_pages does not, and page_alloc_drain_this_cpu() gives
 * a CPU's lists back.
 *
 * Deferred struct page init (Linux's DEFERRED_STRUCT_PAGE_INIT). At boot
 * only the first part of each zone gets its struct pages initialised and
 * its free pages handed over; the rest of the zone, from init_end_pfn on,
 * stays untouched until page_alloc_deferred_step() (a thread per node,
 * kernel/mm.c) or an allocation that finds the zone empty (as Linux's
 * deferred_grow_zone()) initialises it one MAX_ORDER block at a time.
 *
 * Node choice: the asked node first, then the others from nearest to
 * farthest (SLIT distance), unless ALLOC_THISNODE. Zone choice: ZONE_NORMAL
 * first, then ZONE_DMA32, keeping low memory for those who need it;
 * ALLOC_DMA32 uses ZONE_DMA32 only, ALLOC_HIGH ZONE_NORMAL only (the
 * buffers a bounce is for).
 */
#ifndef PAGE_ALLOC_H
#define PAGE_ALLOC_H

#include "bootmem.h"
#include "list.h"
#include "param.h"
#include "spinlock.h"
#include "types.h"
#include "vm.h"

struct kmem_cache;

enum zone_type { ZONE_DMA32, ZONE_NORMAL, NR_ZONES };

struct page {
	struct list_head list;  /* free block: zone free list; slab: cache's slab list */
	u32 flags;              /* PG_* */
	u8 order;               /* free block or allocated head: the block's order */
	u8 node;
	u8 zone;
	/* slab pages (PG_SLAB) only */
	u16 inuse;              /* objects handed out */
	struct kmem_cache *cache;
	void *freelist;         /* first free object; each free object points to the next */
};

#define PG_FREE     (1u << 0)   /* head of a free block, on a free list */
#define PG_RESERVED (1u << 1)   /* never managed: hole, firmware, kernel, boot allocations */
#define PG_HEAD     (1u << 2)   /* head of an allocated block */
#define PG_SLAB     (1u << 3)   /* owned by a kmem_cache */
#define PG_PCP      (1u << 4)   /* free, on a CPU's per-CPU page list */

/* One CPU's free single pages of one zone (Linux 2.6's struct per_cpu_pages). */
struct per_cpu_pages {
	struct list_head list;  /* newest first; PG_PCP pages */
	u32 count;              /* pages on list */
	u32 high;               /* a free that brings count to high gives batch back */
	u32 batch;              /* pages moved to or from the zone at once */
	u32 unused;
};

struct zone {
	u64 start_pfn, end_pfn;         /* span; may contain reserved holes */
	struct page *mem_map;           /* one struct page per pfn of the span */
	struct list_head free_list[MAX_ORDER + 1];
	u64 nr_free[MAX_ORDER + 1];     /* blocks on each list */
	u64 free_pages;                 /* pages in all free blocks */
	u64 managed_pages;              /* pages handed to the allocator so far */
	u64 init_end_pfn;               /* struct pages [start_pfn, init_end_pfn) initialised */
	u64 deferred_pages;             /* free pages at or above init_end_pfn, not handed over yet */
	u64 deferred_at_init;           /* ...as many as there were when page_alloc_init() ended */
	struct spinlock lock;
	int node;
	enum zone_type type;
};

struct node_mem {
	struct zone zones[NR_ZONES];
	int fallback[MAX_NODES];        /* this node first, then nearest to farthest */
	u32 nfallback;
};

extern struct node_mem node_mem[MAX_NODES];
extern u32 page_alloc_nr_nodes;

#define ALLOC_DMA32    (1u << 0)        /* only ZONE_DMA32: below 4 GiB */
#define ALLOC_THISNODE (1u << 1)        /* only the asked node */
#define ALLOC_ZERO     (1u << 2)        /* zero the memory */
#define ALLOC_HIGH     (1u << 3)        /* only ZONE_NORMAL: above 4 GiB, out of a 32-bit device's reach */

/*
 * Hand every free range of bm to the buddy allocator (mem_map arrays are
 * taken from bm itself, on their own node). distance[a][b] is the SLIT
 * distance, or NULL (local 10, remote 20). After this, bm must not be used.
 */
void page_alloc_init(struct bootmem *bm, u32 nr_nodes, const u8 (*distance)[MAX_NODES]);

/*
 * The same, initialising only the first eager_pages of each zone (rounded
 * up to a MAX_ORDER block); the rest waits for page_alloc_deferred_step()
 * or for an allocation that needs it. eager_pages ~0: everything now.
 */
void page_alloc_init_deferred(struct bootmem *bm, u32 nr_nodes, const u8 (*distance)[MAX_NODES],
			      u64 eager_pages);

/*
 * Initialise the next MAX_ORDER block of node's deferred pages and hand its
 * free pages over (under the zone lock). Adds the pages handed over to
 * *pages; false once the node has nothing deferred left.
 */
bool page_alloc_deferred_step(u32 node, u64 *pages);

/* Whether node (NODE_ANY: any node) still has struct pages to initialise. */
bool page_alloc_deferred_pending(int node);

/*
 * The whole pages of node's free ranges at handoff: what managed_pages adds
 * up to once deferred init is done, whatever the order it went in.
 */
u64 page_alloc_free_range_pages(u32 node);

/* Free pages node had deferred when page_alloc_init_deferred() returned. */
u64 page_alloc_deferred_at_init(u32 node);

/* pcp lists: the 2.6 sizes for a large zone (zone_batchsize(): 31; high 6 * batch). */
#define PCP_BATCH 31
#define PCP_HIGH  (6 * PCP_BATCH)

/*
 * Give cpu its per-CPU page lists (one page on node holding every zone's);
 * until then its order-0 requests go to the zones directly. False if there
 * was no page for them.
 */
bool page_alloc_cpu_init(u32 cpu, int node);

/*
 * False: every CPU takes and frees single pages at the zones, as without
 * lists (pages already on lists stay there until drained). For benchmarks
 * that compare the two paths in one boot; true otherwise.
 */
extern bool page_alloc_pcp_on;

/* Give every page on this CPU's lists back to the zones. Any context. */
void page_alloc_drain_this_cpu(void);

/* Pages on per-CPU lists (node NODE_ANY and zone -1: all). Racy: a snapshot. */
u64 nr_pcp_pages(int node, int zone);

/* This CPU's list for a zone, or NULL before page_alloc_cpu_init() (tests look inside). */
struct per_cpu_pages *page_alloc_pcp(u32 cpu, int node, enum zone_type zone);

#ifdef HOST_TEST
extern u32 page_alloc_host_cpu;         /* the CPU the host tests pretend to run on */
#endif

/* 2^order contiguous pages, or NULL. node may be NODE_ANY (node 0 first). */
struct page *alloc_pages(unsigned order, int node, unsigned flags);

/* The smallest order whose block holds size bytes; MAX_ORDER + 1 if none does. */
static inline unsigned page_order(u64 size)
{
	unsigned order = 0;

	while (order <= MAX_ORDER && (PAGE_SIZE << order) < size)
		order++;
	return order;
}
void free_pages(struct page *page, unsigned order);

u64 page_to_phys(const struct page *page);
struct page *phys_to_page(u64 pa);      /* NULL if pa is not managed RAM */
void *page_address(const struct page *page);

/* Counters; node NODE_ANY and zone -1 mean all. Free pages include those on pcp lists. */
u64 nr_free_pages(int node, int zone);
u64 nr_managed_pages(int node, int zone);

/*
 * Print one line per node and zone: "mem: node 1 DMA32  0x...-0x... free F
 * of M pages", then ", P on per-CPU lists" if any, and ", D not yet
 * initialised (deferred)" while deferred init runs.
 */
void page_alloc_print(void);

#endif
