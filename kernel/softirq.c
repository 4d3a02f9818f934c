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
 *
 * The machine it needs is softirq_machine.h; the same file also builds for
 * the host, where make check-rcu runs it under RCU (the ksoftirqd threads
 * and the statistics' readers are the kernel's alone).
 */
#include "softirq.h"
#include "debug.h"
#include "param.h"
#include "softirq_machine.h"
#include "x86.h"
#ifndef HOST_TEST
#include "format.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#endif

struct softirq_cpu {
	u32 pending;                    /* bit nr: raise_softirq(nr) */
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

	softirq_cpus[softirq_machine_cpu()].pending |= 1u << nr;
	irq_restore(flags);
}

bool in_softirq(void)
{
	return softirq_machine_preempt_count() & SOFTIRQ_OFFSET;
}

u64 softirq_end_ns(void)
{
	return softirq_cpus[softirq_machine_cpu()].end_ns;
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
static bool may_restart(struct softirq_cpu *sc, u32 *rounds)
{
	return sc->pending && --*rounds && softirq_machine_now_ns() < sc->end_ns &&
	       !softirq_machine_need_resched();
}

/*
 * __do_softirq(), 2.6.14's with Linux 3.8's time bound. Interrupts off,
 * no softirq here. in_ksoftirqd: called by this CPU's ksoftirqd, which
 * needs no waking for what is left.
 */
static void do_softirq(bool in_ksoftirqd)
{
	u32 cpu = softirq_machine_cpu();
	struct softirq_cpu *sc = &softirq_cpus[cpu];
	u32 rounds = SOFTIRQ_MAX_RESTART;

	softirq_machine_preempt_add(SOFTIRQ_OFFSET);    /* interrupts are off: no torn update */
	sc->stats.runs++;
	sc->end_ns = softirq_machine_now_ns() + SOFTIRQ_MAX_TIME_NS;
	run_actions(sc, sc->pending);
	while (may_restart(sc, &rounds)) {
		sc->stats.restarts++;
		run_actions(sc, sc->pending);
	}
	softirq_machine_preempt_add(-SOFTIRQ_OFFSET);
	if (sc->pending && !in_ksoftirqd && softirq_machine_wake_ksoftirqd(cpu))
		sc->stats.handed_over++;
}

void softirq_irq_exit(void)
{
	struct softirq_cpu *sc = &softirq_cpus[softirq_machine_cpu()];

	assert_irqs_disabled();
	if (sc->pending && !in_softirq()) {
		u64 start = softirq_machine_now_ns();

		do_softirq(false);
		sc->stats.exit_ns_max = MAX(sc->stats.exit_ns_max, softirq_machine_now_ns() - start);
	}
}

bool softirq_ksoftirqd_round(void)
{
	struct softirq_cpu *sc = &softirq_cpus[softirq_machine_cpu()];

	assert_irqs_disabled();
	if (!sc->pending)
		return false;
	if (!in_softirq())
		do_softirq(true);
	return true;
}

#ifndef HOST_TEST
static struct thread *ksoftirqd_of[MAX_CPUS];

bool softirq_machine_wake_ksoftirqd(u32 cpu)
{
	struct thread *k = ksoftirqd_of[cpu];

	if (!k || current_thread() == k)
		return false;
	wake_up_thread(k);
	return true;
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
		while (softirq_ksoftirqd_round()) {
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
		ksoftirqd_of[cpu] = thread_create_lowest(name, ksoftirqd, &softirq_cpus[cpu], cpu);
		if (!ksoftirqd_of[cpu])
			pr_warn("softirq: no ksoftirqd on CPU %u: its softirqs wait for interrupts\n",
				cpu);
	}
	pr_info("softirq: %u restarts on interrupt exit within %llu ms, then ksoftirqd at the "
		"lowest priority\n", SOFTIRQ_MAX_RESTART, SOFTIRQ_MAX_TIME_NS / 1000000);
}
#endif

#ifdef HOST_TEST
/* make check-rcu: start over, and save or restore what is pending on each CPU (the state). */
void softirq_host_reset(void)
{
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		softirq_cpus[cpu] = (struct softirq_cpu){ 0 };
}

size_t softirq_host_state_size(u32 ncpus)
{
	return ncpus * sizeof(u32);
}

void softirq_host_save(void *buf, u32 ncpus)
{
	for (u32 cpu = 0; cpu < ncpus; cpu++)
		((u32 *)buf)[cpu] = softirq_cpus[cpu].pending;
}

void softirq_host_restore(const void *buf, u32 ncpus)
{
	for (u32 cpu = 0; cpu < ncpus; cpu++)
		softirq_cpus[cpu].pending = ((const u32 *)buf)[cpu];
}
#endif

void softirq_get_stats(u32 cpu, struct softirq_stats *stats)
{
	*stats = softirq_cpus[cpu].stats;
}

void softirq_reset_exit_max(void)
{
	u64 flags = irq_save();

	softirq_cpus[softirq_machine_cpu()].stats.exit_ns_max = 0;
	irq_restore(flags);
}
