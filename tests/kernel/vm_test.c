// SPDX-License-Identifier: MIT
/*
 * vm_test.c - the page tables say what include/vm.h promises.
 */
#include "kstring.h"
#include "ktest.h"
#include "mb2.h"
#include "memmap.h"
#include "page_alloc.h"
#include "percpu.h"
#include "vm.h"
#include "x86.h"

extern char boot_stack_guard[], boot_stack_bottom[], boot_stack_top[];
extern char df_stack_guard[], nmi_stack_guard[];

static const u64 rodata_object = 0x1234;
static u64 data_object = 1;

static u64 leaf_of(u64 va)
{
	u64 leaf = 0;

	vm_translate(va, &leaf, NULL);
	return leaf;
}

static void text_is_read_only_and_executable(struct ktest *t)
{
	u64 leaf = leaf_of((u64)kernel_main);

	EXPECT_TRUE(t, leaf & PTE_P);
	EXPECT_FALSE(t, leaf & PTE_W);
	EXPECT_FALSE(t, leaf & PTE_NX);
	EXPECT_EQ(t, vm_translate((u64)kernel_main, NULL, NULL), (u64)kernel_main - KERNEL_VMA);
}

static void rodata_is_read_only(struct ktest *t)
{
	u64 leaf = leaf_of((u64)&rodata_object);

	EXPECT_TRUE(t, leaf & PTE_P);
	EXPECT_FALSE(t, leaf & PTE_W);
	if (rdmsr(MSR_EFER) & EFER_NXE)
		EXPECT_TRUE(t, leaf & PTE_NX);
}

static void data_is_writable_not_executable(struct ktest *t)
{
	u64 leaf = leaf_of((u64)&data_object);

	EXPECT_TRUE(t, leaf & PTE_W);
	if (rdmsr(MSR_EFER) & EFER_NXE)
		EXPECT_TRUE(t, leaf & PTE_NX);
}

static void stack_guard_pages_are_unmapped(struct ktest *t)
{
	EXPECT_FALSE(t, vm_mapped((u64)boot_stack_guard));
	EXPECT_FALSE(t, vm_mapped((u64)boot_stack_guard + PAGE_SIZE - 1));
	EXPECT_FALSE(t, vm_mapped((u64)df_stack_guard));
	EXPECT_FALSE(t, vm_mapped((u64)nmi_stack_guard));
	EXPECT_TRUE(t, vm_mapped((u64)boot_stack_bottom));
	EXPECT_TRUE(t, vm_mapped((u64)boot_stack_top - 8));
}

static void null_page_is_unmapped(struct ktest *t)
{
	EXPECT_FALSE(t, vm_mapped(0));
	EXPECT_FALSE(t, vm_mapped(PAGE_SIZE - 1));
}

/* Every usable range is reachable at PAGE_OFFSET + phys, first and last page. */
static void direct_map_covers_all_ram(struct ktest *t)
{
	u32 checked = 0;

	for (u32 i = 0; i < boot_memmap.n; i++) {
		const struct memmap_entry *e = &boot_memmap.e[i];
		u64 first = ALIGN_UP(e->base, PAGE_SIZE), last = ALIGN_DOWN(e->end, PAGE_SIZE);

		if (e->type != E820_USABLE || first >= last)
			continue;
		EXPECT_EQ(t, vm_translate((u64)phys_to_virt(first), NULL, NULL), first);
		EXPECT_EQ(t, vm_translate((u64)phys_to_virt(last - 8), NULL, NULL), last - 8);
		checked++;
	}
	EXPECT_GT(t, checked, 0);
}

/* The kernel image and the direct map are two views of the same frames. */
static void direct_map_aliases_the_image(struct ktest *t)
{
	volatile u64 *alias = phys_to_virt(virt_to_phys(&data_object));

	data_object = 0x5eed;
	EXPECT_EQ(t, *alias, 0x5eed);
	*alias = 0xfeed;
	EXPECT_EQ(t, data_object, 0xfeed);
}

/* Memory above 4 GiB (the story topology has 3 GiB there) is usable at once. */
static void ram_above_4g_is_usable(struct ktest *t)
{
	u64 base = 0, end = 0;

	for (u32 i = 0; i < boot_memmap.n; i++)
		if (boot_memmap.e[i].type == E820_USABLE && boot_memmap.e[i].end > (4UL << 30)) {
			base = MAX(boot_memmap.e[i].base, 4UL << 30);
			end = boot_memmap.e[i].end;
			break;
		}
	if (!end)
		KTEST_SKIP(t, "no RAM above 4 GiB on this machine");
	volatile u64 *lo = phys_to_virt(base), *hi = phys_to_virt(end - 8);
	u64 save_lo = *lo, save_hi = *hi;
	*lo = 0x0123456789abcdefUL;
	*hi = ~0x0123456789abcdefUL;
	EXPECT_EQ(t, *lo, 0x0123456789abcdefUL);
	EXPECT_EQ(t, *hi, ~0x0123456789abcdefUL);
	*lo = save_lo;
	*hi = save_hi;
}

static void pat_has_write_combining(struct ktest *t)
{
	u64 pat = rdmsr(MSR_PAT);

	EXPECT_EQ(t, pat & 0xff, 0x06);                 /* entry 0: write-back */
	EXPECT_EQ(t, (pat >> 8) & 0xff, 0x01);          /* entry 1: write-combining */
	EXPECT_EQ(t, (pat >> 24) & 0xff, 0x00);         /* entry 3: uncached */
}

/*
 * A device page far above RAM (where OVMF puts 64-bit BARs) maps uncached.
 * On a machine with 896 GiB of RAM or more that address is RAM: skipped.
 */
static void ioremap_maps_high_mmio_uncached(struct ktest *t)
{
	u64 pa = 0xe000000000UL;

	if (vm_range_is_ram(pa, pa + PAGE_SIZE))
		KTEST_SKIP(t, "0xe000000000 is RAM on this machine");
	void __iomem *va = ioremap(pa, PAGE_SIZE, VM_UC);
	u64 leaf = 0;

	ASSERT_TRUE(t, va != NULL);
	EXPECT_EQ(t, (__force u64)va, PAGE_OFFSET + pa);
	EXPECT_EQ(t, vm_translate((__force u64)va, &leaf, NULL), pa);
	EXPECT_EQ(t, leaf & (PTE_PCD | PTE_PWT), PTE_PCD | PTE_PWT);
}

/*
 * RAM is refused another cache type, uncached or write-combining: its page
 * in the direct map stays write-back (one physical page, one cache type).
 */
static void ioremap_refuses_ram_uncached(struct ktest *t)
{
	u64 pa = virt_to_phys(&data_object), before, after;

	ASSERT_TRUE(t, vm_range_is_ram(pa, pa + 8));
	vm_translate((u64)phys_to_virt(pa), &before, NULL);
	EXPECT_TRUE(t, ioremap(pa, 8, VM_UC) == NULL);
	EXPECT_TRUE(t, ioremap(pa, 8, VM_WC) == NULL);
	vm_translate((u64)phys_to_virt(pa), &after, NULL);
	EXPECT_EQ(t, after, before);
	EXPECT_EQ(t, after & (PTE_PCD | PTE_PWT), 0);

	/* A page the page allocator hands out, and a range that only ends in it. */
	struct page *p = alloc_pages(0, NODE_ANY, 0);

	ASSERT_TRUE(t, p != NULL);
	pa = page_to_phys(p);
	EXPECT_TRUE(t, vm_range_is_ram(pa, pa + PAGE_SIZE));
	EXPECT_TRUE(t, ioremap(pa, PAGE_SIZE, VM_UC) == NULL);
	EXPECT_TRUE(t, ioremap(pa - 8, 16, VM_WC) == NULL);
	vm_translate((u64)phys_to_virt(pa), &after, NULL);
	EXPECT_EQ(t, after & (PTE_PCD | PTE_PWT), 0);
	free_pages(p, 0);
	EXPECT_FALSE(t, vm_range_is_ram(0xfee00000, 0xfee01000));  /* the local APIC's page */
}

/* memremap of RAM that is already mapped write-back changes nothing. */
static void memremap_of_ram_keeps_the_mapping(struct ktest *t)
{
	u64 pa = virt_to_phys(&data_object);
	u64 before, after;
	int level_before, level_after;

	vm_translate((u64)phys_to_virt(pa), &before, &level_before);
	ASSERT_TRUE(t, memremap(pa, 8) == phys_to_virt(pa));
	vm_translate((u64)phys_to_virt(pa), &after, &level_after);
	EXPECT_EQ(t, before, after);
	EXPECT_EQ(t, level_before, level_after);
}

static void ioremap_rejects_addresses_past_the_direct_map(struct ktest *t)
{
	EXPECT_TRUE(t, ioremap(DIRECT_MAP_SIZE, PAGE_SIZE, VM_UC) == NULL);
	EXPECT_TRUE(t, ioremap(~0UL - 10, 100, VM_UC) == NULL);
	EXPECT_TRUE(t, ioremap(DIRECT_MAP_SIZE - PAGE_SIZE, 2 * PAGE_SIZE, VM_UC) == NULL);
}

/*
 * A range in the last page below 2^64 whose end does not wrap, but whose
 * end rounded up to a page does (to 0): firmware can name one (an XSDT
 * entry, the FADT's X_DSDT or X_PM_TMR_BLK, the MADT's LAPIC address, the
 * reset register). It must be refused, not mapped below the direct map.
 */
static void ioremap_rejects_the_last_page_of_the_address_space(struct ktest *t)
{
	EXPECT_TRUE(t, ioremap(0xfffffffffffff800UL, 0x100, VM_UC) == NULL);
	EXPECT_TRUE(t, ioremap(0xfffffffffffff000UL, 0xfff, VM_UC) == NULL);
	EXPECT_TRUE(t, memremap(0xfffffffffffffff0UL, 8) == NULL);
}

/* Whether [p, p + n) is all zero bytes. */
static bool all_zero(const u8 *p, u64 n)
{
	for (u64 i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * A stack comes zeroed, fresh or reused. Pages written all over and
 * freed just before go to this CPU's page list, which hands them out
 * again first, so the fresh stack gets some of them (checked: otherwise
 * the test would prove nothing). Each run asks for a size no earlier run
 * of this boot left cached, so its first stack is a fresh one.
 */
#define DIRTY_PAGES 16

static void a_stack_comes_zeroed(struct ktest *t)
{
	static u32 runs;
	struct page *dirty[DIRTY_PAGES];
	int node = (int)raw_this_cpu()->node;
	u64 pages = 3 + runs++ % 10, size = pages * PAGE_SIZE, irq;
	u32 dirty_in_stack = 0;

	irq = irq_save();               /* nothing else takes pages from this CPU's list meanwhile */
	for (u32 i = 0; i < DIRTY_PAGES; i++) {
		dirty[i] = alloc_pages(0, node, 0);
		if (dirty[i])
			memset(page_address(dirty[i]), 0xa5, PAGE_SIZE);
	}
	for (u32 i = 0; i < DIRTY_PAGES; i++)
		if (dirty[i])
			free_pages(dirty[i], 0);
	irq_restore(irq);
	u64 top = vm_alloc_stack(size, node);

	ASSERT_TRUE(t, top != 0);
	for (u64 va = top - size; va < top; va += PAGE_SIZE)
		for (u32 i = 0; i < DIRTY_PAGES; i++)
			if (dirty[i] && vm_translate(va, NULL, NULL) == page_to_phys(dirty[i]))
				dirty_in_stack++;
	EXPECT_GT(t, dirty_in_stack, 0);
	EXPECT_TRUE(t, all_zero((const u8 *)(top - size), size));
	memset((void *)(top - size), 0x5a, size);
	vm_free_stack(top);
	u64 again = vm_alloc_stack(size, node);

	EXPECT_EQ(t, again, top);                       /* the cached stack, reused */
	EXPECT_TRUE(t, all_zero((const u8 *)(again - size), size));
	vm_free_stack(again);
}

/* A page-table allocator that notes how it was called on the test's CPU. */
static struct {
	u64 (*real)(void);
	u32 cpu, calls, with_interrupts_off;
} pt_probe;

static u64 probing_pt_alloc(void)
{
	if (smp_processor_id() == pt_probe.cpu) {
		pt_probe.calls++;
		if (!(read_rflags() & RFLAGS_IF))
			pt_probe.with_interrupts_off++;
	}
	return pt_probe.real();
}

/*
 * A user mapping that needs new page tables allocates them before vm_lock
 * (and its interrupts-off window), as Linux's __pte_alloc() does: here
 * with interrupts on, in a region no table covered yet (the top 512 GiB
 * of the user half, which testbed never maps). Two pages on either side
 * of a 2 MiB boundary need four tables (a PDPT, a PD, two PTs), more than
 * one trip out of the lock brings: the mapping is finished on the next.
 */
static void page_tables_are_allocated_with_interrupts_on(struct ktest *t)
{
	u64 va = USER_TOP - (1UL << 39) + 0x400000 - PAGE_SIZE, pa = 0;
	struct page *page = alloc_pages(1, NODE_ANY, ALLOC_ZERO);

	ASSERT_TRUE(t, page != NULL);
	pa = page_to_phys(page);
	ASSERT_TRUE(t, vm_translate(va, NULL, NULL) == (u64)-1);
	pt_probe = (typeof(pt_probe)){ .cpu = smp_processor_id() };  /* a test thread stays put */
	pt_probe.real = vm_set_pt_allocator(probing_pt_alloc);
	bool ok = vm_map_user(va, pa, 2 * PAGE_SIZE, true, false);
	vm_set_pt_allocator(pt_probe.real);
	u64 got = vm_translate(va, NULL, NULL), got2 = vm_translate(va + PAGE_SIZE, NULL, NULL);

	vm_unmap_user(va, 2 * PAGE_SIZE);
	free_pages(page, 1);
	EXPECT_TRUE(t, ok);
	EXPECT_EQ(t, got, pa);
	EXPECT_EQ(t, got2, pa + PAGE_SIZE);
	EXPECT_GE(t, pt_probe.calls, 4);        /* the region had no tables: four were made */
	EXPECT_EQ(t, pt_probe.with_interrupts_off, 0);
	EXPECT_EQ(t, vm_translate(va, NULL, NULL), (u64)-1);
}

static const struct ktest_case vm_cases[] = {
	KTEST(text_is_read_only_and_executable),
	KTEST(rodata_is_read_only),
	KTEST(data_is_writable_not_executable),
	KTEST(stack_guard_pages_are_unmapped),
	KTEST(null_page_is_unmapped),
	KTEST(direct_map_covers_all_ram),
	KTEST(direct_map_aliases_the_image),
	KTEST(ram_above_4g_is_usable),
	KTEST(pat_has_write_combining),
	KTEST(ioremap_maps_high_mmio_uncached),
	KTEST(ioremap_refuses_ram_uncached),
	KTEST(memremap_of_ram_keeps_the_mapping),
	KTEST(ioremap_rejects_addresses_past_the_direct_map),
	KTEST(ioremap_rejects_the_last_page_of_the_address_space),
	KTEST(page_tables_are_allocated_with_interrupts_on),
	KTEST(a_stack_comes_zeroed),
	{},
};
KTEST_SUITE(vm, vm_cases);
