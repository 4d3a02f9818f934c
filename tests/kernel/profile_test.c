// SPDX-License-Identifier: MIT
/*
 * profile_test.c - the tick's samples land in the function that runs.
 *
 * Suite profile: with sampling on, this CPU spins for SPIN_MS in a
 * function of its own with interrupts on; the ticks that interrupt it
 * are charged to that function, which then has most of the busy samples
 * (the other CPUs idle meanwhile, and their ticks count as idle) and comes
 * first in profile_top().
 */
#include "ksyms.h"
#include "ktest.h"
#include "percpu.h"
#include "profile.h"
#include "sched.h"
#include "time.h"

#define SPIN_MS 200

/* Pure work between looks at the clock, so the ticks find this function, not ktime_ns(). */
__attribute__((noinline)) static u64 spin_for_the_profile(u64 ms)
{
	u64 until = ktime_ns() + ms * 1000000, sum = 0;

	while (ktime_ns() < until)
		for (u32 i = 0; i < 20000; i++)
			sum += i ^ (sum >> 3);
	return sum;
}

static void ticks_land_in_the_function_that_runs(struct ktest *t)
{
	bool was = profile_set(true);
	u64 expected = hz * SPIN_MS / 1000, mine, busy, taken;
	u32 top[1];
	volatile u64 sink;

	if (!profile_enabled())
		KTEST_SKIP(t, "no memory for the profile's counters");
	preempt_disable();              /* this CPU's ticks, all of them in the spin */
	profile_clear();
	taken = this_cpu()->ticks;
	sink = spin_for_the_profile(SPIN_MS);
	taken = this_cpu()->ticks - taken;
	profile_set(was);
	preempt_enable();
	(void)sink;
	mine = profile_hits_of(spin_for_the_profile);
	busy = profile_hits_total() - profile_hits_idle();
	ktest_log(t, "%llu of %llu busy ticks in the spin (%llu idle); this CPU took %llu ticks, "
		  "about %llu expected", mine, busy, profile_hits_idle(), taken, expected);
	/*
	 * The ticks this CPU took, not the TSC's count of them: a vCPU the
	 * host deschedules loses ticks (QEMU keeps one pending), 18 of 50 with
	 * three QEMUs on two host cores. A quarter must come, half of those
	 * must land in the spin, and the spin must hold most busy ticks.
	 */
	EXPECT_TRUE(t, taken * 4 >= expected);
	EXPECT_TRUE(t, mine * 2 >= taken);
	EXPECT_TRUE(t, mine * 2 >= busy);
	/* The other CPUs idled meanwhile: half their ticks at least found the idle thread. */
	EXPECT_TRUE(t, profile_hits_idle() * 2 >= (u64)(nr_cpus_online - 1) * expected);
	EXPECT_EQ(t, profile_top(top, 1), 1);
	EXPECT_EQ(t, ksyms[top[0]].addr, (u64)spin_for_the_profile);
}

static const struct ktest_case profile_cases[] = {
	KTEST(ticks_land_in_the_function_that_runs),
	{},
};
KTEST_SUITE(profile, profile_cases);
