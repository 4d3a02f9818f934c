// SPDX-License-Identifier: MIT
/*
 * softirq.c - softirqs and ksoftirqd (see softirq.h for the picture).
 *
 * Why two places: interrupt exit is the cheapest moment to run deferred
 * work, but a flood of it there would starve every thread on the CPU
 * (the work re-raises itself as fast as it runs). So interrupt exit runs
 * a bounded number of rounds and hands the rest to ksoftirqd, which the
 * scheduler treats like any other thread of the lowest priority: it waits
 * for its turn. For RCU that has a consequence 2005's kernels lived with:
 * the switch into ksoftirqd is a quiescent state of its own.
 *
 * The bound is a count and a time, as in Linux since 3.8: restart while
 * something is raised, fewer than SOFTIRQ_MAX_RESTART times, within
 * SOFTIRQ_MAX_TIME_NS of the start, and while nothing asked this CPU to
 * switch. 2.6.14 counted restarts only. An action that may run long reads
 * softirq_end_ns() between steps (RCU's callbacks do), so no exit runs
 * actions for much over 2 ms: exit_ns_max keeps the longest, per CPU.
 */
#include "softirq.h"
#include "format.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "x86.h"

struct softirq_cpu {
	u32 pending;                    /* bit nr: raise_softirq(nr) */
	struct thread *ksoftirqd;
	u64 end_ns;                     /* the running do_softirq()'s time is up (ktime_ns()) */
	struct softirq_stats stats;
};

static struct softirq_cpu softirq_cpus[MAX_CPUS];
static void (*actions[NR_SOFTIRQS])(void);

void open_softirq(enum softirq_nr nr, void (*action)(void))
{
	actions[nr] = action;
}

void raise_softirq(enum softirq_nr nr)
{
	u64 flags = irq_save();

	softirq_cpus[smp_processor_id()].pending |= 1u << nr;
	irq_restore(flags);
}

bool in_softirq(void)
{
	return this_cpu()->preempt_count & SOFTIRQ_OFFSET;
}

u64 softirq_end_ns(void)
{
	return softirq_cpus[smp_processor_id()].end_ns;
}

/* Run the raised actions, interrupts on; interrupts off on entry and exit. */
static void run_actions(struct softirq_cpu *sc, u32 pending)
{
	assert_irqs_disabled();
	sc->pending = 0;
	sti();
	for (u32 nr = 0; nr < NR_SOFTIRQS; nr++)
		if ((pending & (1u << nr)) && actions[nr])
			actions[nr]();
	cli();
}

/* Is there time and reason for another round (Linux's __do_softirq())? */
static bool may_restart(struct percpu *pc, struct softirq_cpu *sc, u32 *rounds)
{
	return sc->pending && --*rounds && ktime_ns() < sc->end_ns && !pc->need_resched;
}

/* __do_softirq(), 2.6.14's with Linux 3.8's time bound. Interrupts off, no softirq here. */
static void do_softirq(void)
{
	struct percpu *pc = this_cpu();
	struct softirq_cpu *sc = &softirq_cpus[pc->cpu];
	u32 rounds = SOFTIRQ_MAX_RESTART;

	pc->preempt_count += SOFTIRQ_OFFSET;    /* interrupts are off: no torn update */
	sc->stats.runs++;
	sc->end_ns = ktime_ns() + SOFTIRQ_MAX_TIME_NS;
	run_actions(sc, sc->pending);
	while (may_restart(pc, sc, &rounds)) {
		sc->stats.restarts++;
		run_actions(sc, sc->pending);
	}
	pc->preempt_count -= SOFTIRQ_OFFSET;
	if (sc->pending && sc->ksoftirqd && pc->current != sc->ksoftirqd) {
		sc->stats.handed_over++;
		wake_up_thread(sc->ksoftirqd);
	}
}

void softirq_irq_exit(void)
{
	struct softirq_cpu *sc = &softirq_cpus[smp_processor_id()];

	assert_irqs_disabled();
	if (sc->pending && !in_softirq()) {
		u64 start = ktime_ns();

		do_softirq();
		sc->stats.exit_ns_max = MAX(sc->stats.exit_ns_max, ktime_ns() - start);
	}
}

/* ksoftirqd/N: run softirqs until none is raised, letting others run in between. */
static void ksoftirqd(void *arg)
{
	struct softirq_cpu *sc = arg;

	for (;;) {
		cli();
		if (!sc->pending) {
			current_thread()->state = THREAD_BLOCKED;
			schedule();             /* raise_softirq() + do_softirq() wake us */
		}
		sc->stats.ksoftirqd_runs++;
		while (sc->pending) {
			if (!in_softirq())
				do_softirq();
			sti();
			cond_resched();
			cli();
		}
		sti();
	}
}

void softirq_init(void)
{
	char name[24];

	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!percpu[cpu].online)
			continue;
		snprintf(name, sizeof(name), "ksoftirqd/%u", cpu);
		softirq_cpus[cpu].ksoftirqd = thread_create_lowest(name, ksoftirqd,
								   &softirq_cpus[cpu], cpu);
		if (!softirq_cpus[cpu].ksoftirqd)
			pr_warn("softirq: no ksoftirqd on CPU %u: its softirqs wait for interrupts\n",
				cpu);
	}
	pr_info("softirq: %u restarts on interrupt exit within %llu ms, then ksoftirqd at the "
		"lowest priority\n", SOFTIRQ_MAX_RESTART, SOFTIRQ_MAX_TIME_NS / 1000000);
}

void softirq_get_stats(u32 cpu, struct softirq_stats *stats)
{
	*stats = softirq_cpus[cpu].stats;
}

void softirq_reset_exit_max(void)
{
	u64 flags = irq_save();

	softirq_cpus[smp_processor_id()].stats.exit_ns_max = 0;
	irq_restore(flags);
}
