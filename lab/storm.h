/*
 * storm.h - the open/close storm of the 2005 report, in kernel threads.
 *
 * Serge Belyshev's loop was
 *
 *	while (1) { int fd = open("/dev/null", O_RDONLY); close(fd); }
 *
 * storm_run() runs it n times on each storming CPU, in a thread pinned
 * there, with cond_resched() after each iteration where the real loop went
 * back to user space; it stops everywhere at the first ENFILE, as the
 * program did. A hog thread on each hog CPU spins in the kernel calling
 * cond_resched(): it schedules only when asked to, so only
 * force_quiescent_state() (rcu.mode=fqs) or its time slice running out ends
 * its part of a grace period.
 */
#ifndef STORM_H
#define STORM_H

#include "cpumask.h"
#include "rcu.h"
#include "types.h"

struct storm_result {
	enum rcu_mode mode;     /* the RCU mode it ran under */
	u64 iterations;         /* open/close pairs done, all CPUs together */
	s64 enfile_at;          /* iterations done when the first ENFILE came; -1: none */
	u64 peak_nr_files;
	u64 peak_qlen;          /* longest RCU callback queue of one CPU */
	u64 gps;                /* grace periods completed during the storm */
	u64 fqs_rounds;         /* force_quiescent_state() IPI rounds */
	u64 ms;
	struct cpumask cpus, hogs;
};

/*
 * Run the storm (n iterations per storming CPU), print its "storm:" line
 * (docs/interface.md), then rcu_drain() so the next storm starts clean.
 */
void storm_run(u64 n, const struct cpumask *cpus, const struct cpumask *hogs,
	       struct storm_result *r);

/* storm_run() under RCU mode mode; the mode before is restored after. */
void storm_run_in_mode(enum rcu_mode mode, u64 n, const struct cpumask *cpus,
		       const struct cpumask *hogs, struct storm_result *r);

/* The storm the command line asks for (storm=, storm.cpus=, hog=), if any. */
void storm_boot(void);

#endif
