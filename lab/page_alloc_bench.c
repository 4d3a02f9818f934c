// SPDX-License-Identifier: MIT
/*
 * page_alloc_bench.c - what the per-CPU page lists buy (bench=page_alloc).
 *
 * One pass allocates 256 single pages and frees them again, in the same
 * order, 4 times over, on every online CPU at once (smp_call_function_all(),
 * interrupts off: each CPU's loop runs to the end) or on this CPU alone;
 * a pass is timed from before the calls to after the last CPU is done.
 * Each run times the pass twice, with the lists (page_alloc_pcp_on) and
 * without (every page through its zone's lock), one after the other, so
 * the ratio compares the two paths on the same machine:
 *
 *   bench: page_alloc_1cpu_pcp <ns> ns          per page, allocation and free
 *   bench: page_alloc_1cpu_zone <ns> ns
 *   bench: page_alloc_1cpu_zone_vs_pcp <r> ratio
 *   bench: page_alloc_allcpus_pcp <ns> ns      per page per CPU, all CPUs at once
 *   bench: page_alloc_allcpus_zone <ns> ns
 *   bench: page_alloc_allcpus_zone_vs_pcp <r> ratio
 *
 * Pages come from each CPU's own node (its nearest with memory). The lists
 * are drained before and after, so the pass starts the same each time.
 */
#include "bench.h"
#include "format.h"
#include "mm.h"
#include "page_alloc.h"
#include "percpu.h"
#include "smp.h"
#include "time.h"

#define PAGES_AT_ONCE  256              /* more than PCP_HIGH: the lists give back too */
#define ROUNDS         4                /* per pass: the calls' IPIs weigh little */
#define PAGES_PER_PASS (PAGES_AT_ONCE * ROUNDS)

static void alloc_free_pages(void *arg)
{
	struct page *p[PAGES_AT_ONCE];

	for (u32 r = 0; r < ROUNDS; r++) {
		for (u32 i = 0; i < PAGES_AT_ONCE; i++)
			p[i] = alloc_pages(0, (int)raw_this_cpu()->node, 0);
		for (u32 i = 0; i < PAGES_AT_ONCE; i++)
			free_pages(p[i], 0);
	}
}

struct pass {
	bool all_cpus;
	bool pcp;
};

/* One pass: ns per page (per CPU), in thousandths. */
static u64 timed_pass(void *arg)
{
	const struct pass *pass = arg;
	u64 start;

	mm_drain_pcp_all();
	page_alloc_pcp_on = pass->pcp;
	start = ktime_ns();
	if (pass->all_cpus)
		smp_call_function_all(alloc_free_pages, NULL, true);
	else
		alloc_free_pages(NULL);
	u64 ns = ktime_ns() - start;

	page_alloc_pcp_on = true;
	mm_drain_pcp_all();
	return ns * 1000 / PAGES_PER_PASS;
}

static void bench_page_alloc(const struct bench *b)
{
	static const char *const where[] = { "_1cpu", "_allcpus" };

	for (int all = 0; all < 2; all++) {
		struct pass with = { all, true }, without = { all, false };
		struct bench_runs pcp = { 0 }, zone = { 0 };
		char suffix[40];

		/* the warm-up is also the pages' first touch */
		bench_time_pair(&pcp, timed_pass, &with, &zone, timed_pass, &without);
		snprintf(suffix, sizeof(suffix), "%s_pcp", where[all]);
		bench_report_runs(b, suffix, &pcp, "ns");
		snprintf(suffix, sizeof(suffix), "%s_zone", where[all]);
		bench_report_runs(b, suffix, &zone, "ns");
		snprintf(suffix, sizeof(suffix), "%s_zone_vs_pcp", where[all]);
		bench_report_ratio(b, suffix, &zone, &pcp);
	}
}
BENCH(page_alloc, bench_page_alloc);
