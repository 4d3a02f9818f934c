// SPDX-License-Identifier: MIT
/*
 * page_alloc.c - the buddy allocator: blocks of 2^order pages, per node and
 * per zone (see include/page_alloc.h for the picture).
 *
 * Start-up (page_alloc_init) turns the boot allocator's view into zones:
 *   1. each node gets a DMA32 zone (below DMA32_LIMIT) and a NORMAL zone
 *      (above), each spanning the node's memory ranges clipped to the zone;
 *   2. each zone's mem_map (one struct page per pfn of the span) is taken
 *      from the boot allocator on the zone's own node, all of them before
 *      step 3, so the pages they occupy are not free any more;
 *   3. the boot allocator's free ranges are copied (free_ranges[]);
 *   4. a zone is initialised a piece [lo, hi) at a time (init_piece): its
 *      struct pages start PG_RESERVED, then the free ranges inside the
 *      piece are handed over in the largest naturally aligned blocks that
 *      fit (a 6 GiB machine takes about 1500 blocks of 4 MiB, not 1.5
 *      million single pages); only those pages stop being reserved, and
 *      they make managed_pages.
 * The boot allocator is then emptied of memory, so that a late
 * bootmem_alloc() fails instead of handing out pages the buddy owns.
 *
 * Deferred init (Mel Gorman's "mm: meminit" series, April 2015:
 * CONFIG_DEFERRED_STRUCT_PAGE_INIT). page_alloc_init_deferred() does step 4
 * only until eager_pages free pages of each zone were handed over;
 * init_end_pfn marks where the zone's initialised struct pages end. The
 * rest is initialised one MAX_ORDER block (a "piece") at a time, under the
 * zone lock, by whoever comes first: the node's thread
 * (page_alloc_deferred_step(), kernel/mm.c's pgdatinit) or an allocation
 * that found the zone empty (Pavel Tatashin's "mm: initialize pages on
 * demand during boot", commit c9e97a1997fb, 2018: deferred_grow_zone()).
 * Pieces are MAX_ORDER-aligned, so no buddy ever lies across init_end_pfn:
 * a buddy of order k < MAX_ORDER is in the same 2^MAX_ORDER block. Where
 * testbed departs: the 2015 series kept all low zones whole and deferred only
 * beyond 2 GiB of each node's highest zone, and its thread worked without
 * the zone lock (nothing else touched those pages); here every zone defers,
 * and a piece is done under the zone lock (tens of microseconds under TCG
 * once QEMU backs the mem_map's memory, milliseconds on its first touch:
 * docs/memory.md) so that the thread and an allocation that grows the
 * zone never race.
 *
 * Per-CPU page lists (pcp): Linux 2.6's per_cpu_pages (its hot list:
 * zone_batchsize() gives batch 31 for a zone over 512 MiB, and 2.6.14-rc2's
 * setup_pageset() high = 6 * batch), order 0 only as then; Linux keeps
 * orders up to 3 there too since commit 44042b449872 (Mel Gorman,
 * "mm/page_alloc: allow high-order pages to be stored on the per-cpu
 * lists", 2021). Departures: the batch does not shrink for small zones,
 * there is no cold list, and a page on a list counts as free (Linux's
 * NR_FREE_PAGES, MemFree, leaves it out). Each CPU's lists live in one
 * page (pcp_tables[cpu], [node][zone]) allocated by page_alloc_cpu_init();
 * they are touched only by their CPU with interrupts off.
 *
 * Invariants (each zone, under its lock):
 *   - struct pages at or above init_end_pfn are never read (phys_to_page()
 *     and zone_page() stop there); init_end_pfn only grows, and a piece's
 *     struct pages are written before init_end_pfn moves past them;
 *   - managed_pages + deferred_pages is the same at every moment;
 *   - a page on a pcp list has PG_PCP alone and belongs to no buddy list;
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
#include "format.h"
#include "kstring.h"
#include "printk.h"
#include "vm.h"
#include "x86.h"
#ifndef HOST_TEST
#include "percpu.h"
#endif

#define LOCAL_DISTANCE  10      /* SLIT distance to itself, when there is no SLIT */
#define REMOTE_DISTANCE 20      /* SLIT distance to any other node, when there is no SLIT */

#define PIECE_PAGES     (1UL << MAX_ORDER)      /* deferred init works in MAX_ORDER blocks */
#define MAX_FREE_RANGES (2 * BOOTMEM_MAX_RANGES) /* free ranges between memory and reservations */

struct node_mem node_mem[MAX_NODES];
u32 page_alloc_nr_nodes;

/* The boot allocator's free ranges, after the mem_maps were taken: what init_piece() hands over. */
static struct bootmem_range free_ranges[MAX_FREE_RANGES];
static u32 nr_free_ranges;

/* Each CPU's pcp lists, one page each: [node][zone]. NULL until page_alloc_cpu_init(). */
typedef struct per_cpu_pages pcp_table_t[MAX_NODES][NR_ZONES];
BUILD_BUG_ON(sizeof(pcp_table_t) > PAGE_SIZE);
BUILD_BUG_ON(sizeof(struct page) % sizeof(u64));       /* touch_next_piece() writes u64s */
static pcp_table_t *pcp_tables[MAX_CPUS];
bool page_alloc_pcp_on = true;

#ifdef HOST_TEST
u32 page_alloc_host_cpu;
static u32 this_cpu_nr(void) { return page_alloc_host_cpu; }
#else
static u32 this_cpu_nr(void) { return smp_processor_id(); }
#endif

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

/* Where z's initialised struct pages end; acquire: they are written before it moves. */
static u64 zone_init_end(const struct zone *z)
{
	return __atomic_load_n(&z->init_end_pfn, __ATOMIC_ACQUIRE);
}

/* The struct page of pfn in z, or NULL if pfn is outside the span or not initialised yet. */
static struct page *zone_page(struct zone *z, u64 pfn)
{
	if (!z->mem_map || pfn < z->start_pfn || pfn >= zone_init_end(z))
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

/*
 * Which zone a physical address belongs to, a 128 MiB section at a time
 * (x86-64 SPARSEMEM's SECTION_SIZE_BITS, 27: Andy Whitcroft's sparsemem,
 * 2.6.13), so that phys_to_page() need not try every zone of every node:
 * slab_of() asks it on every kmem_cache_free(). An entry names the one
 * zone whose span meets the section, SECTION_NONE none, SECTION_SCAN
 * more than one (a zone boundary or interleaved nodes inside the
 * section): then every zone is tried, as without the table. Addresses
 * past NR_SECTIONS (1 TiB) are scanned too. Written only by
 * page_alloc_init_deferred(), before anyone looks a page up.
 */
#define SECTION_SHIFT   27
#define NR_SECTIONS     8192
#define SECTION_NONE    0xfe
#define SECTION_SCAN    0xff
BUILD_BUG_ON(MAX_NODES * NR_ZONES > SECTION_NONE);
static u8 section_zone[NR_SECTIONS];

static void build_section_table(u32 nr_nodes)
{
	memset(section_zone, SECTION_NONE, sizeof(section_zone));
	for (u32 n = 0; n < nr_nodes; n++) {
		for (int t = 0; t < NR_ZONES; t++) {
			const struct zone *z = &node_mem[n].zones[t];

			if (!zone_span(z))
				continue;
			u64 first = z->start_pfn >> (SECTION_SHIFT - PAGE_SHIFT);
			u64 last = (z->end_pfn - 1) >> (SECTION_SHIFT - PAGE_SHIFT);

			for (u64 sec = first; sec <= last && sec < NR_SECTIONS; sec++)
				section_zone[sec] = section_zone[sec] == SECTION_NONE
						    ? (u8)(n * NR_ZONES + (u32)t) : SECTION_SCAN;
		}
	}
}

/* Spans of different nodes may interleave: the owner is the zone where the page is not reserved. */
struct page *phys_to_page(u64 pa)
{
	u64 pfn = pa >> PAGE_SHIFT, sec = pa >> SECTION_SHIFT;

	if (sec < NR_SECTIONS && section_zone[sec] != SECTION_SCAN) {
		u8 idx = section_zone[sec];
		struct page *page;

		if (idx == SECTION_NONE)
			return NULL;
		page = zone_page(&node_mem[idx / NR_ZONES].zones[idx % NR_ZONES], pfn);
		return page && !(page->flags & PG_RESERVED) ? page : NULL;
	}
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

/* --- deferred init (zone lock held, or nobody else running yet) --------------- */

static void give_pages(struct zone *z, u64 first, u64 end);

/* Write z's struct pages [lo, hi): flags as given, the zone's node and type. */
static void init_struct_pages(struct zone *z, u64 lo, u64 hi, u32 flags)
{
	for (u64 pfn = lo; pfn < hi; pfn++)
		z->mem_map[pfn - z->start_pfn] = (struct page){
			.flags = flags, .node = (u8)z->node, .zone = (u8)z->type,
		};
}

/* The whole pages of free range i inside [lo, hi) when it is z's node's: [*first, *end). */
static bool free_part_of(const struct zone *z, u32 i, u64 lo, u64 hi, u64 *first, u64 *end)
{
	const struct bootmem_range *f = &free_ranges[i];

	*first = MAX(ALIGN_UP(f->base, PAGE_SIZE) >> PAGE_SHIFT, lo);
	*end = MIN(ALIGN_DOWN(f->end, PAGE_SIZE) >> PAGE_SHIFT, hi);
	return f->node == z->node && *first < *end;
}

/*
 * Initialise z's struct pages [lo, hi), reserved except where a free range
 * lies (free_ranges[] is sorted and disjoint: one pass), move init_end_pfn
 * to hi, then hand the free ones over. lo must be init_end_pfn.
 */
static void init_piece(struct zone *z, u64 lo, u64 hi)
{
	u64 pfn = lo, first, end;

	for (u32 i = 0; i < nr_free_ranges; i++) {
		if (!free_part_of(z, i, lo, hi, &first, &end))
			continue;
		init_struct_pages(z, pfn, first, PG_RESERVED);
		init_struct_pages(z, first, end, 0);
		pfn = end;
	}
	init_struct_pages(z, pfn, hi, PG_RESERVED);
	__atomic_store_n(&z->init_end_pfn, hi, __ATOMIC_RELEASE);
	for (u32 i = 0; i < nr_free_ranges; i++)
		if (free_part_of(z, i, lo, hi, &first, &end))
			give_pages(z, first, end);
}

/* The free pages of z's free ranges inside [lo, hi). */
static u64 free_pages_in(const struct zone *z, u64 lo, u64 hi)
{
	u64 n = 0, first, end;

	for (u32 i = 0; i < nr_free_ranges; i++)
		if (free_part_of(z, i, lo, hi, &first, &end))
			n += end - first;
	return n;
}

/* Initialise z's next deferred piece, up to the next MAX_ORDER boundary. False if none is left. */
static bool grow_zone(struct zone *z)
{
	u64 lo = z->init_end_pfn, hi, before = z->managed_pages;

	if (!z->mem_map || lo >= z->end_pfn)
		return false;
	hi = MIN(ALIGN_DOWN(lo, PIECE_PAGES) + PIECE_PAGES, z->end_pfn);
	init_piece(z, lo, hi);
	z->deferred_pages -= z->managed_pages - before;
	return true;
}

/* take_block(), growing the zone by deferred pieces until it fits or nothing is left. */
static struct page *take_block_growing(struct zone *z, unsigned order)
{
	struct page *page;

	while (!(page = take_block(z, order)) && grow_zone(z))
		;
	return page;
}

/*
 * Write each page of the mem_map under z's next piece once, before taking
 * the lock: an atomic add of 0, which leaves whatever an allocation that
 * grows the zone meanwhile writes there. QEMU backs guest RAM on its first
 * write, milliseconds per fresh region under TCG (docs/memory.md): done here,
 * with interrupts on, that cost stays out of init_piece()'s window. On real
 * hardware it is a few cache misses.
 */
static void touch_next_piece(struct zone *z)
{
	u64 lo = zone_init_end(z);

	if (!z->mem_map || lo >= z->end_pfn)
		return;
	u64 hi = MIN(ALIGN_DOWN(lo, PIECE_PAGES) + PIECE_PAGES, z->end_pfn);
	u64 *first = (u64 *)&z->mem_map[lo - z->start_pfn];
	u64 *last = (u64 *)&z->mem_map[hi - z->start_pfn] - 1;

	for (u64 *p = first; p < last; p += PAGE_SIZE / sizeof(*p))
		__atomic_fetch_add(p, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(last, 0, __ATOMIC_RELAXED);
}

bool page_alloc_deferred_step(u32 node, u64 *pages)
{
	if (node >= page_alloc_nr_nodes)
		return false;
	for (int t = 0; t < NR_ZONES; t++) {
		struct zone *z = &node_mem[node].zones[t];

		touch_next_piece(z);
		u64 irq = spin_lock_irqsave(&z->lock);
		u64 before = z->managed_pages;
		bool grew = grow_zone(z);

		*pages += z->managed_pages - before;
		spin_unlock_irqrestore(&z->lock, irq);
		if (grew)
			return true;
	}
	return false;
}

bool page_alloc_deferred_pending(int node)
{
	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		if (node != NODE_ANY && (u32)node != n)
			continue;
		for (int t = 0; t < NR_ZONES; t++) {
			const struct zone *z = &node_mem[n].zones[t];

			if (z->mem_map && zone_init_end(z) < z->end_pfn)
				return true;
		}
	}
	return false;
}

u64 page_alloc_free_range_pages(u32 node)
{
	u64 n = 0;

	for (u32 i = 0; i < nr_free_ranges; i++) {
		u64 first = ALIGN_UP(free_ranges[i].base, PAGE_SIZE) >> PAGE_SHIFT;
		u64 end = ALIGN_DOWN(free_ranges[i].end, PAGE_SIZE) >> PAGE_SHIFT;

		if ((u32)free_ranges[i].node == node && first < end)
			n += end - first;
	}
	return n;
}

u64 page_alloc_deferred_at_init(u32 node)
{
	u64 n = 0;

	for (int t = 0; node < page_alloc_nr_nodes && t < NR_ZONES; t++)
		n += node_mem[node].zones[t].deferred_at_init;
	return n;
}

/* --- per-CPU page lists (interrupts off, on their own CPU) -------------------- */

struct per_cpu_pages *page_alloc_pcp(u32 cpu, int node, enum zone_type zone)
{
	if (cpu >= MAX_CPUS || !pcp_tables[cpu] || node < 0 || node >= MAX_NODES)
		return NULL;
	return &(*pcp_tables[cpu])[node][zone];
}

/* This CPU's list for z; NULL without lists, or while page_alloc_pcp_on is false. */
static struct per_cpu_pages *this_pcp(const struct zone *z)
{
	if (!__atomic_load_n(&page_alloc_pcp_on, __ATOMIC_RELAXED))
		return NULL;
	return page_alloc_pcp(this_cpu_nr(), z->node, z->type);
}

/* Take up to batch single pages from the zone onto the list. */
static void pcp_refill(struct zone *z, struct per_cpu_pages *pcp)
{
	u64 irq = spin_lock_irqsave(&z->lock);

	for (u32 i = 0; i < pcp->batch; i++) {
		struct page *page = take_block_growing(z, 0);

		if (!page)
			break;
		page->flags = PG_PCP;
		list_add_tail(&page->list, &pcp->list);
		pcp->count++;
	}
	spin_unlock_irqrestore(&z->lock, irq);
}

/* Give the n oldest pages of the list back to the zone. */
static void pcp_give_back(struct zone *z, struct per_cpu_pages *pcp, u32 n)
{
	u64 irq = spin_lock_irqsave(&z->lock);

	while (n-- > 0 && pcp->count > 0) {
		struct page *page = list_entry(pcp->list.prev, struct page, list);

		list_del(&page->list);
		pcp->count--;
		page->flags = 0;
		free_block(z, page_pfn(z, page), 0);
	}
	spin_unlock_irqrestore(&z->lock, irq);
}

/* A single page from this CPU's list for z; *had_list false if this CPU has none. */
static struct page *pcp_alloc(struct zone *z, bool *had_list)
{
	u64 irq = irq_save();
	struct per_cpu_pages *pcp = this_pcp(z);
	struct page *page = NULL;

	*had_list = pcp != NULL;
	if (pcp && pcp->count == 0)
		pcp_refill(z, pcp);
	if (pcp && pcp->count > 0) {
		page = list_first_entry(&pcp->list, struct page, list);
		list_del(&page->list);
		pcp->count--;
		page->flags = PG_HEAD;
		page->order = 0;
	}
	irq_restore(irq);
	return page;
}

/* Put a single page (checked already) on this CPU's list; false if this CPU has none. */
static bool pcp_free(struct zone *z, struct page *page)
{
	u64 irq = irq_save();
	struct per_cpu_pages *pcp = this_pcp(z);

	if (pcp) {
		page->flags = PG_PCP;
		list_add(&page->list, &pcp->list);
		if (++pcp->count >= pcp->high)
			pcp_give_back(z, pcp, pcp->batch);
	}
	irq_restore(irq);
	return pcp != NULL;
}

void page_alloc_drain_this_cpu(void)
{
	u64 irq = irq_save();

	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		for (int t = 0; t < NR_ZONES; t++) {
			struct zone *z = &node_mem[n].zones[t];
			struct per_cpu_pages *pcp = page_alloc_pcp(this_cpu_nr(), z->node, z->type);

			if (pcp && pcp->count)
				pcp_give_back(z, pcp, pcp->count);
		}
	}
	irq_restore(irq);
}

static struct page *alloc_from_zone(struct zone *z, unsigned order);

bool page_alloc_cpu_init(u32 cpu, int node)
{
	struct page *page = NULL;

	if (cpu >= MAX_CPUS)
		return false;
	if (pcp_tables[cpu])
		return true;
	if (node >= 0 && (u32)node < page_alloc_nr_nodes)
		for (u32 i = 0; i < node_mem[node].nfallback && !page; i++)
			for (int t = NR_ZONES - 1; t >= 0 && !page; t--)
				page = alloc_from_zone(&node_mem[node_mem[node].fallback[i]].zones[t], 0);
	if (!page) {
		pr_warn("page_alloc: no page for CPU %u's per-CPU lists; its pages come from the zones\n",
			cpu);
		return false;
	}
	pcp_table_t *table = page_address(page);

	for (u32 n = 0; n < MAX_NODES; n++)
		for (int t = 0; t < NR_ZONES; t++) {
			struct per_cpu_pages *pcp = &(*table)[n][t];

			*pcp = (struct per_cpu_pages){ .high = PCP_HIGH, .batch = PCP_BATCH };
			list_init(&pcp->list);
		}
	__atomic_store_n(&pcp_tables[cpu], table, __ATOMIC_RELEASE);
	return true;
}

/* --- allocation ---------------------------------------------------------------- */

/* From the zone's buddy lists (never the pcp lists). */
static struct page *alloc_from_zone(struct zone *z, unsigned order)
{
	struct page *page;
	u64 irq;

	irq = spin_lock_irqsave(&z->lock);
	page = take_block_growing(z, order);
	spin_unlock_irqrestore(&z->lock, irq);
	return page;
}

/* Single pages through this CPU's list, larger blocks from the buddy lists. */
static struct page *alloc_from_zone_or_pcp(struct zone *z, unsigned order)
{
	bool had_list = false;
	struct page *page = order == 0 ? pcp_alloc(z, &had_list) : NULL;

	return page || had_list ? page : alloc_from_zone(z, order);
}

/* The node's zones in the order flags allow, or NULL. */
static struct page *alloc_from_node(int node, unsigned order, unsigned flags)
{
	const enum zone_type *types = flags & ALLOC_DMA32 ? dma32_only :
				      flags & ALLOC_HIGH ? normal_only : normal_first;
	u32 ntypes = flags & ALLOC_DMA32 ? ARRAY_SIZE(dma32_only) :
		     flags & ALLOC_HIGH ? ARRAY_SIZE(normal_only) : ARRAY_SIZE(normal_first);

	for (u32 i = 0; i < ntypes; i++) {
		struct page *page = alloc_from_zone_or_pcp(&node_mem[node].zones[types[i]], order);

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
	if (page->flags & PG_PCP)
		return "already free, on a per-CPU list (double free)";
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
	if (order == 0) {
		/* Only its owner frees an allocated page: no lock needed to look at it. */
		seen = *page;
		why = bad_free_reason(page, order);
		if (!why && pcp_free(z, page))
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

/*
 * Take z's mem_map from the boot allocator; init_piece() fills it in. One
 * of 2 MiB or more starts on a 2 MiB boundary (Linux's vmemmap maps the
 * mem_map with 2 MiB pages for the same reason): the struct pages that
 * boot initialises, at its start, then lie in as few 2 MiB regions as
 * they can, and under QEMU each fresh region costs a host fault of a huge
 * page on first write, milliseconds (docs/boot.md). Top-down, the gap the
 * alignment leaves above it stays free.
 */
#define MEM_MAP_ALIGN   (2UL << 20)

static void make_mem_map(struct bootmem *bm, struct zone *z)
{
	u64 pages = zone_span(z), bytes = pages * sizeof(struct page), pa = 0;

	if (bytes >= MEM_MAP_ALIGN)
		pa = bootmem_alloc(bm, bytes, MEM_MAP_ALIGN, z->node, BOOTMEM_NO_LIMIT);
	if (!pa)
		pa = bootmem_alloc(bm, bytes, PAGE_SIZE, z->node, BOOTMEM_NO_LIMIT);

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
}

/* The largest order of a naturally aligned block at pfn that ends by end. */
static unsigned largest_block(u64 pfn, u64 end)
{
	unsigned order = MAX_ORDER;

	while (order > 0 && ((pfn & ((1UL << order) - 1)) || pfn + (1UL << order) > end))
		order--;
	return order;
}

/* Hand the whole pages [first, end) of z, struct pages without flags, to the buddy lists. */
static void give_pages(struct zone *z, u64 first, u64 end)
{
	if (first < z->start_pfn || end > z->end_pfn || !z->mem_map)
		return;         /* its mem_map could not be allocated */
	for (u64 pfn = first; pfn < end; ) {
		unsigned order = largest_block(pfn, end);
		u64 n = 1UL << order;

		z->managed_pages += n;  /* init_piece() wrote its struct pages without flags */
		free_block(z, pfn, order);
		pfn += n;
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

/* Copy bm's free ranges of the first nr_nodes nodes into free_ranges[]. */
static void save_free_ranges(const struct bootmem *bm, u32 nr_nodes)
{
	struct bootmem_range f;
	u64 cursor = 0;

	nr_free_ranges = 0;
	while (bootmem_next_free(bm, &cursor, &f)) {
		if ((u32)f.node >= nr_nodes)
			continue;
		if (nr_free_ranges == MAX_FREE_RANGES) {
			pr_warn("page_alloc: more than %u free ranges; the rest is unused\n",
				MAX_FREE_RANGES);
			return;
		}
		/* keep them sorted by address (they come so; init_piece() relies on it) */
		u32 at = nr_free_ranges++;

		while (at > 0 && free_ranges[at - 1].base > f.base) {
			free_ranges[at] = free_ranges[at - 1];
			at--;
		}
		free_ranges[at] = f;
	}
}

/*
 * Initialise z piece by piece until eager_pages free pages were handed over
 * (holes and reservations do not count: a pool at the start of the zone
 * does not starve the boot); count the free pages left for later.
 */
static void init_zone(struct zone *z, u64 eager_pages)
{
	z->init_end_pfn = z->start_pfn;
	if (!z->mem_map)
		return;
	while (z->managed_pages < eager_pages && grow_zone(z))
		;
	z->deferred_pages = z->deferred_at_init = free_pages_in(z, z->init_end_pfn, z->end_pfn);
}

void page_alloc_init(struct bootmem *bm, u32 nr_nodes, const u8 (*distance)[MAX_NODES])
{
	page_alloc_init_deferred(bm, nr_nodes, distance, ~0UL);
}

void page_alloc_init_deferred(struct bootmem *bm, u32 nr_nodes, const u8 (*distance)[MAX_NODES],
			      u64 eager_pages)
{

	if (nr_nodes == 0 || nr_nodes > MAX_NODES) {
		pr_warn("page_alloc: %u nodes is out of range; using %u\n", nr_nodes,
			nr_nodes ? MAX_NODES : 1);
		nr_nodes = nr_nodes ? MAX_NODES : 1;
	}
	page_alloc_nr_nodes = nr_nodes;
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		pcp_tables[cpu] = NULL;         /* page_alloc_cpu_init() gives them, from these zones */
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
	build_section_table(nr_nodes);

	save_free_ranges(bm, nr_nodes);
	for (u32 n = 0; n < nr_nodes; n++)
		for (int t = 0; t < NR_ZONES; t++)
			init_zone(&node_mem[n].zones[t], eager_pages);

	for (u32 n = 0; n < nr_nodes; n++)
		build_fallback(n, nr_nodes, distance);
	bm->nmemory = 0;
}

/* --- counters and printing ------------------------------------------------------- */

enum page_count { COUNT_FREE, COUNT_MANAGED, COUNT_PCP };

/* Pages on every CPU's list for z. */
static u64 pcp_pages_of(const struct zone *z)
{
	u64 n = 0;

	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++) {
		pcp_table_t *table = __atomic_load_n(&pcp_tables[cpu], __ATOMIC_ACQUIRE);

		if (table)
			n += __atomic_load_n(&(*table)[z->node][z->type].count, __ATOMIC_RELAXED);
	}
	return n;
}

static u64 count_pages(int node, int zone, enum page_count what)
{
	u64 total = 0;

	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		if (node != NODE_ANY && (u32)node != n)
			continue;
		for (int t = 0; t < NR_ZONES; t++) {
			const struct zone *z = &node_mem[n].zones[t];

			if (zone != -1 && zone != t)
				continue;
			if (what == COUNT_MANAGED)
				total += z->managed_pages;
			else if (what == COUNT_PCP)
				total += pcp_pages_of(z);
			else
				total += z->free_pages + pcp_pages_of(z);
		}
	}
	return total;
}

u64 nr_free_pages(int node, int zone)
{
	return count_pages(node, zone, COUNT_FREE);
}

u64 nr_managed_pages(int node, int zone)
{
	return count_pages(node, zone, COUNT_MANAGED);
}

u64 nr_pcp_pages(int node, int zone)
{
	return count_pages(node, zone, COUNT_PCP);
}

void page_alloc_print(void)
{
	for (u32 n = 0; n < page_alloc_nr_nodes; n++) {
		for (int t = 0; t < NR_ZONES; t++) {
			const struct zone *z = &node_mem[n].zones[t];

			if (!zone_span(z))
				continue;
			u64 pcp = pcp_pages_of(z), deferred = z->deferred_pages;
			char pcp_note[48] = "", deferred_note[64] = "";

			if (pcp)
				snprintf(pcp_note, sizeof(pcp_note), ", %llu on per-CPU lists", pcp);
			if (deferred)
				snprintf(deferred_note, sizeof(deferred_note),
					 ", %llu not yet initialised (deferred)", deferred);
			printk("mem: node %u %-6s 0x%016llx-0x%016llx free %llu of %llu pages%s%s\n", n,
			       zone_kind[t].name, z->start_pfn << PAGE_SHIFT, z->end_pfn << PAGE_SHIFT,
			       z->free_pages + pcp, z->managed_pages, pcp_note, deferred_note);
		}
	}
}
