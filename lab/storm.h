/* SPDX-License-Identifier: MIT */
/*
 * storm.h - the open/close storm of the 2005 report.
 *
 * Serge Belyshev's loop was a user program (linux-kernel, "VFS: file-max
 * limit 50044 reached", 15 October 2005):
 *
 *	open("/dev/null", O_RDONLY); close(fd); ... until open fails
 *
 * storm_run() runs it n times on each storming CPU, in a thread pinned
 * there, in one of two places:
 *
 *   STORM_USER    as that program, in user mode (lab/storm_user.asm): a
 *                 tick that lands between its system calls is a quiescent
 *                 state, as 2.6.14 counted it;
 *   STORM_KERNEL  as a kernel thread that calls file_open()/file_close()
 *                 and cond_resched() after each pair: no tick is ever
 *                 quiescent there, only a switch, and under rcu.mode=fqs
 *                 cond_resched() itself (rcu_all_qs()). The article's
 *                 "process that never schedules", and a CPU that does
 *                 nothing but system calls.
 *
 * Either way it stops everywhere at the first ENFILE, as the program did.
 * A hog thread on each hog CPU spins in the kernel without cond_resched():
 * it is switched only when an interrupt asks for it, so only a forcing IPI
 * that works (rcu.mode=fqs) or its time slice running out ends its part of
 * a grace period. One storm runs at a time (the user storms share one stop
 * flag).
 */
#ifndef STORM_H
#define STORM_H

#include "cpumask.h"
#include "rcu.h"
#include "types.h"

enum storm_where { STORM_USER, STORM_KERNEL };

struct storm_result {
	enum rcu_mode mode;     /* the RCU mode it ran under */
	enum storm_where where;
	u64 iterations;         /* open/close pairs done, all CPUs together */
	s64 enfile_at;          /* iterations done when the first ENFILE came; -1: none */
	u64 done_at_enfile;     /* then: callbacks past their grace period, waiting to run */
	struct cpumask owing_at_enfile; /* then: the CPUs holding up the grace period in progress */
	bool interrupted;       /* stopped because stop_asked() said so (storm_run_watched()) */
	u64 peak_nr_files;
	u64 peak_qlen;          /* longest RCU callback queue of one CPU */
	u64 gps;                /* grace periods completed during the storm */
	u64 fqs_rounds;         /* force_quiescent_state() IPI rounds */
	u64 ticks;              /* ticks that landed in the storm threads ... */
	u64 user_ticks;         /* ... of which in user mode: quiescent states */
	u64 irqoff_max_us;      /* the longest interrupts-off window on a storming CPU */
	u64 irqoff_where;       /* where it opened */
	bool irqoff_traced;     /* the tracer ran throughout (the benchmarks of rates turn it off) */
	u64 ms;
	u64 ns;                 /* the same wall time, for rates */
	struct cpumask cpus, hogs;
};

/*
 * Run the storm (n iterations per storming CPU), print its "storm:" line
 * (docs/interface.md), then rcu_drain() and slab_drain_all() so the next storm starts clean.
 */
void storm_run(enum storm_where where, u64 n, const struct cpumask *cpus,
	       const struct cpumask *hogs, struct storm_result *r);

/*
 * storm_run(), with the caller watching: it asks stop_asked() every 10 ms
 * (true stops every storm thread, as ENFILE would) and prints a progress
 * line each second, "storm: <s> s: <n> iterations, nr_files <n>, mode <m>".
 * The shell's storm, which Ctrl-C stops.
 */
void storm_run_watched(enum storm_where where, u64 n, const struct cpumask *cpus,
		       const struct cpumask *hogs, struct storm_result *r, bool (*stop_asked)(void));

/* storm_run() under RCU mode mode; the mode before is restored after. */
void storm_run_in_mode(enum rcu_mode mode, enum storm_where where, u64 n,
		       const struct cpumask *cpus, const struct cpumask *hogs,
		       struct storm_result *r);

/*
 * storm.think=N: a user storm spends N turns of an empty loop in user mode
 * after every iteration, a program that does some work between its files
 * (Serge's did none: 0, the default). Time in user mode is where a tick is
 * a quiescent state, so with enough of it grace periods end on any host.
 * Sets it for the storms that start later; returns the old value.
 */
u64 storm_set_think(u64 turns);

/* storm.where= (STORM_USER unless told), for the storms of the boot and the shell. */
enum storm_where storm_default_where(void);
extern const char *const storm_where_names[2];

/* The storm the command line asks for (storm=, storm.cpus=, hog=), if any. */
void storm_boot(void);

#endif
