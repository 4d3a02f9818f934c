// SPDX-License-Identifier: MIT
/*
 * smp.c - starting the other CPUs, and asking them to do things (IPIs).
 *
 * Bring-up. The boot CPU (BSP) starts every other CPU (AP) of the MADT at
 * once, as Linux has since 6.5 (Thomas Gleixner's "smp-core-2023-06-26"
 * pull, "Parallel CPU bringup": up to 3.5 ms per AP to report alive, 800 ms
 * of busy waiting on a 112-thread server; David Woodhouse's "x86/smpboot:
 * Support parallel startup of secondary CPUs"). Started together, an AP
 * finds its number itself, as Linux's does (STARTUP_READ_APICID): the ID
 * its local APIC answers to (MSR 0x802, or the xAPIC ID register through
 * the kernel's mapping, apic_xapic_page()), searched in the MADT's list.
 * Linux's APs then wait at a sync point (cpuhp_ap_sync_alive()) and the
 * boot CPU releases them one by one; testbed's ap_main() is short enough
 * to let them run all of it at once.
 *
 *   BSP                                        each AP
 *   for every AP: stacks on its node (kernel,
 *   #DF, NMI), its per-CPU page lists
 *   (page_alloc_cpu_init), state STARTING
 *   (of this attempt)
 *   copy boot/trampoline.asm to the page below
 *   1 MiB, params.cpu = FIND_BY_APIC_ID
 *   APIC timer: wake-ups every AP_WAKEUP_US
 *   INIT to each, [10 ms], STARTUP to each,    (halted, waiting for a STARTUP IPI)
 *   200 us, [a second STARTUP to each not     real mode -> protected -> long mode;
 *   online, if not all have started]           its APIC's ID -> its CPU number n
 *   wait, at most AP_ONLINE_TIMEOUT_MS in      and n's stack (numa.cpu_apic_id[],
 *     all, for every percpu[n].online, or        ap_stacks[]), or count itself
 *     until the rest have counted                lost and halt; claim n: STARTING
 *     themselves lost                            -> ALIVE, or halt
 *   give up on the late ones: STARTING ->      ap_main(n): per-CPU area, GDT/TSS,
 *     ABANDONED, INIT; 10 ms; start each         IDT, kernel CR3, local APIC, tick,
 *     alone (a new attempt)                      online -> sched_ap_enter()
 *   APIC timer: the tick again
 *
 * Before it is online an AP writes only its own per-CPU data, its own MSRs
 * and APIC, its ap_states[] entry, counters that are atomic
 * (nr_cpus_online, ap_lost), the printk lock's data, and two words every
 * CPU stores the same value in (the tick's handler in the vector table,
 * smap_on); it reads the trampoline page, the AP page tables and the IDT.
 * The AP states make giving up safe: an AP that claimed its start (ALIVE)
 * may hold a lock and is never sent INIT; one that had not is marked
 * ABANDONED before its INIT, and if it wakes up late it halts at the claim,
 * before it uses any stack. Given up on, an AP is started alone in a new
 * attempt: params.cpu says who it is (its APIC must agree), the climb is
 * the same, INIT, STARTUP, [a second STARTUP if it has not started], wait.
 * smp.parallel=off starts every AP that way (the only way before the APs
 * were started together: docs/smp.md), and smp_started_alone counts the
 * APs started alone after a start together.
 *
 * The boot CPU waits halted. From before the first INIT to the end of the
 * last start its APIC timer only wakes it, every AP_WAKEUP_US
 * (time_fine_wakeups_begin()), instead of ticking: the MP specification's
 * waits (start_delay()) and the wait for the APs (wait_for_ap_news()) are
 * halts that look again at each wake-up, and an AP coming online wakes it
 * at once with an IPI. On hardware that is a few dozen interrupts where a
 * spin was. Under QEMU 7.2's -icount it bounds a leap of the guest's clock
 * (docs/smp.md, "Under -icount"): a halted AP takes its INIT only when its
 * STARTUP wakes it, and that reset also clears QEMU's count of the
 * instructions left in the vCPU's turn, so the whole turn counts as run
 * and the clock jumps to the next timer deadline: with the tick as the
 * only deadline, up to a tick per AP; with the wake-ups, AP_WAKEUP_US.
 *
 * The 10 ms after INIT is the MP specification's (B.4.1) for the 82489DX
 * era. Linux skips it on "modern" CPUs (arch/x86/kernel/smpboot.c,
 * smp_quirk_init_udelay(): Intel family 6, AMD family 0xF and later);
 * testbed does the same, for Intel family >= 6 (where Linux says == 6),
 * AMD family >= 0xF and any CPU under a hypervisor (QEMU's TCG has no INIT
 * latency to wait out). smp.init_delay=on puts the 10 ms back (off: never
 * waits).
 *
 * A CPU started alone that does not come online in time is reported,
 * parked with another INIT if it never reached ap_main() (so it cannot
 * wake up later and run the trampoline meant for the next CPU) and
 * skipped; one in ap_main() gets another AP_ONLINE_TIMEOUT_MS, then is
 * reported and left as it is. Facts from the Intel SDM vol. 3A (8.4.4) and the
 * MP specification (B.4): INIT then STARTUP, the STARTUP IPI's vector VV
 * starts the CPU at VV00:0000 in real mode, vectors 0xa0-0xbf are reserved.
 *
 * The AP's first page tables. The instruction after the one that turns
 * paging on is fetched at the trampoline's physical address, so the page
 * tables the AP starts with must map that page there; the kernel's tables
 * map nothing in the lower half (NULL must fault). So the AP starts on a
 * PML4 of its own below 4 GiB (the trampoline loads CR3 with a 32-bit
 * mov): the kernel's upper half, shared entry by entry, plus the
 * trampoline page at its own address, read-only and executable. ap_main()
 * moves to the kernel's CR3 as soon as it runs on kernel tables of its own.
 *
 * IPIs. Each CPU has a call queue: a small ring of (fn, arg) guarded by a
 * spinlock taken with interrupts off. smp_call_function() puts the call on
 * the target's queue and sends VEC_IPI_CALL; the handler runs every queued
 * call, then sends the EOI. A caller that waits spins on a counter the
 * target decrements; while it spins it runs its own queue too, so two CPUs
 * waiting for each other with interrupts off cannot deadlock.
 * VEC_IPI_RESCHED only interrupts: the switch happens on the way out of the
 * interrupt (trap_dispatch -> sched_preempt_irq). smp_stop_others() sends
 * an NMI, which no cli can hold back, to every other online CPU; the NMI
 * handler halts for good once it sees the stop requested.
 *
 * Invariants:
 *   - percpu[n].online is set by CPU n itself, last, after its tables,
 *     APIC and tick work; only online CPUs are sent IPIs.
 *   - Only the APs of one start (all of them, or one alone) are between
 *     their INIT and their "online" at any time, and the trampoline page
 *     is rewritten only when none of them is still in the trampoline; the
 *     AP page tables are freed only if no AP was left in ap_main()
 *     without coming online (it may not have left them yet).
 *   - A queued call runs on its target exactly once, with interrupts off.
 *   - One CPU stops the others; a second CPU that tries (two panics at
 *     once) halts itself instead, so one panic report comes out whole.
 */
#include "smp.h"
#include "apic.h"
#include "cmdline.h"
#include "cpu.h"
#include "ksyms.h"
#include "kstring.h"
#include "mm.h"
#include "mce.h"
#include "numa.h"
#include "page_alloc.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "spinlock.h"
#include "time.h"
#include "trap.h"
#include "user.h"
#include "vm.h"
#include "x86.h"

#define AP_INIT_WAIT_US        10000    /* INIT -> STARTUP: 10 ms (MP spec B.4.1) */
#define AP_SIPI_WAIT_US        200      /* STARTUP -> second STARTUP: 200 us (MP spec B.4.1) */
#define AP_WAKEUP_US           50       /* the boot CPU's wake-ups while it starts APs */
#define CALL_WAIT_WARN_MS      5000     /* a call not done by then is worth a message */
#define NMI_SNAPSHOT_WAIT_US   100000   /* a CPU asked by NMI where it is answers by then */
#define SIPI_VECTOR_RESERVED   0xa0     /* STARTUP vectors 0xa0-0xbf are reserved */
#define EFER_LME               (1UL << 8)
#define NO_CPU                 (~0u)

/* smp.init_delay=auto|on|off: the 10 ms after INIT; auto: only on CPUs older than Linux's "modern". */
static int init_delay_choice;
PARAM_CHOICE("smp.init_delay", init_delay_choice, "auto", "on", "off");

/*
 * smp.delay_ap=N (a test aid; 0, the boot CPU, is none): AP N spins for
 * AP_ONLINE_TIMEOUT_MS + 500 ms at the start of ap_main(), after its claim,
 * so the boot CPU's deadline passes while it is there: the path where
 * giving up must not send INIT (matrix row smp-late-ap).
 */
static u64 delay_ap;
PARAM_U64("smp.delay_ap", delay_ap, 0, MAX_CPUS - 1);

/* smp.parallel=on|off: start the APs all at once (Linux 6.5) or one at a time. */
static int parallel_off;
PARAM_CHOICE("smp.parallel", parallel_off, "on", "off");

u32 smp_started_alone;
u64 smp_together_ns;
bool smp_second_startup;

bool smp_parallel(void)
{
	return !parallel_off;
}

/* --- bring-up ------------------------------------------------------------- */

/* boot/trampoline.asm's blob and its parameter block (same layout). */
extern char trampoline_start[], trampoline_end[], trampoline_params[];
extern char trampoline_gdt[], trampoline_gdt_base[];
extern char trampoline_protected_mode[], trampoline_protected_mode_ptr[];
extern char trampoline_long_mode[], trampoline_long_mode_ptr[];

#define FIND_BY_APIC_ID        (~0u)    /* params.cpu: each AP looks itself up */

struct trampoline_params {
	u32 cr3;                /* the AP's first PML4, below 4 GiB */
	u32 efer;               /* EFER bits to set: LME, NXE */
	u64 entry;              /* ap_main */
	u64 states;             /* ap_states */
	u32 cpu;                /* one AP: its logical number; all at once: FIND_BY_APIC_ID */
	volatile u32 started;   /* each AP adds 1 in real mode */
	u64 apic_ids;           /* numa.cpu_apic_id */
	u64 stacks;             /* ap_stacks */
	u32 ncpus;              /* entries in both */
	u32 x2apic;             /* the APICs run in x2APIC mode */
	u64 lost;               /* &ap_lost */
	u64 xapic;              /* xAPIC mode: the APIC page, mapped uncached */
	u64 xapic_phys;         /* xAPIC mode: its physical address */
	u32 attempt;            /* this start's number: tags ap_states[] */
	u32 pad;
};
BUILD_BUG_ON(sizeof(struct trampoline_params) != 88);

/* The stacks the boot CPU allocates for each AP before starting it. */
struct ap_stacks {
	u64 kernel, double_fault, nmi;  /* tops; kernel 0: not being started */
};
BUILD_BUG_ON(sizeof(struct ap_stacks) != 24);   /* AP_STACKS_ENTRY in the trampoline */
static struct ap_stacks ap_stacks[MAX_CPUS];

/*
 * APs started with the others that found no entry for themselves (the
 * trampoline writes both): how many, and the APIC ID of the last one (~0:
 * it could not read its ID).
 */
static struct {
	volatile u32 count;
	volatile u32 apic_id;
} ap_lost;

/*
 * Each AP's place in its bring-up, per start (an attempt: the start of all
 * APs together is one, each start of one AP alone another). The boot CPU
 * sets STARTING before the STARTUP IPI; the AP, in the trampoline, moves
 * it to ALIVE before it touches its stack or anything shared; a boot CPU
 * that gives up moves it to ABANDONED instead, and only then parks the AP
 * with INIT. Both moves are compare-and-swaps from STARTING of that
 * attempt (the attempt in the bits above the state), so exactly one wins:
 * an AP that is ALIVE is never sent INIT (it may hold a lock), and one that
 * wakes up late from a start given up on halts before it could run as
 * anyone.
 */
enum ap_state { AP_NOT_STARTED, AP_STARTING, AP_ALIVE, AP_ABANDONED };
#define AP_STATE_BITS  2
/* The trampoline's claim: [rsi * 4 + AP_STARTING] -> [rsi * 4 + AP_ALIVE]. */
BUILD_BUG_ON(AP_STARTING != 1 || AP_ALIVE != 2 || AP_STATE_BITS != 2);
static u32 ap_states[MAX_CPUS];
static u32 ap_attempt;                  /* the current start's number */

static u32 ap_state_word(enum ap_state state)
{
	return ap_attempt << AP_STATE_BITS | state;
}

static bool ap_state_move(u32 cpu, enum ap_state from, enum ap_state to)
{
	u32 expected = ap_state_word(from);

	return __atomic_compare_exchange_n(&ap_states[cpu], &expected, ap_state_word(to), false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* A new start (of all APs together, or of one alone): its CPUs STARTING. */
static void new_attempt(const struct cpumask *cpus)
{
	ap_attempt++;
	for (u32 cpu = 1; cpu < nr_cpus; cpu++)
		if (cpumask_test(cpus, cpu))
			__atomic_store_n(&ap_states[cpu], ap_state_word(AP_STARTING), __ATOMIC_RELEASE);
}

static bool ap_left_in_ap_main;         /* then the AP page tables stay: it may be on them */

/* What every AP copies from the boot CPU: its paging and memory types. */
static struct {
	u64 cr3, cr4, pat;
} bsp_state;

/* The APs' first page tables (see the top of the file). */
static struct {
	u64 *pml4, *pdpt, *pd, *pt;
} ap_tables;

static void __noreturn ap_main(u32 cpu);
static bool cpu_online(u32 cpu);

static u64 *alloc_low_table(void)
{
	struct page *p = alloc_pages(0, NODE_ANY, ALLOC_DMA32 | ALLOC_ZERO);

	return p ? page_address(p) : NULL;
}

static void free_low_table(u64 *table)
{
	if (table)
		free_pages(phys_to_page(virt_to_phys(table)), 0);
}

static void free_ap_tables(void)
{
	free_low_table(ap_tables.pml4);
	free_low_table(ap_tables.pdpt);
	free_low_table(ap_tables.pd);
	free_low_table(ap_tables.pt);
	ap_tables = (typeof(ap_tables)){ 0 };
}

/* Map the trampoline page at its own physical address, through four fresh tables. */
static bool build_ap_tables(u64 page)
{
	const u64 table = PTE_P | PTE_W;        /* intermediate entries: see vm.h */

	ap_tables.pml4 = alloc_low_table();
	ap_tables.pdpt = alloc_low_table();
	ap_tables.pd = alloc_low_table();
	ap_tables.pt = alloc_low_table();
	if (!ap_tables.pml4 || !ap_tables.pdpt || !ap_tables.pd || !ap_tables.pt) {
		free_ap_tables();
		return false;
	}
	ap_tables.pml4[(page >> 39) & 511] = virt_to_phys(ap_tables.pdpt) | table;
	ap_tables.pdpt[(page >> 30) & 511] = virt_to_phys(ap_tables.pd) | table;
	ap_tables.pd[(page >> 21) & 511] = virt_to_phys(ap_tables.pt) | table;
	ap_tables.pt[(page >> 12) & 511] = page | PTE_P;       /* read-only, executable */
	return true;
}

/*
 * Bring the AP's PML4 up to date with the kernel's upper half, where the
 * kernel, the direct map and the stacks live: a stack just allocated may
 * have added an entry.
 */
static void sync_ap_tables(void)
{
	const u64 *kernel_pml4 = phys_to_virt(bsp_state.cr3 & PTE_ADDR);

	for (u32 i = 256; i < 512; i++)
		ap_tables.pml4[i] = kernel_pml4[i];
}

static bool alloc_ap_stacks(u32 cpu, int node)
{
	struct ap_stacks *s = &ap_stacks[cpu];

	s->kernel = vm_alloc_stack(KSTACK_SIZE, node);
	s->double_fault = vm_alloc_stack(IST_STACK_SIZE, node);
	s->nmi = vm_alloc_stack(IST_STACK_SIZE, node);
	if (s->kernel && s->double_fault && s->nmi)
		return true;
	if (s->kernel)
		vm_free_stack(s->kernel);
	if (s->double_fault)
		vm_free_stack(s->double_fault);
	if (s->nmi)
		vm_free_stack(s->nmi);
	*s = (struct ap_stacks){ 0 };
	return false;
}

/* The blob's offset of a label inside it. */
static u32 blob_offset(const char *label)
{
	return (u32)(label - trampoline_start);
}

/*
 * Copy the blob to its page, link it there (the GDT's base and the two far
 * jumps' targets are linear addresses) and fill in the parameters: for
 * one CPU, or for FIND_BY_APIC_ID.
 */
static struct trampoline_params *prepare_trampoline(u32 cpu)
{
	static bool copied;
	u8 *page = phys_to_virt(ap_trampoline_phys);
	u32 base = (u32)ap_trampoline_phys;
	struct trampoline_params *params =
		(struct trampoline_params *)(page + blob_offset(trampoline_params));

	/*
	 * Copied and linked once: a later start (an AP started alone after
	 * the others) rewrites only the parameters that change, so an AP that
	 * woke up late and still runs the blob never sees it half copied.
	 */
	if (!copied) {
		memcpy(page, trampoline_start, (size_t)(trampoline_end - trampoline_start));
		*(u32 *)(page + blob_offset(trampoline_gdt_base)) = base + blob_offset(trampoline_gdt);
		*(u32 *)(page + blob_offset(trampoline_protected_mode_ptr)) =
			base + blob_offset(trampoline_protected_mode);
		*(u32 *)(page + blob_offset(trampoline_long_mode_ptr)) =
			base + blob_offset(trampoline_long_mode);
		sync_ap_tables();
		params->cr3 = (u32)virt_to_phys(ap_tables.pml4);
		params->efer = EFER_LME | (cpu_info.nx ? EFER_NXE : 0);
		params->entry = (u64)ap_main;
		params->states = (u64)ap_states;
		params->apic_ids = (u64)numa.cpu_apic_id;
		params->stacks = (u64)ap_stacks;
		params->ncpus = nr_cpus;
		params->x2apic = apic_x2apic;
		params->lost = (u64)&ap_lost;
		if (!apic_xapic_page(&params->xapic, &params->xapic_phys))
			params->xapic = params->xapic_phys = 0;
		copied = true;
	}
	params->cpu = cpu;
	params->attempt = ap_attempt;
	params->started = 0;
	return params;
}

/* INIT and STARTUP are IPIs too: the blob must be in memory before they leave. */
static void fence_before_ipi(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/*
 * Halt until an interrupt, unless an AP came online or counted itself lost
 * since the boot CPU read those counts (online, lost): the wait for APs
 * halts instead of spinning. An AP online sends the boot CPU an interrupt
 * (ap_main()); one that is lost sends none, and the next wake-up (or tick)
 * ends the wait then, as it bounds every deadline. Under QEMU a spinning boot CPU keeps
 * a host core from the vCPUs it is starting (four vCPUs on two cores).
 * "cli; check; sti; hlt" leaves no window: sti takes effect after hlt
 * starts. With interrupts off (never so at boot), or with no tick (an
 * APIC timer that did not count), it spins as before: nothing else would
 * end a wait for an AP that never comes.
 */
static u32 waiter_apic_id;      /* the CPU starting APs: set before the IPIs that start them */
static bool start_wakeups;      /* its APIC timer wakes it every AP_WAKEUP_US (smp_boot()) */

static void wait_for_ap_news(u32 online, u32 lost)
{
	if (!(read_rflags() & RFLAGS_IF) || !time_tick_runs()) {
		cpu_relax();
		return;
	}
	cli();
	if (__atomic_load_n(&nr_cpus_online, __ATOMIC_ACQUIRE) == online && ap_lost.count == lost)
		__asm__ volatile("sti; hlt" ::: "memory");
	else
		sti();
}

/*
 * The start's fixed waits (MP specification B.4.1: 10 ms after INIT, 200
 * us after STARTUP): at least us, halted between the boot CPU's wake-ups
 * when it has them, else spinning as udelay() does.
 */
static void start_delay(u64 us)
{
	u64 end = ktime_ns() + us * 1000;

	if (!start_wakeups || !(read_rflags() & RFLAGS_IF)) {
		udelay(us);
		return;
	}
	for (;;) {
		cli();
		if (ktime_ns() >= end)
			break;
		__asm__ volatile("sti; hlt" ::: "memory");
	}
	sti();
}

static bool wait_online(u32 cpu, u64 timeout_ms)
{
	u64 deadline = ktime_ns() + timeout_ms * 1000000;

	for (;;) {
		u32 online = __atomic_load_n(&nr_cpus_online, __ATOMIC_ACQUIRE), lost = ap_lost.count;

		if (__atomic_load_n(&percpu[cpu].online, __ATOMIC_ACQUIRE))
			return true;
		if (ktime_ns() > deadline)
			return false;
		wait_for_ap_news(online, lost);
	}
}

/* Whether INIT needs its 10 ms (see the top of the file). */
static bool init_delay_needed(void)
{
	bool modern = (!strcmp(cpu_info.vendor, "GenuineIntel") && cpu_info.family >= 6) ||
		      (!strcmp(cpu_info.vendor, "AuthenticAMD") && cpu_info.family >= 0xf) ||
		      cpu_info.hypervisor;

	return init_delay_choice == 1 || (init_delay_choice == 0 && !modern);
}

/* What an AP needs before it is started: its stacks and per-CPU page lists, on its node. */
static bool prepare_cpu(u32 cpu)
{
	if (!alloc_ap_stacks(cpu, numa.cpu_node[cpu])) {
		pr_err("smp: no memory for CPU %u's stacks; skipped\n", cpu);
		return false;
	}
	page_alloc_cpu_init(cpu, (int)numa.cpu_node[cpu]);     /* without: its pages come from the zones */
	return true;
}

/*
 * Give up on an AP that is not online by its deadline. If it has not
 * claimed this start (still STARTING), it is marked ABANDONED and parked
 * with INIT; waking up late it would halt at the claim; true. If it is
 * ALIVE, it is on its way through ap_main() and may hold a lock: it is
 * never sent INIT, only waited for a while longer (it comes online or is
 * left running as it is); false.
 */
static bool give_up_on(u32 cpu)
{
	if (ap_state_move(cpu, AP_STARTING, AP_ABANDONED)) {
		apic_send_init(numa.cpu_apic_id[cpu]);
		return true;
	}
	if (wait_online(cpu, AP_ONLINE_TIMEOUT_MS)) {
		pr_debug("smp: CPU %u (APIC ID %u) online after its deadline, from ap_main()\n", cpu,
			 numa.cpu_apic_id[cpu]);
	} else {
		ap_left_in_ap_main = true;
		pr_err("smp: CPU %u (APIC ID %u) is in ap_main() but not online after %u ms more; "
		       "left as it is\n", cpu, numa.cpu_apic_id[cpu], AP_ONLINE_TIMEOUT_MS);
	}
	return false;
}

/* INIT, STARTUP, [STARTUP], wait: one prepared CPU alone. True if it came online. */
static bool start_cpu(u32 cpu, bool init_delay)
{
	u32 apic_id = numa.cpu_apic_id[cpu];
	u8 vector = (u8)(ap_trampoline_phys >> 12);
	u64 t0 = ktime_ns();
	struct cpumask one = { 0 };

	cpumask_set(&one, cpu);
	new_attempt(&one);
	struct trampoline_params *params = prepare_trampoline(cpu);

	waiter_apic_id = apic_read_id();
	fence_before_ipi();
	apic_send_init(apic_id);
	if (init_delay)
		start_delay(AP_INIT_WAIT_US);
	apic_send_sipi(apic_id, vector);
	start_delay(AP_SIPI_WAIT_US);
	bool second_sipi = !params->started;
	if (second_sipi)
		apic_send_sipi(apic_id, vector);
	if (wait_online(cpu, AP_ONLINE_TIMEOUT_MS) || !give_up_on(cpu)) {
		if (cpu_online(cpu))
			pr_debug("smp: CPU %u (APIC ID %u, node %u) online after %llu us%s\n", cpu,
				 apic_id, numa.cpu_node[cpu], (ktime_ns() - t0) / 1000,
				 second_sipi ? ", second STARTUP sent" : "");
		return cpu_online(cpu);
	}
	if (params->started)
		pr_err("smp: CPU %u (APIC ID %u) started but did not come online in %u ms; skipped\n",
		       cpu, apic_id, AP_ONLINE_TIMEOUT_MS);
	else
		pr_err("smp: CPU %u (APIC ID %u) did not start; skipped\n", cpu, apic_id);
	/* Its stacks stay allocated: cheap, and nothing can be using them by mistake. */
	return false;
}

/*
 * Start every CPU of set at once (see the top of the file): INIT to each,
 * [10 ms], STARTUP to each, 200 us, a second STARTUP to each not yet
 * online if fewer than all have started (a STARTUP reaches only a CPU
 * halted after RESET or INIT, MP specification B.4.2: one already running
 * ignores it), then wait for all of them under one deadline, or until every
 * one not online has counted itself lost. Those given up on (parked, never
 * in ap_main()) are left in *late.
 */
static void start_cpus_together(const struct cpumask *set, bool init_delay, struct cpumask *late)
{
	u8 vector = (u8)(ap_trampoline_phys >> 12);
	struct cpumask reported = { 0 };
	u32 kicked = 0, pending;
	u64 t0 = ktime_ns(), deadline;
	struct trampoline_params *params;

	ap_lost.count = 0;
	ap_lost.apic_id = 0;
	new_attempt(set);
	params = prepare_trampoline(FIND_BY_APIC_ID);
	waiter_apic_id = apic_read_id();
	fence_before_ipi();
	for (u32 cpu = 1; cpu < nr_cpus; cpu++)
		if (cpumask_test(set, cpu))
			apic_send_init(numa.cpu_apic_id[cpu]);
	if (init_delay)
		start_delay(AP_INIT_WAIT_US);
	for (u32 cpu = 1; cpu < nr_cpus; cpu++)
		if (cpumask_test(set, cpu)) {
			apic_send_sipi(numa.cpu_apic_id[cpu], vector);
			kicked++;
		}
	start_delay(AP_SIPI_WAIT_US);
	bool second_sipi = __atomic_load_n(&params->started, __ATOMIC_ACQUIRE) < kicked;
	smp_second_startup = second_sipi;
	if (second_sipi)
		for (u32 cpu = 1; cpu < nr_cpus; cpu++)
			if (cpumask_test(set, cpu) && !cpu_online(cpu))
				apic_send_sipi(numa.cpu_apic_id[cpu], vector);

	deadline = ktime_ns() + AP_ONLINE_TIMEOUT_MS * 1000000UL;
	pending = kicked;
	while (pending > __atomic_load_n(&ap_lost.count, __ATOMIC_ACQUIRE)) {
		u32 online = __atomic_load_n(&nr_cpus_online, __ATOMIC_ACQUIRE), lost = ap_lost.count;

		for (u32 cpu = 1; cpu < nr_cpus; cpu++) {
			if (!cpumask_test(set, cpu) || cpumask_test(&reported, cpu) || !cpu_online(cpu))
				continue;
			cpumask_set(&reported, cpu);
			pending--;
			smp_together_ns = ktime_ns() - t0;
			pr_debug("smp: CPU %u (APIC ID %u, node %u) online %llu us after the first INIT%s\n",
				 cpu, numa.cpu_apic_id[cpu], numa.cpu_node[cpu], (ktime_ns() - t0) / 1000,
				 second_sipi ? ", second STARTUPs sent" : "");
		}
		if (ktime_ns() > deadline || pending <= lost)
			break;
		wait_for_ap_news(online, lost);
	}
	*late = (struct cpumask){ 0 };
	for (u32 cpu = 1; cpu < nr_cpus; cpu++)
		if (cpumask_test(set, cpu) && !cpumask_test(&reported, cpu) && !cpu_online(cpu) &&
		    give_up_on(cpu))
			cpumask_set(late, cpu);
	if (ap_lost.count) {
		if (ap_lost.apic_id == ~0u)
			pr_warn("smp: %u CPU(s) could not read their APIC ID (the last one); halted\n",
				ap_lost.count);
		else
			pr_warn("smp: %u CPU(s) found no CPU being started with their APIC ID (the "
				"last: %u); halted\n", ap_lost.count, ap_lost.apic_id);
	}
}

/*
 * The first C an AP runs, on its own kernel stack, on the AP page tables
 * (the kernel's upper half: all of the kernel is there), interrupts off,
 * the trampoline's GDT (in the low page, only mapped in those tables) and
 * no IDT. The order matters: the per-CPU area first (everything uses
 * this_cpu()), then the kernel's GDT and TSS (so the trampoline's GDT is
 * no longer needed, and the IDT's IST gates have their stacks), the IDT,
 * and only then the kernel's CR3.
 */
static void __noreturn ap_main(u32 cpu)
{
	/* The trampoline claimed this start for us: ap_states[cpu] is ALIVE. */
	if (delay_ap && cpu == delay_ap)
		udelay((AP_ONLINE_TIMEOUT_MS + 500) * 1000);
	percpu_init(cpu, numa.cpu_apic_id[cpu], numa.cpu_node[cpu]);
	wrmsr(MSR_PAT, bsp_state.pat);          /* the same memory types as the BSP's mappings */
	cpu_load_tables(&percpu[cpu].tables, ap_stacks[cpu].double_fault, ap_stacks[cpu].nmi);
	trap_load_idt();
	write_cr4(bsp_state.cr4);               /* PGE and the rest; a PGE change flushes the TLB */
	write_cr3(bsp_state.cr3);
	user_cpu_init();
	apic_init_ap();
	mce_init_cpu();
	timer_init_cpu();
	__atomic_fetch_add(&nr_cpus_online, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&percpu[cpu].online, true, __ATOMIC_RELEASE);
	apic_send_ipi(waiter_apic_id, VEC_IPI_RESCHED);       /* it may be halted, waiting */
	sched_ap_enter();
}

/*
 * The BSP's own entry. numa_build() made the boot CPU logical CPU 0 by the
 * APIC ID CPUID gave before apic_init(); the APIC's own ID register must
 * agree (it would not if firmware had reprogrammed an xAPIC ID).
 */
static u32 fix_boot_cpu_entry(void)
{
	u32 bsp_apic_id = apic_read_id();

	percpu[0].apic_id = bsp_apic_id;
	percpu[0].node = numa.cpu_node[0];
	percpu[0].online = true;
	if (numa.cpu_apic_id[0] != bsp_apic_id)
		pr_warn("smp: the boot CPU's APIC says ID %u, CPUID said %u; "
			"CPU numbers may not match the MADT's\n", bsp_apic_id, numa.cpu_apic_id[0]);
	return bsp_apic_id;
}

static bool trampoline_usable(void)
{
	u64 size = (u64)(trampoline_end - trampoline_start);

	if (!ap_trampoline_phys) {
		pr_err("smp: no trampoline page below 1 MiB; other CPUs not started\n");
		return false;
	}
	if ((ap_trampoline_phys >> 12) >= SIPI_VECTOR_RESERVED || size > PAGE_SIZE) {
		pr_err("smp: trampoline page 0x%llx (%llu bytes) unusable; other CPUs not started\n",
		       ap_trampoline_phys, size);
		return false;
	}
	return true;
}

static void ipi_init(void);

void smp_boot(void)
{
	u32 bsp_apic_id;

	nr_cpus = numa.ncpus ? numa.ncpus : 1;
	bsp_apic_id = fix_boot_cpu_entry();
	ipi_init();

	bsp_state.cr3 = read_cr3();
	bsp_state.cr4 = read_cr4();
	bsp_state.pat = rdmsr(MSR_PAT);
	if (nr_cpus > 1 && trampoline_usable()) {
		if (!build_ap_tables(ap_trampoline_phys)) {
			pr_err("smp: no memory below 4 GiB for the APs' page tables; other CPUs not started\n");
		} else {
			bool init_delay = init_delay_needed();
			struct cpumask set = { 0 }, late = { 0 };

			for (u32 cpu = 1; cpu < nr_cpus; cpu++) {
				if (numa.cpu_apic_id[cpu] == bsp_apic_id)
					continue;       /* never INIT ourselves: warned above */
				if (!apic_x2apic && numa.cpu_apic_id[cpu] > 0xff) {
					/* an xAPIC ICR holds 8 bits: the IPI would hit APIC ID & 0xff */
					pr_err("smp: CPU %u (APIC ID %u) needs x2APIC mode; not started\n",
					       cpu, numa.cpu_apic_id[cpu]);
					continue;
				}
				if (prepare_cpu(cpu))
					cpumask_set(&set, cpu);
			}
			start_wakeups = time_fine_wakeups_begin(AP_WAKEUP_US);
			if (parallel_off)
				late = set;
			else if (!cpumask_empty(&set))
				start_cpus_together(&set, init_delay, &late);
			if (!parallel_off && !cpumask_empty(&late))
				start_delay(AP_INIT_WAIT_US);   /* the INITs that parked them have landed */
			for (u32 cpu = 1; cpu < nr_cpus; cpu++) {
				if (!cpumask_test(&late, cpu))
					continue;
				if (!parallel_off) {
					smp_started_alone++;
					pr_warn("smp: CPU %u (APIC ID %u) not online after the start together; "
						"starting it alone\n", cpu, numa.cpu_apic_id[cpu]);
				}
				start_cpu(cpu, init_delay);
			}
			if (start_wakeups)
				time_fine_wakeups_end();
			start_wakeups = false;
			if (!ap_left_in_ap_main)
				free_ap_tables();
		}
	}
	pr_info("smp: %u cpus online\n", nr_cpus_online);
}

/* --- calls on other CPUs ---------------------------------------------------- */

struct call {
	void (*fn)(void *arg);
	void *arg;
	u32 *pending;           /* decremented once fn returned; NULL: nobody waits */
};

struct call_queue {
	struct spinlock lock;   /* initialized by smp_boot() */
	struct call ring[CALL_QUEUE_LEN];
	u32 head, count;        /* oldest call, calls queued */
	const struct call *running;     /* popped and not finished (its copy), or NULL */
};

static struct call_queue call_queues[MAX_CPUS];
static u32 call_wait_warn_ms = CALL_WAIT_WARN_MS;
static struct smp_late_call late_call;  /* the last report of a late call */

/* Where a CPU was when an NMI asked (late_call_report()); written by its NMI handler. */
struct nmi_snapshot {
	u32 asked, answered;    /* answered == asked: the fields below are this ask's */
	u64 rip, rflags;
	u64 frames[SMP_LATE_FRAMES];    /* return addresses up its rbp chain, 0-ended */
};

static struct nmi_snapshot nmi_snapshots[MAX_CPUS];

/* Take the oldest call into *out, which becomes q->running until call_done(). */
static bool call_pop(struct call_queue *q, struct call *out)
{
	u64 flags = spin_lock_irqsave(&q->lock);
	bool got = q->count > 0;

	if (got) {
		*out = q->ring[q->head];
		q->head = (q->head + 1) % CALL_QUEUE_LEN;
		q->count--;
		q->running = out;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return got;
}

static void call_done(struct call_queue *q, const struct call *c)
{
	u64 flags = spin_lock_irqsave(&q->lock);

	q->running = NULL;
	spin_unlock_irqrestore(&q->lock, flags);
	if (c->pending)
		__atomic_fetch_sub(c->pending, 1, __ATOMIC_RELEASE);
}

static bool call_push(struct call_queue *q, const struct call *c)
{
	u64 flags = spin_lock_irqsave(&q->lock);
	bool room = q->count < CALL_QUEUE_LEN;

	if (room) {
		q->ring[(q->head + q->count) % CALL_QUEUE_LEN] = *c;
		q->count++;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return room;
}

/* Run every call queued for this CPU, oldest first. Interrupts off. */
static void run_queued_calls(void)
{
	struct call_queue *q = &call_queues[smp_processor_id()];
	struct call c;

	while (call_pop(q, &c)) {
		c.fn(c.arg);
		call_done(q, &c);
	}
}

static void ipi_call_interrupt(struct trap_frame *f)
{
	run_queued_calls();
	apic_eoi();
}

static void ipi_resched_interrupt(struct trap_frame *f)
{
	apic_eoi();     /* trap_dispatch() preempts on the way out if need_resched */
}

/* Before any CPU can be sent an IPI: the queues and the two handlers. */
static void ipi_init(void)
{
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		spin_lock_init(&call_queues[cpu].lock, "call queue");
	trap_set_handler(VEC_IPI_CALL, ipi_call_interrupt);
	trap_set_handler(VEC_IPI_RESCHED, ipi_resched_interrupt);
}

/* --- late calls: who has not answered, and where it is ------------------------ */

/*
 * The NMI handler's part (trap.c asks first): if a waiter asked where this
 * CPU is, write down the interrupted rip and flags and the return addresses
 * up its rbp chain (after the one on top of the stack, if the function was
 * caught before it pushed rbp), then answer. No lock and no printk here: the
 * interrupted code may hold either. Returns false for an NMI nobody asked.
 */
bool smp_nmi_snapshot(const struct trap_frame *f)
{
	struct nmi_snapshot *s = &nmi_snapshots[smp_processor_id()];
	u32 asked = __atomic_load_n(&s->asked, __ATOMIC_ACQUIRE);
	u64 rbp = f->rbp;
	u32 n;

	if (asked == s->answered)
		return false;
	s->rip = f->rip;
	s->rflags = f->rflags;
	/* Caught before it pushed rbp, a function's caller is only on top of its stack. */
	s->frames[0] = backtrace_frameless_caller(f->rip, f->rsp);
	n = s->frames[0] ? 1 : 0;
	while (n < SMP_LATE_FRAMES - 1 && rbp && IS_ALIGNED(rbp, 8) && vm_mapped(rbp) &&
	       vm_mapped(rbp + 8) && ((u64 *)rbp)[1]) {
		s->frames[n++] = ((u64 *)rbp)[1];
		if (((u64 *)rbp)[0] <= rbp)
			break;          /* the chain must go up the stack */
		rbp = ((u64 *)rbp)[0];
	}
	s->frames[n] = 0;
	__atomic_store_n(&s->answered, asked, __ATOMIC_RELEASE);
	return true;
}

/* Ask cpu by NMI where it is; false if it did not answer within NMI_SNAPSHOT_WAIT_US. */
static bool nmi_snapshot_of(u32 cpu, struct nmi_snapshot *out)
{
	struct nmi_snapshot *s = &nmi_snapshots[cpu];
	u32 asked = __atomic_add_fetch(&s->asked, 1, __ATOMIC_ACQ_REL);

	apic_send_nmi(percpu[cpu].apic_id);
	for (u32 us = 0; us < NMI_SNAPSHOT_WAIT_US; us += 10) {
		if (__atomic_load_n(&s->answered, __ATOMIC_ACQUIRE) == asked) {
			*out = *s;
			return true;
		}
		udelay(10);
	}
	return false;
}

static void print_where(const char *what, u64 addr)
{
	u64 off;
	const char *name = ksym_lookup(addr, &off, NULL);

	if (name)
		pr_warn("smp:   %s %s+0x%llx\n", what, name, off);
	else
		pr_warn("smp:   %s %#llx\n", what, addr);
}

/* Which state of cpu's queue holds the call that decrements pending? */
static enum smp_late_state call_state_on(u32 cpu, const u32 *pending)
{
	struct call_queue *q = &call_queues[cpu];
	enum smp_late_state state = SMP_LATE_NONE;

	if (!spin_trylock(&q->lock))
		return SMP_LATE_QUEUE_LOCKED;
	for (u32 i = 0; i < q->count; i++)
		if (q->ring[(q->head + i) % CALL_QUEUE_LEN].pending == pending)
			state = SMP_LATE_QUEUED;
	if (q->running && q->running->pending == pending)
		state = SMP_LATE_RUNNING;
	spin_unlock(&q->lock);
	return state;
}

/*
 * A wait has gone on for call_wait_warn_ms: name each CPU that still holds
 * the call, say where it is, and send a CPU that has not taken it the IPI
 * again (in case one was lost). Linux's debugging of a stuck
 * smp_call_function does the same (Paul E. McKenney, "kernel/smp: Provide
 * CSD lock timeout diagnostics", -rcu tree and LKML, June 2020: "csd:
 * Detected non-responsive CSD lock", an NMI backtrace of the target, "csd:
 * Re-sending CSD lock"). Interrupts off.
 */
static void late_call_report(const u32 *pending)
{
	static const char *const says[] = {
		[SMP_LATE_QUEUED] = "has not taken it from its queue (interrupts off, or no IPI came)",
		[SMP_LATE_RUNNING] = "is still running it",
		[SMP_LATE_QUEUE_LOCKED] = "holds its call queue's lock",
	};
	u32 self = smp_processor_id();

	pr_warn("smp: CPU %u has waited %u ms for %u call(s) to finish\n", self,
		call_wait_warn_ms, __atomic_load_n(pending, __ATOMIC_ACQUIRE));
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		enum smp_late_state state;
		struct nmi_snapshot snap;

		if (cpu == self || !cpu_online(cpu))
			continue;
		state = call_state_on(cpu, pending);
		if (state == SMP_LATE_NONE)
			continue;
		late_call = (struct smp_late_call){
			.reports = late_call.reports, .waiter = self, .cpu = cpu, .state = state,
		};
		pr_warn("smp: CPU %u %s\n", cpu, says[state]);
		if (nmi_snapshot_of(cpu, &snap)) {
			late_call.answered_nmi = true;
			late_call.rip = snap.rip;
			late_call.irqs_on = snap.rflags & RFLAGS_IF;
			memcpy(late_call.frames, snap.frames, sizeof(late_call.frames));
			print_where(late_call.irqs_on ? "at (interrupts on)" : "at (interrupts off)",
				    snap.rip);
			for (u32 i = 0; i < SMP_LATE_FRAMES && snap.frames[i]; i++)
				print_where("called from", snap.frames[i] - 1);
		} else {
			pr_warn("smp:   and did not answer an NMI within %u us\n",
				NMI_SNAPSHOT_WAIT_US);
		}
		if (state == SMP_LATE_QUEUED) {         /* in case the IPI was lost: another */
			fence_before_ipi();
			apic_send_ipi(percpu[cpu].apic_id, VEC_IPI_CALL);
			pr_warn("smp:   sent it the call IPI again\n");
		}
	}
	late_call.reports++;
}

const struct smp_late_call *smp_last_late_call(void)
{
	return &late_call;
}

u32 smp_set_call_wait_warn_ms(u32 ms)
{
	u32 old = call_wait_warn_ms;

	call_wait_warn_ms = ms ? ms : CALL_WAIT_WARN_MS;
	return old;
}

/*
 * Spin until *pending is 0, running calls others queue for us meanwhile.
 * The caller has interrupts off: this CPU cannot move under us.
 */
static void wait_calls_done(u32 *pending)
{
	u64 warn_at = ktime_ns() + (u64)call_wait_warn_ms * 1000000;

	while (__atomic_load_n(pending, __ATOMIC_ACQUIRE)) {
		run_queued_calls();
		cpu_relax();
		if (warn_at && ktime_ns() > warn_at) {
			late_call_report(pending);
			warn_at = 0;
		}
	}
}

static bool lose_next_call_ipi;  /* smp_lose_next_call_ipi(), a test aid */

/* Queue c on cpu's queue (spinning while it is full) and interrupt cpu. Interrupts off. */
static void queue_call(u32 cpu, const struct call *c)
{
	while (!call_push(&call_queues[cpu], c)) {
		run_queued_calls();     /* cpu may be waiting for us to empty ours */
		cpu_relax();
	}
	if (__atomic_exchange_n(&lose_next_call_ipi, false, __ATOMIC_ACQ_REL))
		return;
	fence_before_ipi();
	apic_send_ipi(percpu[cpu].apic_id, VEC_IPI_CALL);
}

void smp_lose_next_call_ipi(void)
{
	__atomic_store_n(&lose_next_call_ipi, true, __ATOMIC_RELEASE);
}

static bool cpu_online(u32 cpu)
{
	return cpu < MAX_CPUS && __atomic_load_n(&percpu[cpu].online, __ATOMIC_ACQUIRE);
}

void smp_call_function(u32 cpu, void (*fn)(void *), void *arg, bool wait)
{
	u32 pending = 1;
	struct call c = { fn, arg, wait ? &pending : NULL };
	u64 flags = irq_save();

	if (cpu == smp_processor_id()) {
		fn(arg);
	} else if (!cpu_online(cpu)) {
		pr_warn("smp: call for CPU %u, which is not online; not run\n", cpu);
	} else {
		queue_call(cpu, &c);
		if (wait)
			wait_calls_done(&pending);
	}
	irq_restore(flags);
}

void smp_call_function_all(void (*fn)(void *), void *arg, bool wait)
{
	u64 flags = irq_save();
	u32 self = smp_processor_id(), pending = 0;
	struct call c = { fn, arg, wait ? &pending : NULL };

	/* Count first: a fast CPU must not bring pending to 0 before all are queued. */
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (cpu != self && cpu_online(cpu))
			pending++;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (cpu != self && cpu_online(cpu))
			queue_call(cpu, &c);
	fn(arg);
	if (wait)
		wait_calls_done(&pending);
	irq_restore(flags);
}

void smp_send_bare_reschedule(u32 cpu)
{
	u64 flags;

	if (cpu >= MAX_CPUS)
		return;
	flags = irq_save();
	if (cpu != smp_processor_id() && cpu_online(cpu)) {
		fence_before_ipi();
		apic_send_ipi(percpu[cpu].apic_id, VEC_IPI_RESCHED);
	}
	irq_restore(flags);
}

void smp_send_reschedule(u32 cpu)
{
	u64 flags;

	if (cpu >= MAX_CPUS)
		return;
	__atomic_store_n(&percpu[cpu].need_resched, true, __ATOMIC_RELEASE);
	flags = irq_save();
	if (cpu != smp_processor_id() && cpu_online(cpu)) {
		fence_before_ipi();
		apic_send_ipi(percpu[cpu].apic_id, VEC_IPI_RESCHED);
	}
	irq_restore(flags);
}

/* --- stopping the machine --------------------------------------------------- */

static u32 stopping_cpu = NO_CPU;       /* who called smp_stop_others() first */
static u32 cpus_stopped;                /* CPUs halted by its NMI */

bool smp_stop_requested(void)
{
	return __atomic_load_n(&stopping_cpu, __ATOMIC_ACQUIRE) != NO_CPU;
}

void smp_halt_this_cpu(void)
{
	cli();
	__atomic_fetch_add(&cpus_stopped, 1, __ATOMIC_RELEASE);
	for (;;)
		hlt();          /* NMIs stay blocked: we never leave this handler */
}

void smp_stop_others(void)
{
	u32 self = smp_processor_id(), first = NO_CPU, others = 0;

	cli();
	if (!__atomic_compare_exchange_n(&stopping_cpu, &first, self, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		if (first == self)
			return;         /* a panic inside the panic: the others are stopped */
		for (;;)
			hlt();          /* another CPU is stopping us all; its NMI will come */
	}
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (cpu == self || !cpu_online(cpu))
			continue;
		apic_send_nmi(percpu[cpu].apic_id);
		others++;
	}
	for (u32 us = 0; us < STOP_TIMEOUT_US; us += 10) {
		if (__atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE) >= others)
			break;
		udelay(10);
	}
}
