// SPDX-License-Identifier: MIT
/*
 * rcu_check.c - make check-rcu: every interleaving of a small world, run
 * on kernel/rcu.c and kernel/softirq.c themselves.
 *
 * The world: NCPUS CPUs, at most CALLBACKS call_rcu()s and READERS
 * read-side critical sections, and these events, any of them at any
 * moment they are allowed (event_names[]):
 *
 *   tick, quiescent   a tick in user mode or in the idle thread (no reader
 *                     here), then the interrupt's exit: the softirq runs
 *                     if raised (kernel/softirq.c's softirq_irq_exit()),
 *                     and a switch if one was asked for
 *   tick, kernel      the same, in a kernel thread
 *   ksoftirqd         a switch into this CPU's ksoftirqd, woken by a
 *                     softirq that had to hand over, which runs rounds of
 *                     softirq_ksoftirqd_round() until nothing is raised
 *   schedule          a pass through schedule() (no reader here)
 *   cond_resched      cond_resched() with no reader here (rcu_all_qs()),
 *                     in a thread that preemption may move
 *   read begin/end    rcu_read_lock() ... rcu_read_unlock()
 *   call_rcu          queue the next callback from a thread on this CPU
 *   ipi               a forcing IPI sent here arrives in a kernel thread
 *   ipi, idle         it arrives in the idle thread (no reader here): the
 *                     notice IPI counts that as a quiescent state
 *
 * An event is not one atomic step. Every READ_ONCE(), WRITE_ONCE(),
 * smp_load_acquire(), smp_store_release() and atomic_add()/atomic_sub()
 * of rcu.c and softirq.c is a step (host_step(), include/types.h), and at
 * any one step of an event the search may also make one of these happen
 * (an injection):
 *
 *   an interrupt      where interrupts are on: a tick, an IPI that is
 *                     pending here, or an interrupt whose handler queues
 *                     a callback; then that interrupt's exit, softirq and
 *                     switch included, as in the kernel;
 *   a migration       where a thread may be preempted (preemption and
 *                     interrupts on): it goes on on another CPU.
 *
 * rcu.c is compiled against this model of the machine (rcu_machine.h,
 * softirq_machine.h): raising the softirq and sending an IPI only mark
 * them pending, so their delivery is an event of its own. A depth-first
 * search tries every event in every state, with no injection and with
 * each possible one, saving and restoring the whole state around each
 * (RCU's control block and per-CPU data, the softirqs pending, the
 * callbacks, the model) and skipping states already seen (a 64-bit hash
 * of the state). Checked:
 *
 *   safety    no callback runs while a reader that was inside when it
 *             was queued is still inside, and none runs twice;
 *   counting  the queues hold exactly the callbacks queued and not run;
 *   ownership a CPU touches only its own rcu_data (rdp_is_mine() in
 *             rcu.c): a thread that moved between taking rdp and using
 *             it is caught at the use;
 *   migration a thread reads its CPU number only where it cannot move;
 *   deadlock  no lock is taken by an interrupt that interrupted its
 *             holder (its spinlock's recursion check);
 *   liveness  from every state where the world is done (all queued, no
 *             reader inside): rounds of quiescent ticks, softirqs and
 *             switches on every CPU run every callback; and under fqs,
 *             where every CPU is a kernel thread that switches only when
 *             asked (a storm on CPU 0 that keeps queueing, hogs on the
 *             others), forcing alone runs them.
 *
 * A violation prints the events that lead to it, one per line, and the
 * program exits 1. The world is small on purpose: bugs in RCU's state
 * machine show with two CPUs and two callbacks.
 *
 * Usage: rcu_check [--no-interrupts] [--no-migration] [CPUS CALLBACKS READERS]
 * (the flags leave out a class of injection: a mutant that only that class
 * finds then survives, which is how each class shows it is needed).
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu.h"
#include "rcu_machine.h"
#include "softirq.h"
#include "softirq_machine.h"
#include "spinlock.h"

#define MAX_WORLD_CPUS 3
#define MAX_CALLBACKS  3
#define MAX_DEPTH      400
#define MAX_STEPS      64      /* steps of one event the search may inject at */
#define DRAIN_ROUNDS   (4 * (ncallbacks + 1))  /* a grace period takes two rounds; up to one per callback, and one more */
#define STORM_HEADS    64      /* the forcing drain's storm: callbacks in flight at most */

enum event {
	EV_TICK_QS, EV_TICK_KERNEL, EV_KSOFTIRQD, EV_SCHEDULE, EV_READ_BEGIN, EV_READ_END,
	EV_CALL_RCU, EV_IPI, EV_IPI_IDLE, EV_COND_RESCHED, NR_EVENTS,
};

static const char *const event_names[NR_EVENTS] = {
	"tick, quiescent", "tick, kernel", "ksoftirqd", "schedule", "read begin", "read end",
	"call_rcu", "ipi", "ipi, idle", "cond_resched",
};

/* What may happen at a step (an injection); INJ_MIGRATE + c moves the thread to CPU c. */
enum inject { INJ_NONE, INJ_TICK, INJ_IPI, INJ_CALL_RCU, INJ_MIGRATE };
#define NR_INJECT (INJ_MIGRATE + MAX_WORLD_CPUS)

static const char *const inject_names[INJ_MIGRATE] = {
	"", "an interrupt: a tick", "an interrupt: the pending IPI",
	"an interrupt whose handler calls call_rcu()",
};

/* The model's state: everything but RCU's and the softirq's own, saved with them. */
struct model {
	u32 readers_begun;
	u32 queued;
	u32 ran;                        /* bit i: callback i has run */
	u32 inside;                     /* bit r: reader r is inside */
	u32 guard[MAX_CALLBACKS];       /* readers inside when callback i was queued */
	u32 violation;
	s8 reader_on[MAX_WORLD_CPUS];   /* the reader inside on this CPU, or -1 */
	bool need_resched[MAX_WORLD_CPUS];
	bool ksoftirqd_woken[MAX_WORLD_CPUS];
	u8 ipi_pending[MAX_WORLD_CPUS]; /* bit k: an IPI of enum rcu_ipi k */
	int preempt_count[MAX_WORLD_CPUS];
};

enum {
	UNSAFE = 1, RAN_TWICE = 2, MISCOUNTED = 4, STUCK = 8, MIGRATABLE = 16, FOREIGN = 32,
	DEADLOCK = 64, NOT_LIVE_FORCED = 128,
};

/* The world's shape, fixed for one search. */
static u32 ncpus = 2, ncallbacks = 2, nreaders = 2;
static enum rcu_mode mode;
static bool use_interrupts = true, use_migration = true;

static struct model m;
static struct rcu_head heads[MAX_CALLBACKS];

/* The event being run: not state, set up by run_event() each time. */
static u32 this_cpu_now;                /* the CPU the event runs on now */
static bool preemptible_now;            /* a thread that preemption may move */
static int irq_depth;                   /* interrupt handlers open on this CPU */
static bool in_event, injecting;        /* steps count only in an event, outside an injection */
static u32 steps;                       /* steps this event has taken */
static u32 plan_at = UINT32_MAX;        /* the step to inject at, and what */
static u8 plan_what;
static u32 avail[MAX_STEPS];            /* per step: bit i, injection i was possible there */
static jmp_buf deadlocked;              /* where a lock taken twice goes */

/* --- the machine, as rcu_machine.h and softirq_machine.h ask for it ------------ */

/*
 * A thread may be preempted and moved to another CPU between any two of its
 * instructions unless preemption or interrupts are off: a CPU number it
 * reads then is only a guess.
 */
static bool may_move(void)
{
	return preemptible_now && !m.preempt_count[this_cpu_now] && (host_rflags & RFLAGS_IF);
}

u32 rcu_machine_cpu(void)
{
	if (may_move())
		m.violation |= MIGRATABLE;
	return this_cpu_now;
}
u32 rcu_machine_nr_cpus(void) { return ncpus; }
bool rcu_machine_online(u32 cpu) { return cpu < ncpus; }
void rcu_machine_need_resched(void) { m.need_resched[this_cpu_now] = true; }
void rcu_machine_raise_softirq(void) { raise_softirq(SOFTIRQ_RCU); }
u64 rcu_machine_now_ns(void) { return 0; }
u64 rcu_machine_softirq_end_ns(void) { return ~0ULL; }   /* time is not in the model */
void rcu_machine_preempt_disable(void) { m.preempt_count[this_cpu_now]++; }
void rcu_machine_preempt_enable(void) { m.preempt_count[this_cpu_now]--; }

void rcu_machine_check_own(u32 cpu)
{
	if (in_event && cpu != this_cpu_now)
		m.violation |= FOREIGN;
}

void rcu_machine_send_ipi(u32 cpu, enum rcu_ipi ipi)
{
	m.ipi_pending[cpu] |= (u8)(1u << ipi);
}

u32 softirq_machine_cpu(void) { return this_cpu_now; }
int softirq_machine_preempt_count(void) { return m.preempt_count[this_cpu_now]; }
void softirq_machine_preempt_add(int n) { m.preempt_count[this_cpu_now] += n; }
bool softirq_machine_need_resched(void) { return m.need_resched[this_cpu_now]; }
u64 softirq_machine_now_ns(void) { return 0; }

bool softirq_machine_wake_ksoftirqd(u32 cpu)
{
	m.ksoftirqd_woken[cpu] = true;
	return true;
}

/* A lock taken again on the CPU that holds it: an interrupt took its holder's lock. */
void spinlock_recursion(struct spinlock *l)
{
	m.violation |= DEADLOCK;
	longjmp(deadlocked, 1);
}

/* --- the callbacks ------------------------------------------------------------ */

static void callback(struct rcu_head *head)
{
	u32 i = (u32)(head - heads);

	if (m.ran & (1u << i))
		m.violation |= RAN_TWICE;
	if (m.guard[i] & m.inside)
		m.violation |= UNSAFE;
	m.ran |= 1u << i;
}

/* The next of the world's callbacks, from wherever this runs. */
static void queue_callback(void)
{
	m.guard[m.queued] = m.inside;
	call_rcu(&heads[m.queued++], callback);
}

/* --- events: the pieces ----------------------------------------------------------- */

/* A switch on this CPU: a quiescent state; need_resched is answered. */
static void switch_here(void)
{
	u64 flags = host_rflags;

	host_rflags = 0;                        /* schedule() switches with interrupts off */
	m.need_resched[this_cpu_now] = false;
	rcu_note_context_switch();
	host_rflags = flags;
}

/*
 * An interrupt's exit, interrupts off (sched_preempt_irq()): softirqs, then
 * a switch if one was asked for and the interrupted code may be preempted.
 */
static void irq_exit(void)
{
	irq_depth = 0;
	softirq_irq_exit();
	if (m.need_resched[this_cpu_now] && !m.preempt_count[this_cpu_now])
		switch_here();
}

/* The IPIs pending here arrive; idle: in the idle thread. */
static void deliver_ipis(bool idle)
{
	u8 pending = m.ipi_pending[this_cpu_now];

	m.ipi_pending[this_cpu_now] = 0;
	if (pending & (1u << RCU_IPI_NOTICE))
		rcu_forced_ipi(rcu_tick_quiescent(false, idle, m.preempt_count[this_cpu_now],
						  irq_depth));
	if (pending & (1u << RCU_IPI_RESCHED))
		m.need_resched[this_cpu_now] = true;
	/* a bare IPI is only acknowledged */
}

/* An interrupt arrives here, runs what, and exits. */
static void interrupt(enum inject what, bool quiescent_tick, bool idle)
{
	host_rflags = 0;
	irq_depth = 1;
	if (what == INJ_TICK)
		rcu_tick(rcu_tick_quiescent(quiescent_tick && !idle, idle,
					    m.preempt_count[this_cpu_now], irq_depth));
	else if (what == INJ_IPI)
		deliver_ipis(idle);
	else
		queue_callback();
	irq_exit();
}

/* A switch into ksoftirqd and its rounds, then back (each switch a quiescent state). */
static void ksoftirqd_runs(void)
{
	m.ksoftirqd_woken[this_cpu_now] = false;
	switch_here();
	host_rflags = 0;
	while (softirq_ksoftirqd_round()) {
		host_rflags = RFLAGS_IF;
		preemptible_now = true;         /* cond_resched() in ksoftirqd's loop */
		rcu_all_qs();
		preemptible_now = false;
		host_rflags = 0;
	}
	switch_here();
}

/* --- injections -------------------------------------------------------------------- */

static u32 possible_injections(void)
{
	u32 can = 0;

	if (use_interrupts && (host_rflags & RFLAGS_IF)) {
		can |= 1u << INJ_TICK;
		if (m.ipi_pending[this_cpu_now])
			can |= 1u << INJ_IPI;
		if (m.queued < ncallbacks)
			can |= 1u << INJ_CALL_RCU;
	}
	if (use_migration && may_move())
		for (u32 cpu = 0; cpu < ncpus; cpu++)
			if (cpu != this_cpu_now)
				can |= 1u << (INJ_MIGRATE + cpu);
	return can;
}

static void inject(enum inject what)
{
	if (what >= INJ_MIGRATE) {
		this_cpu_now = what - INJ_MIGRATE;      /* the thread goes on there */
		return;
	}
	u64 flags = host_rflags;
	bool thread = preemptible_now;

	injecting = true;
	preemptible_now = false;
	interrupt(what, false, false);          /* it interrupted kernel code */
	host_rflags = flags;
	preemptible_now = thread;
	injecting = false;
}

/* Every READ_ONCE() and its kind in rcu.c and softirq.c: a step. */
void host_step(void)
{
	if (!in_event || injecting)
		return;
	u32 step = steps++;
	u32 can = possible_injections();

	if (step < MAX_STEPS)
		avail[step] = can;
	if (step == plan_at && (can & (1u << plan_what)))
		inject(plan_what);
}

/* --- states: save, restore, hash ----------------------------------------------- */

struct state {
	struct model m;
	struct rcu_head heads[MAX_CALLBACKS];
	u8 rest[];                      /* rcu_host_save(), then softirq_host_save() */
};

static size_t state_size, rcu_size;

static void save(struct state *s)
{
	memcpy(&s->m, &m, sizeof(m));
	memcpy(s->heads, heads, sizeof(heads));
	rcu_host_save(s->rest, ncpus);
	softirq_host_save(s->rest + rcu_size, ncpus);
}

static void restore(const struct state *s)
{
	memcpy(&m, &s->m, sizeof(m));
	memcpy(heads, s->heads, sizeof(heads));
	rcu_host_restore(s->rest, ncpus);
	softirq_host_restore(s->rest + rcu_size, ncpus);
}

/* FNV-1a over the state (rcu_host_save() leaves the lock's ticket counters out). */
static u64 hash_state(const struct state *s)
{
	u64 h = 14695981039346656037ULL;

	for (size_t i = 0; i < state_size; i++)
		h = (h ^ ((const u8 *)s)[i]) * 1099511628211ULL;
	return h;
}

#define SEEN_BITS 24
static u64 *seen;
static u64 nseen, explored, truncated;

/* true if h was new (and is now seen) */
static bool see(u64 h)
{
	u64 mask = (1ULL << SEEN_BITS) - 1;

	if (!h)
		h = 1;
	for (u64 i = h & mask;; i = (i + 1) & mask) {
		if (seen[i] == h)
			return false;
		if (!seen[i]) {
			if (nseen >= mask / 2) {
				fprintf(stderr, "rcu_check: more than %llu states; make the world smaller\n",
					(unsigned long long)nseen);
				exit(2);
			}
			seen[i] = h;
			nseen++;
			return true;
		}
	}
}

/* --- events ---------------------------------------------------------------------- */

static bool allowed(enum event e, u32 cpu)
{
	bool reading = m.reader_on[cpu] >= 0;

	switch (e) {
	case EV_TICK_QS:
	case EV_SCHEDULE:
	case EV_COND_RESCHED:
		return !reading;
	case EV_TICK_KERNEL:
		return true;
	case EV_KSOFTIRQD:
		return m.ksoftirqd_woken[cpu] && !reading;
	case EV_READ_BEGIN:
		return !reading && m.readers_begun < nreaders;
	case EV_READ_END:
		return reading;
	case EV_CALL_RCU:
		return m.queued < ncallbacks;
	case EV_IPI:
		return m.ipi_pending[cpu] != 0;
	case EV_IPI_IDLE:
		return m.ipi_pending[cpu] != 0 && !reading;
	default:
		return false;
	}
}

/* Run event e on cpu, injecting what plan_at/plan_what say; false if a lock deadlocked. */
static bool run_event(enum event e, u32 cpu)
{
	this_cpu_now = cpu;
	preemptible_now = false;
	irq_depth = 0;
	steps = 0;
	injecting = false;
	in_event = true;
	if (setjmp(deadlocked)) {
		in_event = false;
		return false;
	}
	switch (e) {
	case EV_TICK_QS:
		interrupt(INJ_TICK, true, true);
		break;
	case EV_TICK_KERNEL:
		interrupt(INJ_TICK, false, false);
		break;
	case EV_KSOFTIRQD:
		ksoftirqd_runs();
		break;
	case EV_SCHEDULE:
		host_rflags = 0;
		switch_here();
		break;
	case EV_COND_RESCHED:
		host_rflags = RFLAGS_IF;
		preemptible_now = true;         /* cond_resched(): a thread, preemption on */
		rcu_all_qs();
		if (m.need_resched[this_cpu_now])
			switch_here();
		preemptible_now = false;
		break;
	case EV_READ_BEGIN:
		host_rflags = RFLAGS_IF;
		rcu_read_lock();
		m.reader_on[cpu] = (s8)m.readers_begun;
		m.inside |= 1u << m.readers_begun++;
		break;
	case EV_READ_END:
		host_rflags = RFLAGS_IF;
		m.inside &= ~(1u << m.reader_on[cpu]);
		m.reader_on[cpu] = -1;
		rcu_read_unlock();
		break;
	case EV_CALL_RCU:
		host_rflags = RFLAGS_IF;
		preemptible_now = true;         /* a thread queues it */
		queue_callback();
		preemptible_now = false;
		break;
	case EV_IPI:
	case EV_IPI_IDLE:
		interrupt(INJ_IPI, false, e == EV_IPI_IDLE);
		break;
	default:
		break;
	}
	in_event = false;
	return true;
}

static bool counts_agree(void)
{
	u64 queued = 0;

	for (u32 cpu = 0; cpu < ncpus; cpu++)
		queued += rcu_qlen(cpu);
	return queued == m.queued - (u32)__builtin_popcount(m.ran);
}

/* From a finished world: quiescent rounds on every CPU must run every callback. */
static bool drains(void)
{
	for (u32 round = 0; round < DRAIN_ROUNDS; round++) {
		for (u32 cpu = 0; cpu < ncpus; cpu++) {
			if (m.ipi_pending[cpu])
				run_event(EV_IPI, cpu);
			run_event(EV_TICK_QS, cpu);
			while (m.ksoftirqd_woken[cpu])
				run_event(EV_KSOFTIRQD, cpu);
			run_event(EV_SCHEDULE, cpu);
		}
	}
	return m.ran == (1u << m.queued) - 1;
}

/*
 * From a finished world, under a mode whose forcing works (fqs): no tick is
 * quiescent, and no CPU switches unless asked. CPU 0 storms (a kernel
 * thread that queues a callback of its own each round, keeping its queue
 * above qhimark so that call_rcu() forces); the others are hogs. Each
 * round each CPU takes the IPIs sent to it and a tick, each with its exit
 * (softirq, and the switch it was asked for, into ksoftirqd if woken).
 * Forcing alone must run every callback of the world.
 */
static struct rcu_head storm_heads[STORM_HEADS];
static u32 storm_next, storm_ran;

static void storm_callback(struct rcu_head *head)
{
	storm_ran++;
}

static void exit_to_ksoftirqd(u32 cpu)
{
	while (m.ksoftirqd_woken[cpu])
		run_event(EV_KSOFTIRQD, cpu);
}

static bool drains_by_forcing(void)
{
	storm_next = storm_ran = 0;
	for (u32 round = 0; round < 4 * DRAIN_ROUNDS; round++) {
		if (storm_next - storm_ran < STORM_HEADS) {
			this_cpu_now = 0;
			in_event = true;
			host_rflags = RFLAGS_IF;
			call_rcu(&storm_heads[storm_next++ % STORM_HEADS], storm_callback);
			in_event = false;
			if (m.need_resched[0]) {
				run_event(EV_SCHEDULE, 0);
				exit_to_ksoftirqd(0);
			}
		}
		for (u32 cpu = 0; cpu < ncpus; cpu++) {
			if (m.ipi_pending[cpu]) {
				run_event(EV_IPI, cpu);
				exit_to_ksoftirqd(cpu);
			}
			run_event(EV_TICK_KERNEL, cpu);
			exit_to_ksoftirqd(cpu);
		}
		if (m.ran == (1u << m.queued) - 1)
			return true;
	}
	return false;
}

/* --- the search -------------------------------------------------------------------- */

struct step {
	u8 event, cpu, inject;
	u8 at;                          /* the step of the event it was injected at */
};

static struct step path[MAX_DEPTH];

static const char *const violation_names[] = {
	[UNSAFE] = "a callback ran while a reader from before its call_rcu() was inside",
	[RAN_TWICE] = "a callback ran twice",
	[MISCOUNTED] = "the queues do not hold the callbacks not yet run",
	[MIGRATABLE] = "a preemptible thread read its CPU number with preemption on (it may run elsewhere)",
	[FOREIGN] = "a CPU touched another CPU's RCU data (a thread moved after taking it)",
	[DEADLOCK] = "an interrupt took a lock its CPU already held",
	[NOT_LIVE_FORCED] = "forcing alone did not run every callback (kernel threads that switch only when asked)",
};

static void report(u32 depth, u32 violation)
{
	const char *what = "rounds of quiescent states did not run every callback";

	for (u32 bit = 1; bit <= NOT_LIVE_FORCED; bit <<= 1)
		if ((violation & bit) && bit != STUCK && violation_names[bit]) {
			what = violation_names[bit];
			break;
		}
	printf("check-rcu: mode=%s cpus=%u callbacks=%u readers=%u: VIOLATION: %s\n",
	       rcu_modes[mode].name, ncpus, ncallbacks, nreaders, what);
	printf("check-rcu: the events that lead there:\n");
	for (u32 i = 0; i < depth; i++) {
		const struct step *s = &path[i];

		printf("check-rcu:   %3u. cpu %u: %s", i + 1, s->cpu, event_names[s->event]);
		if (s->inject >= INJ_MIGRATE)
			printf("; at its step %u the thread moves to cpu %u", s->at,
			       s->inject - INJ_MIGRATE);
		else if (s->inject)
			printf("; at its step %u %s", s->at, inject_names[s->inject]);
		printf("\n");
	}
	if (violation == STUCK)
		printf("check-rcu:   then %u rounds of a quiescent tick, the softirq and a switch on "
		       "every CPU\n", DRAIN_ROUNDS);
	if (violation == NOT_LIVE_FORCED)
		printf("check-rcu:   then %u rounds of a storm on cpu 0 and hogs elsewhere, kernel "
		       "ticks only\n", 4 * DRAIN_ROUNDS);
}

static u64 world_qhimark;
static bool expect_not_live;            /* this search looks for a hog world forcing cannot drain */
static bool found_not_live;

/* Forcing must drain a hog world where it can start at all: a working IPI, qhimark reachable. */
static bool forcing_must_be_live(void)
{
	return rcu_forcing_ipi() == RCU_IPI_NOTICE && world_qhimark < ncallbacks;
}

static bool search(u32 depth);

/* One edge: event e on cpu with one injection (or none), then the search from there. */
static bool try_edge(u32 depth, enum event e, u32 cpu, u32 at, u8 what, const struct state *here)
{
	plan_at = at;
	plan_what = what;
	path[depth] = (struct step){ (u8)e, (u8)cpu, what, (u8)(at == UINT32_MAX ? 0 : at) };
	run_event(e, cpu);
	plan_at = UINT32_MAX;
	bool ok = search(depth + 1);
	restore(here);
	return ok;
}

static bool search(u32 depth)
{
	struct state *here = calloc(1, state_size);
	bool ok = true;

	save(here);
	if (!see(hash_state(here)))
		goto out;
	explored++;
	if (!counts_agree())
		m.violation |= MISCOUNTED;
	if (m.violation) {
		report(depth, m.violation);
		ok = false;
		goto out;
	}
	if (m.queued == ncallbacks && m.readers_begun == nreaders && !m.inside) {
		if (!drains()) {
			report(depth, m.violation ? m.violation : STUCK);
			ok = false;
			goto out;
		}
		restore(here);
		if (expect_not_live && !drains_by_forcing() && !m.violation) {
			found_not_live = true;          /* what was looked for: stop here */
			ok = false;
			goto out;
		}
		if (!expect_not_live && forcing_must_be_live() && !drains_by_forcing()) {
			report(depth, m.violation ? m.violation : NOT_LIVE_FORCED);
			ok = false;
			goto out;
		}
		restore(here);
	}
	if (depth == MAX_DEPTH) {
		truncated++;
		goto out;
	}
	for (u32 cpu = 0; cpu < ncpus && ok; cpu++) {
		for (enum event e = 0; e < NR_EVENTS && ok; e++) {
			if (!allowed(e, cpu))
				continue;
			u32 plain_avail[MAX_STEPS], nsteps;

			ok = try_edge(depth, e, cpu, UINT32_MAX, INJ_NONE, here);
			/* the plain run again, for where it could have been interrupted */
			run_event(e, cpu);
			nsteps = MIN(steps, (u32)MAX_STEPS);
			memcpy(plain_avail, avail, sizeof(plain_avail));
			restore(here);
			for (u32 at = 0; at < nsteps && ok; at++)
				for (u8 what = 1; what < NR_INJECT && ok; what++)
					if (plain_avail[at] & (1u << what))
						ok = try_edge(depth, e, cpu, at, what, here);
		}
	}
out:
	free(here);
	return ok;
}

static bool check(enum rcu_mode which, u64 qhimark, bool resched)
{
	mode = which;
	world_qhimark = qhimark;
	/* with qhimark 1, rsinterval 1 too: fqs16's rounds come in a world this small */
	rcu_host_reset(which, qhimark, qhimark == 1 ? 1 : 1000, resched);
	softirq_host_reset();
	open_softirq(SOFTIRQ_RCU, rcu_process_callbacks);
	memset(&m, 0, sizeof(m));
	memset(heads, 0, sizeof(heads));
	for (u32 cpu = 0; cpu < MAX_WORLD_CPUS; cpu++)
		m.reader_on[cpu] = -1;
	memset(seen, 0, sizeof(u64) << SEEN_BITS);
	nseen = explored = truncated = 0;
	bool ok = search(0);
	if (ok)
		printf("check-rcu: mode=%s%s cpus=%u callbacks=%u readers=%u qhimark=%llu%s%s: "
		       "%llu states, no violation%s\n", rcu_modes[which].name,
		       resched ? " fqs_ipi=resched" : "", ncpus, ncallbacks, nreaders,
		       (unsigned long long)qhimark, use_interrupts ? "" : " no-interrupts",
		       use_migration ? "" : " no-migration", (unsigned long long)explored,
		       truncated ? " (the depth limit cut some paths)" : "");
	return ok;
}

int main(int argc, char **argv)
{
	int arg = 1;

	for (; arg < argc && argv[arg][0] == '-'; arg++) {
		if (!strcmp(argv[arg], "--no-interrupts"))
			use_interrupts = false;
		else if (!strcmp(argv[arg], "--no-migration"))
			use_migration = false;
		else
			break;
	}
	if (argc - arg == 3) {
		ncpus = (u32)atoi(argv[arg]);
		ncallbacks = (u32)atoi(argv[arg + 1]);
		nreaders = (u32)atoi(argv[arg + 2]);
	} else if (argc - arg != 0) {
		fprintf(stderr, "usage: rcu_check [--no-interrupts] [--no-migration] "
			"[CPUS CALLBACKS READERS]\n");
		return 2;
	}
	if (ncpus < 1 || ncpus > MAX_WORLD_CPUS || ncallbacks > MAX_CALLBACKS || nreaders > 8) {
		fprintf(stderr, "rcu_check: at most %d CPUs, %d callbacks, 8 readers\n",
			MAX_WORLD_CPUS, MAX_CALLBACKS);
		return 2;
	}
	rcu_size = rcu_host_state_size(ncpus);
	state_size = sizeof(struct state) + rcu_size + softirq_host_state_size(ncpus);
	seen = calloc(1ULL << SEEN_BITS, sizeof(u64));
	if (!seen)
		return 2;
	bool ok = true;
	for (enum rcu_mode which = 0; which < RCU_NR_MODES && ok; which++) {
		ok = check(which, 10000, false);        /* the modes as they run */
		if (ok && rcu_mode_brakes(which))
			ok = check(which, 1, false);    /* their forcing, from the second callback */
	}
	if (ok)
		ok = check(RCU_MODE_FQS, 1, true);      /* the resched hybrid */
	/*
	 * The other side of liveness by forcing: 2.6.16's and 2.6.19's bare
	 * IPIs leave a hog that never asks to switch owing its state, so some
	 * hog world is never drained (docs/rcu.md, finding 2). The search must
	 * find one: a model that could not would not be seeing forcing at all.
	 */
	for (enum rcu_mode which = RCU_MODE_FQS16; which <= RCU_MODE_FQS19 && ok; which++) {
		expect_not_live = true;
		found_not_live = false;
		check(which, 1, false);
		expect_not_live = false;
		if (found_not_live)
			printf("check-rcu: mode=%s cpus=%u callbacks=%u readers=%u qhimark=1: forcing "
			       "with bare IPIs does not drain a world of hogs, as expected (%llu "
			       "states)\n", rcu_modes[which].name, ncpus, ncallbacks, nreaders,
			       (unsigned long long)explored);
		else
			printf("check-rcu: mode=%s: no world of hogs that bare IPIs cannot drain was "
			       "found: the forcing check sees nothing\n", rcu_modes[which].name);
		ok = found_not_live;
	}
	return ok ? 0 : 1;
}
