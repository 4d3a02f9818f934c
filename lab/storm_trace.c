// SPDX-License-Identifier: MIT
/*
 * storm_trace.c - sample a storm every millisecond, print it as CSV (see
 * storm_trace.h).
 *
 * The samples live in one static array; the timer re-arms itself on the
 * sampling CPU until the storm ends or the array is full. Nothing is
 * printed while the storm runs, so tracing costs the storm one timer
 * interrupt a millisecond on another CPU, and no console time.
 */
#include "storm_trace.h"
#include "cmdline.h"
#include "format.h"
#include "percpu.h"
#include "printk.h"
#include "rcu.h"
#include "storm.h"
#include "time.h"
#include "vfs.h"

static int trace_on;
PARAM_CHOICE("storm.trace", trace_on, "off", "on");

#define TRACE_SAMPLES   2048            /* 2 s of samples; a longer storm keeps its first 2 s */
#define TRACE_PERIOD_NS (1000UL * 1000) /* one sample a millisecond */

struct trace_sample {
	u32 t_us;
	u32 nr_files;
	u32 qlen[STORM_TRACE_CPUS];
};

static struct {
	struct ktimer timer;
	u64 t0;
	u32 n, cpu;
	volatile bool stop;
	struct trace_sample s[TRACE_SAMPLES];
} trace;

static void trace_tick(struct ktimer *t)
{
	if (trace.stop || trace.n >= TRACE_SAMPLES)
		return;
	struct trace_sample *s = &trace.s[trace.n++];
	s->t_us = (u32)((ktime_ns() - trace.t0) / 1000);
	s->nr_files = (u32)vfs_nr_files();
	for (u32 cpu = 0; cpu < STORM_TRACE_CPUS && cpu < nr_cpus; cpu++)
		s->qlen[cpu] = (u32)rcu_qlen(cpu);
	timer_add(t, TRACE_PERIOD_NS, trace.cpu, trace_tick, NULL);
}

void storm_trace_start(const struct cpumask *cpus)
{
	if (!trace_on)
		return;
	trace.n = 0;
	trace.stop = false;
	trace.cpu = 0;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online && !cpumask_test(cpus, cpu)) {
			trace.cpu = cpu;
			break;
		}
	trace.t0 = ktime_ns();
	timer_add(&trace.timer, TRACE_PERIOD_NS, trace.cpu, trace_tick, NULL);
}

void storm_trace_stop(const struct storm_result *r)
{
	char cpus[64], hogs[64], line[160];
	u32 ncols = MIN(nr_cpus, (u32)STORM_TRACE_CPUS);

	if (!trace_on)
		return;
	trace.stop = true;
	timer_cancel(&trace.timer);
	printk("storm-trace: begin mode=%s where=%s cpus=%s hog=%s samples=%u\n", rcu_mode_name(),
	       storm_where_names[r->where], cpumask_format(&r->cpus, cpus, sizeof(cpus)),
	       cpumask_format(&r->hogs, hogs, sizeof(hogs)), trace.n);
	size_t used = snprintf(line, sizeof(line), "t_us,nr_files");
	for (u32 c = 0; c < ncols; c++)
		used += snprintf(line + used, sizeof(line) - used, ",qlen%u", c);
	printk("storm-trace: %s\n", line);
	for (u32 i = 0; i < trace.n; i++) {
		used = snprintf(line, sizeof(line), "%u,%u", trace.s[i].t_us, trace.s[i].nr_files);
		for (u32 c = 0; c < ncols; c++)
			used += snprintf(line + used, sizeof(line) - used, ",%u", trace.s[i].qlen[c]);
		printk("storm-trace: %s\n", line);
	}
	printk("storm-trace: end\n");
}
