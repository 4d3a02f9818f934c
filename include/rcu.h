/* SPDX-License-Identifier: MIT */
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
 * modes (rcu.mode=, enum rcu_mode) replay what was tried, oldest first;
 * rcu_modes[] holds each one's name, history and behaviour, and every
 * other place (the command line, the story, the shell, the benchmarks,
 * the tests) loops over it.
 */
#ifndef RCU_H
#define RCU_H

#include "cpumask.h"
#include "debug.h"
#include "types.h"

struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

/* The modes, oldest first (rcu_modes[] in rcu.c has their rows). */
enum rcu_mode {
	RCU_MODE_RC4,           /* 2.6.14-rc4: at most 10 callbacks per pass, no count */
	RCU_MODE_BATCH10K,      /* the batch limit raised to 10000 (2.6.14) */
	RCU_MODE_COUNT,         /* Eric Dumazet's callback counter: need_resched above 10000 */
	RCU_MODE_FQS16,         /* 2.6.16: forcing rounds every rsinterval callbacks, bare IPIs */
	RCU_MODE_FQS19,         /* 2.6.19: one forcing round per grace period, bare IPIs */
	RCU_MODE_FQS,           /* testbed's own: one round per grace period that is noticed */
	RCU_NR_MODES,
};

/* How a mode forces the CPUs that hold a grace period up, once above qhimark. */
enum rcu_forcing {
	RCU_FORCE_NONE,
	RCU_FORCE_RSINTERVAL,   /* a round each time the queue grew by rcu.rsinterval */
	RCU_FORCE_ONCE_PER_GP,  /* one round per grace period (rcp->signaled) */
};

/* What the forcing IPI does on its target. */
enum rcu_ipi {
	RCU_IPI_BARE,           /* acknowledged, nothing else: x86-64's 2.6 reschedule IPI */
	RCU_IPI_RESCHED,        /* sets the target's need_resched (rcu.fqs_ipi=resched) */
	RCU_IPI_NOTICE,         /* need_resched, and RCU notices the batch first (testbed) */
};

struct rcu_mode_info {
	const char *name;       /* first: the command line's PARAM_ENUM reads it */
	const char *history;    /* which kernel, whose patch */
	long blimit;            /* callbacks per pass; 0: the rcu.blimit knob */
	bool count_resched;     /* above qhimark: need_resched on this CPU */
	enum rcu_forcing forcing;       /* above qhimark: no batch limit, and this forcing */
	enum rcu_ipi ipi;       /* the forcing IPI; a notice IPI takes rcu.fqs_ipi= */
	bool time_budget;       /* a pass without batch limit stops after rcu.budget_us */
};

extern const struct rcu_mode_info rcu_modes[RCU_NR_MODES];

/*
 * Does the mode do anything once the queue passes qhimark (a switch asked
 * of this CPU, or forcing)? The counter and every forcing do; rc4 and
 * batch10k do not. Tests and the model checker ask this of a row, not of
 * its place in the table, so a new mode may go anywhere.
 */
static inline bool rcu_mode_brakes(enum rcu_mode mode)
{
	return rcu_modes[mode].count_resched || rcu_modes[mode].forcing != RCU_FORCE_NONE;
}

void rcu_read_lock(void);
void rcu_read_unlock(void);

/*
 * Inside a read-side critical section? In classic RCU a reader is any code
 * that cannot be switched away from: preemption off (rcu_read_lock()),
 * interrupts off, or an interrupt handler.
 */
bool rcu_read_lock_held(void);

/*
 * Reading and publishing an RCU-protected pointer, which is declared
 * __rcu so that sparse (make C=1) refuses any other access to it:
 *
 *   rcu_dereference(p)              in a reader (debug=on checks it, as
 *                                   Linux's PROVE_RCU does): one load, and
 *                                   what it points to as published;
 *   rcu_dereference_protected(p, c) by the updater, whose lock (c) keeps p
 *                                   from changing: a plain load;
 *   rcu_assign_pointer(p, v)        publish v: the stores that filled it
 *                                   come first (a release store).
 */
#define rcu_dereference(p) ({                                                   \
	DEBUG_CHECK(rcu_read_lock_held(), "rcu_dereference() outside a reader");  \
	(__typeof__(*(p)) __force *)READ_ONCE(p);                               \
})
#define rcu_dereference_protected(p, c) ({                                      \
	DEBUG_CHECK(c, "rcu_dereference_protected() without " #c);              \
	(__typeof__(*(p)) __force *)(p);                                        \
})
#define rcu_assign_pointer(p, v)                                                \
	__atomic_store_n(&(p), (__typeof__(*(p)) __force __rcu *)(v), __ATOMIC_RELEASE)

/* Run func(head) after a grace period, on this CPU, in the RCU softirq. */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

/*
 * From an RCU callback whose last act is to free its object: leave the
 * free to free_bulk(objs, n), with the objects other callbacks of this
 * pass left to the same function. This CPU keeps up to RCU_BULK_MAX of
 * them and calls free_bulk when the array is full, when a callback leaves
 * an object to another function, when the pass ends, and before
 * rcu_barrier()'s callback counts this CPU done. Outside a pass it frees
 * at once. The callback has run (qlen and the invoked count say so); its
 * object is freed before the pass ends. kernel/rcu.c says why.
 */
#define RCU_BULK_MAX 32
void rcu_free_bulk(void (*free_bulk)(void **objs, u32 n), void *obj);

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

/* The RCU softirq's action: move the lists on, report, run done callbacks. */
void rcu_process_callbacks(void);

/*
 * On the target of a noticing forcing IPI (rcu.fqs_ipi=notice). idle: the
 * IPI interrupted the idle thread itself, outside any softirq, other
 * interrupt or preempt-disabled section: no reader can be running here,
 * so this is a quiescent state, as a tick there is.
 */
void rcu_forced_ipi(bool idle);

#ifdef HOST_TEST
/* The host's model checker: start over, and save or restore the state of ncpus CPUs. */
void rcu_host_reset(enum rcu_mode mode, u64 qhimark, u64 rsinterval, bool resched_ipi);
size_t rcu_host_state_size(u32 ncpus);
void rcu_host_save(void *buf, u32 ncpus);
void rcu_host_restore(const void *buf, u32 ncpus);
#endif

/* Switch mode; callers rcu_barrier() first. */
void rcu_set_mode(enum rcu_mode mode);
enum rcu_mode rcu_mode(void);
const char *rcu_mode_name(void);        /* rcu_modes[rcu_mode()].name */

/* The mode called name: true and *mode set, or false if there is none. */
bool rcu_mode_by_name(const char *name, enum rcu_mode *mode);

u64 rcu_qhimark_value(void);            /* rcu.qhimark */
u64 rcu_rsinterval_value(void);         /* rcu.rsinterval */
u64 rcu_budget_us_value(void);          /* rcu.budget_us */

/* Is head on one of this CPU's callback lists? (For tests.) */
bool rcu_queued_here(const struct rcu_head *head);

/*
 * Scheduler hooks: a pass through schedule(); a tick, quiescent when it
 * landed in the idle thread or in user mode (2.6.14's
 * rcu_check_callbacks(cpu, user)), not when it landed in the kernel.
 */
void rcu_note_context_switch(void);
void rcu_tick(bool quiescent);

/*
 * Is a tick, or the notice IPI, that lands here a quiescent state? In user
 * mode; or in the idle thread, outside anything that raised preempt_count
 * (a softirq, a reader, a spinlock) and with only this handler open:
 * 2.6.14's rcu_check_callbacks() asked user || (idle_cpu(cpu) &&
 * !in_softirq() && hardirq_count() <= (1 << HARDIRQ_SHIFT)); the
 * preempt_count test goes further, so that an idle loop that ever took a
 * reader would not count. sched_tick() and make check-rcu both ask it.
 */
static inline bool rcu_tick_quiescent(bool user, bool idle, int preempt_count, int irq_depth)
{
	return user || (idle && preempt_count == 0 && irq_depth == 1);
}
/* cond_resched() with preempt_count 0: under fqs, a quiescent state reported here and now. */
void rcu_all_qs(void);

/* Statistics. */
u64 rcu_completed_batches(void);        /* grace periods completed since boot */
u64 rcu_qlen(u32 cpu);                  /* callbacks queued on cpu now */
u64 rcu_peak_qlen(void);                /* longest queue of any CPU since the last reset */
void rcu_reset_peak(void);
u64 rcu_fqs_rounds(void);               /* force_quiescent_state() IPI rounds */
u64 rcu_invoked(u32 cpu);               /* callbacks cpu has run since boot */
u64 rcu_switch_asks(u32 cpu);           /* call_rcu() above qhimark asked cpu to switch, since boot */
u64 rcu_done_len(u32 cpu);              /* cpu's callbacks past their grace period, not yet run */
enum rcu_ipi rcu_forcing_ipi(void);     /* what the forcing IPIs of this mode do */

/* For tests that stage a grace period: is a batch running, and does cpu still owe it? */
bool rcu_batch_running(void);
bool rcu_cpu_owes_batch(u32 cpu);

/* The CPUs that still owe the grace period in progress (none if none runs). */
void rcu_owing_cpus(struct cpumask *out);

/* rcu.stall_ms from now on (0: no stall warnings); returns the value before. For tests. */
u64 rcu_set_stall_ms(u64 ms);

#endif
