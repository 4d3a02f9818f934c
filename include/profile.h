/* SPDX-License-Identifier: MIT */
/*
 * profile.h - where the CPUs spend their time, sampled at every tick.
 *
 * profile=on: each CPU's tick charges the code it interrupted, one hit
 * for the kernel function holding the rip (by the symbol table), or to
 * "idle" (the idle thread) or "user" (user mode). hz= sets the sampling
 * rate. A benchmark (bench=) or a storm is profiled on its own: the hits
 * are cleared when it starts and the functions with the most printed when
 * it ends (`profile:` lines).
 */
#ifndef PROFILE_H
#define PROFILE_H

#include "types.h"

struct trap_frame;

void profile_init(void);        /* after the page allocator: the hit counters */
bool profile_enabled(void);
void profile_tick(const struct trap_frame *f);  /* from the tick, interrupts off */

/*
 * Start a profile, if profiling is on and none is running (a storm inside
 * a benchmark belongs to the benchmark's); true if this call started it.
 * profile_end() prints the top functions of a profile it started.
 */
bool profile_begin(void);
void profile_end(bool started, const char *what);

/* Hits so far: of the function at fn (its first byte), idle, user, all. */
u64 profile_hits_of(const void *fn);
u64 profile_hits_idle(void);
u64 profile_hits_total(void);

/* The indexes in ksyms[] of the (at most) max functions with most hits, most first; how many. */
u32 profile_top(u32 *top, u32 max);

/* For tests: turn sampling on or off whatever profile= says; the old state. */
bool profile_set(bool on);
void profile_clear(void);

#endif
