/* SPDX-License-Identifier: MIT */
/*
 * bench.h - in-kernel benchmarks, chosen with bench= and printed as
 *
 *	bench: <name> <value> <unit> (median of <k>, <lo>-<hi>)
 *
 * A benchmark is a function that measures one thing and reports it;
 * BENCH() registers it in the "benches" linker section. Benchmarks
 * measure, they never pass or fail: speed is shown by `make bench`, never
 * asserted by a test.
 *
 * How a benchmark measures (docs/performance.md):
 *   - one untimed warm-up run first: caches, TLBs, and QEMU's lazily
 *     backed guest memory are then as the timed runs will find them; a
 *     first-touch cost worth knowing is reported on a line of its own;
 *   - then bench_nr_runs() timed runs (bench.runs=, default 5), each
 *     added to a struct bench_runs; the line gives their median, which
 *     one preempted vCPU cannot move, and their range;
 *   - a ratio is taken run by run (num[i] / den[i]) from two quantities
 *     measured in the same run, one after the other, so both see the
 *     same machine; its median and range are printed like any value.
 */
#ifndef BENCH_H
#define BENCH_H

#include "types.h"

struct bench {
	const char *name;
	void (*run)(const struct bench *b);
};

#define BENCH(name_, fn_)                                                         \
	static const struct bench name_##_bench = { #name_, fn_ };                \
	static const struct bench *const name_##_bench_ptr                        \
		__used __section("benches") = &name_##_bench

extern const struct bench *const __start_benches[], *const __stop_benches[];

#define BENCH_MAX_RUNS 15

/* One quantity's timed runs, each in thousandths of its unit. */
struct bench_runs {
	u32 n;
	u64 value[BENCH_MAX_RUNS];
};

/* Print "bench: <name> <value> <unit>": a single measurement (a count, an address). */
void bench_report(const struct bench *b, const char *suffix, u64 milli_value, const char *unit);

/* How many timed runs a benchmark makes: bench.runs= (1..BENCH_MAX_RUNS). */
u32 bench_nr_runs(void);

/* Set that count (clamped to 1..BENCH_MAX_RUNS); the count before. For tests. */
u32 bench_set_runs(u32 runs);

/* Add one run's value (thousandths of the unit); runs past BENCH_MAX_RUNS are dropped. */
void bench_runs_add(struct bench_runs *r, u64 milli_value);

/* The median of the runs (the lower middle of an even count); 0 without runs. */
u64 bench_runs_median(const struct bench_runs *r);

/* Print "bench: <name> <median> <unit> (median of <k>, <lo>-<hi>)". */
void bench_report_runs(const struct bench *b, const char *suffix, const struct bench_runs *r,
		       const char *unit);

/* The run-by-run ratios num[i] / den[i], printed as a bench_report_runs() line in "ratio". */
void bench_report_ratio(const struct bench *b, const char *suffix, const struct bench_runs *num,
			const struct bench_runs *den);

/*
 * Time fn(arg) over n calls, once to warm up and then bench_nr_runs()
 * times: TSC nanoseconds per call, in thousandths, one value per run.
 */
void bench_time_calls(struct bench_runs *out, void (*fn)(void *arg), void *arg, u64 n);

/*
 * Call pass(arg) once to warm up, then bench_nr_runs() times, adding what
 * each call returns (one run's value, in thousandths of the unit).
 */
void bench_time_passes(struct bench_runs *out, u64 (*pass)(void *arg), void *arg);

/*
 * The same for two quantities meant to be divided: both warmed up, then
 * measured one after the other in each run, so that their run-by-run
 * ratio (bench_report_ratio) compares passes that saw the same machine.
 */
void bench_time_pair(struct bench_runs *a, u64 (*pass_a)(void *arg), void *arg_a,
		     struct bench_runs *b, u64 (*pass_b)(void *arg), void *arg_b);

/* The run-by-run ratios num[i] / den[i] into out, in thousandths (0 where den[i] is 0). */
void bench_runs_ratio(struct bench_runs *out, const struct bench_runs *num,
		      const struct bench_runs *den);

/* The first name of selection ("all" or a comma list) no benchmark has (length *len), or NULL. */
const char *bench_first_unknown(const char *selection, size_t *len);

/* The benchmarks' names, blank-separated, into buf (NUL-terminated, cut to size). */
void bench_names(char *buf, size_t size);

/* Run the benchmarks selection names ("all" or a comma list); 0 if all were found. */
int bench_run(const char *selection);

#endif
