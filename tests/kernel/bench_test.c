// SPDX-License-Identifier: MIT
/*
 * bench_test.c - the benchmarks say what they measured. Speed is never
 * asserted here (make bench shows it); what a benchmark's lines claim
 * about its own runs is.
 */
#include "bench.h"
#include "kstring.h"
#include "ktest.h"
#include "printk.h"

static char tail[8192];

/*
 * storm_rate's one-CPU storm under rc4 stops at ENFILE (the 2005 bug, in
 * every run: no brake), under fqs it does not (the fix): its lines must
 * say which runs stopped, since a rate up to ENFILE is of iterations that
 * mostly only queued a callback. One timed run, after the warm-up.
 */
static void storm_rate_says_which_runs_stopped_at_enfile(struct ktest *t)
{
	u32 runs = bench_set_runs(1);
	int missing = bench_run("storm_rate");

	bench_set_runs(runs);
	EXPECT_EQ(t, missing, 0);
	printk_log_tail(tail, sizeof(tail));
	EXPECT_TRUE(t, strstr(tail, "bench: storm_rate_rc4_stopped_at_enfile 1.000 runs\n") != NULL);
	EXPECT_TRUE(t, strstr(tail, "storm: storm_rate: rc4 stopped at ENFILE in 1 of 1 timed runs "
				    "(after ") != NULL);
	EXPECT_TRUE(t, strstr(tail, "bench: storm_rate_fqs_stopped_at_enfile 0.000 runs\n") != NULL);
	EXPECT_TRUE(t, strstr(tail, "storm: storm_rate: fqs stopped") == NULL);
	EXPECT_TRUE(t, strstr(tail, "bench: storm_rate_fqs_vs_no_rcu ") != NULL);
}

static const struct ktest_case bench_cases[] = {
	KTEST(storm_rate_says_which_runs_stopped_at_enfile),
	{},
};
KTEST_SUITE(bench, bench_cases);
