// SPDX-License-Identifier: MIT
/*
 * rcu.c - classic RCU with per-CPU callback lists and a bounded batch.
 *
 * The state, as in Linux 2.6.16's kernel/rcupdate.c:
 *
 *   control block (one):  cur        the batch (grace period) in progress
 *                         completed  the last batch that ended
 *                         cpumask    CPUs that still owe cur a quiescent state
 *   per CPU:              nxtlist -> callbacks queued, not yet in a batch
 *                         curlist -> callbacks waiting for batch `batch`
 *                         donelist-> callbacks whose grace period is over
 *                         quiescbatch, qs_pending, passed_quiesc: this CPU's
 *                         part in the current batch
 *                         qlen, blimit
 *
 * A callback moves nxtlist -> curlist (stamped with batch = cur + 1, so a
 * whole grace period starting after it was queued must pass) -> donelist
 * (once completed >= batch) -> invoked, at most blimit per pass.
 *
 * Quiescent states: every pass through schedule() (rcu_note_context_switch)
 * and every tick in the idle thread or in user mode, as 2.6.14's
 * rcu_check_callbacks(cpu, user) counted them. A tick that lands in the
 * kernel is not one: a kernel thread that never schedules holds every
 * grace period up, and a CPU that spends nearly all its time in system
 * calls (an open/close loop) passes one only when a tick happens to land
 * in its few user-mode instructions.
 *
 * Callbacks run in the RCU softirq (kernel/softirq.c), with interrupts on:
 * on the way out of an interrupt, at most blimit per pass and
 * SOFTIRQ_MAX_RESTART passes, the rest in ksoftirqd, the lowest-priority
 * thread, as 2.6.14's tasklet did. A switch into ksoftirqd is itself a
 * quiescent state: under a storm, that is how rc4 kept ending grace
 * periods while its callbacks fell behind.
 *
 * Locking: the control block is guarded by rcp.lock; per-CPU data is
 * touched only by its own CPU with interrupts off, except the done list,
 * which only the softirq touches (it never nests on a CPU).
 */
#include "rcu.h"
#include "cmdline.h"
#include "cpumask.h"
#include "kstring.h"
#include "rcu_machine.h"
#include "spinlock.h"
#include "x86.h"
#ifndef HOST_TEST
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "trap.h"
#endif

/*
 * The modes, one row each (enum rcu_mode in rcu.h); docs/rcu.md tells
 * their history at length.
 */
const struct rcu_mode_info rcu_modes[RCU_NR_MODES] = {
	[RCU_MODE_RC4] = {
		.name = "rc4",
		.history = "2.6.14-rc4: at most maxbatch = 10 callbacks per tasklet run, no count",
		.blimit = 10,
	},
	[RCU_MODE_BATCH10K] = {
		.name = "batch10k",
		.history = "Linus Torvalds, \"Increase default RCU batching sharply\" (2.6.14-rc5, "
			   "Oct 2005): maxbatch = 10000",
		.blimit = 10000,
	},
	[RCU_MODE_COUNT] = {
		.name = "count",
		.history = "2.6.14: Eric Dumazet's \"keep rcu callback event counter\" with maxbatch "
			   "10000: need_resched on this CPU above 10000 queued",
		.blimit = 10000,
		.count_resched = true,
	},
	[RCU_MODE_FQS16] = {
		.name = "fqs16",
		.history = "2.6.16: Dipankar Sarma, \"rcu batch tuning\": above qhimark no batch "
			   "limit, need_resched here, and a bare reschedule IPI round each rsinterval",
		.forcing = RCU_FORCE_RSINTERVAL,
		.ipi = RCU_IPI_BARE,
	},
	[RCU_MODE_FQS19] = {
		.name = "fqs19",
		.history = "2.6.19: Oleg Nesterov's rework: the same, but one bare IPI round per "
			   "grace period (rcp->signaled)",
		.forcing = RCU_FORCE_ONCE_PER_GP,
		.ipi = RCU_IPI_BARE,
	},
	[RCU_MODE_FQS] = {
		.name = "fqs",
		.history = "testbed's own: one round per grace period, and the IPI makes its target "
			   "notice the batch and switch (rcu.fqs_ipi=notice); passes time-bounded",
		.forcing = RCU_FORCE_ONCE_PER_GP,
		.ipi = RCU_IPI_NOTICE,
		.time_budget = true,
	},
};

#define BLIMIT_UNLIMITED (~0UL >> 1)

/* rcu.mode= and the 2.6.16 knobs. */
static int rcu_mode_arg = RCU_MODE_FQS;
PARAM_ENUM("rcu.mode", rcu_mode_arg, rcu_modes);
static u64 rcu_blimit_knob = 10;        /* 2.6.16 blimit */
PARAM_U64("rcu.blimit", rcu_blimit_knob, 1, 1000000);
static u64 rcu_qhimark = 10000;         /* 2.6.16 qhimark, Eric Dumazet's 10000 */
PARAM_U64("rcu.qhimark", rcu_qhimark, 1, 100000000);
static u64 rcu_qlowmark = 100;          /* 2.6.16 qlowmark */
PARAM_U64("rcu.qlowmark", rcu_qlowmark, 0, 100000000);
static u64 rcu_budget_us = 3000;        /* fqs: a pass without batch limit, at most (modern: 3 ms) */
PARAM_U64("rcu.budget_us", rcu_budget_us, 10, 1000000);

struct rcu_ctrlblk {
	struct spinlock lock;
	long cur;
	long completed;
	bool next_pending;      /* another batch is wanted after cur */
	bool signaled;          /* force_quiescent_state() already sent IPIs for cur */
	struct cpumask cpumask;
	u64 fqs_rounds;
	u64 gp_start_ns;        /* when cur began (the stall warning's clock) */
	bool stall_warned;      /* cur's stall warning is printed (false at each start) */
};

struct rcu_data {
	long quiescbatch;       /* the batch this CPU is looking for a quiescent state for */
	bool passed_quiesc;
	bool qs_pending;
	long batch;             /* the batch curlist waits for */
	struct rcu_head *nxtlist, **nxttail;
	struct rcu_head *curlist, **curtail;
	struct rcu_head *donelist, **donetail;
	long qlen;              /* on all three lists */
	long curlen, donelen;   /* on curlist, on donelist */
	long qlen_peak;
	long last_rs_qlen;      /* qlen at the last rsinterval forcing round (fqs16) */
	long blimit;
	u64 invoked;            /* callbacks run since boot */
	u64 switch_asks;        /* call_rcu() above qhimark asked this CPU to switch */
};

static struct rcu_ctrlblk rcp = { .lock = SPINLOCK_INIT("rcu"), .cur = -300, .completed = -300 };
static struct rcu_data rcu_data[MAX_CPUS];
static const struct rcu_mode_info *policy = &rcu_modes[RCU_MODE_FQS];

static bool batch_before(long a, long b)
{
	return a - b < 0;
}

/*
 * The state machine touches a CPU's rcu_data only on that CPU: each of its
 * functions that takes one says so first. With debug=on the kernel checks
 * it; check-rcu always does, and may have moved the thread meanwhile.
 */
static inline void rdp_is_mine(const struct rcu_data *rdp)
{
	rcu_machine_check_own((u32)(rdp - rcu_data));
}

static long base_blimit(void)
{
	return policy->blimit ? policy->blimit : (long)rcu_blimit_knob;
}

void rcu_read_lock(void)
{
	rcu_machine_preempt_disable();
}

void rcu_read_unlock(void)
{
	rcu_machine_preempt_enable();
}

#ifndef HOST_TEST
bool rcu_read_lock_held(void)
{
	/* raw: where the thread can move the answer is "no" on every CPU */
	const struct percpu *pc = raw_this_cpu();

	return pc->preempt_count || pc->irq_depth || !(read_rflags() & RFLAGS_IF);
}
#endif

/*
 * How a CPU owing a quiescent state is forced, once its queue is past
 * qhimark: this CPU sets its own need_resched, then IPIs go to the others
 * still in the grace period's cpumask, by mode (rcu_modes[].forcing, .ipi):
 *
 * fqs16 (2.6.16): a round each time the queue has grown by rsinterval
 *   since the last; fqs19 (2.6.19): one round per grace period. Both send
 *   x86-64's reschedule IPI as it was then: the target acknowledges it and
 *   nothing more (need_resched was set by the sender in resched_task(),
 *   never here), so it switches only if it was about to anyway. A kernel
 *   thread that never asks to switch (the hog) shrugs the rounds off.
 * fqs (testbed's own), rcu.fqs_ipi=notice (default): one round per grace
 *   period that works. The IPI runs rcu_forced_ipi() on the target, which sets
 *   need_resched and has RCU's softirq notice the batch before the switch
 *   (else check_quiescent_state() would meet the new batch only after the
 *   switch and throw the quiescent state away); the forcing CPU notices
 *   before it asks itself to switch; a CPU whose report ends a batch
 *   notices the next one at once.
 * fqs, rcu.fqs_ipi=resched: the IPI only sets need_resched. No kernel ran
 *   this hybrid; it shows why noticing matters: the forced switch comes
 *   before the target has noticed the batch, and the state is lost.
 */
static int fqs_ipi_resched;
PARAM_CHOICE("rcu.fqs_ipi", fqs_ipi_resched, "notice", "resched");
static u64 rcu_rsinterval = 1000;       /* 2.6.16 rsinterval */
PARAM_U64("rcu.rsinterval", rcu_rsinterval, 1, 100000000);

enum rcu_ipi rcu_forcing_ipi(void)
{
	if (policy->ipi == RCU_IPI_NOTICE && fqs_ipi_resched)
		return RCU_IPI_RESCHED;
	return policy->ipi;
}

/* A new batch began: this CPU owes it a state; only one passed from now on counts. */
static void note_new_batch(struct rcu_data *rdp, long cur)
{
	assert_irqs_disabled();
	rdp_is_mine(rdp);
	rdp->qs_pending = true;
	rdp->passed_quiesc = false;
	rdp->quiescbatch = cur;
}

/*
 * fqs with the notice IPI notices batches where a CPU is quiescent, as
 * well as in the softirq (see quiet_now()); the historical modes, and the
 * rcu.fqs_ipi=resched hybrid, notice only in the softirq.
 */
static bool fqs_notices(void)
{
	return rcu_forcing_ipi() == RCU_IPI_NOTICE;
}

/*
 * This CPU holds no reader at this very moment (a tick interrupted its
 * idle thread or user mode, the notice IPI its idle thread, or
 * cond_resched() runs with preempt_count 0): that is a quiescent state for
 * every batch that began before now, so note cur if it is new and count
 * the state for it. 2.6.14
 * counted the state but noticed a new batch only in its tasklet, which
 * threw the state away (note_new_batch()): an idle CPU took two ticks per
 * grace period, one to notice and one to count. cur is read without
 * rcp.lock: a stale value only makes the softirq see a newer batch and
 * throw the state away, as a late tick would. Interrupts off.
 */
static void quiet_now(struct rcu_data *rdp)
{
	assert_irqs_disabled();
	rdp_is_mine(rdp);
	long cur = smp_load_acquire(&rcp.cur);

	if (rdp->quiescbatch != cur)
		note_new_batch(rdp, cur);
	rdp->passed_quiesc = true;
}

/*
 * The notice IPI arrives: the softirq it raises notices the batch before
 * the switch it asks for. If it interrupted the idle thread, the CPU is
 * quiescent now, and the softirq reports that on the way out, instead of
 * at the idle CPU's next tick, up to 1/HZ later.
 */
void rcu_forced_ipi(bool idle)
{
	if (idle)
		quiet_now(&rcu_data[rcu_machine_cpu()]);
	rcu_machine_raise_softirq();
	rcu_machine_need_resched();
}

/* call_rcu() above qhimark asks its own CPU to switch (a quiescent state). */
static void ask_switch(struct rcu_data *rdp)
{
	rdp->switch_asks++;
	rcu_machine_need_resched();
}

/*
 * Is a forcing round due? rcp.lock held. 2.6.16 counted the growth
 * whether or not a grace period was running (the round then went to an
 * empty cpumask); a round per grace period needs one running.
 */
static bool forcing_round_due(struct rcu_data *rdp)
{
	assert_spin_locked(&rcp.lock);
	if (policy->forcing == RCU_FORCE_RSINTERVAL) {
		if (rdp->qlen - rdp->last_rs_qlen <= (long)rcu_rsinterval)
			return false;
		rdp->last_rs_qlen = rdp->qlen;
		return true;
	}
	if (rcp.completed == rcp.cur || rcp.signaled)
		return false;
	rcp.signaled = true;
	return true;
}

/*
 * Whether force_quiescent_state() has nothing to do but ask this CPU to
 * switch, judged without rcp.lock: no round is due (fqs16: the queue has
 * not grown by rsinterval since the last, a per-CPU count; the others: no
 * batch is running, or its round went out already, rcp.signaled) and,
 * with the notice IPI, this CPU has noticed cur. The lock would find the
 * same: cur is read before and after the flags, and start_batch() stores
 * cur before it clears signaled, so an unchanged cur means the flags were
 * cur's. A stale "no" only costs taking the lock.
 */
static bool nothing_to_force(struct rcu_data *rdp, enum rcu_ipi ipi)
{
	if (policy->forcing == RCU_FORCE_RSINTERVAL)
		return rdp->qlen - rdp->last_rs_qlen <= (long)rcu_rsinterval;
	long cur = smp_load_acquire(&rcp.cur);
	bool quiet = smp_load_acquire(&rcp.signaled) ||
		     smp_load_acquire(&rcp.completed) == cur;

	return quiet && (ipi != RCU_IPI_NOTICE || rdp->quiescbatch == cur) &&
	       smp_load_acquire(&rcp.cur) == cur;
}

/*
 * force_quiescent_state(), called from call_rcu() above qhimark. Once the
 * grace period's round has gone out, every later call_rcu() here would
 * only take the global lock to find that out: the check comes first,
 * without the lock, as Linux did from Oleg Nesterov's "simplify/improve
 * rcu batch tuning" (LKML, 3 September 2006, 2.6.19: `if
 * (unlikely(!rcp->signaled))`, no lock at all); testbed takes the lock
 * when the check says there is work, and looks again under it.
 */
__hot_batch static void force_quiescent_state(u32 self)
{
	struct rcu_data *rdp = &rcu_data[self];
	enum rcu_ipi ipi = rcu_forcing_ipi();
	struct cpumask owe;

	if (nothing_to_force(rdp, ipi)) {
		ask_switch(rdp);
		return;
	}
	spin_lock(&rcp.lock);
	if (ipi == RCU_IPI_NOTICE && rdp->quiescbatch != rcp.cur)
		note_new_batch(rdp, rcp.cur);
	ask_switch(rdp);
	if (!forcing_round_due(rdp)) {
		spin_unlock(&rcp.lock);
		return;
	}
	rcp.fqs_rounds++;
	owe = rcp.cpumask;
	spin_unlock(&rcp.lock);
	for (u32 cpu = 0; cpu < rcu_machine_nr_cpus(); cpu++)
		if (cpu != self && cpumask_test(&owe, cpu))
			rcu_machine_send_ipi(cpu, ipi);
}

__hot void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	u64 flags = irq_save();
	u32 cpu = rcu_machine_cpu();
	struct rcu_data *rdp = &rcu_data[cpu];

	head->func = func;
	head->next = NULL;
	*rdp->nxttail = head;
	rdp->nxttail = &head->next;
	if (++rdp->qlen > rdp->qlen_peak)
		rdp->qlen_peak = rdp->qlen;
	if (unlikely(rdp->qlen > (long)rcu_qhimark)) {
		if (policy->count_resched)              /* Eric Dumazet's counter */
			ask_switch(rdp);
		if (policy->forcing != RCU_FORCE_NONE) {       /* 2.6.16 and later */
			rdp->blimit = BLIMIT_UNLIMITED;
			force_quiescent_state(cpu);
		}
	}
	irq_restore(flags);
}

/* Start the next batch if one is wanted and none is running. rcp.lock held. */
static void start_batch(void)
{
	assert_spin_locked(&rcp.lock);
	if (rcp.next_pending && rcp.completed == rcp.cur) {
		rcp.next_pending = false;
		/* cur before signaled, for nothing_to_force() */
		smp_store_release(&rcp.cur, rcp.cur + 1);
		smp_store_release(&rcp.signaled, false);
		memset(&rcp.cpumask, 0, sizeof(rcp.cpumask));
		for (u32 cpu = 0; cpu < rcu_machine_nr_cpus(); cpu++)
			if (rcu_machine_online(cpu))
				cpumask_set(&rcp.cpumask, cpu);
		WRITE_ONCE(rcp.gp_start_ns, rcu_machine_now_ns());
		WRITE_ONCE(rcp.stall_warned, false);
	}
}

/* This CPU passed its quiescent state for cur: the batch ends with the last one. */
static void cpu_quiet(u32 cpu)
{
	assert_spin_locked(&rcp.lock);
	rcp.cpumask.bits[cpu / 64] &= ~(1UL << (cpu % 64));
	if (cpumask_empty(&rcp.cpumask)) {
		smp_store_release(&rcp.completed, rcp.cur);
		start_batch();
	}
}

/*
 * The lockless reads of cur and completed below are READ_ONCE(): another
 * CPU changes them under rcp.lock at any moment, and a stale value only
 * makes this CPU act a little later, never early (a batch it has not
 * seen end keeps its callbacks; a batch it has not seen start it notices
 * at the next look).
 */
static void check_quiescent_state(u32 cpu, struct rcu_data *rdp)
{
	long cur = READ_ONCE(rcp.cur);

	assert_irqs_disabled();
	rdp_is_mine(rdp);
	if (rdp->quiescbatch != cur) {
		note_new_batch(rdp, cur);
		return;
	}
	if (!rdp->qs_pending || !rdp->passed_quiesc)
		return;
	rdp->qs_pending = false;
	spin_lock(&rcp.lock);
	if (rdp->quiescbatch == rcp.cur)
		cpu_quiet(cpu);
	if (rcu_forcing_ipi() == RCU_IPI_NOTICE && rdp->quiescbatch != rcp.cur)
		note_new_batch(rdp, rcp.cur);   /* we ended it and started the next */
	spin_unlock(&rcp.lock);
}

/*
 * Frees left by callbacks to the end of their pass (rcu_free_bulk()): one
 * array per CPU, touched only by its CPU's callback pass (the softirq,
 * which never nests on a CPU). Outside rcu_data, so the model checker's
 * state does not carry it.
 */
struct rcu_bulk {
	void (*free_bulk)(void **objs, u32 n);
	u32 n;
	bool in_pass;           /* do_batch() runs callbacks here */
	void *objs[RCU_BULK_MAX];
};

static struct rcu_bulk rcu_bulks[MAX_CPUS];

/* Free what this CPU's callbacks left, if anything. */
static void bulk_flush(struct rcu_bulk *b)
{
	u32 n = b->n;

	if (n) {
		b->n = 0;
		b->free_bulk(b->objs, n);
	}
}

/* A callback pass begins on rdp's CPU: rcu_free_bulk() may keep objects. */
static struct rcu_bulk *bulk_begin(struct rcu_data *rdp)
{
	struct rcu_bulk *b = &rcu_bulks[rdp - rcu_data];

	b->in_pass = true;
	return b;
}

/* It ends: what its callbacks left is freed now. */
static void bulk_end(struct rcu_bulk *b)
{
	bulk_flush(b);
	b->in_pass = false;
}

__hot_batch void rcu_free_bulk(void (*free_bulk)(void **objs, u32 n), void *obj)
{
	struct rcu_bulk *b = &rcu_bulks[rcu_machine_cpu()];

	if (!b->in_pass) {
		free_bulk(&obj, 1);
		return;
	}
	if (b->n && (b->free_bulk != free_bulk || b->n == RCU_BULK_MAX))
		bulk_flush(b);
	b->free_bulk = free_bulk;
	b->objs[b->n++] = obj;
}

/*
 * Take a callback off the done list, before it runs. Softirq context. Each
 * count goes down in one instruction (an atomic subtract): a call_rcu() in
 * an interrupt, counting up, lands before or after it, never in the middle,
 * so no interrupts-off section per callback is needed (under TCG each sti
 * that ends one ends QEMU's translated block, so a cli/sti pair is dear
 * there, dearer with the interrupts-off tracer on: docs/performance.md).
 */
static struct rcu_head *next_done(struct rcu_data *rdp)
{
	struct rcu_head *head = READ_ONCE(rdp->donelist);

	rdp_is_mine(rdp);
	if (!head)
		return NULL;
	WRITE_ONCE(rdp->donelist, head->next);
	if (!READ_ONCE(rdp->donelist))
		WRITE_ONCE(rdp->donetail, &rdp->donelist);
	atomic_sub(&rdp->qlen, 1);
	atomic_sub(&rdp->donelen, 1);
	return head;
}

/*
 * Invoke up to blimit done callbacks, interrupts on; re-raise the softirq
 * for the rest, as 2.6.14's rcu_do_batch() re-scheduled its tasklet. The
 * done list is updated before each callback: one that came back here
 * would find only the callbacks still to run.
 *
 * A mode with a time budget (fqs) also stops at rcu.budget_us, or where
 * the running softirq's time is up (softirq_end_ns(), 2 ms), whichever
 * comes first, as Linux's rcu_do_batch() stops at rcu_resched_ns. It
 * reads the clock after every callback, whatever blimit is: blimit can be
 * lifted during the pass (call_rcu() above qhimark from an interrupt,
 * rcu_drain()), and an interrupt exit then still ends within one callback
 * of its 2 ms. (Linux reads it every 32 callbacks, and only without a
 * limit: "only call local_clock() every 32 callbacks".)
 */
__hot_batch static void do_batch(struct rcu_data *rdp)
{
	bool timed = policy->time_budget;
	u64 deadline = 0;
	struct rcu_head *head;
	long count = 0;

	if (timed)
		deadline = MIN(rcu_machine_now_ns() + rcu_budget_us * 1000,
			       rcu_machine_softirq_end_ns());
	while ((head = next_done(rdp))) {
		head->func(head);
		if (++count >= rdp->blimit)
			break;
		if (timed && rcu_machine_now_ns() >= deadline)
			break;
	}
	rdp->invoked += count;
	if (rdp->donelist)
		rcu_machine_raise_softirq();    /* more next time */
	if (rdp->blimit == (long)BLIMIT_UNLIMITED && rdp->qlen <= (long)rcu_qlowmark)
		rdp->blimit = base_blimit();
}

/*
 * The RCU softirq: 2.6.16's __rcu_process_callbacks() for this CPU. The
 * lists move with interrupts off (call_rcu() may run in an interrupt);
 * the callbacks run with interrupts on.
 */
__hot_batch void rcu_process_callbacks(void)
{
	u32 cpu = rcu_machine_cpu();
	struct rcu_data *rdp = &rcu_data[cpu];
	u64 flags = irq_save();

	if (rdp->curlist && !batch_before(READ_ONCE(rcp.completed), rdp->batch)) {
		*rdp->donetail = rdp->curlist;
		rdp->donetail = rdp->curtail;
		rdp->curlist = NULL;
		rdp->curtail = &rdp->curlist;
		rdp->donelen += rdp->curlen;
		rdp->curlen = 0;
	}
	if (rdp->nxtlist && !rdp->curlist) {
		rdp->curlist = rdp->nxtlist;
		rdp->curtail = rdp->nxttail;
		rdp->curlen = rdp->qlen - rdp->donelen;
		rdp->nxtlist = NULL;
		rdp->nxttail = &rdp->nxtlist;
		spin_lock(&rcp.lock);
		rdp->batch = rcp.cur + 1;       /* a whole grace period from now */
		rcp.next_pending = true;
		start_batch();
		spin_unlock(&rcp.lock);
	}
	check_quiescent_state(cpu, rdp);
	irq_restore(flags);
	if (rdp->donelist) {
		struct rcu_bulk *bulk = bulk_begin(rdp);

		do_batch(rdp);
		bulk_end(bulk);         /* the frees its callbacks left */
	}
}

static bool rcu_pending(struct rcu_data *rdp)
{
	rdp_is_mine(rdp);
	if (rdp->curlist && !batch_before(READ_ONCE(rcp.completed), rdp->batch))
		return true;
	if (!rdp->curlist && rdp->nxtlist)
		return true;
	if (rdp->donelist)
		return true;
	if (rdp->quiescbatch != READ_ONCE(rcp.cur))
		return true;
	return rdp->qs_pending && rdp->passed_quiesc;
}

/*
 * cond_resched() with preempt_count 0: this thread holds no reader. Under
 * fqs, a CPU that owes a grace period its state reports it here and now,
 * so a kernel thread that loops with cond_resched() (the storm, the hog)
 * ends grace periods without being made to switch. Linux's cond_resched()
 * calls rcu_all_qs() for this, "but only when RCU is in urgent need of
 * one" (rcu_urgent_qs, set once a grace period has waited a while);
 * testbed's fqs asks at once, and reports at once instead of at the next
 * softirq. The check without the lock costs a load and a compare: the
 * lock is taken once per grace period per CPU.
 *
 * Preemption goes off before the CPU is read, as in Linux's: a thread
 * preempted between reading its CPU and reporting could resume on another
 * CPU and report a state for the first one, whose new thread may already
 * be inside a reader (found by a review, docs/rcu.md; make check-rcu
 * flags such a read). Interrupts go off only to report.
 */
__hot void rcu_all_qs(void)
{
	if (!fqs_notices())
		return;
	rcu_machine_preempt_disable();
	u32 cpu = rcu_machine_cpu();
	struct rcu_data *rdp = &rcu_data[cpu];

	rdp_is_mine(rdp);
	if (READ_ONCE(rdp->qs_pending) || READ_ONCE(rdp->quiescbatch) != smp_load_acquire(&rcp.cur)) {
		u64 flags = irq_save();

		quiet_now(rdp);
		check_quiescent_state(cpu, rdp);
		if (rcu_pending(rdp))
			rcu_machine_raise_softirq();
		irq_restore(flags);
	}
	rcu_machine_preempt_enable();
}

void rcu_note_context_switch(void)
{
	rcu_data[rcu_machine_cpu()].passed_quiesc = true;
}

static void check_stall(void);

void rcu_tick(bool quiescent)
{
	struct rcu_data *rdp = &rcu_data[rcu_machine_cpu()];

	assert_irqs_disabled();
	if (quiescent && fqs_notices())
		quiet_now(rdp);
	else if (quiescent)
		rdp->passed_quiesc = true;
	if (rcu_pending(rdp))
		rcu_machine_raise_softirq();    /* 2.6.14: tasklet_schedule(&rcu_tasklet) */
	check_stall();
}

/* --- waiting for grace periods (the kernel's; the host's model has none) ---- */

#ifndef HOST_TEST

/*
 * RCU CPU stall warnings, after Linux's (Documentation/RCU/stallwarn.rst):
 * a grace period older than rcu.stall_ms makes the first tick that sees
 * it print, once per grace period, which CPUs have not passed a quiescent
 * state and what each runs, and asks each of them, by a call IPI, for a
 * backtrace of what its interrupt found it doing. A CPU that keeps
 * interrupts off never answers: its line is the only word on it. A
 * stalled grace period is the 2005 bug's start: the queues grow behind it.
 */
static u64 rcu_stall_ms = 1000;         /* Linux's default is 21 s; a storm needs one */
PARAM_U64("rcu.stall_ms", rcu_stall_ms, 0, 3600000);

static void stall_backtrace(void *arg)
{
	struct percpu *pc = this_cpu();
	const struct trap_frame *f = pc->irq_frame;
	const struct thread *t = pc->current;

	printk(KERN_WARNING "rcu: CPU %u holds up grace period %ld: %s (tid %u), preempt_count "
	       "%d, %s\n", pc->cpu, (long)(uintptr_t)arg, t ? t->name : "?", t ? t->tid : 0,
	       pc->preempt_count, !f ? "not in an interrupt" : trap_from_user(f) ?
	       "interrupted in user mode" : "interrupted at:");
	if (f && !trap_from_user(f))
		backtrace_print_from(f->rip, f->rsp, f->rbp);
}

static void report_stall(long cur, u64 waited_ms, const struct cpumask *owe)
{
	char list[64];

	printk(KERN_WARNING "rcu: INFO: grace period %ld stalled for %llu ms (rcu.stall_ms=%llu): "
	       "CPUs %s have not passed a quiescent state\n", cur, waited_ms, READ_ONCE(rcu_stall_ms),
	       cpumask_format(owe, list, sizeof(list)));
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!cpumask_test(owe, cpu))
			continue;
		const struct thread *t = READ_ONCE(percpu[cpu].current);
		printk(KERN_WARNING "rcu:   CPU %u: running %s, %llu ticks, need_resched %d\n", cpu,
		       t ? t->name : "?", READ_ONCE(percpu[cpu].ticks),
		       READ_ONCE(percpu[cpu].need_resched));
		if (cpu == smp_processor_id())
			stall_backtrace((void *)(uintptr_t)cur);
		else
			smp_call_function(cpu, stall_backtrace, (void *)(uintptr_t)cur, false);
	}
}

/* From every tick, interrupts off: is the grace period in progress too old? */
static void check_stall(void)
{
	long cur = READ_ONCE(rcp.cur);

	u64 stall_ms = READ_ONCE(rcu_stall_ms);

	if (!stall_ms || cur == READ_ONCE(rcp.completed) || READ_ONCE(rcp.stall_warned))
		return;
	u64 waited = rcu_machine_now_ns() - READ_ONCE(rcp.gp_start_ns);
	if (waited < stall_ms * 1000000)
		return;
	struct cpumask owe;

	spin_lock(&rcp.lock);
	bool mine = rcp.cur == cur && rcp.completed != cur && !rcp.stall_warned;
	if (mine) {
		rcp.stall_warned = true;
		owe = rcp.cpumask;
	}
	spin_unlock(&rcp.lock);
	if (mine)
		report_stall(cur, waited / 1000000, &owe);
}

u64 rcu_set_stall_ms(u64 ms)
{
	u64 before = rcu_stall_ms;

	WRITE_ONCE(rcu_stall_ms, ms);
	return before;
}

void rcu_owing_cpus(struct cpumask *out)
{
	u64 flags = spin_lock_irqsave(&rcp.lock);

	memset(out, 0, sizeof(*out));
	if (rcp.cur != rcp.completed)
		*out = rcp.cpumask;
	spin_unlock_irqrestore(&rcp.lock, flags);
}

struct rcu_waiter {
	struct rcu_head head;
	struct completion done;
};

static void wake_waiter(struct rcu_head *head)
{
	complete(&container_of(head, struct rcu_waiter, head)->done);
}

void synchronize_rcu(void)
{
	struct rcu_waiter w;

	completion_init(&w.done);
	call_rcu(&w.head, wake_waiter);
	wait_for_completion(&w.done);
}

/*
 * rcu_barrier(): a callback queued on every CPU, behind everything queued
 * there, and a count of those still to run. The count is taken as each
 * CPU queues its callback, as classic RCU's rcu_barrier_func() did
 * (atomic_inc(&rcu_barrier_cpu_count), then call_rcu()), never from a
 * count of CPUs made beforehand, which a CPU coming online meanwhile
 * would make wrong. The caller holds one more, dropped once every CPU has
 * queued, so that no early callback brings the count to zero while others
 * are still being queued: Linux's later _rcu_barrier() starts its count
 * at one for that reason (Documentation/RCU/rcubarrier: "Why doesn't
 * line 8 initialize rcu_barrier_cpu_count to zero?").
 */
static struct rcu_head barrier_heads[MAX_CPUS];
static u32 barrier_left;
static struct completion barrier_done;
static struct mutex barrier_mutex = MUTEX_INIT(barrier_mutex, "rcu_barrier");

static void barrier_put(void)
{
	if (__atomic_sub_fetch(&barrier_left, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&barrier_done);
}

static void barrier_callback(struct rcu_head *head)
{
	bulk_flush(&rcu_bulks[smp_processor_id()]);     /* the frees of the callbacks before it */
	barrier_put();
}

/* On each CPU: queue a callback behind everything already queued there. */
static void queue_barrier(void *arg)
{
	__atomic_add_fetch(&barrier_left, 1, __ATOMIC_ACQ_REL);
	call_rcu(&barrier_heads[smp_processor_id()], barrier_callback);
}

void rcu_barrier(void)
{
	mutex_lock(&barrier_mutex);
	completion_init(&barrier_done);
	barrier_left = 1;                       /* the caller's own, until all have queued */
	smp_call_function_all(queue_barrier, NULL, true);
	barrier_put();
	wait_for_completion(&barrier_done);
	mutex_unlock(&barrier_mutex);
}

static void lift_blimit(void *arg)
{
	rcu_data[smp_processor_id()].blimit = BLIMIT_UNLIMITED;
}

void rcu_drain(void)
{
	smp_call_function_all(lift_blimit, NULL, true);
	rcu_barrier();          /* do_batch() restores each blimit at qlowmark */
}
#endif

/* --- setup, policy, statistics --------------------------------------------- */

/*
 * A switch of mode stands for booting that kernel: each CPU's batch limit
 * and fqs16's last_rs_qlen start as they would there. Within a mode,
 * last_rs_qlen keeps its value after the queue drains, as 2.6.16's did:
 * Oleg Nesterov pointed out on LKML that nothing reset it ("Re: [patch
 * 1/2] rcu batch tuning", 27 January 2006: the next flood then needs
 * qlen above the last round's qlen + rsinterval before it forces), Paul
 * McKenney agreed it should be reset with blimit, and it never was: the
 * field's one use went with it in Oleg's rework of 3 September 2006 (for
 * 2.6.19). So a second flood in fqs16 forces later than the first
 * (rcu.fqs16_keeps_last_rs_qlen_across_floods).
 */
void rcu_set_mode(enum rcu_mode mode)
{
	u64 flags = irq_save();

	policy = &rcu_modes[mode < RCU_NR_MODES ? mode : RCU_MODE_FQS];
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++) {
		rcu_data[cpu].blimit = base_blimit();
		rcu_data[cpu].last_rs_qlen = 0;
	}
	irq_restore(flags);
}

enum rcu_mode rcu_mode(void)
{
	return policy - rcu_modes;
}

bool rcu_mode_by_name(const char *name, enum rcu_mode *mode)
{
	for (enum rcu_mode m = 0; m < RCU_NR_MODES; m++) {
		if (!strcmp(rcu_modes[m].name, name)) {
			*mode = m;
			return true;
		}
	}
	return false;
}

u64 rcu_qhimark_value(void)
{
	return rcu_qhimark;
}

u64 rcu_budget_us_value(void)
{
	return rcu_budget_us;
}

u64 rcu_rsinterval_value(void)
{
	return rcu_rsinterval;
}

static bool on_list(const struct rcu_head *list, const struct rcu_head *head)
{
	for (; list; list = list->next)
		if (list == head)
			return true;
	return false;
}

bool rcu_queued_here(const struct rcu_head *head)
{
	struct rcu_data *rdp = &rcu_data[rcu_machine_cpu()];
	u64 flags = irq_save();
	bool queued = on_list(rdp->nxtlist, head) || on_list(rdp->curlist, head) ||
		      on_list(rdp->donelist, head);

	irq_restore(flags);
	return queued;
}

const char *rcu_mode_name(void)
{
	return policy->name;
}

static void init_lists(void)
{
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct rcu_data *rdp = &rcu_data[cpu];
		rdp->nxttail = &rdp->nxtlist;
		rdp->curtail = &rdp->curlist;
		rdp->donetail = &rdp->donelist;
		rdp->quiescbatch = rcp.completed;
	}
}

#ifndef HOST_TEST
void rcu_init(void)
{
	init_lists();
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		percpu[cpu].rcu = &rcu_data[cpu];
	open_softirq(SOFTIRQ_RCU, rcu_process_callbacks);
	rcu_set_mode(rcu_mode_arg);
	printk("rcu: mode=%s blimit=%ld qhimark=%llu qlowmark=%llu\n", policy->name, base_blimit(),
	       rcu_qhimark, rcu_qlowmark);
}
#else
static void check_stall(void)
{
}

/*
 * The host's model checker (tests/check/rcu_check.c) and simulator
 * (tests/sim/rcu_sim.c): start over with a mode and its knobs, and save or
 * restore the whole state. The state is
 * the control block and the first ncpus rcu_data; callbacks live in the
 * checker's own memory, which it saves alongside, so the list pointers
 * stay valid.
 */
void rcu_host_reset(enum rcu_mode mode, u64 qhimark, u64 rsinterval, bool resched_ipi)
{
	memset(&rcp, 0, sizeof(rcp));
	rcp.lock = (struct spinlock)SPINLOCK_INIT("rcu");
	rcp.cur = rcp.completed = -300;
	memset(rcu_data, 0, sizeof(rcu_data));
	rcu_qhimark = qhimark;
	rcu_rsinterval = rsinterval;
	fqs_ipi_resched = resched_ipi;
	init_lists();
	rcu_set_mode(mode);
}

size_t rcu_host_state_size(u32 ncpus)
{
	return sizeof(rcp) + ncpus * sizeof(rcu_data[0]);
}

void rcu_host_save(void *buf, u32 ncpus)
{
	struct rcu_ctrlblk saved = rcp;

	saved.lock.owner = saved.lock.next = 0;         /* unlocked either way: same state */
	memcpy(buf, &saved, sizeof(saved));
	memcpy((char *)buf + sizeof(rcp), rcu_data, ncpus * sizeof(rcu_data[0]));
}

void rcu_host_restore(const void *buf, u32 ncpus)
{
	memcpy(&rcp, buf, sizeof(rcp));
	memcpy(rcu_data, (const char *)buf + sizeof(rcp), ncpus * sizeof(rcu_data[0]));
}
#endif

u64 rcu_completed_batches(void)
{
	return (u64)(READ_ONCE(rcp.completed) + 300);
}

u64 rcu_qlen(u32 cpu)
{
	return (u64)rcu_data[cpu].qlen;
}

u64 rcu_peak_qlen(void)
{
	long peak = 0;

	for (u32 cpu = 0; cpu < rcu_machine_nr_cpus(); cpu++)
		peak = MAX(peak, rcu_data[cpu].qlen_peak);
	return (u64)peak;
}

void rcu_reset_peak(void)
{
	for (u32 cpu = 0; cpu < rcu_machine_nr_cpus(); cpu++)
		rcu_data[cpu].qlen_peak = rcu_data[cpu].qlen;
}

u64 rcu_done_len(u32 cpu)
{
	return (u64)__atomic_load_n(&rcu_data[cpu].donelen, __ATOMIC_RELAXED);
}

u64 rcu_invoked(u32 cpu)
{
	return rcu_data[cpu].invoked;
}

u64 rcu_switch_asks(u32 cpu)
{
	return rcu_data[cpu].switch_asks;
}

u64 rcu_fqs_rounds(void)
{
	return rcp.fqs_rounds;
}

bool rcu_batch_running(void)
{
	return smp_load_acquire(&rcp.cur) !=
	       smp_load_acquire(&rcp.completed);
}

bool rcu_cpu_owes_batch(u32 cpu)
{
	u64 flags = spin_lock_irqsave(&rcp.lock);
	bool owes = rcp.cur != rcp.completed && cpumask_test(&rcp.cpumask, cpu);

	spin_unlock_irqrestore(&rcp.lock, flags);
	return owes;
}
