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
 * Callbacks run from rcu_irq_exit(), on the way out of an interrupt, like a
 * softirq: never from a thread, since switching to such a thread would
 * itself be a quiescent state and hide the bug.
 *
 * Locking: the control block is guarded by rcu_lock; per-CPU data is
 * touched only by its own CPU with interrupts off.
 */
#include "rcu.h"
#include "cmdline.h"
#include "kstring.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "smp.h"
#include "spinlock.h"
#include "x86.h"

/*
 * The modes, one row each (enum rcu_mode in rcu.h); docs/rcu.md tells
 * their history at length.
 */
const struct rcu_mode_info rcu_modes[RCU_NR_MODES] = {
	[RCU_MODE_RC4] = {
		.name = "rc4",
		.history = "2.6.14-rc4: at most 10 callbacks per pass (maxbatch), no count",
		.blimit = 10,
	},
	[RCU_MODE_BATCH10K] = {
		.name = "batch10k",
		.history = "the batch limit raised from 10 to 10000, merged by Linus Torvalds "
			   "before 2.6.14 (LWN, 18 Oct 2005; 2.6.15 has maxbatch = 10000)",
		.blimit = 10000,
	},
	[RCU_MODE_COUNT] = {
		.name = "count",
		.history = "Eric Dumazet's \"rcu: keep rcu callback event counter\" (merged 18 Oct "
			   "2005): need_resched on this CPU above 10000 queued",
		.blimit = 10000,
		.count_resched = true,
	},
	[RCU_MODE_FQS] = {
		.name = "fqs",
		.history = "2.6.16, Dipankar Sarma's batch tuning: above qhimark no batch limit and "
			   "IPIs to the CPUs that owe a quiescent state; blimit again at qlowmark",
		.force_qs = true,
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

struct rcu_ctrlblk {
	struct spinlock lock;
	long cur;
	long completed;
	bool next_pending;      /* another batch is wanted after cur */
	bool signaled;          /* force_quiescent_state() already sent IPIs for cur */
	struct cpumask cpumask;
	u64 fqs_rounds;
};

struct rcu_data {
	long quiescbatch;       /* the batch this CPU is looking for a quiescent state for */
	bool passed_quiesc;
	bool qs_pending;
	long batch;             /* the batch curlist waits for */
	struct rcu_head *nxtlist, **nxttail;
	struct rcu_head *curlist, **curtail;
	struct rcu_head *donelist, **donetail;
	long qlen;
	long qlen_peak;
	long blimit;
	bool softirq;           /* work to do at the next interrupt exit */
};

static struct rcu_ctrlblk rcp = { .lock = SPINLOCK_INIT("rcu"), .cur = -300, .completed = -300 };
static struct rcu_data rcu_data[MAX_CPUS];
static const struct rcu_mode_info *policy = &rcu_modes[RCU_MODE_FQS];

static bool batch_before(long a, long b)
{
	return a - b < 0;
}

static long base_blimit(void)
{
	return policy->blimit ? policy->blimit : (long)rcu_blimit_knob;
}

void rcu_read_lock(void)
{
	preempt_disable();
}

void rcu_read_unlock(void)
{
	preempt_enable();
}

/*
 * How a CPU owing a quiescent state is forced (rcu.fqs_ipi=).
 *
 * resched: 2.6.16 exactly. A bare reschedule IPI: the CPU switches on the
 *   way out of the interrupt. But the IPI goes out right after the batch
 *   starts, before that CPU's tick has noticed the batch, so the switch
 *   comes first and check_quiescent_state() then clears passed_quiesc when
 *   it notices: the quiescent state is lost, and no second round comes in
 *   this grace period. A kernel thread that schedules only when asked (the
 *   hog) then holds the batch until its time slice ends. The forcing CPU
 *   itself, and the CPU that just started a batch by ending the last one,
 *   waste their next switches the same way, until their next tick.
 * notice (default): the same single round, but no switch is wasted. The
 *   IPI runs rcu_forced() on the target, which has RCU's interrupt-exit
 *   work notice the batch before the switch (rcu_irq_exit() runs first in
 *   sched_preempt_irq()); the forcing CPU notices before it asks itself to
 *   switch; a CPU whose report ends a batch notices the next one at once.
 */
static int fqs_ipi_resched;
PARAM_CHOICE("rcu.fqs_ipi", fqs_ipi_resched, "notice", "resched");

/* A new batch began: this CPU owes it a state; only one passed from now on counts. */
static void note_new_batch(struct rcu_data *rdp, long cur)
{
	rdp->qs_pending = true;
	rdp->passed_quiesc = false;
	rdp->quiescbatch = cur;
}

/* In the IPI, on the forced CPU: interrupt exit notices the batch, then switches. */
static void rcu_forced(void *arg)
{
	rcu_data[smp_processor_id()].softirq = true;
	this_cpu()->need_resched = true;
}

/*
 * 2.6.16's force_quiescent_state(): reschedule this CPU, and once per
 * grace period every other CPU that still owes it a quiescent state.
 */
static void force_quiescent_state(u32 self)
{
	struct rcu_data *rdp = &rcu_data[self];
	struct cpumask owe;

	spin_lock(&rcp.lock);
	if (!fqs_ipi_resched && rdp->quiescbatch != rcp.cur)
		note_new_batch(rdp, rcp.cur);
	this_cpu()->need_resched = true;
	if (rcp.signaled || rcp.completed == rcp.cur) {
		spin_unlock(&rcp.lock);
		return;
	}
	rcp.signaled = true;
	rcp.fqs_rounds++;
	owe = rcp.cpumask;
	spin_unlock(&rcp.lock);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (cpu == self || !cpumask_test(&owe, cpu))
			continue;
		if (fqs_ipi_resched)
			smp_send_reschedule(cpu);
		else
			smp_call_function(cpu, rcu_forced, NULL, false);
	}
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	u64 flags = irq_save();
	u32 cpu = smp_processor_id();
	struct rcu_data *rdp = &rcu_data[cpu];

	head->func = func;
	head->next = NULL;
	*rdp->nxttail = head;
	rdp->nxttail = &head->next;
	if (++rdp->qlen > rdp->qlen_peak)
		rdp->qlen_peak = rdp->qlen;
	if (unlikely(rdp->qlen > (long)rcu_qhimark)) {
		if (policy->count_resched)              /* Eric Dumazet's counter */
			this_cpu()->need_resched = true;
		if (policy->force_qs) {                 /* 2.6.16 */
			rdp->blimit = BLIMIT_UNLIMITED;
			force_quiescent_state(cpu);
		}
	}
	irq_restore(flags);
}

/* Start the next batch if one is wanted and none is running. rcp.lock held. */
static void start_batch(void)
{
	if (rcp.next_pending && rcp.completed == rcp.cur) {
		rcp.next_pending = false;
		rcp.cur++;
		rcp.signaled = false;
		memset(&rcp.cpumask, 0, sizeof(rcp.cpumask));
		for (u32 cpu = 0; cpu < nr_cpus; cpu++)
			if (percpu[cpu].online)
				cpumask_set(&rcp.cpumask, cpu);
	}
}

/* This CPU passed its quiescent state for cur: the batch ends with the last one. */
static void cpu_quiet(u32 cpu)
{
	rcp.cpumask.bits[cpu / 64] &= ~(1UL << (cpu % 64));
	if (cpumask_empty(&rcp.cpumask)) {
		rcp.completed = rcp.cur;
		start_batch();
	}
}

static void check_quiescent_state(u32 cpu, struct rcu_data *rdp)
{
	if (rdp->quiescbatch != rcp.cur) {
		note_new_batch(rdp, rcp.cur);
		return;
	}
	if (!rdp->qs_pending || !rdp->passed_quiesc)
		return;
	rdp->qs_pending = false;
	spin_lock(&rcp.lock);
	if (rdp->quiescbatch == rcp.cur)
		cpu_quiet(cpu);
	if (!fqs_ipi_resched && policy->force_qs && rdp->quiescbatch != rcp.cur)
		note_new_batch(rdp, rcp.cur);   /* we ended it and started the next */
	spin_unlock(&rcp.lock);
}

/* Invoke up to blimit done callbacks; leave the rest for the next pass. */
static void do_batch(struct rcu_data *rdp)
{
	struct rcu_head *list = rdp->donelist, *next;
	long count = 0;

	while (list) {
		next = list->next;
		rdp->qlen--;            /* first: a callback may wake someone who reads qlen */
		list->func(list);
		list = next;
		if (++count >= rdp->blimit)
			break;
	}
	rdp->donelist = list;
	if (!list)
		rdp->donetail = &rdp->donelist;
	else
		rdp->softirq = true;    /* more next time */
	if (rdp->blimit == (long)BLIMIT_UNLIMITED && rdp->qlen <= (long)rcu_qlowmark)
		rdp->blimit = base_blimit();
}

/* 2.6.16's __rcu_process_callbacks(), for this CPU, interrupts off. */
static void process_callbacks(u32 cpu, struct rcu_data *rdp)
{
	if (rdp->curlist && !batch_before(rcp.completed, rdp->batch)) {
		*rdp->donetail = rdp->curlist;
		rdp->donetail = rdp->curtail;
		rdp->curlist = NULL;
		rdp->curtail = &rdp->curlist;
	}
	if (rdp->nxtlist && !rdp->curlist) {
		rdp->curlist = rdp->nxtlist;
		rdp->curtail = rdp->nxttail;
		rdp->nxtlist = NULL;
		rdp->nxttail = &rdp->nxtlist;
		spin_lock(&rcp.lock);
		rdp->batch = rcp.cur + 1;       /* a whole grace period from now */
		rcp.next_pending = true;
		start_batch();
		spin_unlock(&rcp.lock);
	}
	check_quiescent_state(cpu, rdp);
	if (rdp->donelist)
		do_batch(rdp);
}

static bool rcu_pending(struct rcu_data *rdp)
{
	if (rdp->curlist && !batch_before(rcp.completed, rdp->batch))
		return true;
	if (!rdp->curlist && rdp->nxtlist)
		return true;
	if (rdp->donelist)
		return true;
	if (rdp->quiescbatch != rcp.cur)
		return true;
	return rdp->qs_pending && rdp->passed_quiesc;
}

void rcu_note_context_switch(void)
{
	rcu_data[smp_processor_id()].passed_quiesc = true;
}

void rcu_tick(bool quiescent)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (quiescent)
		rdp->passed_quiesc = true;
	if (rcu_pending(rdp))
		rdp->softirq = true;
}

void rcu_irq_exit(void)
{
	u32 cpu = smp_processor_id();
	struct rcu_data *rdp = &rcu_data[cpu];

	if (!rdp->softirq)
		return;
	rdp->softirq = false;
	process_callbacks(cpu, rdp);
}

/* --- waiting for grace periods --------------------------------------------- */

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

static struct rcu_head barrier_heads[MAX_CPUS];
static u32 barrier_left;
static struct completion barrier_done;

static void barrier_callback(struct rcu_head *head)
{
	if (__atomic_sub_fetch(&barrier_left, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&barrier_done);
}

/* On each CPU: queue a callback behind everything already queued there. */
static void queue_barrier(void *arg)
{
	call_rcu(&barrier_heads[smp_processor_id()], barrier_callback);
}

void rcu_barrier(void)
{
	static struct mutex barrier_mutex;
	static bool init;

	if (!init) {
		mutex_init(&barrier_mutex, "rcu_barrier");
		init = true;
	}
	mutex_lock(&barrier_mutex);
	completion_init(&barrier_done);
	barrier_left = nr_cpus_online;
	smp_call_function_all(queue_barrier, NULL, true);
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

/* --- setup, policy, statistics --------------------------------------------- */

void rcu_set_mode(enum rcu_mode mode)
{
	u64 flags = irq_save();

	policy = &rcu_modes[mode < RCU_NR_MODES ? mode : RCU_MODE_FQS];
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		rcu_data[cpu].blimit = base_blimit();
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

const char *rcu_mode_name(void)
{
	return policy->name;
}

void rcu_init(void)
{
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct rcu_data *rdp = &rcu_data[cpu];
		rdp->nxttail = &rdp->nxtlist;
		rdp->curtail = &rdp->curlist;
		rdp->donetail = &rdp->donelist;
		rdp->quiescbatch = rcp.completed;
		percpu[cpu].rcu = rdp;
	}
	rcu_set_mode(rcu_mode_arg);
	printk("rcu: mode=%s blimit=%ld qhimark=%llu qlowmark=%llu\n", policy->name, base_blimit(),
	       rcu_qhimark, rcu_qlowmark);
}

u64 rcu_completed_batches(void)
{
	return (u64)(rcp.completed + 300);
}

u64 rcu_qlen(u32 cpu)
{
	return (u64)rcu_data[cpu].qlen;
}

u64 rcu_peak_qlen(void)
{
	long peak = 0;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		peak = MAX(peak, rcu_data[cpu].qlen_peak);
	return (u64)peak;
}

void rcu_reset_peak(void)
{
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		rcu_data[cpu].qlen_peak = rcu_data[cpu].qlen;
}

u64 rcu_fqs_rounds(void)
{
	return rcp.fqs_rounds;
}

bool rcu_batch_running(void)
{
	return __atomic_load_n(&rcp.cur, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&rcp.completed, __ATOMIC_ACQUIRE);
}

bool rcu_cpu_owes_batch(u32 cpu)
{
	u64 flags = spin_lock_irqsave(&rcp.lock);
	bool owes = rcp.cur != rcp.completed && cpumask_test(&rcp.cpumask, cpu);

	spin_unlock_irqrestore(&rcp.lock, flags);
	return owes;
}
