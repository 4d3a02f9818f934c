/*
 * page_alloc.c - the buddy allocator: blocks of 2^order pages, per node and
 * per zone (see include/page_alloc.h for the picture).
 *
 * Start-up (page_alloc_init) turns the boot allocator's view into zones:
 *   1. each node gets a DMA32 zone (below DMA32_LIMIT) and a NORMAL zone
 *      (above), each spanning the node's memory ranges clipped to the zone;
 *   2. each zone's mem_map (one struct page per pfn of the span) is taken
 *      from the boot allocator on the zone's own node, all of them before
 *      step 4, so the pages they occupy are not free any more;
 *   3. every struct page starts PG_RESERVED;
 *   4. every free range of the boot allocator is handed over in the
 *      largest naturally aligned blocks that fit (a 6 GiB machine takes
 *      about 1500 blocks of 4 MiB, not 1.5 million single pages); only
 *      those pages stop being reserved, and they make managed_pages.
 * The boot allocator is then emptied of memory, so that a late
 * bootmem_alloc() fails instead of handing out pages the buddy owns.
 *
 * Invariants (each zone, under its lock):
 *   - a free block of order k starts at a pfn that is a multiple of 2^k,
 *     lies inside the zone's span, and its head page alone has PG_FREE and
 *     order k and sits on free_list[k]; its other pages have no flags;
 *   - an allocated block's head has PG_HEAD and its order; its other pages
 *     have no flags (the slab allocator may add PG_SLAB to all of them);
 *   - PG_RESERVED pages never change: holes, firmware, the kernel, mem_maps;
 *   - free_pages is the sum over k of nr_free[k] << k.
 * Freeing merges a block with its buddy (pfn ^ 2^k) as long as the buddy
 * is inside the span, PG_FREE and of the same order. A free that breaks the
 * rules (double free, a reserved page, a wrong order) is reported and
 * ignored, so a caller's bug cannot corrupt the lists.
 *
 * Locking: one spinlock per zone, taken with interrupts off, because RCU
 * callbacks will free pages from interrupt context.
 */
#include "page_alloc.h"
#include "kstring.h"
#include "printk.h"
#include "vm.h"

#define LOCAL_DISTANCE  10      /* SLIT distance to itself, when there is no SLIT */
#define REMOTE_DISTANCE 20      /* SLIT distance to any other node, when there is no SLIT */

struct node_mem node_mem[MAX_NODES];
u32 page_alloc_nr_nodes;

static const struct {
	const char *name;
	u64 lo, hi;             /* physical addresses the zone may hold: [lo, hi) */
} zone_kind[NR_ZONES] = {
	[ZONE_DMA32] = { "DMA32", 0, DMA32_LIMIT },
	[ZONE_NORMAL] = { "NORMAL", DMA32_LIMIT, ~0UL },
};

/* Zones to try, in order: ALLOC_DMA32 gets only low memory. */
static const enum zone_type normal_first[] = { ZONE_NORMAL, ZONE_DMA32 };
static const enum zone_type dma32_only[] = { ZONE_DMA32 };
static const enum zone_type normal_only[] = { ZONE_NORMAL };

/* --- pages and zones ---------------------------------------------------------- */

static u64 zone_span(const struct zone *z)
{
	return z->end_pfn - z->start_pfn;
}

/* The struct page of pfn in z, or NULL if pfn is outside the span. */
static struct page *zone_page(struct zone *z, u64 pfn)
{
	if (!z->mem_map || pfn < z->start_pfn || pfn >= z->end_pfn)
		return NULL;
	return &z->mem_map[pfn - z->start_pfn];
}

static u64 page_pfn(const struct zone *z, const struct page *page)
{
	return z->start_pfn + (u64)(page - z->mem_map);
}

static struct zone *page_zone(const struct page *page)
{
	return &node_mem[page->node].zones[page->zone];
}

/* The zone whose mem_map holds page, or NULL if page is not a struct page of ours. */
static struct zone *zone_holding(const struct page *page)
{
	uintptr_t p = (uintptr_t)page;

	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		for (int t = 0; t < NR_ZONES; t++) {
			struct zone *z = &node_mem[n].zones[t];
			uintptr_t first = (uintptr_t)z->mem_map;

			if (!z->mem_map || p < first || p >= first + zone_span(z) * sizeof(*page))
				continue;
			return (p - first) % sizeof(*page) == 0 ? z : NULL;
		}
	}
	return NULL;
}

u64 page_to_phys(const struct page *page)
{
	return page_pfn(page_zone(page), page) << PAGE_SHIFT;
}

void *page_address(const struct page *page)
{
	return phys_to_virt(page_to_phys(page));
}

/* Spans of different nodes may interleave: the owner is the zone where the page is not reserved. */
struct page *phys_to_page(u64 pa)
{
	u64 pfn = pa >> PAGE_SHIFT;

	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		for (int t = 0; t < NR_ZONES; t++) {
			struct page *page = zone_page(&node_mem[n].zones[t], pfn);

			if (page && !(page->flags & PG_RESERVED))
				return page;
		}
	}
	return NULL;
}

/* --- the buddy lists (zone lock held) ---------------------------------------- */

static void put_on_free_list(struct zone *z, struct page *head, unsigned order)
{
	head->flags = PG_FREE;
	head->order = (u8)order;
	list_add(&head->list, &z->free_list[order]);
	z->nr_free[order]++;
}

static void take_off_free_list(struct zone *z, struct page *head)
{
	list_del(&head->list);
	z->nr_free[head->order]--;
	head->flags = 0;
}

/* Give the block of 2^order pages at pfn back, merging with free buddies. */
static void free_block(struct zone *z, u64 pfn, unsigned order)
{
	z->free_pages += 1UL << order;
	while (order < MAX_ORDER) {
		struct page *buddy = zone_page(z, pfn ^ (1UL << order));

		if (!buddy || !(buddy->flags & PG_FREE) || buddy->order != order)
			break;
		take_off_free_list(z, buddy);
		pfn &= ~(1UL << order);
		order++;
	}
	put_on_free_list(z, zone_page(z, pfn), order);
}

/* Take the smallest free block of at least 2^order pages and split it down. */
static struct page *take_block(struct zone *z, unsigned order)
{
	unsigned have = order;

	while (have <= MAX_ORDER && list_empty(&z->free_list[have]))
		have++;
	if (have > MAX_ORDER)
		return NULL;

	struct page *head = list_first_entry(&z->free_list[have], struct page, list);
	u64 pfn = page_pfn(z, head);

	take_off_free_list(z, head);
	while (have > order) {
		have--;
		put_on_free_list(z, zone_page(z, pfn + (1UL << have)), have);
	}
	head->flags = PG_HEAD;
	head->order = (u8)order;
	z->free_pages -= 1UL << order;
	return head;
}

/* --- allocation ---------------------------------------------------------------- */

static struct page *alloc_from_zone(struct zone *z, unsigned order)
{
	struct page *page;
	u64 irq;

	irq = spin_lock_irqsave(&z->lock);
	page = take_block(z, order);
	spin_unlock_irqrestore(&z->lock, irq);
	return page;
}

/* The node's zones in the order flags allow, or NULL. */
static struct page *alloc_from_node(int node, unsigned order, unsigned flags)
{
	const enum zone_type *types = flags & ALLOC_DMA32 ? dma32_only :
				      flags & ALLOC_HIGH ? normal_only : normal_first;
	u32 ntypes = flags & ALLOC_DMA32 ? ARRAY_SIZE(dma32_only) :
		     flags & ALLOC_HIGH ? ARRAY_SIZE(normal_only) : ARRAY_SIZE(normal_first);

	for (u32 i = 0; i < ntypes; i++) {
		struct page *page = alloc_from_zone(&node_mem[node].zones[types[i]], order);

		if (page)
			return page;
	}
	return NULL;
}

struct page *alloc_pages(unsigned order, int node, unsigned flags)
{
	struct page *page = NULL;

	if (node == NODE_ANY)
		node = 0;
	if (order > MAX_ORDER || node < 0 || (u32)node >= page_alloc_nr_nodes) {
		pr_err("page_alloc: bad request: order %u on node %d (%u nodes)\n", order, node,
		       page_alloc_nr_nodes);
		return NULL;
	}

	const struct node_mem *nm = &node_mem[node];
	u32 ntries = flags & ALLOC_THISNODE ? 1 : nm->nfallback;

	for (u32 i = 0; i < ntries && !page; i++)
		page = alloc_from_node(nm->fallback[i], order, flags);
	if (page && (flags & ALLOC_ZERO))
		memset(page_address(page), 0, PAGE_SIZE << order);
	return page;
}

/* --- freeing -------------------------------------------------------------------- */

/* Why page cannot be freed as a block of 2^order pages, or NULL if it can. */
static const char *bad_free_reason(const struct page *page, unsigned order)
{
	if (page->flags & PG_FREE)
		return "already free (double free)";
	if (page->flags & PG_RESERVED)
		return "reserved page, never allocated";
	if (page->flags & PG_SLAB)
		return "still owned by a slab cache";
	if (!(page->flags & PG_HEAD))
		return "not the head of an allocated block (a tail page, or freed and merged already)";
	if (page->order != order)
		return "allocated with another order";
	return NULL;
}

/* A NULL page is ignored, as kfree(NULL) is. */
void free_pages(struct page *page, unsigned order)
{
	struct zone *z;
	const char *why;
	struct page seen;
	u64 irq;

	if (!page)
		return;
	z = zone_holding(page);
	if (!z || order > MAX_ORDER) {
		pr_err("page_alloc: bad free of page %p order %u: %s\n", (void *)page, order,
		       z ? "order above MAX_ORDER" : "not a struct page of any zone");
		return;
	}
	irq = spin_lock_irqsave(&z->lock);
	seen = *page;
	why = bad_free_reason(page, order);
	if (!why)
		free_block(z, page_pfn(z, page), order);
	spin_unlock_irqrestore(&z->lock, irq);
	if (why)
		pr_err("page_alloc: bad free of 0x%llx order %u: %s (flags 0x%x, order %u)\n",
		       page_to_phys(page), order, why, seen.flags, seen.order);
}

/* --- start-up -------------------------------------------------------------------- */

static void zone_reset(struct zone *z, int node, enum zone_type type)
{
	*z = (struct zone){ .node = node, .type = type };
	z->lock = (struct spinlock)SPINLOCK_INIT(zone_kind[type].name);
	for (int k = 0; k <= MAX_ORDER; k++)
		list_init(&z->free_list[k]);
}

/* Widen the zones of m's node to cover m's pages. */
static void span_memory(const struct bootmem_range *m)
{
	for (int t = 0; t < NR_ZONES; t++) {
		struct zone *z = &node_mem[m->node].zones[t];
		u64 lo = MAX(m->base, zone_kind[t].lo), hi = MIN(m->end, zone_kind[t].hi);

		if (lo >= hi)
			continue;
		u64 first = lo >> PAGE_SHIFT, end = ALIGN_UP(hi, PAGE_SIZE) >> PAGE_SHIFT;

		if (zone_span(z) == 0) {
			z->start_pfn = first;
			z->end_pfn = end;
		} else {
			z->start_pfn = MIN(z->start_pfn, first);
			z->end_pfn = MAX(z->end_pfn, end);
		}
	}
}

/* Take z's mem_map from the boot allocator and mark every page reserved. */
static void make_mem_map(struct bootmem *bm, struct zone *z)
{
	u64 pages = zone_span(z), bytes = pages * sizeof(struct page);
	u64 pa = bootmem_alloc(bm, bytes, PAGE_SIZE, z->node, BOOTMEM_NO_LIMIT);

	if (!pa) {
		pa = bootmem_alloc(bm, bytes, PAGE_SIZE, NODE_ANY, BOOTMEM_NO_LIMIT);
		pr_warn("page_alloc: no room on node %d for its %s mem_map (%llu KiB); %s\n",
			z->node, zone_kind[z->type].name, bytes >> 10,
			pa ? "took it from another node" : "the zone stays unused");
	}
	if (!pa) {
		z->start_pfn = z->end_pfn = 0;
		return;
	}
	z->mem_map = phys_to_virt(pa);
	for (u64 i = 0; i < pages; i++)
		z->mem_map[i] = (struct page){
			.flags = PG_RESERVED, .node = (u8)z->node, .zone = (u8)z->type,
		};
}

/* The largest order of a naturally aligned block at pfn that ends by end. */
static unsigned largest_block(u64 pfn, u64 end)
{
	unsigned order = MAX_ORDER;

	while (order > 0 && ((pfn & ((1UL << order) - 1)) || pfn + (1UL << order) > end))
		order--;
	return order;
}

/* Hand the whole pages [first, end) of z to the buddy lists. */
static void give_pages(struct zone *z, u64 first, u64 end)
{
	if (first < z->start_pfn || end > z->end_pfn || !z->mem_map)
		return;         /* its mem_map could not be allocated */
	for (u64 pfn = first; pfn < end; ) {
		unsigned order = largest_block(pfn, end);
		u64 n = 1UL << order;

		for (u64 i = 0; i < n; i++)
			zone_page(z, pfn + i)->flags = 0;
		z->managed_pages += n;
		free_block(z, pfn, order);
		pfn += n;
	}
}

/* Split a free range at the zone boundaries and give each part to its zone. */
static void give_free_range(const struct bootmem_range *f)
{
	for (int t = 0; t < NR_ZONES; t++) {
		u64 lo = ALIGN_UP(MAX(f->base, zone_kind[t].lo), PAGE_SIZE);
		u64 hi = ALIGN_DOWN(MIN(f->end, zone_kind[t].hi), PAGE_SIZE);

		if (lo < hi)
			give_pages(&node_mem[f->node].zones[t], lo >> PAGE_SHIFT, hi >> PAGE_SHIFT);
	}
}

static u8 node_distance(const u8 (*distance)[MAX_NODES], u32 a, u32 b)
{
	if (distance)
		return distance[a][b];
	return a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
}

/* node first, then the others by distance; equal distances keep id order. */
static void build_fallback(u32 node, u32 nr_nodes, const u8 (*distance)[MAX_NODES])
{
	struct node_mem *nm = &node_mem[node];

	nm->fallback[0] = (int)node;
	nm->nfallback = 1;
	for (u32 other = 0; other < nr_nodes; other++) {
		if (other == node)
			continue;
		u8 d = node_distance(distance, node, other);
		u32 at = nm->nfallback;

		while (at > 1 && node_distance(distance, node, (u32)nm->fallback[at - 1]) > d) {
			nm->fallback[at] = nm->fallback[at - 1];
			at--;
		}
		nm->fallback[at] = (int)other;
		nm->nfallback++;
	}
}

void page_alloc_init(struct bootmem *bm, u32 nr_nodes, const u8 (*distance)[MAX_NODES])
{
	struct bootmem_range f;
	u64 cursor = 0;

	if (nr_nodes == 0 || nr_nodes > MAX_NODES) {
		pr_warn("page_alloc: %u nodes is out of range; using %u\n", nr_nodes,
			nr_nodes ? MAX_NODES : 1);
		nr_nodes = nr_nodes ? MAX_NODES : 1;
	}
	page_alloc_nr_nodes = nr_nodes;
	for (u32 n = 0; n < MAX_NODES; n++)
		for (int t = 0; t < NR_ZONES; t++)
			zone_reset(&node_mem[n].zones[t], (int)n, (enum zone_type)t);

	for (u32 i = 0; i < bm->nmemory; i++) {
		if ((u32)bm->memory[i].node < nr_nodes)
			span_memory(&bm->memory[i]);
		else
			pr_warn("page_alloc: memory 0x%llx-0x%llx is on node %d, beyond %u nodes; unused\n",
				bm->memory[i].base, bm->memory[i].end, bm->memory[i].node,
				nr_nodes);
	}
	for (u32 n = 0; n < nr_nodes; n++)
		for (int t = 0; t < NR_ZONES; t++)
			if (zone_span(&node_mem[n].zones[t]))
				make_mem_map(bm, &node_mem[n].zones[t]);

	while (bootmem_next_free(bm, &cursor, &f))
		if ((u32)f.node < nr_nodes)
			give_free_range(&f);

	for (u32 n = 0; n < nr_nodes; n++)
		build_fallback(n, nr_nodes, distance);
	bm->nmemory = 0;
}

/* --- counters and printing ------------------------------------------------------- */

static u64 count_pages(int node, int zone, bool managed)
{
	u64 total = 0;

	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		if (node != NODE_ANY && (u32)node != n)
			continue;
		for (int t = 0; t < NR_ZONES; t++) {
			const struct zone *z = &node_mem[n].zones[t];

			if (zone == -1 || zone == t)
				total += managed ? z->managed_pages : z->free_pages;
		}
	}
	return total;
}

u64 nr_free_pages(int node, int zone)
{
	return count_pages(node, zone, false);
}

u64 nr_managed_pages(int node, int zone)
{
	return count_pages(node, zone, true);
}

void page_alloc_print(void)
{
	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		for (int t = 0; t < NR_ZONES; t++) {
			const struct zone *z = &node_mem[n].zones[t];

			if (!zone_span(z))
				continue;
			printk("mem: node %u %-6s 0x%016llx-0x%016llx free %llu of %llu pages\n", n,
			       zone_kind[t].name, z->start_pfn << PAGE_SHIFT,
			       z->end_pfn << PAGE_SHIFT, z->free_pages, z->managed_pages);
		}
	}
}
