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
 */
#include "softirq.h"
#include "format.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "x86.h"

struct softirq_cpu {
	u32 pending;                    /* bit nr: raise_softirq(nr) */
	struct thread *ksoftirqd;
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

/* Run the raised actions, interrupts on; interrupts off on entry and exit. */
static void run_actions(struct softirq_cpu *sc, u32 pending)
{
	sc->pending = 0;
	sti();
	for (u32 nr = 0; nr < NR_SOFTIRQS; nr++)
		if ((pending & (1u << nr)) && actions[nr])
			actions[nr]();
	cli();
}

/* 2.6.14's __do_softirq(). Interrupts off, no softirq running here. */
static void do_softirq(void)
{
	struct percpu *pc = this_cpu();
	struct softirq_cpu *sc = &softirq_cpus[pc->cpu];
	u32 rounds = SOFTIRQ_MAX_RESTART;

	pc->preempt_count += SOFTIRQ_OFFSET;    /* interrupts are off: no torn update */
	sc->stats.runs++;
	run_actions(sc, sc->pending);
	while (sc->pending && --rounds) {
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

	if (sc->pending && !in_softirq())
		do_softirq();
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
	pr_info("softirq: %u restarts on interrupt exit, then ksoftirqd at the lowest priority\n",
		SOFTIRQ_MAX_RESTART);
}

void softirq_get_stats(u32 cpu, struct softirq_stats *stats)
{
	*stats = softirq_cpus[cpu].stats;
}
