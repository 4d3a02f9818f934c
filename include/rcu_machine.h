/* SPDX-License-Identifier: MIT */
/*
 * rcu_machine.h - the machine kernel/rcu.c runs on, and nothing more.
 *
 * RCU's state machine needs a handful of things from the machine: which
 * CPU it runs on, which CPUs are online, a way to ask this CPU to switch,
 * to raise RCU's softirq here, to send a forcing IPI, a clock, and when
 * the running softirq's time is up. In the
 * kernel they are percpu, smp, softirq and time (the inlines below). On
 * the host (HOST_TEST) the same rcu.c is compiled against a model of the
 * machine that a test provides: tests/check/rcu_check.c explores every
 * interleaving of a small world through it. Locks and interrupt masking
 * come from spinlock.h and x86.h, which already have host versions.
 */
#ifndef RCU_MACHINE_H
#define RCU_MACHINE_H

#include "rcu.h"
#include "types.h"

#ifndef HOST_TEST
#include "percpu.h"
#include "sched.h"
#include "smp.h"
#include "softirq.h"
#include "time.h"

static inline u32 rcu_machine_cpu(void) { return smp_processor_id(); }
static inline u32 rcu_machine_nr_cpus(void) { return nr_cpus; }
static inline bool rcu_machine_online(u32 cpu) { return percpu[cpu].online; }
static inline void rcu_machine_need_resched(void) { this_cpu()->need_resched = true; }
static inline void rcu_machine_raise_softirq(void) { raise_softirq(SOFTIRQ_RCU); }
static inline u64 rcu_machine_now_ns(void) { return ktime_ns(); }
static inline u64 rcu_machine_softirq_end_ns(void) { return softirq_end_ns(); }
/* cpu's RCU data is touched: with debug=on it must be this CPU's (debug.h). */
static inline void rcu_machine_check_own(u32 cpu)
{
	DEBUG_CHECK(cpu == raw_smp_processor_id(), "another CPU's RCU data touched");
}
static inline void rcu_machine_preempt_disable(void) { preempt_disable(); }
static inline void rcu_machine_preempt_enable(void) { preempt_enable(); }

/* The notice IPI's call: quiescent at once if it landed in the idle thread (sched.h). */
static inline void rcu_forced_ipi_call(void *arg)
{
	rcu_forced_ipi(idle_and_outside_readers(this_cpu()));
}

/* The forcing IPI to cpu, of the kind the mode sends (enum rcu_ipi). */
static inline void rcu_machine_send_ipi(u32 cpu, enum rcu_ipi ipi)
{
	if (ipi == RCU_IPI_BARE)
		smp_send_bare_reschedule(cpu);
	else if (ipi == RCU_IPI_RESCHED)
		smp_send_reschedule(cpu);
	else
		smp_call_function(cpu, rcu_forced_ipi_call, NULL, false);
}
#else
u32 rcu_machine_cpu(void);
u32 rcu_machine_nr_cpus(void);
bool rcu_machine_online(u32 cpu);
void rcu_machine_need_resched(void);
void rcu_machine_raise_softirq(void);
u64 rcu_machine_now_ns(void);
u64 rcu_machine_softirq_end_ns(void);
void rcu_machine_check_own(u32 cpu);
void rcu_machine_preempt_disable(void);
void rcu_machine_preempt_enable(void);
void rcu_machine_send_ipi(u32 cpu, enum rcu_ipi ipi);
#endif

#endif
