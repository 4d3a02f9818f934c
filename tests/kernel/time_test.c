// SPDX-License-Identifier: MIT
/*
 * time_test.c - the clock was calibrated, the tick runs, ktimers fire when
 * and where they should.
 *
 * The cases run with interrupts on (after timer_init_cpu() and sti()).
 * Under TCG, wall time is unreliable (the vCPU is a host thread that may
 * be descheduled at any moment), so no case asserts a speed: a timer's
 * lower bound comes from the clock (it never fires early), its upper bound
 * is counted in ticks and generous, and the order in which several timers
 * fire is checked exactly.
 *
 * Every wait is bounded. The first case waits for the tick with a
 * busy loop bounded by the TSC, so a dead tick fails instead of hanging;
 * once the tick is known to run, waits use hlt, which each tick ends.
 */
#include "acpi.h"
#include "apic.h"
#include "cpu.h"
#include "kstring.h"
#include "ktest.h"
#include "percpu.h"
#include "time.h"
#include "x86.h"

#define MS              1000000ULL      /* ns */
#define TICK_WAIT_MS    2000            /* TSC time allowed for the first ticks */
#define SLACK_TICKS     20              /* added to every upper bound in ticks */

/* Ticks needed for ns to pass, rounded up. */
static u64 ticks_for(u64 ns)
{
	return (ns * hz + 1000000000ULL - 1) / 1000000000ULL;
}

static u64 my_ticks(void)
{
	return __atomic_load_n(&this_cpu()->ticks, __ATOMIC_RELAXED);
}

static bool interrupts_on(void)
{
	return read_rflags() & RFLAGS_IF;
}

/* Busy-wait (no hlt) until n ticks have passed here or TICK_WAIT_MS of TSC time. */
static bool tick_seen(u64 n)
{
	u64 start = my_ticks();
	u64 end = rdtsc() + tsc_khz * TICK_WAIT_MS;

	while (my_ticks() - start < n && (s64)(rdtsc() - end) < 0)
		cpu_relax();
	return my_ticks() - start >= n;
}

/* hlt until *flag is set or max_ticks ticks have passed; returns the ticks waited. */
static u64 wait_for(volatile u32 *flag, u32 want, u64 max_ticks)
{
	u64 start = my_ticks();

	while (*flag < want && my_ticks() - start < max_ticks)
		hlt();
	return my_ticks() - start;
}

/* --- the clock -------------------------------------------------------------- */

static void clock_is_calibrated(struct ktest *t)
{
	static const char *const sources[] = { "cpuid 0x15", "hpet", "pm timer", "pit", "cpuid 0x16" };
	bool known = false;

	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		known |= !strcmp(tsc_source, sources[i]);
	EXPECT_TRUE(t, known);
	EXPECT_GE(t, tsc_khz, 1000);
	EXPECT_LE(t, tsc_khz, 100ULL * 1000 * 1000);
	EXPECT_GT(t, apic_timer_khz, 0);
	ktest_log(t, "TSC %llu kHz (%s), LAPIC timer %llu kHz", tsc_khz,
		  tsc_source, apic_timer_khz);
}

/* CPUID 0x15 outranks everything; without it, a machine with an HPET table uses the HPET. */
static void best_reference_won(struct ktest *t)
{
	struct cpuid_tsc c;
	bool exact;

	time_read_cpuid(&c);
	if (time_cpuid_khz(&c, &exact) && exact) {
		EXPECT_STREQ(t, tsc_source, "cpuid 0x15");
		KTEST_SKIP(t, "CPUID 0x15 states the TSC frequency");
	}
	if (!acpi.has_hpet)
		KTEST_SKIP(t, "no HPET table");
	EXPECT_STREQ(t, tsc_source, "hpet");
}

/*
 * A PIT the kernel believes must count at a PIT's rate: 10 ms of it give
 * at least half the calibrated TSC rate. A gated PIT whose OUT2 answers at
 * once would give a few MHz. There is no upper bound: under TCG the host
 * only ever stretches a PIT measurement (the TSC runs on while the vCPU
 * waits for its turn or for QEMU's lock on the port), and by much, on a
 * busy host and on an idle one alike (docs/performance.md).
 */
static void a_believed_pit_counts_at_its_rate(struct ktest *t)
{
	u64 khz;

	if (!time_pit_counts())
		KTEST_SKIP(t, "no PIT counting (none, or gated off)");
	khz = time_pit_khz();
	ktest_log(t, "PIT: TSC %llu kHz, calibrated %llu kHz (%s)", khz, tsc_khz, tsc_source);
	EXPECT_GE(t, khz * 2, tsc_khz);
}

static void ktime_never_goes_back(struct ktest *t)
{
	u64 prev = ktime_ns(), backwards = 0;

	for (int i = 0; i < 10000; i++) {
		u64 now = ktime_ns();

		backwards += now < prev;
		prev = now;
	}
	EXPECT_EQ(t, backwards, 0);
	EXPECT_GT(t, prev, 0);
}

/* --- the tick --------------------------------------------------------------- */

static void tick_mode_matches_the_cpu(struct ktest *t)
{
	EXPECT_GE(t, hz, 100);
	EXPECT_LE(t, hz, 10000);
	EXPECT_STREQ(t, tick_mode, cpu_info.tsc_deadline ? "tsc-deadline" : "periodic");
}

/* The rate is logged, not asserted: under TCG the tick may lag the TSC. */
static void tick_runs_on_this_cpu(struct ktest *t)
{
	u64 start, end;

	ASSERT_TRUE(t, interrupts_on());
	EXPECT_TRUE(t, tick_seen(3));
	start = my_ticks();
	end = ktime_ns() + 50 * MS;
	while (ktime_ns() < end)
		cpu_relax();
	ktest_log(t, "%llu ticks in 50 ms of TSC time at hz=%llu", (my_ticks() - start), hz);
}

/* The countdown's decrease from prev to v; across a reload (v above prev), to 0 and from init. */
static u64 countdown_decrease(u32 prev, u32 v, u32 init)
{
	return v <= prev ? prev - v : (u64)prev + init - v;
}

/*
 * The APIC timer's rate, measured at boot in the TSC calibration's window
 * (or a window of its own), against a fresh look at the running tick: in
 * periodic mode the timer counts down from its initial count and reloads,
 * so polling it for 1 ms of TSC time and adding up each poll's decrease
 * (across a reload, down to 0 and from the initial count) gives its rate.
 * Each poll is bracketed by two TSC reads. Two polls whose brackets span
 * half a period (at the boot's rate) or more could hide a whole period
 * between them: such a try is thrown away (a vCPU descheduled under TCG)
 * and another made, for up to half a second. A timer running twice as
 * fast as the boot said or more could hide one only in a try with such a
 * gap, rare, and the sum would then be off by whole periods, not land on
 * the boot's rate. The first and last polls are timed at their brackets'
 * midpoints, each bracket at most 1% of the window: within 1% in all, so
 * 2% is the bound. It checks the APIC timer against the TSC, not the TSC
 * itself (the clock tests above do that).
 */
static void apic_timer_rate_holds(struct ktest *t)
{
	if (strcmp(tick_mode, "periodic"))
		KTEST_SKIP(t, "the tick is in TSC-deadline mode: the APIC timer does not count down");
	ASSERT_GT(t, apic_timer_khz, 0);
	u32 init = lapic_read(LAPIC_TIMER_INIT);
	ASSERT_GT(t, init, 0);
	u64 window = tsc_khz, max_gap = (u64)init * tsc_khz / apic_timer_khz / 2, khz = 0;
	u64 give_up = rdtsc() + tsc_khz * 500;
	int tries = 0;

	while (!khz && (s64)(rdtsc() - give_up) < 0) {
		tries++;
		u64 flags = irq_save();
		u64 before = rdtsc();
		u32 prev = apic_timer_current(), v;
		u64 after = rdtsc(), t0 = before + (after - before) / 2, t1 = t0, last = before;
		u64 ticks = 0;
		bool bad = after - before > window / 100;

		while (!bad && after - t0 < window) {
			before = rdtsc();
			v = apic_timer_current();
			after = rdtsc();
			bad = after - last > max_gap;   /* both polls inside half a period */
			last = before;
			ticks += countdown_decrease(prev, v, init);
			prev = v;
			t1 = before + (after - before) / 2;
		}
		irq_restore(flags);
		if (!bad && after - before <= window / 100 && t1 > t0)
			khz = ticks * tsc_khz / (t1 - t0);
	}
	ASSERT_GT(t, khz, 0);
	ktest_log(t, "APIC timer %llu kHz now (try %d), %llu kHz at boot", khz, tries,
		  apic_timer_khz);
	EXPECT_LE(t, khz * 100, apic_timer_khz * 102);
	EXPECT_GE(t, khz * 100, apic_timer_khz * 98);
}

/* --- timers ----------------------------------------------------------------- */

struct shot {
	volatile u32 fired;
	u64 added_ns, fired_ns;
	u64 added_ticks, fired_ticks;
	u32 cpu;
	int irq_depth;
};

static void record_shot(struct ktimer *kt)
{
	struct shot *s = kt->data;

	s->fired_ns = ktime_ns();
	s->fired_ticks = my_ticks();
	s->cpu = smp_processor_id();
	s->irq_depth = this_cpu()->irq_depth;
	s->fired++;
}

/* Timers may only be tried once the tick is known to run (else hlt could wait forever). */
#define REQUIRE_TICK(t)                                                 \
	do {                                                            \
		ASSERT_TRUE(t, interrupts_on());                        \
		ASSERT_TRUE(t, tick_seen(1));                           \
	} while (0)

static void timer_fires_on_time_on_this_cpu(struct ktest *t)
{
	const u64 delay = 5 * MS;
	struct ktimer kt = { 0 };
	struct shot s = { 0 };
	u64 limit = 2 * ticks_for(delay) + SLACK_TICKS;

	REQUIRE_TICK(t);
	cli();                                  /* no tick between adding and looking */
	s.added_ticks = my_ticks();
	s.added_ns = ktime_ns();
	timer_add(&kt, delay, smp_processor_id(), record_shot, &s);
	EXPECT_TRUE(t, kt.pending);
	sti();
	wait_for(&s.fired, 1, limit);
	ASSERT_EQ(t, s.fired, 1);
	EXPECT_FALSE(t, kt.pending);
	EXPECT_GE(t, s.fired_ns - s.added_ns, delay);          /* never early */
	EXPECT_LE(t, s.fired_ticks - s.added_ticks, limit);    /* and not forgotten */
	EXPECT_EQ(t, s.cpu, smp_processor_id());
	EXPECT_GT(t, s.irq_depth, 0);                           /* from the tick interrupt */
	ktest_log(t, "5 ms timer fired after %llu ns, %llu ticks", (s.fired_ns - s.added_ns),
		  (s.fired_ticks - s.added_ticks));
}

static volatile u32 order_count;
static u32 order_seen[5];

static void record_order(struct ktimer *kt)
{
	order_seen[order_count++] = (u32)(u64)kt->data;
}

/*
 * Added out of order, fired in order of expiry: the list is sorted. The
 * order is checked against each timer's own expires, not the delays, so
 * a vCPU descheduled between two timer_add() calls cannot upset it.
 */
static void timers_fire_in_expiry_order(struct ktest *t)
{
	static const u32 delay_ms[5] = { 4, 1, 3, 5, 2 };
	struct ktimer kt[5] = { 0 };

	REQUIRE_TICK(t);
	order_count = 0;
	for (u32 i = 0; i < 5; i++)
		timer_add(&kt[i], delay_ms[i] * MS, smp_processor_id(), record_order,
			  (void *)(u64)i);
	wait_for(&order_count, 5, 2 * ticks_for(5 * MS) + SLACK_TICKS);
	ASSERT_EQ(t, order_count, 5);
	for (u32 i = 1; i < 5; i++)
		EXPECT_LE(t, kt[order_seen[i - 1]].expires, kt[order_seen[i]].expires);
	ktest_log(t, "fired in the order of delays %u %u %u %u %u ms", delay_ms[order_seen[0]],
		  delay_ms[order_seen[1]], delay_ms[order_seen[2]], delay_ms[order_seen[3]],
		  delay_ms[order_seen[4]]);
}

static void cancelled_timer_never_fires(struct ktest *t)
{
	const u64 delay = 2 * MS;
	struct ktimer kt = { 0 };
	struct shot s = { 0 };
	u64 end;

	REQUIRE_TICK(t);
	cli();                  /* a vCPU stalled for 2 ms must not let it fire first */
	timer_add(&kt, delay, smp_processor_id(), record_shot, &s);
	EXPECT_TRUE(t, timer_cancel(&kt));
	sti();
	EXPECT_FALSE(t, kt.pending);
	EXPECT_FALSE(t, timer_cancel(&kt));     /* a second cancel finds nothing */
	end = ktime_ns() + delay;
	while (ktime_ns() < end)                /* past its expiry... */
		hlt();
	wait_for(&s.fired, 1, 3);               /* ...and a few ticks more */
	EXPECT_EQ(t, s.fired, 0);
}

static void fired_timer_cannot_be_cancelled(struct ktest *t)
{
	struct ktimer kt = { 0 };
	struct shot s = { 0 };

	REQUIRE_TICK(t);
	timer_add(&kt, 1 * MS, smp_processor_id(), record_shot, &s);
	wait_for(&s.fired, 1, 2 * ticks_for(1 * MS) + SLACK_TICKS);
	ASSERT_EQ(t, s.fired, 1);
	EXPECT_FALSE(t, timer_cancel(&kt));
}

/* Adding a pending timer again moves it: it fires once, at the new time. */
static void adding_again_moves_the_timer(struct ktest *t)
{
	struct ktimer kt = { 0 };
	struct shot s = { 0 };

	REQUIRE_TICK(t);
	timer_add(&kt, 60000 * MS, smp_processor_id(), record_shot, &s);
	timer_add(&kt, 1 * MS, smp_processor_id(), record_shot, &s);
	wait_for(&s.fired, 1, 2 * ticks_for(1 * MS) + SLACK_TICKS);
	EXPECT_EQ(t, s.fired, 1);
	EXPECT_FALSE(t, timer_cancel(&kt));     /* the one-minute copy is gone */
}

static volatile u32 rearm_count;

static void rearm_itself(struct ktimer *kt)
{
	if (++rearm_count < 5)
		timer_add(kt, 1 * MS, kt->cpu, rearm_itself, NULL);
}

/* A fn may add its own timer again (the list is unlocked while it runs). */
static void timer_can_rearm_itself(struct ktest *t)
{
	struct ktimer kt = { 0 };

	REQUIRE_TICK(t);
	rearm_count = 0;
	timer_add(&kt, 1 * MS, smp_processor_id(), rearm_itself, NULL);
	wait_for(&rearm_count, 5, 5 * (2 * ticks_for(1 * MS) + SLACK_TICKS));
	EXPECT_EQ(t, rearm_count, 5);
	EXPECT_FALSE(t, kt.pending);
}

/* A timer put on another CPU's list runs there (once other CPUs are online). */
static void timer_runs_on_the_cpu_it_was_given(struct ktest *t)
{
	struct ktimer kt = { 0 };
	struct shot s = { 0 };
	u32 other = MAX_CPUS;

	for (u32 c = 0; c < nr_cpus && other == MAX_CPUS; c++)
		if (c != smp_processor_id() && percpu[c].online)
			other = c;
	if (other == MAX_CPUS)
		KTEST_SKIP(t, "no other CPU online");
	REQUIRE_TICK(t);
	timer_add(&kt, 1 * MS, other, record_shot, &s);
	wait_for(&s.fired, 1, 2 * ticks_for(1 * MS) + SLACK_TICKS);
	ASSERT_EQ(t, s.fired, 1);
	EXPECT_EQ(t, s.cpu, other);
}

static const struct ktest_case time_cases[] = {
	KTEST(clock_is_calibrated),
	KTEST(best_reference_won),
	KTEST(a_believed_pit_counts_at_its_rate),
	KTEST(ktime_never_goes_back),
	KTEST(tick_mode_matches_the_cpu),
	KTEST(tick_runs_on_this_cpu),
	KTEST(apic_timer_rate_holds),
	KTEST(timer_fires_on_time_on_this_cpu),
	KTEST(timers_fire_in_expiry_order),
	KTEST(cancelled_timer_never_fires),
	KTEST(fired_timer_cannot_be_cancelled),
	KTEST(adding_again_moves_the_timer),
	KTEST(timer_can_rearm_itself),
	KTEST(timer_runs_on_the_cpu_it_was_given),
	{},
};
KTEST_SUITE(time, time_cases);
