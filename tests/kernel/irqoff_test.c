// SPDX-License-Identifier: MIT
/*
 * irqoff_test.c - the interrupts-off tracer (irqoff.h): it catches a long
 * window and says where it opened; switched off, it times nothing; and a
 * window whose start it saw before it was switched off and on again is
 * never counted, however long ago that start was.
 *
 * A window is held for a known TSC time, so the tracer must report at
 * least that; the host may stretch any window under TCG, so the only
 * upper bound is against a stale start fifty milliseconds old. The cases
 * run with interrupts on and preemption off, so every window is on one CPU.
 */
#include "irqoff.h"
#include "ksyms.h"
#include "kstring.h"
#include "ktest.h"
#include "sched.h"
#include "time.h"
#include "x86.h"

#define MS              1000000ULL      /* ns */
#define WINDOW_MS       5               /* a window held this long */
#define STALE_MS        50              /* a start left behind this long ago */

static void spin_ms(u64 ms)
{
	u64 end = rdtsc() + tsc_khz * ms;

	while ((s64)(rdtsc() - end) < 0)
		cpu_relax();
}

static void a_long_window_is_caught_where_it_opened(struct ktest *t)
{
	bool was = irqoff_trace(true);
	struct irqoff_max max;
	u64 flags, offset, size;

	preempt_disable();
	irqoff_reset();
	flags = irq_save();             /* the window opens here */
	spin_ms(WINDOW_MS);
	irq_restore(flags);
	irqoff_get(smp_processor_id(), &max);
	preempt_enable();
	irqoff_trace(was);

	EXPECT_GE(t, max.ns, WINDOW_MS * MS);
	const char *sym = ksym_lookup(max.where, &offset, &size);
	EXPECT_STREQ(t, sym ? sym : "(no symbol)", "a_long_window_is_caught_where_it_opened");
}

static void an_untraced_window_is_not_timed(struct ktest *t)
{
	bool was = irqoff_trace(false);
	struct irqoff_max max;
	u64 flags;

	preempt_disable();
	irqoff_reset();
	flags = irq_save();
	spin_ms(WINDOW_MS);
	irq_restore(flags);
	irqoff_get(smp_processor_id(), &max);
	preempt_enable();
	irqoff_trace(was);

	EXPECT_EQ(t, max.ns, 0);        /* not even the ticks' own windows: they are traced alike */
}

static void a_start_from_before_tracing_went_on_again_is_not_counted(struct ktest *t)
{
	bool was = irqoff_trace(true);
	struct irqoff_max max;
	u64 flags;

	preempt_disable();
	flags = irq_save();             /* traced: a window starts */
	irqoff_trace(false);
	irq_restore(flags);             /* untraced: no end, the start stays behind */
	spin_ms(STALE_MS);
	irqoff_reset();
	flags = irq_save();             /* untraced: no new start */
	irqoff_trace(true);
	irq_restore(flags);             /* traced: this end must not time from the old start */
	irqoff_get(smp_processor_id(), &max);
	preempt_enable();
	irqoff_trace(was);

	EXPECT_LT(t, max.ns, STALE_MS * MS);
}

static const struct ktest_case irqoff_cases[] = {
	KTEST(a_long_window_is_caught_where_it_opened),
	KTEST(an_untraced_window_is_not_timed),
	KTEST(a_start_from_before_tracing_went_on_again_is_not_counted),
	{}
};
KTEST_SUITE(irqoff, irqoff_cases);
