/*
 * mm.c - memory management bring-up: NUMA nodes, the boot allocator, and
 * the handoff to the page allocator and slab (see mm.h for the picture).
 *
 * This is glue: the logic lives in numa.c, bootmem.c, page_alloc.c and
 * slab.c, which are pure and host-tested. Here is what only the running
 * kernel knows: the ACPI facts, the image's own addresses, the command line.
 */
#include "mm.h"
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "numa.h"
#include "page_alloc.h"
#include "printk.h"
#include "slab.h"
#include "vm.h"

struct numa_layout numa;
struct bootmem bootmem;
struct bootmem bootmem_at_handoff;
u64 ap_trampoline_phys;

/* numa=on|off: off folds everything into one node, as without an SRAT. */
static int numa_off;
PARAM_CHOICE("numa", numa_off, "on", "off");

#define LOW_MEMORY_END  0x100000UL      /* the first MiB: BIOS data, EBDA, ROMs */
#define TRAMPOLINE_MIN  0x1000UL        /* keep page 0 (real-mode IVT) out of it */

void numa_init(const struct memmap *map)
{
	const struct srat_info *srat = acpi.has_srat && !numa_off ? &acpi.srat : NULL;
	const char *why = numa_off ? "numa=off" : acpi.has_srat ? NULL : "no usable SRAT";

	numa_build(&numa, acpi.has_madt ? &acpi.madt : NULL, srat,
		   acpi.has_slit ? &acpi.slit : NULL, map, why, apic_read_id());
	numa_print(&numa);
}

/* Add one usable range to the boot allocator, one node's piece at a time. */
static void add_ram(u64 base, u64 end)
{
	while (base < end) {
		int node = numa_node_of_addr(&numa, base);
		u64 stop = numa_piece_end(&numa, base, end);

		bootmem_add_memory(&bootmem, base, stop, node < 0 ? 0 : node);
		base = stop;
	}
}

/* The highest usable page below 1 MiB, for the SMP trampoline. */
static u64 find_trampoline_page(const struct memmap *map)
{
	u64 best = 0;

	for (u32 i = 0; i < map->n; i++) {
		const struct memmap_entry *e = &map->e[i];
		u64 end = MIN(e->end, LOW_MEMORY_END);

		if (e->type == E820_USABLE && end >= e->base + PAGE_SIZE && end - PAGE_SIZE >= TRAMPOLINE_MIN)
			best = MAX(best, ALIGN_DOWN(end - PAGE_SIZE, PAGE_SIZE));
	}
	return best;
}

void bootmem_setup(const struct memmap *map, const struct boot_info *bi)
{
	bootmem_init(&bootmem);
	for (u32 i = 0; i < map->n; i++)
		if (map->e[i].type == E820_USABLE)
			add_ram(map->e[i].base, map->e[i].end);

	/* The first MiB stays with the firmware; one page of it is ours for the APs. */
	ap_trampoline_phys = find_trampoline_page(map);
	bootmem_reserve(&bootmem, 0, LOW_MEMORY_END);
	if (!ap_trampoline_phys)
		pr_warn("mm: no usable page below 1 MiB for the AP trampoline\n");
	bootmem_reserve(&bootmem, (u64)__kernel_phys_start, (u64)__kernel_end - KERNEL_VMA);
	if (bi->total_size && bi->info_phys)
		bootmem_reserve(&bootmem, bi->info_phys, bi->info_phys + bi->total_size);
	for (u32 i = 0; i < bi->nmodules; i++)
		bootmem_reserve(&bootmem, ALIGN_DOWN((u64)bi->modules[i].start, PAGE_SIZE),
				ALIGN_UP((u64)bi->modules[i].end, PAGE_SIZE));
	pr_info("mm: boot allocator: %llu MiB free on %u nodes; AP trampoline page 0x%llx\n",
		(bootmem_free_bytes(&bootmem, NODE_ANY, BOOTMEM_NO_LIMIT) >> 20),
		numa.nr_nodes, ap_trampoline_phys);
}

/* Page-table pages for ioremap after boot come from the page allocator. */
static u64 pt_page_from_buddy(void)
{
	struct page *p = alloc_pages(0, NODE_ANY, ALLOC_ZERO);

	return p ? page_to_phys(p) : 0;
}

void mm_init(void)
{
	bootmem_at_handoff = bootmem;
	page_alloc_init(&bootmem, numa.nr_nodes, numa.distance);
	vm_set_pt_allocator(pt_page_from_buddy);
	slab_init(numa.ncpus);
	page_alloc_print();
}
