/* SPDX-License-Identifier: MIT */
/*
 * debug.h - the kernel checking its own rules, with debug=on.
 *
 * Linux checks these rules with lockdep, CONFIG_DEBUG_PREEMPT and
 * CONFIG_PROVE_RCU; testbed with checks that cost one load and one
 * branch when off (the default):
 *
 *   assert_irqs_disabled()   a function whose comment says "interrupts
 *                            off" was called with them on (Linux's
 *                            lockdep_assert_irqs_disabled());
 *   assert_spin_locked(l)    a function that needs l held runs without it;
 *   smp_processor_id(),      (percpu.h) read where the thread may move to
 *   this_cpu()               another CPU the next instruction: preemption
 *                            and interrupts on, not pinned to one CPU
 *                            (debug_smp_processor_id() and this_cpu_ptr()
 *                            under CONFIG_DEBUG_PREEMPT in Linux);
 *   rcu_dereference(p)       (rcu.h) outside a read-side critical section
 *                            (PROVE_RCU's "suspicious rcu_dereference()").
 *
 * A check that fails prints "debug: <what> in <function>" and a backtrace,
 * the first time at each place, and counts every time: each test suite's
 * leaks_nothing case fails when the count grew during the suite, so a
 * boot with debug=on turns every broken rule into a failing test. The
 * host builds (unit tests, check-rcu, the simulator) compile the checks
 * out.
 */
#ifndef DEBUG_H
#define DEBUG_H

#include "types.h"

#ifndef HOST_TEST
#include "x86.h"

extern int debug_checks;                /* debug=on (the command line sets it first thing) */

/* Print, the first time for this (what, where), and count. */
void debug_fail(const char *what, const char *where);

/* Checks that failed since boot. */
u64 debug_failures(void);

#define DEBUG_CHECK(cond, what)                                                 \
	do {                                                                    \
		if (unlikely(debug_checks) && unlikely(!(cond)))                \
			debug_fail(what, __func__);                             \
	} while (0)
#else
#define DEBUG_CHECK(cond, what) do { } while (0)
#endif

#define assert_irqs_disabled() DEBUG_CHECK(!(read_rflags() & RFLAGS_IF), "interrupts on")
#define assert_spin_locked(l)  DEBUG_CHECK(spin_is_locked(l), "lock " #l " not held")

#endif
