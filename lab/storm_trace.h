/* SPDX-License-Identifier: MIT */
/*
 * storm_trace.h - the storm over time, for make plot (storm.trace=on).
 *
 * Every millisecond of a storm, a timer on a CPU that is not storming
 * records nr_files and the first STORM_TRACE_CPUS CPUs' callback queues.
 * After the storm the samples are printed as CSV, one line each:
 *
 *	storm-trace: begin mode=<m> cpus=<list> hog=<list> samples=<n>
 *	storm-trace: t_us,nr_files,qlen0,qlen1,...
 *	storm-trace: 1000,500,0,0,500
 *	...
 *	storm-trace: end
 *
 * scripts/plot.py reads the blocks and draws them. With storm.trace=off
 * (the default) both calls do nothing.
 */
#ifndef STORM_TRACE_H
#define STORM_TRACE_H

#include "cpumask.h"

#define STORM_TRACE_CPUS 8              /* CPUs whose queues are sampled: qlen0..qlen7 */

struct storm_result;

/* A storm is about to start on cpus: sample from another CPU. */
void storm_trace_start(const struct cpumask *cpus);

/* The storm r describes has ended: stop sampling, print the block. */
void storm_trace_stop(const struct storm_result *r);

#endif
