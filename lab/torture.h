/* SPDX-License-Identifier: MIT */
/*
 * torture.h - an rcutorture-style check that RCU really protects readers.
 *
 * Readers on every CPU take rcu_read_lock(), read the current object and
 * check it is alive; a writer keeps replacing it. A replaced object ages:
 * its pipe count is 1 when it is removed and grows by one after each
 * grace period the writer waits for; it is freed (and poisoned by its
 * SLAB_POISON cache) at TORTURE_PIPE_LEN, or through call_rcu() for every
 * other object. A reader that sees a pipe count of 2 or more, or a poisoned
 * object, saw a grace period end under its feet: an RCU bug. (rcutorture
 * counts the same way: any read past pipe slot 1 is an error.)
 *
 * So that a grace period ending one tick early shows, some reads are long:
 * every TORTURE_LONG_EVERY-th read holds its object across ticks; and each
 * reader queues call_rcu() noise, so every CPU has callbacks in every batch.
 */
#ifndef TORTURE_H
#define TORTURE_H

#include "types.h"

#define TORTURE_PIPE_LEN   3    /* freed after two grace periods past removal */
#define TORTURE_LONG_EVERY 128  /* one read in this many spans ticks */
#define TORTURE_LONG_TICKS 2    /* ...this many */

struct torture_result {
	u64 reads;
	u64 long_reads;         /* reads that spanned TORTURE_LONG_TICKS ticks */
	u64 writes;             /* objects replaced */
	u64 grace_periods;      /* synchronize_rcu() calls by the writer */
	u64 noise;              /* call_rcu() noise callbacks queued by the readers */
	u64 pipe[4];            /* reads that saw pipe count 0, 1, 2, 3+ */
	u64 freed_seen;         /* reads of a poisoned (freed) object */
	u64 errors;             /* pipe[2] + pipe[3] + freed_seen + poison damage */
	u64 leaked;             /* objects not given back at the end */
};

/*
 * Run on every online CPU for at least ms milliseconds and at least
 * min_gps grace periods of the writer (but never longer than 30 s); print
 * one "torture:" line.
 */
void torture_run(u64 ms, u64 min_gps, struct torture_result *r);

/* torture=<seconds> at boot. */
void torture_boot(void);

#endif
