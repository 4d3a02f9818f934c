// SPDX-License-Identifier: MIT
/*
 * mm.c - memory management bring-up: NUMA nodes, the boot allocator, and
 * the handoff to the page allocator and slab (see mm.h for the picture).
 *
 * This is glue: the logic lives in numa.c, bootmem.c, page_alloc.c and
 * slab.c, which are pure and host-tested. Here is what only the running
 * kernel knows: the ACPI facts, the image's own addresses, the command line,
 * the CPUs and threads.
 *
 * Deferred memory init (see page_alloc.c): mm_init() initialises the first
 * MM_EAGER_PAGES of each zone; once the other CPUs are up,
 * mm_start_deferred_init() starts one thread per node with deferred pages,
 * "pgdatinitN" as Linux names them, on a CPU of that node (a node without
 * CPUs: on a CPU of the nearest node that has one; Linux's 2015 version
 * lets such a thread run anywhere). Each prints "mm: deferred init of node N: P pages
 * in M ms" when its node is done. mm_wait_deferred_init() waits for all of
 * them: main.c calls it before the tests and the lab, so every count they
 * take is of the whole memory. mm.deferred=off initialises everything in
 * mm_init(), as before.
 */
#include "mm.h"
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "format.h"
#include "numa.h"
#include "page_alloc.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "slab.h"
#include "smp.h"
#include "time.h"
#include "vm.h"

/*
 * Pages of each zone initialised before the other CPUs start: 16 MiB, room
 * for the boot's own allocations (stacks, page tables, slab); an allocation
 * that needs more initialises more itself. Linux's 2015 version kept 2 GiB
 * of each node's highest zone and every lower zone.
 */
#define MM_EAGER_PAGES  4096

struct numa_layout numa;
struct bootmem bootmem;
struct bootmem bootmem_at_handoff;
u64 ap_trampoline_phys;

/* numa=on|off: off folds everything into one node, as without an SRAT. */
static int numa_off;
PARAM_CHOICE("numa", numa_off, "on", "off");

/* mm.deferred=on|off: off initialises every struct page before the other CPUs start. */
static int deferred_off;
PARAM_CHOICE("mm.deferred", deferred_off, "on", "off");

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
	page_alloc_init_deferred(&bootmem, numa.nr_nodes, numa.distance,
				 deferred_off ? ~0UL : MM_EAGER_PAGES);
	page_alloc_cpu_init(0, (int)numa.cpu_node[0]);
	vm_set_pt_allocator(pt_page_from_buddy);
	slab_init(numa.ncpus);
	page_alloc_print();
}

/* --- deferred init ----------------------------------------------------------- */

static struct waitqueue deferred_wq;
static u32 deferred_threads;            /* pgdatinit threads still running */

static void deferred_init_thread(void *arg)
{
	u32 node = (u32)(uintptr_t)arg;
	u64 t0 = ktime_ns(), pages = 0;

	while (page_alloc_deferred_step(node, &pages))
		cond_resched();
	pr_info("mm: deferred init of node %u: %llu pages in %llu ms (%llu by this thread, "
		"the rest by allocations that needed them)\n", node,
		page_alloc_deferred_at_init(node), (ktime_ns() - t0) / 1000000, pages);
	__atomic_fetch_sub(&deferred_threads, 1, __ATOMIC_RELEASE);
	wake_up_all(&deferred_wq);
}

/* An online CPU on node, or on the nearest node that has one; SCHED_ANY_CPU if none. */
static u32 cpu_near(u32 node)
{
	const struct node_mem *nm = &node_mem[node];

	for (u32 i = 0; i < nm->nfallback; i++)
		for (u32 cpu = 0; cpu < nr_cpus; cpu++)
			if (percpu[cpu].online && percpu[cpu].node == (u32)nm->fallback[i])
				return cpu;
	return SCHED_ANY_CPU;
}

void mm_start_deferred_init(void)
{
	waitqueue_init(&deferred_wq);
	for (u32 node = 0; node < numa.nr_nodes; node++) {
		char name[24];

		if (!page_alloc_deferred_pending((int)node))
			continue;
		snprintf(name, sizeof(name), "pgdatinit%u", node);
		__atomic_fetch_add(&deferred_threads, 1, __ATOMIC_RELAXED);
		if (!thread_create(name, deferred_init_thread, (void *)(uintptr_t)node,
				   cpu_near(node))) {
			/* No thread: do it here, now. */
			__atomic_fetch_sub(&deferred_threads, 1, __ATOMIC_RELAXED);
			u64 pages = 0;

			while (page_alloc_deferred_step(node, &pages))
				;
			pr_warn("mm: no thread for node %u's deferred init; done at once\n", node);
		}
	}
}

static bool deferred_done(void *arg)
{
	return __atomic_load_n(&deferred_threads, __ATOMIC_ACQUIRE) == 0;
}

void mm_wait_deferred_init(void)
{
	if (__atomic_load_n(&deferred_threads, __ATOMIC_ACQUIRE))
		wait_event(&deferred_wq, deferred_done, NULL);
}

/* --- per-CPU page lists ---------------------------------------------------- */

static void drain_this_cpu(void *arg)
{
	page_alloc_drain_this_cpu();
}

void mm_drain_pcp_all(void)
{
	smp_call_function_all(drain_this_cpu, NULL, true);
}
