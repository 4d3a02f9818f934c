/* SPDX-License-Identifier: MIT */
/*
 * vm.h - the kernel's one address space.
 *
 *   0xffff800000000000  direct map: physical address p is at PAGE_OFFSET + p.
 *                       RAM is mapped at boot (write-back); device memory is
 *                       mapped into the same window on demand by ioremap(),
 *                       uncached or write-combining. One physical page, one
 *                       virtual address, one cache type: no aliases.
 *   0xffffe00000000000  stack area: run-time stacks, one 64 KiB slot each,
 *                       the lowest page of each slot left unmapped (guard)
 *   0xffffffff80000000  kernel image (-2 GiB): text read-only and executable,
 *                       rodata read-only, data and bss read-write, both NX;
 *                       each stack's guard page is left unmapped.
 *   below 0x800000000000 user mode (kernel/user.c): the only pages with the
 *                       user bit, set at every level of their walk; every
 *                       kernel page lacks it, so user mode cannot touch
 *                       the kernel, and SMEP/SMAP (where the CPU has them)
 *                       keep the kernel from running or touching user pages.
 * Nothing else is mapped: address 0 faults, so does anything not listed.
 */
#ifndef VM_H
#define VM_H

#include "memmap.h"
#include "param.h"
#include "types.h"

#define PAGE_SIZE       4096UL
#define PAGE_SHIFT      12
#define LARGE_PAGE_SIZE (2UL << 20)
#define HUGE_PAGE_SIZE  (1UL << 30)

/* Page-table entry bits (Intel SDM vol. 3, 4.5). */
#define PTE_P           (1UL << 0)      /* present */
#define PTE_W           (1UL << 1)      /* writable */
#define PTE_U           (1UL << 2)      /* user mode may access (needed at every level) */
#define PTE_PWT         (1UL << 3)      /* with PCD: selects the PAT entry */
#define PTE_PCD         (1UL << 4)
#define PTE_A           (1UL << 5)
#define PTE_D           (1UL << 6)
#define PTE_PS          (1UL << 7)      /* in a PDPTE/PDE: 1 GiB/2 MiB page */
#define PTE_G           (1UL << 8)      /* global: survives CR3 reloads */
#define PTE_NX          (1UL << 63)     /* no execute (needs EFER.NXE) */
#define PTE_ADDR        0x000ffffffffff000UL

/* Cache types, through the PAT we program: index 0 WB, 1 WC, 3 UC. */
enum vm_cache { VM_WB, VM_WC, VM_UC };

/* Page-fault error code bits. */
#define PF_PRESENT      (1UL << 0)      /* 0: page not present; 1: protection */
#define PF_WRITE        (1UL << 1)
#define PF_USER         (1UL << 2)
#define PF_RSVD         (1UL << 3)
#define PF_INSTR        (1UL << 4)      /* instruction fetch */

#ifndef HOST_TEST
static inline void *phys_to_virt(u64 pa)
{
	return (void *)(PAGE_OFFSET + pa);
}

/* Physical address of a direct-map or kernel-image address. */
static inline u64 virt_to_phys(const void *va)
{
	u64 v = (u64)va;

	return v >= KERNEL_VMA ? v - KERNEL_VMA : v - PAGE_OFFSET;
}
#else
/*
 * Host unit tests: "physical memory" is a large lazily-backed mapping made
 * by tests/host/host.c, so allocators can be tested on made-up layouts.
 */
extern u8 *host_phys_base;
static inline void *phys_to_virt(u64 pa)
{
	return host_phys_base + pa;
}

static inline u64 virt_to_phys(const void *va)
{
	return (u64)((const u8 *)va - host_phys_base);
}
#endif

/*
 * Build the real page tables from the memory map and switch to them.
 * Before this, the boot tables map the first 4 GiB at PAGE_OFFSET.
 */
void vm_init(const struct memmap *map);

/*
 * The whole pages [*base, *end) that hold the bytes [pa, pa + size), for
 * ioremap() and memremap(); false if the range is empty or reaches past
 * the direct map. Checked before anything is rounded: a firmware address
 * in the last page below 2^64 would round its end up to 0 and pass. Since
 * DIRECT_MAP_SIZE is page-aligned, the rounded end of a range that fits
 * does not pass it either. Pure; fuzzed (tests/fuzz/ioremap_range.c).
 */
static inline bool vm_remap_range(u64 pa, u64 size, u64 *base, u64 *end)
{
	if (size == 0 || pa >= DIRECT_MAP_SIZE || size > DIRECT_MAP_SIZE - pa)
		return false;
	*base = ALIGN_DOWN(pa, PAGE_SIZE);
	*end = ALIGN_UP(pa + size, PAGE_SIZE);
	return true;
}

/*
 * Map device memory [pa, pa + size) into the direct map with the given
 * cache type and return its virtual address, or NULL (with a message) if it
 * cannot be mapped. Already-mapped pages with the same type are left alone.
 * RAM (what vm_init() mapped write-back) is refused any other type. The
 * address is __iomem: registers are read and written with readl() and
 * writel() and their kind (include/io.h), never dereferenced.
 */
void __iomem *ioremap(u64 pa, u64 size, enum vm_cache cache);

/* Whether [base, end) overlaps the usable RAM or the image vm_init() direct-mapped write-back. */
bool vm_range_is_ram(u64 base, u64 end);

/*
 * Firmware data outside RAM (ACPI tables in "reserved" ranges): mapped as
 * ioremap(pa, size, VM_WB) maps it, but memory, not registers, so a plain
 * pointer (Linux's memremap(), MEMREMAP_WB). NULL (with a message) if it
 * cannot be mapped.
 */
void *memremap(u64 pa, u64 size);

/*
 * Walk the page tables for va: the physical address it maps to, or
 * (u64)-1 if unmapped. *leaf gets the final entry (flags included) and
 * *level the page size level (1 = 4 KiB, 2 = 2 MiB, 3 = 1 GiB). Either may
 * be NULL.
 */
u64 vm_translate(u64 va, u64 *leaf, int *level);

/* True if va is mapped (safe to read). */
static inline bool vm_mapped(u64 va)
{
	return vm_translate(va, NULL, NULL) != (u64)-1;
}

/* The user half of the address space: [0, USER_TOP). */
#define USER_TOP        0x0000800000000000UL

/*
 * Map [va, va + size) of the user half to [pa, ...) as user pages: read
 * only or writable, executable or not. Page-aligned; false if va is not
 * in the user half or page tables ran out.
 */
bool vm_map_user(u64 va, u64 pa, u64 size, bool writable, bool exec);
void vm_unmap_user(u64 va, u64 size);

/*
 * From now on take page-table pages from alloc (a zeroed page of the page
 * allocator: its physical address, 0 when out; one left over is given
 * back with free_pages()) instead of the boot pool: set once the page
 * allocator runs. alloc runs before vm_lock is taken, with interrupts as
 * the mapping's caller has them. Returns the allocator it replaces.
 */
u64 (*vm_set_pt_allocator(u64 (*alloc)(void)))(void);

/*
 * A kernel stack of size bytes (a multiple of PAGE_SIZE, at most
 * STACK_SLOT - PAGE_SIZE) from node's memory, with an unmapped guard page
 * below it, zeroed (fresh or reused). Returns the stack's top (where RSP
 * starts), or 0. Needs the page allocator.
 */
u64 vm_alloc_stack(u64 size, int node);
void vm_free_stack(u64 top);

/*
 * Pages of node the vm has taken from the page allocator and keeps: stacks
 * (a freed stack stays mapped for the next thread, since nothing could shoot
 * down its TLB entries) and page-table pages. The test runner's leak check
 * counts them with the free pages.
 */
u64 vm_pages_kept(int node);
/* Count pages kept for good (+) or given back (-) at pa's node in vm_pages_kept(). */
void vm_count_kept(u64 pa, s64 pages);

/* Bytes of RAM the direct map covers, and the page-table pages in use. */
extern u64 vm_direct_mapped;
extern u32 vm_pt_pages_used;

/* Linker-script symbols: the image's regions. */
extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __data_end[], __kernel_end[], __kernel_phys_start[];
extern char __bss_start[], __bss_end[];

#endif
