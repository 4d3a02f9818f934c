/*
 * torture.h - an rcutorture-style check that RCU really protects readers.
 *
 * Readers on every CPU take rcu_read_lock(), read the current object and
 * check it is alive; a writer keeps replacing it. A replaced object ages:
 * its pipe count is 1 when it is removed and grows by one after each
 * grace period the writer waits for; it is freed (and poisoned by its
 * SLAB_POISON cache) at RCU_TORTURE_PIPE_LEN, or through call_rcu() for
 * every other object. A reader that sees a pipe count above 2, or a
 * poisoned object, saw a grace period end under its feet: an RCU bug.
 */
#ifndef TORTURE_H
#define TORTURE_H

#include "types.h"

struct torture_result {
	u64 reads;
	u64 writes;             /* objects replaced */
	u64 grace_periods;      /* synchronize_rcu() calls by the writer */
	u64 pipe[4];            /* reads that saw pipe count 0, 1, 2, 3+ */
	u64 freed_seen;         /* reads of a poisoned (freed) object */
	u64 errors;             /* pipe[3] + freed_seen */
};

/* Run for ms milliseconds on every online CPU; print one "torture:" line. */
void torture_run(u64 ms, struct torture_result *r);

/* torture=<seconds> at boot. */
void torture_boot(void);

#endif
