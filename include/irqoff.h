/* SPDX-License-Identifier: MIT */
/*
 * irqoff.h - how long each CPU keeps interrupts off, at most.
 *
 * A window opens when interrupts go off where they were on (cli() from
 * code running with them on, or an interrupt arriving) and closes when
 * they come back on (sti(), or the return from that interrupt). Each CPU
 * keeps its longest window since the last reset and where it opened (the
 * instruction, symbolized). It measures what a latency-minded reader
 * asks of RCU's callbacks: do they keep the CPU deaf to interrupts?
 * (Linux's "irqsoff" ftrace tracer answers the same question.)
 *
 * Invariant: windows never nest; a begin always restarts the window, so
 * one that ended without an end (an iretq into user mode) is dropped,
 * never counted long. Off until irqoff_start(): early boot has no per-CPU
 * data to write to.
 *
 * Like Linux's tracer, it costs while it runs: two TSC reads per window,
 * and under QEMU's TCG every rdtsc takes a lock that all virtual CPUs
 * share (cpu_get_ticks), which costs the storm loops a good part of their
 * rate (docs/performance.md). So it can be switched off, as the
 * benchmarks that time throughput do (lab/bench.c); a window that began
 * before tracing last went on is never counted (each one carries the
 * epoch it began in), so switching cannot invent a long window.
 */
#ifndef IRQOFF_H
#define IRQOFF_H

#include "types.h"

struct irqoff_max {
	u64 ns;                 /* the longest window */
	u64 where;              /* the address where it opened */
};

void irqoff_start(void);        /* every CPU is online: start timing */
bool irqoff_trace(bool on);     /* tracing on or off; returns whether it was on */
void irqoff_reset(void);        /* forget every CPU's longest window */
void irqoff_get(u32 cpu, struct irqoff_max *max);

#endif
