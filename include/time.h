/*
 * time.h - the TSC as the kernel's clock.
 *
 * time_init() finds the TSC frequency (CPUID leaf 0x15 when it states it,
 * else by counting TSC ticks across 10 ms of the PIT's channel 2) and from
 * then on ktime_ns() is the time since boot in nanoseconds. Before that it
 * returns 0, which is what the first printk timestamps show.
 */
#ifndef TIME_H
#define TIME_H

#include "types.h"

void time_init(void);
u64 ktime_ns(void);
void udelay(u64 us);

extern u64 tsc_khz;             /* TSC ticks per millisecond; 0 until time_init() */
extern const char *tsc_source;  /* how tsc_khz was found */

#endif
