/* SPDX-License-Identifier: MIT */
/*
 * softirq.h - work deferred from interrupt handlers, run on interrupt exit
 * with interrupts on, or by each CPU's ksoftirqd thread.
 *
 * As in Linux 2.6.14's kernel/softirq.c (the numbers in brackets are its):
 *
 *   interrupt handler: raise_softirq(SOFTIRQ_RCU)     sets a bit in this
 *                                                     CPU's pending mask
 *   outermost interrupt exit, no softirq running here:
 *     do_softirq():  preempt_count += SOFTIRQ_OFFSET
 *                    repeat: take the mask, interrupts on, run each raised
 *                            action, interrupts off
 *                    while raised again, at most SOFTIRQ_MAX_RESTART [10] times,
 *                    and (Linux 3.8 on) only within SOFTIRQ_MAX_TIME_NS of
 *                    the start and while nothing asked this CPU to switch
 *                    still raised: wake this CPU's ksoftirqd
 *   ksoftirqd/N:     a thread of the lowest priority [nice 19] that runs
 *                    do_softirq() until nothing is raised
 *
 * Invariants: an action never nests in another on the same CPU (an
 * interrupt that comes during one only raises bits, which the running
 * loop takes); actions run with SOFTIRQ_OFFSET in preempt_count, so
 * nothing in them may sleep: schedule() panics ("scheduling while
 * atomic"); the pending mask is changed only by its CPU, interrupts off.
 */
#ifndef SOFTIRQ_H
#define SOFTIRQ_H

#include "types.h"

enum softirq_nr {
	SOFTIRQ_RCU,            /* RCU's callbacks (2.6.14: a tasklet; 2.6.20 on: RCU_SOFTIRQ) */
	NR_SOFTIRQS,
};

#define SOFTIRQ_OFFSET      0x100       /* in preempt_count while an action runs */
#define SOFTIRQ_MAX_RESTART 10          /* 2.6.14's MAX_SOFTIRQ_RESTART */
/*
 * How long one do_softirq() may run actions: Linux's MAX_SOFTIRQ_TIME, 2 ms
 * (Eric Dumazet, "softirq: reduce latencies", c10d73671ad3, 2013, which
 * also stops at need_resched()). 2.6.14 had only the count of restarts, so
 * an action that re-raised itself could keep one exit for ten passes. An
 * action that can run long (RCU's callbacks) looks at softirq_end_ns() as
 * it goes: an exit then runs actions for at most this plus one step.
 */
#define SOFTIRQ_MAX_TIME_NS (2ULL * 1000 * 1000)

void open_softirq(enum softirq_nr nr, void (*action)(void));

/* Mark nr pending on this CPU; it runs at the next interrupt exit (or in ksoftirqd). */
void raise_softirq(enum softirq_nr nr);

/* Is this CPU running a softirq action? */
bool in_softirq(void);

/* Inside an action: when this do_softirq() should stop (ktime_ns()). */
u64 softirq_end_ns(void);

/*
 * Interrupt exit (interrupts off, the outermost handler done): run what
 * is pending, unless a softirq already runs on this CPU.
 */
void softirq_irq_exit(void);

/*
 * One round of ksoftirqd's loop, interrupts off: run what is pending
 * (unless a softirq already runs here); false if nothing was. ksoftirqd
 * calls it until false, letting others run in between; check-rcu calls it
 * as the event "ksoftirqd runs".
 */
bool softirq_ksoftirqd_round(void);

/* Start ksoftirqd on every online CPU (after smp_boot()). */
void softirq_init(void);

/* make check-rcu (HOST_TEST): start over; save or restore each CPU's pending mask. */
void softirq_host_reset(void);
size_t softirq_host_state_size(u32 ncpus);
void softirq_host_save(void *buf, u32 ncpus);
void softirq_host_restore(const void *buf, u32 ncpus);

struct softirq_stats {
	u64 runs;               /* do_softirq() loops that ran actions */
	u64 restarts;           /* ...extra rounds because an action raised again */
	u64 handed_over;        /* times the work went on to ksoftirqd */
	u64 ksoftirqd_runs;     /* times ksoftirqd woke up and ran it */
	u64 exit_ns_max;        /* the longest interrupt exit's softirqs, in ns */
};
void softirq_get_stats(u32 cpu, struct softirq_stats *stats);

/* Start this CPU's exit_ns_max over (for a test that measures it). */
void softirq_reset_exit_max(void);

#endif
