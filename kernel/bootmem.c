// SPDX-License-Identifier: MIT
/*
 * bootmem.c - the boot allocator: two sorted lists of [base, end) ranges.
 *
 * The idea (Linux's memblock): before there is a page allocator, physical
 * memory is described by what is RAM (memory, each range on one node) and
 * what is taken (reserved). Free memory is memory minus reserved, so
 * allocating is finding a hole and adding a reservation; nothing else is
 * kept, and a struct bootmem can be copied to try a policy without effect.
 *
 * Invariants, kept by every function here:
 *   - both lists are sorted by base, ranges are non-empty and never overlap;
 *   - memory: adjacent ranges of the same node are merged; a range added
 *     over existing memory loses the overlapping part (the first claim
 *     wins, with a warning), so every byte belongs to at most one node;
 *   - reserved: overlapping or touching ranges are merged, so between two
 *     reserved ranges there is always a free gap (possibly not RAM);
 *   - a list never grows past BOOTMEM_MAX_RANGES: a change that would need
 *     one more slot is refused with a warning and leaves the list as it was;
 *   - page 0 is reserved by bootmem_init(), and bootmem_alloc() never
 *     returns 0, so 0 can mean "nothing fits".
 *
 * Allocation is top-down (the highest block that fits wins), as in
 * memblock: low memory is kept for whoever needs it. The swiotlb replay of
 * 2005 also asks bottom-up (the lowest block wins), as 2.6's bootmem
 * bitmap scan went.
 */
#include "bootmem.h"
#include "kstring.h"
#include "printk.h"
#include "vm.h"

void bootmem_init(struct bootmem *bm)
{
	bm->nmemory = 0;
	bm->nreserved = 0;
	bootmem_reserve(bm, 0, PAGE_SIZE);
}

/* --- list primitives ------------------------------------------------------ */

/* Open a hole at index i (the caller has checked there is room). */
static void open_slot(struct bootmem_range *list, u32 *n, u32 i)
{
	memmove(&list[i + 1], &list[i], (*n - i) * sizeof(*list));
	(*n)++;
}

/* Remove entries [i, j). */
static void close_slots(struct bootmem_range *list, u32 *n, u32 i, u32 j)
{
	memmove(&list[i], &list[j], (*n - j) * sizeof(*list));
	*n -= j - i;
}

/* --- memory ---------------------------------------------------------------- */

/*
 * Put [base, end) on node into the memory list; it overlaps nothing there.
 * Merges with a neighbour of the same node it touches.
 */
static bool insert_memory(struct bootmem *bm, u64 base, u64 end, int node)
{
	struct bootmem_range *m = bm->memory;
	u32 i = 0;

	while (i < bm->nmemory && m[i].base < base)
		i++;
	bool joins_left = i > 0 && m[i - 1].end == base && m[i - 1].node == node;
	bool joins_right = i < bm->nmemory && m[i].base == end && m[i].node == node;

	if (joins_left && joins_right) {
		m[i - 1].end = m[i].end;
		close_slots(m, &bm->nmemory, i, i + 1);
	} else if (joins_left) {
		m[i - 1].end = end;
	} else if (joins_right) {
		m[i].base = base;
	} else {
		if (bm->nmemory == BOOTMEM_MAX_RANGES) {
			pr_warn("bootmem: memory list full (%u ranges); 0x%llx-0x%llx on node %d dropped\n",
				BOOTMEM_MAX_RANGES, base, end, node);
			return false;
		}
		open_slot(m, &bm->nmemory, i);
		m[i] = (struct bootmem_range){ base, end, node };
	}
	return true;
}

/* The first memory range that overlaps [base, end), or NULL. */
static const struct bootmem_range *first_overlap(const struct bootmem *bm, u64 base, u64 end)
{
	for (u32 i = 0; i < bm->nmemory; i++) {
		const struct bootmem_range *m = &bm->memory[i];

		if (m->end > base && m->base < end)
			return m;
		if (m->base >= end)
			break;
	}
	return NULL;
}

/*
 * Add the parts of [base, end) that no earlier range claims. If the list
 * fills up part way, the parts before that stay added.
 */
bool bootmem_add_memory(struct bootmem *bm, u64 base, u64 end, int node)
{
	if (node < 0 || node >= MAX_NODES) {
		pr_warn("bootmem: node %d out of range; 0x%llx-0x%llx dropped\n", node, base, end);
		return false;
	}
	if (end < base) {
		pr_warn("bootmem: memory 0x%llx-0x%llx ends before it starts; dropped\n",
			base, end);
		return false;
	}
	while (base < end) {
		const struct bootmem_range *hit = first_overlap(bm, base, end);

		if (!hit)
			return insert_memory(bm, base, end, node);
		/* Copy it: inserting the piece below moves the list's entries. */
		struct bootmem_range old = *hit;

		pr_warn("bootmem: 0x%llx-0x%llx for node %d is already node %d's; "
			"the first claim wins\n", MAX(old.base, base), MIN(old.end, end),
			node, old.node);
		if (old.base > base && !insert_memory(bm, base, old.base, node))
			return false;
		base = MIN(old.end, end);
	}
	return true;
}

int bootmem_node_of(const struct bootmem *bm, u64 pa)
{
	for (u32 i = 0; i < bm->nmemory; i++)
		if (pa >= bm->memory[i].base && pa < bm->memory[i].end)
			return bm->memory[i].node;
	return -1;
}

/* --- reserved --------------------------------------------------------------- */

bool bootmem_reserve(struct bootmem *bm, u64 base, u64 end)
{
	struct bootmem_range *r = bm->reserved;
	u32 first = 0, last;

	if (end <= base)
		return end == base;
	/* Ranges first..last-1 overlap or touch [base, end]. */
	while (first < bm->nreserved && r[first].end < base)
		first++;
	last = first;
	while (last < bm->nreserved && r[last].base <= end)
		last++;

	if (first == last) {
		if (bm->nreserved == BOOTMEM_MAX_RANGES) {
			pr_warn("bootmem: reserved list full (%u ranges); cannot reserve 0x%llx-0x%llx\n",
				BOOTMEM_MAX_RANGES, base, end);
			return false;
		}
		open_slot(r, &bm->nreserved, first);
		r[first] = (struct bootmem_range){ base, end, -1 };
		return true;
	}
	r[first].base = MIN(r[first].base, base);
	r[first].end = MAX(r[last - 1].end, end);
	close_slots(r, &bm->nreserved, first + 1, last);
	return true;
}

void bootmem_free(struct bootmem *bm, u64 base, u64 size)
{
	struct bootmem_range *r = bm->reserved;
	u64 end = base + size;

	if (end <= base)
		return;
	for (u32 i = 0; i < bm->nreserved && r[i].base < end; ) {
		if (r[i].end <= base) {
			i++;
		} else if (r[i].base >= base && r[i].end <= end) {
			close_slots(r, &bm->nreserved, i, i + 1);
		} else if (r[i].base < base && r[i].end > end) {
			/* The freed part is inside: split in two. */
			if (bm->nreserved == BOOTMEM_MAX_RANGES) {
				pr_warn("bootmem: reserved list full; 0x%llx-0x%llx stays reserved\n",
					base, end);
				return;
			}
			open_slot(r, &bm->nreserved, i + 1);
			r[i + 1] = (struct bootmem_range){ end, r[i].end, -1 };
			r[i].end = base;
			return;
		} else if (r[i].base < base) {
			r[i++].end = base;
		} else {
			r[i++].base = end;
		}
	}
}

/* --- free memory ------------------------------------------------------------ */

/*
 * The free range of memory range m that starts at or above from: the part
 * of [max(from, m.base), m.end) before the next reservation. False if
 * everything from there to m.end is reserved.
 */
static bool free_part(const struct bootmem *bm, const struct bootmem_range *m, u64 from,
		      struct bootmem_range *out)
{
	u64 lo = MAX(from, m->base), hi = m->end;

	for (u32 i = 0; i < bm->nreserved && lo < hi; i++) {
		const struct bootmem_range *r = &bm->reserved[i];

		if (r->end <= lo)
			continue;
		if (r->base <= lo) {
			lo = r->end;    /* reservations never touch: the next one is past a gap */
			continue;
		}
		hi = MIN(hi, r->base);
		break;
	}
	if (lo >= hi)
		return false;
	*out = (struct bootmem_range){ lo, hi, m->node };
	return true;
}

bool bootmem_next_free(const struct bootmem *bm, u64 *cursor, struct bootmem_range *out)
{
	for (u32 i = 0; i < bm->nmemory; i++) {
		if (bm->memory[i].end <= *cursor)
			continue;
		if (free_part(bm, &bm->memory[i], *cursor, out)) {
			*cursor = out->end;
			return true;
		}
	}
	return false;
}

u64 bootmem_free_bytes(const struct bootmem *bm, int node, u64 max_addr)
{
	struct bootmem_range f;
	u64 cursor = 0, total = 0;

	while (bootmem_next_free(bm, &cursor, &f) && f.base < max_addr)
		if (node == NODE_ANY || f.node == node)
			total += MIN(f.end, max_addr) - f.base;
	return total;
}

/* --- allocation ------------------------------------------------------------- */

/* The highest address in [lo, hi) where size bytes aligned to align fit, or 0. */
static u64 fit_top_down(u64 lo, u64 hi, u64 size, u64 align)
{
	if (hi <= lo || hi - lo < size)
		return 0;
	u64 pa = ALIGN_DOWN(hi - size, align);

	return pa >= lo ? pa : 0;
}

/*
 * The highest fitting block in the free parts of [lo, hi): walk the
 * reservations downwards, trying the gap above each, then below the last.
 */
static u64 highest_fit(const struct bootmem *bm, u64 lo, u64 hi, u64 size, u64 align)
{
	u64 top = hi;

	for (u32 i = bm->nreserved; i-- > 0 && top > lo; ) {
		const struct bootmem_range *r = &bm->reserved[i];

		if (r->base >= top)
			continue;
		u64 pa = fit_top_down(MAX(r->end, lo), top, size, align);
		if (pa)
			return pa;
		top = r->base;
	}
	return fit_top_down(lo, top, size, align);
}

/*
 * The lowest address in the free parts of [lo, hi) where size bytes
 * aligned to align fit, or 0: walk the reservations upwards, trying the
 * gap below each, then above the last.
 */
static u64 lowest_fit(const struct bootmem *bm, u64 lo, u64 hi, u64 size, u64 align)
{
	u64 pa = ALIGN_UP(lo, align);

	for (u32 i = 0; i < bm->nreserved && pa < hi; i++) {
		const struct bootmem_range *r = &bm->reserved[i];

		if (r->end <= pa)
			continue;
		if (r->base >= pa && r->base - pa >= size)
			break;                  /* fits in the gap below r */
		pa = ALIGN_UP(r->end, align);
	}
	return pa < hi && hi - pa >= size ? pa : 0;
}

u64 bootmem_alloc_bottom_up(struct bootmem *bm, u64 size, u64 align, int node, u64 goal,
			    u64 max_addr)
{
	if (align == 0)
		align = 1;
	if (size == 0 || (align & (align - 1))) {
		pr_warn("bootmem: bad request: 0x%llx bytes aligned to 0x%llx\n", size, align);
		return 0;
	}
	for (int pass = goal ? 0 : 1; pass < 2; pass++) {
		u64 from = pass == 0 ? goal : 0;
		for (u32 i = 0; i < bm->nmemory; i++) {
			const struct bootmem_range *m = &bm->memory[i];

			if (node != NODE_ANY && m->node != node)
				continue;
			u64 pa = lowest_fit(bm, MAX(m->base, from), MIN(m->end, max_addr), size, align);
			if (!pa)
				continue;
			if (!bootmem_reserve(bm, pa, pa + size))
				return 0;
			return pa;
		}
	}
	return 0;
}

u64 bootmem_alloc(struct bootmem *bm, u64 size, u64 align, int node, u64 max_addr)
{
	if (align == 0)
		align = 1;
	if (size == 0 || (align & (align - 1))) {
		pr_warn("bootmem: bad request: 0x%llx bytes aligned to 0x%llx\n", size, align);
		return 0;
	}
	for (u32 i = bm->nmemory; i-- > 0; ) {
		const struct bootmem_range *m = &bm->memory[i];

		if (node != NODE_ANY && m->node != node)
			continue;
		u64 pa = highest_fit(bm, m->base, MIN(m->end, max_addr), size, align);
		if (!pa)
			continue;
		if (!bootmem_reserve(bm, pa, pa + size))
			return 0;
		return pa;
	}
	return 0;
}
