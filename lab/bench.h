/*
 * bench.h - in-kernel benchmarks, chosen with bench= and printed as
 *
 *	bench: <name> <value> <unit>
 *
 * A benchmark is a function that measures one thing and reports it with
 * bench_report(); BENCH() registers it in the "benches" linker section.
 * Benchmarks measure, they never pass or fail: speed is shown by
 * `make bench`, never asserted by a test.
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

/* Print "bench: <name> <value> <unit>"; value is in thousandths of unit. */
void bench_report(const struct bench *b, const char *suffix, u64 milli_value, const char *unit);

/* Time fn(arg) over n calls: TSC nanoseconds per call, in thousandths. */
u64 bench_ns_per_call_milli(void (*fn)(void *arg), void *arg, u64 n);

/* Run the benchmarks selection names ("all" or a comma list); 0 if all were found. */
int bench_run(const char *selection);

#endif
