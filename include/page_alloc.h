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

struct zone {
	u64 start_pfn, end_pfn;         /* span; may contain reserved holes */
	struct page *mem_map;           /* one struct page per pfn of the span */
	struct list_head free_list[MAX_ORDER + 1];
	u64 nr_free[MAX_ORDER + 1];     /* blocks on each list */
	u64 free_pages;                 /* pages in all free blocks */
	u64 managed_pages;              /* pages handed to the allocator at init */
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

/* Counters; node NODE_ANY and zone -1 mean all. */
u64 nr_free_pages(int node, int zone);
u64 nr_managed_pages(int node, int zone);

/* Print one line per node and zone: "mem: node 1 DMA32  0x...-0x... free F of M pages". */
void page_alloc_print(void);

#endif
