// SPDX-License-Identifier: MIT
/*
 * smp_test.c - every CPU came up, knows who it is, and answers calls.
 *
 * Suite smp: each CPU the MADT lists is online (and QEMU, through fw_cfg,
 * agrees on how many there are); each CPU's per-CPU entry names its
 * logical number, its node and the APIC ID its own local APIC reports;
 * started all at once, every AP found itself by its APIC ID (none was
 * started alone afterwards); the GS base of each CPU leads to its own
 * entry; calls reach every CPU, waited for or not; each CPU runs on its
 * own GDT, TSS and IST stacks; a call a CPU leaves waiting is reported with
 * that CPU's number and where an NMI found it, and a lost call IPI is sent
 * again.
 * The checks that need to run on a CPU get there with smp_call_function().
 *
 * Suite smp_bound (manual, on the icount machines: tests/matrix icount-smp):
 * what only a clock of the guest's own instructions can promise. Under
 * QEMU 7.2's -icount an AP's INIT makes the guest's clock leap to the next
 * timer deadline (kernel/smp.c, "The boot CPU waits halted"); with the
 * boot CPU woken every 50 us during the start, the APs are online within a
 * millisecond of the first INIT, from the first STARTUP. Under TCG's wall
 * clock the host decides how long an AP takes (docs/smp.md).
 *
 * Suite smp_panic (manual, test=smp_panic): CPU 1 writes through NULL from
 * inside a call, so the runner can see that a panic on another CPU stops
 * the rest and still prints its backtrace (QEMU exits 5).
 */
#include "apic.h"
#include "cpu.h"
#include "format.h"
#include "fw_cfg.h"
#include "kstring.h"
#include "ksyms.h"
#include "ktest.h"
#include "numa.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "vm.h"
#include "x86.h"

#define NOWAIT_TIMEOUT_MS 2000  /* a call without wait must have run by then */
#define NO_TARGET         (~0u)

/* What a CPU saw of itself, written by that CPU from a call. */
struct cpu_view {
	bool seen;
	u32 cpu;                /* this_cpu()->cpu */
	u32 apic_id;            /* apic_read_id(): its own local APIC */
	u64 gs_base;            /* MSR_GS_BASE */
	u64 gdt_base;           /* sgdt */
	u16 tr;                 /* str */
};

static struct cpu_view views[MAX_CPUS];

static bool online(u32 cpu)
{
	return percpu[cpu].online;
}

/*
 * Runs on each CPU. It finds its slot through this_cpu() alone (the
 * distance of its GS base from percpu[0]), never through a number
 * passed in, so a GS base shared by two CPUs shows up as a slot written
 * twice and another left empty.
 */
static void look_at_myself(void *arg)
{
	struct percpu *me = this_cpu();
	struct cpu_view *v = &views[me - percpu];
	struct {
		u16 limit;
		u64 base;
	} __packed gdtr;

	__asm__ volatile("sgdt %0" : "=m"(gdtr));
	__asm__ volatile("str %0" : "=r"(v->tr));
	v->cpu = me->cpu;
	v->apic_id = apic_read_id();
	v->gs_base = rdmsr(MSR_GS_BASE);
	v->gdt_base = gdtr.base;
	v->seen = true;
}

static void look_at_every_cpu(void)
{
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		views[cpu] = (struct cpu_view){ 0 };
	smp_call_function_all(look_at_myself, NULL, true);
}

static void every_madt_cpu_came_online(struct ktest *t)
{
	u16 qemu_cpus;

	EXPECT_EQ(t, nr_cpus, numa.ncpus);
	EXPECT_EQ(t, nr_cpus_online, numa.ncpus);
	for (u32 cpu = 0; cpu < numa.ncpus; cpu++)
		EXPECT_TRUE(t, online(cpu));
	for (u32 cpu = numa.ncpus; cpu < MAX_CPUS; cpu++)
		EXPECT_FALSE(t, online(cpu));
	if (!fw_cfg_read_item(FW_CFG_NB_CPUS, &qemu_cpus, sizeof(qemu_cpus)))
		KTEST_SKIP(t, "no fw_cfg: not QEMU, the MADT is all we know");
	EXPECT_EQ(t, qemu_cpus, numa.ncpus);
}

static void percpu_entries_describe_their_cpu(struct ktest *t)
{
	look_at_every_cpu();
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!online(cpu))
			continue;
		EXPECT_EQ(t, percpu[cpu].self, &percpu[cpu]);
		EXPECT_EQ(t, percpu[cpu].cpu, cpu);
		EXPECT_EQ(t, percpu[cpu].apic_id, numa.cpu_apic_id[cpu]);
		EXPECT_EQ(t, percpu[cpu].node, numa.cpu_node[cpu]);
		ASSERT_TRUE(t, views[cpu].seen);
		EXPECT_EQ(t, views[cpu].apic_id, percpu[cpu].apic_id);
	}
}

/*
 * Started all at once, every AP found its own number by its APIC ID: none
 * had to be started alone afterwards (which would still bring it online,
 * hiding a broken lookup from every other case).
 */
static void every_ap_found_itself_when_started_together(struct ktest *t)
{
	if (!smp_parallel())
		KTEST_SKIP(t, "smp.parallel=off: every AP was started alone");
	if (nr_cpus < 2)
		KTEST_SKIP(t, "one CPU: no AP to start");
	EXPECT_EQ(t, smp_started_alone, 0);
	EXPECT_EQ(t, nr_cpus_online, nr_cpus);
}

static void percpu_data_stays_per_cpu(struct ktest *t)
{
	look_at_every_cpu();
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++) {
		EXPECT_EQ(t, views[cpu].seen, online(cpu));
		if (!views[cpu].seen)
			continue;
		EXPECT_EQ(t, views[cpu].cpu, cpu);
		EXPECT_EQ(t, views[cpu].gs_base, &percpu[cpu]);
	}
}

static u32 calls_run;
static u32 ran_on[MAX_CPUS];

static void count_call(void *arg)
{
	__atomic_fetch_add(&calls_run, 1, __ATOMIC_RELAXED);
}

static void note_where_i_ran(void *arg)
{
	*(u32 *)arg = smp_processor_id();
}

static void call_function_reaches_every_cpu(struct ktest *t)
{
	calls_run = 0;
	smp_call_function_all(count_call, NULL, true);
	EXPECT_EQ(t, calls_run, nr_cpus_online);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!online(cpu))
			continue;
		ran_on[cpu] = ~0u;
		smp_call_function(cpu, note_where_i_ran, &ran_on[cpu], true);
		EXPECT_EQ(t, ran_on[cpu], cpu);
	}
}

static void call_function_without_wait_runs(struct ktest *t)
{
	u32 sent = 0;
	u64 deadline;

	calls_run = 0;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!online(cpu))
			continue;
		smp_call_function(cpu, count_call, NULL, false);
		sent++;
	}
	deadline = ktime_ns() + (u64)NOWAIT_TIMEOUT_MS * 1000000;
	while (__atomic_load_n(&calls_run, __ATOMIC_ACQUIRE) < sent && ktime_ns() < deadline)
		cpu_relax();
	EXPECT_EQ(t, calls_run, sent);
}

static void was_interrupts_off(void *arg)
{
	*(bool *)arg = !(read_rflags() & RFLAGS_IF);
}

static void call_on_this_cpu_runs_at_once(struct ktest *t)
{
	bool irqs_were_off = false;
	u64 flags = irq_save();         /* stay on this CPU: the thread may migrate */

	smp_call_function(smp_processor_id(), was_interrupts_off, &irqs_were_off, false);
	irq_restore(flags);
	/* No wait, yet done: it ran right here, before the call returned. */
	EXPECT_TRUE(t, irqs_were_off);
}

static void each_cpu_has_its_own_tables_and_ist_stacks(struct ktest *t)
{
	look_at_every_cpu();
	for (u32 a = 0; a < nr_cpus; a++) {
		if (!online(a))
			continue;
		const struct tss *tss = &percpu[a].tables.tss;
		u64 df = tss->ist[IST_DOUBLE_FAULT - 1], nmi = tss->ist[IST_NMI - 1];

		EXPECT_EQ(t, views[a].gdt_base, percpu[a].tables.gdt);
		EXPECT_EQ(t, views[a].tr, TSS_SEL);
		EXPECT_NE(t, df, 0);
		EXPECT_NE(t, nmi, 0);
		EXPECT_NE(t, df, nmi);
		EXPECT_TRUE(t, vm_mapped(df - 8));      /* the top word of each stack */
		EXPECT_TRUE(t, vm_mapped(nmi - 8));
		for (u32 b = 0; b < a; b++) {
			if (!online(b))
				continue;
			EXPECT_NE(t, df, percpu[b].tables.tss.ist[IST_DOUBLE_FAULT - 1]);
			EXPECT_NE(t, nmi, percpu[b].tables.tss.ist[IST_NMI - 1]);
		}
	}
}

/* --- a late call: named, and found where it is ---------------------------------- */

#define HOLD_MS         300     /* how long the target keeps interrupts off */
#define REPORT_AFTER_MS 50      /* the waiter's report comes this early instead of after 5 s */

static u32 holding;

/* Run as a call: keep this CPU in the IPI handler, interrupts off, for HOLD_MS. */
__attribute__((noinline)) static void hold_with_interrupts_off(void *arg)
{
	u64 until = ktime_ns() + (u64)HOLD_MS * 1000000;

	(void)arg;
	__atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
	while (ktime_ns() < until)
		cpu_relax();
	__atomic_store_n(&holding, 0, __ATOMIC_RELEASE);
}

static void do_nothing(void *arg)
{
	(void)arg;
}

/* The lowest online CPU other than self, or NO_TARGET. */
static u32 another_online_cpu(u32 self)
{
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (cpu != self && online(cpu))
			return cpu;
	return NO_TARGET;
}

static bool in_function(u64 addr, void *fn)
{
	u64 off, size;
	const char *name = ksym_lookup(addr, &off, &size);

	return name && addr - off == (u64)fn;
}

/*
 * A call queued behind one that keeps its CPU busy with interrupts off:
 * the waiter names that CPU, says the call is still queued, and the NMI
 * finds the CPU inside hold_with_interrupts_off() with interrupts off.
 */
static void a_late_call_names_its_cpu_and_where_it_is(struct ktest *t)
{
	const struct smp_late_call *late = smp_last_late_call();
	u32 self, target, reports, old_ms;
	char tail[1024], want[96];
	bool found = false;
	u64 flags;

	flags = irq_save();             /* stay on this CPU from here */
	self = smp_processor_id();
	target = another_online_cpu(self);
	if (target == NO_TARGET) {
		irq_restore(flags);
		KTEST_SKIP(t, "one CPU online: no other CPU to be late");
	}
	smp_call_function(target, hold_with_interrupts_off, NULL, false);
	while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
		cpu_relax();
	reports = late->reports;
	old_ms = smp_set_call_wait_warn_ms(REPORT_AFTER_MS);
	smp_call_function(target, do_nothing, NULL, true);      /* queued behind the hold */
	smp_set_call_wait_warn_ms(old_ms);
	irq_restore(flags);

	EXPECT_EQ(t, late->reports, reports + 1);
	EXPECT_EQ(t, late->waiter, self);
	EXPECT_EQ(t, late->cpu, target);
	EXPECT_EQ(t, late->state, SMP_LATE_QUEUED);
	EXPECT_TRUE(t, late->answered_nmi);
	EXPECT_FALSE(t, late->irqs_on);
	found = in_function(late->rip, hold_with_interrupts_off);
	for (u32 i = 0; i < SMP_LATE_FRAMES && late->frames[i] && !found; i++)
		found = in_function(late->frames[i] - 1, hold_with_interrupts_off);
	if (!found)
		ktest_log(t, "the NMI found CPU %u at %#llx, not in hold_with_interrupts_off()",
			  target, late->rip);
	EXPECT_TRUE(t, found);
	snprintf(want, sizeof(want), "smp: CPU %u has not taken it from its queue", target);
	printk_log_tail(tail, sizeof(tail));
	EXPECT_TRUE(t, strstr(tail, want) != NULL);
}

/*
 * A call whose IPI never came (smp_lose_next_call_ipi()) to an idle CPU,
 * which wakes only for an interrupt: the report sends the IPI again, and
 * the wait ends instead of lasting for ever (on pair, where no third CPU
 * can send one, mutant smp-lost-call-ipi-not-sent-again hangs here).
 */
static void a_lost_call_ipi_is_sent_again(struct ktest *t)
{
	const struct smp_late_call *late = smp_last_late_call();
	u32 self, target, reports, old_ms, ran_on = NO_TARGET;
	u64 flags;

	flags = irq_save();
	self = smp_processor_id();
	target = another_online_cpu(self);
	if (target == NO_TARGET) {
		irq_restore(flags);
		KTEST_SKIP(t, "one CPU online: no other CPU to call");
	}
	reports = late->reports;
	old_ms = smp_set_call_wait_warn_ms(REPORT_AFTER_MS);
	smp_lose_next_call_ipi();
	smp_call_function(target, note_where_i_ran, &ran_on, true);
	smp_set_call_wait_warn_ms(old_ms);
	irq_restore(flags);

	EXPECT_EQ(t, ran_on, target);
	/*
	 * Any call IPI from a third CPU runs the whole queue, ours too, maybe
	 * before the report (seen on 8 CPUs); without one, the report came
	 * and named the call queued there.
	 */
	if (late->reports == reports) {
		ktest_log(t, "another CPU's call IPI reached CPU %u first", target);
		return;
	}
	EXPECT_EQ(t, late->reports, reports + 1);
	EXPECT_EQ(t, late->cpu, target);
	EXPECT_EQ(t, late->state, SMP_LATE_QUEUED);
}

static const struct ktest_case smp_cases[] = {
	KTEST(every_madt_cpu_came_online),
	KTEST(percpu_entries_describe_their_cpu),
	KTEST(every_ap_found_itself_when_started_together),
	KTEST(percpu_data_stays_per_cpu),
	KTEST(call_function_reaches_every_cpu),
	KTEST(call_function_without_wait_runs),
	KTEST(call_on_this_cpu_runs_at_once),
	KTEST(each_cpu_has_its_own_tables_and_ist_stacks),
	KTEST(a_late_call_names_its_cpu_and_where_it_is),
	KTEST(a_lost_call_ipi_is_sent_again),
	{},
};
KTEST_SUITE(smp, smp_cases);

/* --- smp_bound: the start's time, under -icount ---------------------------------- */

#define TOGETHER_BOUND_NS 1000000       /* 1 ms: the 200 us after STARTUP and the climb */

/*
 * The APs started together were all online within TOGETHER_BOUND_NS of
 * the first INIT, without a second STARTUP. Waited out on the 4 ms tick,
 * story-icount's took 7.4 ms and the second STARTUP (two leaps of the
 * clock to the next tick: docs/smp.md, "Under -icount").
 */
static void aps_come_online_within_a_ms_of_the_first_init(struct ktest *t)
{
	if (nr_cpus < 2)
		KTEST_SKIP(t, "one CPU: no AP to start");
	if (!smp_parallel())
		KTEST_SKIP(t, "smp.parallel=off: no start together");
	ktest_log(t, "the APs online %llu us after the first INIT%s", smp_together_ns / 1000,
		  smp_second_startup ? ", a second STARTUP sent" : "");
	EXPECT_EQ(t, nr_cpus_online, nr_cpus);
	EXPECT_GT(t, smp_together_ns, 0);
	EXPECT_LE(t, smp_together_ns, TOGETHER_BOUND_NS);
	EXPECT_FALSE(t, smp_second_startup);
}

static const struct ktest_case smp_bound_cases[] = {
	KTEST(aps_come_online_within_a_ms_of_the_first_init),
	{},
};
KTEST_SUITE_MANUAL(smp_bound, smp_bound_cases);

/* --- smp_panic: a crash on another CPU ------------------------------------------ */

static u64 *volatile smp_panic_target;  /* NULL, through a volatile: no cheating */

__attribute__((noinline)) static void smp_panic_write_null(void *arg)
{
	*smp_panic_target = 0xdead;     /* a page fault nobody catches, on another CPU */
	__asm__ volatile("" ::: "memory");
}

static void panic_on_another_cpu(struct ktest *t)
{
	if (nr_cpus_online < 2 || !online(1))
		KTEST_SKIP(t, "CPU 1 is not online");
	preempt_disable();      /* stay here: the boot thread may run on CPU 1 too */
	u32 other = smp_processor_id() == 1 ? 0 : 1;
	smp_call_function(other, smp_panic_write_null, NULL, true);
	preempt_enable();
	ktest_log(t, "CPU 1 wrote through NULL and the machine went on: the panic was lost");
	t->status = KTEST_FAIL;
}

static const struct ktest_case smp_panic_cases[] = {
	KTEST(panic_on_another_cpu),
	{},
};
KTEST_SUITE_MANUAL(smp_panic, smp_panic_cases);
