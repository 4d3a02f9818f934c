// SPDX-License-Identifier: MIT
/*
 * vm.c - build the kernel's page tables and map device memory on demand.
 *
 * x86-64 4-level paging: a virtual address is split into four 9-bit table
 * indexes and a 12-bit offset,
 *
 *   63    48 47   39 38   30 29   21 20   12 11      0
 *   [ sign ][ PML4 ][ PDPT ][  PD  ][  PT  ][ offset ]
 *
 * and a PDPT or PD entry with PS set maps a 1 GiB or 2 MiB page directly.
 * map_range() always uses the largest page that fits the alignment and the
 * length; when a smaller mapping is later needed inside a large page
 * (ioremap of a device page next to RAM), split() replaces the large page
 * by a table of 512 smaller ones with the same translation.
 *
 * Page-table pages come from a fixed pool in .bss (EARLY_PT_PAGES) until
 * the page allocator runs, then from it: the pool is enough for the image,
 * 64 GiB of RAM with 2 MiB pages (any amount with 1 GiB pages) and the
 * boot's devices. Running out is reported, never fatal. From the page
 * allocator they are taken before vm_lock (map_unlocked_alloc()), as
 * Linux's __pte_alloc() allocates a table outside the page-table lock and
 * installs it under the lock only if it is still needed: zeroing a page,
 * under QEMU the host's first touch of it, stays out of the window with
 * interrupts off.
 *
 * Invariants:
 *   - intermediate entries are always present|writable and never NX; the
 *     leaf alone decides the rights of a mapping;
 *   - every present leaf of the direct map at PAGE_OFFSET + p maps p;
 *   - vm_lock serializes every change to the live tables.
 */
#include "vm.h"
#include "kstring.h"
#include "page_alloc.h"
#include "printk.h"
#include "spinlock.h"
#include "x86.h"

#define PAT_WB 0x06
#define PAT_WC 0x01
#define PAT_UCMINUS 0x07
#define PAT_UC 0x00
/* PAT entries 0..3 = WB, WC, UC-, UC (and again for 4..7): PWT selects WC, PCD|PWT UC. */
#define PAT_VALUE                                                                    \
	((u64)PAT_WB | (u64)PAT_WC << 8 | (u64)PAT_UCMINUS << 16 | (u64)PAT_UC << 24 |  \
	 (u64)PAT_WB << 32 | (u64)PAT_WC << 40 | (u64)PAT_UCMINUS << 48 | (u64)PAT_UC << 56)

static u64 pt_pool[EARLY_PT_PAGES][512] __aligned(4096);
u32 vm_pt_pages_used;
u64 vm_direct_mapped;
static u64 *pml4;               /* the live (or being-built) top-level table */
static u64 pte_nx;              /* PTE_NX if the CPU has NX, else 0 (the bit is reserved) */
static bool have_1g_pages;
static struct spinlock vm_lock = SPINLOCK_INIT("vm");

extern char boot_stack_guard[], df_stack_guard[], nmi_stack_guard[];

static u64 level_size(int level)
{
	return 1UL << (PAGE_SHIFT + 9 * (level - 1));
}

static unsigned level_index(u64 va, int level)
{
	return (va >> (PAGE_SHIFT + 9 * (level - 1))) & 511;
}

static u64 (*pt_allocator)(void);     /* after boot: the page allocator */

/*
 * Tables allocated before vm_lock was taken, for one mapping: pt_alloc()
 * takes from here while pt_reserve_in_use points at it (vm_lock held), and
 * when it is empty says so (short_of_tables) instead of allocating.
 */
#define PT_RESERVE 3            /* a PDPT, a PD and a PT: all a 4 KiB page can lack */
struct pt_reserve {
	u64 pa[PT_RESERVE];
	u32 n;
	bool short_of_tables;
};
static struct pt_reserve *pt_reserve_in_use;    /* vm_lock */
static u64 pages_kept[MAX_NODES];       /* per node: stacks and page tables (vm_pages_kept) */

void vm_count_kept(u64 pa, s64 pages)
{
	struct page *p = phys_to_page(pa);

	if (p)
		__atomic_add_fetch(&pages_kept[p->node], (u64)pages, __ATOMIC_RELAXED);
}

u64 vm_pages_kept(int node)
{
	return node >= 0 && node < MAX_NODES ? __atomic_load_n(&pages_kept[node], __ATOMIC_RELAXED) : 0;
}

u64 (*vm_set_pt_allocator(u64 (*alloc)(void)))(void)
{
	u64 (*old)(void) = pt_allocator;

	pt_allocator = alloc;
	return old;
}

/* A zeroed page-table page, as a physical address; 0 when none is left. */
static u64 pt_alloc(void)
{
	static bool warned;
	struct pt_reserve *r = pt_reserve_in_use;

	if (r) {
		if (!r->n) {
			r->short_of_tables = true;
			return 0;
		}
		u64 pa = r->pa[--r->n];

		vm_count_kept(pa, 1);
		return pa;
	}
	if (pt_allocator) {
		u64 pa = pt_allocator();
		if (pa)
			vm_count_kept(pa, 1);
		return pa;
	}

	if (vm_pt_pages_used == EARLY_PT_PAGES) {
		if (!warned)
			pr_err("vm: all %u page-table pages used; mapping refused\n", EARLY_PT_PAGES);
		warned = true;
		return 0;
	}
	u64 *t = pt_pool[vm_pt_pages_used++];
	memset(t, 0, PAGE_SIZE);
	return virt_to_phys(t);
}

u64 vm_translate(u64 va, u64 *leaf, int *level);

/* Flush every TLB entry, global ones too (toggling CR4.PGE does that). */
static void tlb_flush_all(void)
{
	u64 cr4 = read_cr4();

	if (cr4 & CR4_PGE) {
		write_cr4(cr4 & ~CR4_PGE);
		write_cr4(cr4);
	} else {
		write_cr3(read_cr3());
	}
}

/* Replace the large page at *e (level 2 or 3) by a table of 512 smaller pages. */
static bool split(u64 *e, int level)
{
	u64 pa = pt_alloc();
	u64 *t, base, flags, step;

	if (!pa)
		return false;
	t = phys_to_virt(pa);
	base = *e & PTE_ADDR & ~(level_size(level) - 1);
	flags = *e & ~PTE_ADDR;
	step = level_size(level - 1);
	if (level - 1 == 1)
		flags &= ~PTE_PS;       /* in a PT, bit 7 means PAT, not PS */
	for (int i = 0; i < 512; i++)
		t[i] = (base + i * step) | flags;
	*e = pa | PTE_P | PTE_W;
	tlb_flush_all();
	return true;
}

/* The entry for va at level (1 = PT ... 4 = PML4), creating tables on the way. */
static u64 *walk_create(u64 va, int level)
{
	u64 *table = pml4;

	for (int l = 4; l > level; l--) {
		u64 *e = &table[level_index(va, l)];

		if (!(*e & PTE_P)) {
			u64 pa = pt_alloc();
			if (!pa)
				return NULL;
			*e = pa | PTE_P | PTE_W | (va < USER_TOP ? PTE_U : 0);
		} else if (*e & PTE_PS) {
			if (!split(e, l))
				return NULL;
		}
		table = phys_to_virt(*e & PTE_ADDR);
	}
	return &table[level_index(va, level)];
}

/*
 * Map [va, va + size) to [pa, ...) with leaf flags (PTE_P etc.), using 1 GiB
 * and 2 MiB pages where allowed and aligned. All three must be page-aligned.
 * Returns false if page tables ran out (part of the range may be mapped).
 */
#define PTE_RIGHTS (PTE_P | PTE_W | PTE_U | PTE_PWT | PTE_PCD | PTE_G | PTE_NX)

static bool map_range(u64 va, u64 pa, u64 size, u64 flags, bool allow_large)
{
	while (size) {
		int level = 1;
		u64 *e, leaf;

		/* Already mapped as asked (memremap of RAM, say): keep the page as is. */
		if (vm_translate(va, &leaf, &level) == pa &&
		    (leaf & PTE_RIGHTS) == (flags & PTE_RIGHTS)) {
			u64 step = level_size(level) - (va & (level_size(level) - 1));
			step = MIN(step, size);
			va += step;
			pa += step;
			size -= step;
			continue;
		}
		level = 1;

		if (allow_large && have_1g_pages && IS_ALIGNED(va | pa, HUGE_PAGE_SIZE) &&
		    size >= HUGE_PAGE_SIZE)
			level = 3;
		else if (allow_large && IS_ALIGNED(va | pa, LARGE_PAGE_SIZE) && size >= LARGE_PAGE_SIZE)
			level = 2;
		for (;; level--) {
			e = walk_create(va, level);
			if (!e)
				return false;
			/* A table already sits where a large page would go: map smaller. */
			if (level == 1 || !(*e & PTE_P) || (*e & PTE_PS))
				break;
		}
		u64 entry = pa | flags | (level > 1 ? PTE_PS : 0);
		if (*e != entry) {
			bool was_present = *e & PTE_P;
			*e = entry;
			if (was_present)
				invlpg(va);
		}
		va += level_size(level);
		pa += level_size(level);
		size -= level_size(level);
	}
	return true;
}

/*
 * map_range() under vm_lock with the tables it needs allocated before: a
 * try with what the reserve holds; short of a table, vm_lock is let go,
 * the reserve filled (interrupts as the caller has them) and the range
 * tried again, map_range() skipping what is mapped already. What is left
 * in the reserve goes back. Before the page allocator runs, the early
 * pool serves under the lock as before.
 */
static bool map_unlocked_alloc(u64 va, u64 pa, u64 size, u64 flags, bool allow_large)
{
	struct pt_reserve r = { .n = 0 };
	bool ok;

	for (;;) {
		u64 irq = spin_lock_irqsave(&vm_lock);

		r.short_of_tables = false;
		pt_reserve_in_use = pt_allocator ? &r : NULL;
		ok = map_range(va, pa, size, flags, allow_large);
		pt_reserve_in_use = NULL;
		spin_unlock_irqrestore(&vm_lock, irq);
		if (ok || !r.short_of_tables)
			break;
		while (r.n < PT_RESERVE) {
			u64 table = pt_allocator();

			if (!table)
				break;
			r.pa[r.n++] = table;
		}
		if (!r.n)
			break;          /* no memory for a table: ok stays false */
	}
	while (r.n)
		free_pages(phys_to_page(r.pa[--r.n]), 0);
	return ok;
}

static void unmap_page(u64 va)
{
	u64 *e = walk_create(va, 1);

	if (e) {
		*e = 0;
		invlpg(va);
	}
}

u64 vm_translate(u64 va, u64 *leaf, int *level)
{
	u64 *table = pml4;

	if ((s64)va >> 47 != 0 && (s64)va >> 47 != -1)
		return (u64)-1;         /* not canonical */
	if (!table)
		table = phys_to_virt(read_cr3() & PTE_ADDR);
	for (int l = 4; l >= 1; l--) {
		u64 e = table[level_index(va, l)];

		if (!(e & PTE_P))
			return (u64)-1;
		if (l == 1 || (e & PTE_PS)) {
			u64 size = level_size(l);
			if (leaf)
				*leaf = e;
			if (level)
				*level = l;
			return (e & PTE_ADDR & ~(size - 1)) + (va & (size - 1));
		}
		table = phys_to_virt(e & PTE_ADDR);
	}
	return (u64)-1;
}

static u64 cache_bits(enum vm_cache cache)
{
	switch (cache) {
	case VM_WC: return PTE_PWT;
	case VM_UC: return PTE_PWT | PTE_PCD;
	default: return 0;
	}
}

/* Map one image region [start, end) of the kernel at its link address. */
static void map_image(const char *start, const char *end, u64 flags)
{
	u64 va = (u64)start;

	if (!map_range(va, va - KERNEL_VMA, ALIGN_UP((u64)end - va, PAGE_SIZE), flags, false))
		pr_err("vm: cannot map kernel region 0x%llx\n", va);
}

/*
 * The RAM vm_init() direct-mapped write-back that the kernel hands out
 * (the memory map's usable ranges, Linux's "System RAM") and the image:
 * their pages are mapped again elsewhere (stacks, user space, the image at
 * -2 GiB), so ioremap() gives no other cache type inside them. ACPI data,
 * NVS and persistent memory are direct-mapped too but mapped nowhere
 * else: an ioremap() there changes the one mapping they have. Written
 * before the APs start, read-only after.
 */
static struct {
	u64 base, end;
} wb_ram[MMAP_MAX + 1];
static u32 nr_wb_ram;

bool vm_range_is_ram(u64 base, u64 end)
{
	for (u32 i = 0; i < nr_wb_ram; i++)
		if (wb_ram[i].base < end && base < wb_ram[i].end)
			return true;
	return false;
}

static void map_direct(u64 base, u64 end, bool handed_out)
{
	base = ALIGN_UP(base, PAGE_SIZE);
	end = ALIGN_DOWN(end, PAGE_SIZE);
	if (end > DIRECT_MAP_SIZE) {
		pr_warn("vm: RAM above %lu TiB is not mapped (range ends at 0x%llx)\n",
			DIRECT_MAP_SIZE >> 40, end);
		end = DIRECT_MAP_SIZE;
	}
	if (base >= end)
		return;
	if (map_range(PAGE_OFFSET + base, base, end - base, PTE_P | PTE_W | PTE_G | pte_nx, true))
		vm_direct_mapped += end - base;
	if (handed_out && nr_wb_ram < ARRAY_SIZE(wb_ram))
		wb_ram[nr_wb_ram++] = (typeof(wb_ram[0])){ base, end };
}

void vm_init(const struct memmap *map)
{
	u32 a, b, c, d;

	cpuid(0x80000001, 0, &a, &b, &c, &d);
	pte_nx = (d & (1u << 20)) ? PTE_NX : 0;
	have_1g_pages = d & (1u << 26);
	wrmsr(MSR_PAT, PAT_VALUE);

	pml4 = phys_to_virt(pt_alloc());

	/* The image: text RX, rodata R, data/bss/stacks RW; all global. */
	map_image(__text_start, __text_end, PTE_P | PTE_G);
	map_image(__rodata_start, __rodata_end, PTE_P | PTE_G | pte_nx);
	map_image(__data_start, __data_end, PTE_P | PTE_W | PTE_G | pte_nx);
	unmap_page((u64)boot_stack_guard);
	unmap_page((u64)df_stack_guard);
	unmap_page((u64)nmi_stack_guard);

	/* The direct map: every RAM range, plus the image wherever it was loaded. */
	for (u32 i = 0; i < map->n; i++)
		if (e820_is_ram(map->e[i].type))
			map_direct(map->e[i].base, map->e[i].end, map->e[i].type == E820_USABLE);
	map_direct((u64)__kernel_phys_start, (u64)__kernel_end - KERNEL_VMA, true);
	if (map->n == 0) {
		/* What in there is RAM is not known: only the image is refused. */
		pr_warn("vm: no memory map; direct-mapping the first 4 GiB blindly\n");
		map_direct(0, 4UL << 30, false);
	}

	write_cr3(virt_to_phys(pml4));
	write_cr4(read_cr4() | CR4_PGE);
	write_cr0(read_cr0() | CR0_WP);
	pr_info("vm: direct map %llu MiB, %s pages, NX %s, %u page-table pages\n",
		(vm_direct_mapped >> 20), have_1g_pages ? "1 GiB" : "2 MiB",
		pte_nx ? "on" : "unavailable", vm_pt_pages_used);
}

bool vm_map_user(u64 va, u64 pa, u64 size, bool writable, bool exec)
{
	if (!IS_ALIGNED(va | pa | size, PAGE_SIZE) || va >= USER_TOP || size > USER_TOP - va)
		return false;
	u64 flags = PTE_P | PTE_U | (writable ? PTE_W : 0) | (exec ? 0 : pte_nx);

	return map_unlocked_alloc(va, pa, size, flags, false);
}

void vm_unmap_user(u64 va, u64 size)
{
	if (va >= USER_TOP || size > USER_TOP - va)
		return;
	u64 irq = spin_lock_irqsave(&vm_lock);

	for (u64 off = 0; off < size; off += PAGE_SIZE)
		if (vm_translate(va + off, NULL, NULL) != (u64)-1)
			unmap_page(va + off);
	spin_unlock_irqrestore(&vm_lock, irq);
}

/*
 * Map [pa, pa + size) into the direct map with cache type cache: the work
 * of ioremap() and memremap(), named by who in the messages. The range is
 * checked against DIRECT_MAP_SIZE before anything is rounded
 * (vm_remap_range()): a firmware address in the last page below 2^64
 * would round its end up to 0.
 */
static void *remap(u64 pa, u64 size, enum vm_cache cache, const char *who)
{
	u64 base, end, flags;
	bool ok;

	if (!vm_remap_range(pa, size, &base, &end)) {
		pr_err("vm: %s 0x%llx+0x%llx is outside the direct map\n", who, pa, size);
		return NULL;
	}
	if (!pml4) {
		pr_err("vm: %s 0x%llx before vm_init\n", who, pa);
		return NULL;
	}
	/*
	 * RAM stays write-back: the same physical page under two cache types
	 * is an alias Intel does not support ("may lead to undefined
	 * operations", SDM vol. 3A 11.12.4 in the edition read), and x86
	 * Linux's ioremap refuses System RAM too ("ioremap on RAM at",
	 * arch/x86/mm/ioremap.c).
	 */
	if (cache != VM_WB && vm_range_is_ram(base, end)) {
		pr_err("vm: ioremap 0x%llx+0x%llx refused: it is RAM, mapped write-back\n", pa, size);
		return NULL;
	}
	flags = PTE_P | PTE_W | PTE_G | pte_nx | cache_bits(cache);
	ok = map_unlocked_alloc(PAGE_OFFSET + base, base, end - base, flags, true);
	if (!ok) {
		pr_err("vm: %s 0x%llx+0x%llx: out of page tables\n", who, pa, size);
		return NULL;
	}
	return phys_to_virt(pa);
}

/* Device registers: the direct map's own address, in the __iomem space. */
void __iomem *ioremap(u64 pa, u64 size, enum vm_cache cache)
{
	return (void __iomem __force *)remap(pa, size, cache, "ioremap");
}

/* Firmware tables: memory, so a plain pointer (never refused as RAM: write-back). */
void *memremap(u64 pa, u64 size)
{
	return remap(pa, size, VM_WB, "memremap");
}

/* --- the stack area --------------------------------------------------------- */

/*
 * Slot i covers [STACK_AREA + i * STACK_SLOT, + STACK_SLOT). Its stack ends
 * at the top of the slot and grows down; every page below the stack, the
 * guard page included, stays unmapped, so running off the bottom faults.
 *
 * A freed stack stays mapped and goes on a free list for the next thread.
 * Unmapping it would leave stale TLB entries on the other CPUs that ran the
 * thread (kernel mappings are global: nothing flushes them), and the next
 * stack mapped at that address would be seen through them as the old pages.
 * Reusing the mapping needs no TLB shootdown at all.
 *
 * Every stack is handed out zeroed: fresh pages come zeroed from the page
 * allocator and a cached stack is cleared, as Linux clears a reused one
 * ("Clear stale pointers from reused stack", kernel/fork.c). Under QEMU's
 * TCG the zeroing does more: a page that once held code QEMU translated
 * (the firmware and GRUB run from pages the kernel later hands out) keeps
 * its translated blocks until every one is written over, and each store
 * to such a page takes QEMU's self-modifying-code path. A stack on such
 * a page slows every push and call of its thread many times over
 * (docs/performance.md).
 */
static u8 stack_slot_state[MAX_STACKS];        /* 0 never used, 1 in use, 2 free and mapped */
static u16 stack_slot_node[MAX_STACKS];
static u32 stack_slot_pages[MAX_STACKS];
static struct spinlock stack_lock = SPINLOCK_INIT("stacks");

enum { SLOT_UNUSED, SLOT_IN_USE, SLOT_CACHED };

static u64 slot_top(u32 slot)
{
	return STACK_AREA + (u64)(slot + 1) * STACK_SLOT;
}

/* A cached stack of this size on node (or any node), else a fresh slot; -1 if none. */
static int take_slot(u64 pages, int node)
{
	int fresh = -1, cached_elsewhere = -1;

	for (u32 slot = 0; slot < MAX_STACKS; slot++) {
		if (stack_slot_state[slot] == SLOT_CACHED && stack_slot_pages[slot] == pages) {
			if (node < 0 || stack_slot_node[slot] == node)
				return (int)slot;
			if (cached_elsewhere < 0)
				cached_elsewhere = (int)slot;
		} else if (stack_slot_state[slot] == SLOT_UNUSED && fresh < 0) {
			fresh = (int)slot;
		}
	}
	return fresh >= 0 ? fresh : cached_elsewhere;
}

static bool map_fresh_stack(u64 top, u64 pages, int node)
{
	u64 flags = PTE_P | PTE_W | PTE_G | pte_nx;

	for (u64 i = 1; i <= pages; i++) {
		struct page *p = alloc_pages(0, node, ALLOC_ZERO);
		if (!p)
			return false;   /* the pages mapped so far stay with the slot */
		bool ok = map_unlocked_alloc(top - i * PAGE_SIZE, page_to_phys(p), PAGE_SIZE,
					     flags, false);
		if (!ok) {
			free_pages(p, 0);
			return false;
		}
		vm_count_kept(page_to_phys(p), 1);
	}
	return true;
}

u64 vm_alloc_stack(u64 size, int node)
{
	u64 pages = ALIGN_UP(size, PAGE_SIZE) / PAGE_SIZE;

	if (!pages || pages * PAGE_SIZE > STACK_SLOT - PAGE_SIZE)
		return 0;
	u64 irq = spin_lock_irqsave(&stack_lock);
	int slot = take_slot(pages, node);
	bool cached = slot >= 0 && stack_slot_state[slot] == SLOT_CACHED;
	if (slot >= 0)
		stack_slot_state[slot] = SLOT_IN_USE;
	spin_unlock_irqrestore(&stack_lock, irq);
	if (slot < 0) {
		pr_err("vm: all %u stack slots in use\n", MAX_STACKS);
		return 0;
	}
	if (cached) {
		/* a cached stack is cleared as fresh pages come (see above) */
		memset((void *)(slot_top((u32)slot) - pages * PAGE_SIZE), 0, pages * PAGE_SIZE);
		return slot_top((u32)slot);
	}
	stack_slot_pages[slot] = (u32)pages;
	stack_slot_node[slot] = (u16)(node < 0 ? 0 : node);
	if (!map_fresh_stack(slot_top((u32)slot), pages, node)) {
		pr_err("vm: out of memory for a %llu KiB stack\n", pages * 4);
		return 0;       /* the slot stays in use: its pages are partly mapped */
	}
	return slot_top((u32)slot);
}

void vm_free_stack(u64 top)
{
	u64 slot = (top - STACK_AREA) / STACK_SLOT - 1;

	if (top <= STACK_AREA || top > STACK_AREA + (u64)MAX_STACKS * STACK_SLOT ||
	    (top - STACK_AREA) % STACK_SLOT || stack_slot_state[slot] != SLOT_IN_USE) {
		pr_err("vm: vm_free_stack(0x%llx): not a stack in use\n", top);
		return;
	}
	u64 irq = spin_lock_irqsave(&stack_lock);
	stack_slot_state[slot] = SLOT_CACHED;
	spin_unlock_irqrestore(&stack_lock, irq);
}
