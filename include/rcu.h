/*
 * rcu.h - classic read-copy-update, as Linux 2.6.14-2.6.16 had it.
 *
 * Readers run between rcu_read_lock() and rcu_read_unlock() (preemption
 * off, nothing else). A writer that removes an object does not free it: it
 * hands it to call_rcu(), which runs the callback once a grace period has
 * passed, a time in which every CPU went through a quiescent state (a pass
 * through schedule(), or a tick in the idle thread), so no reader that
 * could still see the object remains.
 *
 * The 2005 bug: close() freed struct file through call_rcu(), and a loop
 * of open()/close() queued callbacks faster than they ran; files still
 * counted in nr_files until their callback, so open() hit ENFILE. The
 * policies (rcu.mode=) replay what was tried:
 *
 *   rc4       2.6.14-rc4: at most 10 callbacks per softirq pass, no count
 *   batch10k  2.6.14-rc5, Linus: the batch limit raised to 10000
 *   count     seed patch 001 (Eric Dumazet): count queued callbacks and
 *             set need_resched on this CPU when the count passes 10000
 *   fqs       2.6.16 (Dipankar Sarma): above qhimark, no batch limit and
 *             force_quiescent_state(): reschedule IPIs to the CPUs still
 *             owing a quiescent state, once per grace period; the batch
 *             limit comes back at qlowmark. The IPI makes its target
 *             notice the batch before it switches (rcu.fqs_ipi=notice);
 *             rcu.fqs_ipi=resched is 2.6.16's own, which a hog defeats
 */
#ifndef RCU_H
#define RCU_H

#include "types.h"

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

void rcu_read_lock(void);
void rcu_read_unlock(void);

/* Run func(head) after a grace period, on this CPU, from interrupt exit. */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

/* Wait for a grace period (sleeps). */
void synchronize_rcu(void);

/* Wait until every callback queued before the call has run, on all CPUs. */
void rcu_barrier(void);

/*
 * rcu_barrier() with every CPU's batch limit lifted until its queue is
 * short again: cleanup after a storm (rc4's 10 per tick would take 20 s).
 */
void rcu_drain(void);

/* Set up and report ("rcu: mode=... blimit=... qhimark=... qlowmark=..."). */
void rcu_init(void);

/* Switch policy by name; callers rcu_barrier() first. False if unknown. */
bool rcu_set_mode(const char *name);
const char *rcu_mode_name(void);

u64 rcu_qhimark_value(void);            /* rcu.qhimark */

/* Scheduler hooks: a pass through schedule(); a tick (idle or not). */
void rcu_note_context_switch(void);
void rcu_tick(bool idle);

/* Interrupt exit, interrupts off: process callbacks if the tick asked for it. */
void rcu_irq_exit(void);

/* Statistics. */
u64 rcu_completed_batches(void);        /* grace periods completed since boot */
u64 rcu_qlen(u32 cpu);                  /* callbacks queued on cpu now */
u64 rcu_peak_qlen(void);                /* longest queue of any CPU since the last reset */
void rcu_reset_peak(void);
u64 rcu_fqs_rounds(void);               /* force_quiescent_state() IPI rounds */

#endif
