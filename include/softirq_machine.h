/* SPDX-License-Identifier: MIT */
/*
 * softirq_machine.h - the machine kernel/softirq.c runs on, and nothing more.
 *
 * The softirq needs this CPU's number, its preempt_count (where
 * SOFTIRQ_OFFSET says "a softirq runs here"), whether something asked this
 * CPU to switch, a clock, and a way to wake this CPU's ksoftirqd. In the
 * kernel they are percpu, sched and time (the inlines below); on the host
 * (HOST_TEST) tests/check/rcu_check.c provides a model, as it does for
 * rcu_machine.h, so that check-rcu runs the kernel's own softirq: its
 * restarts, its hand-over to ksoftirqd and its interrupt exit.
 */
#ifndef SOFTIRQ_MACHINE_H
#define SOFTIRQ_MACHINE_H

#include "types.h"

#ifndef HOST_TEST
#include "percpu.h"
#include "sched.h"
#include "time.h"

static inline u32 softirq_machine_cpu(void) { return smp_processor_id(); }
static inline int softirq_machine_preempt_count(void) { return this_cpu_preempt_count(); }
static inline void softirq_machine_preempt_add(int n) { this_cpu()->preempt_count += n; }
static inline bool softirq_machine_need_resched(void) { return this_cpu()->need_resched; }
static inline u64 softirq_machine_now_ns(void) { return ktime_ns(); }
#else
u32 softirq_machine_cpu(void);
int softirq_machine_preempt_count(void);
void softirq_machine_preempt_add(int n);
bool softirq_machine_need_resched(void);
u64 softirq_machine_now_ns(void);
#endif

/* Wake this CPU's ksoftirqd: true if there is one (the kernel's is in softirq.c). */
bool softirq_machine_wake_ksoftirqd(u32 cpu);

#endif
