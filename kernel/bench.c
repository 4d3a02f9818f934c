/*
 * bench.c - run the registered benchmarks and print one line per result.
 *
 * Timing uses the TSC (calibrated in time.c) around many calls, so the
 * reading's own cost is spread thin. Values are printed with three decimals
 * from integer thousandths: the kernel has no floating point (no SSE).
 *
 * The benchmarks here measure the machinery this file can see; each
 * subsystem adds its own with BENCH() next to its code.
 */
#include "bench.h"
#include "format.h"
#include "kstring.h"
#include "printk.h"
#include "time.h"
#include "trap.h"
#include "x86.h"

void bench_report(const struct bench *b, const char *suffix, u64 milli_value, const char *unit)
{
	printk("bench: %s%s %llu.%03llu %s\n", b->name, suffix,
	       (milli_value / 1000), (milli_value % 1000),
	       unit);
}

u64 bench_ns_per_call_milli(void (*fn)(void *arg), void *arg, u64 n)
{
	u64 start = rdtsc();

	for (u64 i = 0; i < n; i++)
		fn(arg);
	u64 ticks = rdtsc() - start;
	/* ticks / khz = ms, so ticks * 1e6 / khz = ns (u64 holds hours of it). */
	u64 ns = ticks * 1000000 / tsc_khz;
	return ns * 1000 / n;
}

static const struct bench *find(const char *name, size_t len)
{
	for (const struct bench *const *b = __start_benches; b < __stop_benches; b++)
		if (strlen((*b)->name) == len && !strncmp((*b)->name, name, len))
			return *b;
	return NULL;
}

int bench_run(const char *selection)
{
	const char *name;
	size_t len;
	int missing = 0;

	printk("bench: %u benchmarks registered; running %s\n",
	       (unsigned)(__stop_benches - __start_benches), selection);
	if (!strcmp(selection, "all")) {
		for (const struct bench *const *b = __start_benches; b < __stop_benches; b++)
			(*b)->run(*b);
		return 0;
	}
	for (const char *cursor = selection; list_next(&cursor, &name, &len);) {
		const struct bench *b = find(name, len);

		if (b) {
			b->run(b);
		} else {
			printk(KERN_WARNING "bench: no benchmark named '%.*s'\n", (int)len, name);
			missing++;
		}
	}
	return missing;
}

/* --- the machinery's own costs ------------------------------------------ */

static void read_tsc(void *arg)
{
	*(volatile u64 *)arg = rdtsc();
}

static void bench_rdtsc(const struct bench *b)
{
	u64 sink;

	bench_report(b, "", bench_ns_per_call_milli(read_tsc, &sink, 100000), "ns");
}
BENCH(rdtsc, bench_rdtsc);

static void do_int3(void *arg)
{
	__asm__ volatile("int3");
}

static void catch_int3(void *arg)
{
	struct fault_info fi;

	fault_catch(do_int3, NULL, &fi);
}

/* An exception's full trip: IDT entry, trap_dispatch, iretq, the unwind. */
static void bench_exception(const struct bench *b)
{
	bench_report(b, "_roundtrip", bench_ns_per_call_milli(catch_int3, NULL, 10000), "ns");
}
BENCH(exception, bench_exception);

static void format_line(void *arg)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "storm: mode=%s cpus=%s iterations=%llu peak_qlen=%d ms=%u",
		 "fqs", "0-3", 123456789ULL, 10042, 1234u);
	*(volatile char *)arg = buf[0];
}

static void bench_snprintf(const struct bench *b)
{
	char sink;

	bench_report(b, "_line", bench_ns_per_call_milli(format_line, &sink, 20000), "ns");
}
BENCH(snprintf, bench_snprintf);
