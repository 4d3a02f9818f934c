// SPDX-License-Identifier: MIT
/*
 * rcu_check.c - make check-rcu: every interleaving of a small world, run
 * on kernel/rcu.c itself.
 *
 * The world: NCPUS CPUs, at most CALLBACKS call_rcu()s and READERS
 * read-side critical sections, and these events, any of them at any
 * moment they are allowed (event_names[]):
 *
 *   tick, quiescent   a tick in user mode or in the idle thread (no reader here)
 *   tick, kernel      a tick in a kernel thread
 *   softirq           the RCU softirq runs, if raised here
 *   schedule          a pass through schedule() (no reader here)
 *   cond_resched      cond_resched() with no reader here (rcu_all_qs()),
 *                     a thread that preemption may move
 *   read begin/end    rcu_read_lock() ... rcu_read_unlock()
 *   call_rcu          queue the next callback from this CPU
 *   ipi               a forcing IPI sent here arrives in a kernel thread
 *   ipi, idle         it arrives in the idle thread (no reader here): the
 *                     notice IPI counts that as a quiescent state
 *
 * rcu.c is compiled against this model of the machine (rcu_machine.h):
 * raising the softirq and sending an IPI only mark them pending, so their
 * delivery is an event of its own. A depth-first search tries every
 * event in every state, saving and restoring the whole state around each
 * (RCU's control block and per-CPU data, the callbacks, the model) and
 * skipping states already seen (a 64-bit hash of the state). Checked:
 *
 *   safety    no callback runs while a reader that was inside when it
 *             was queued is still inside, and none runs twice;
 *   counting  the queues hold exactly the callbacks queued and not run;
 *   migration a thread (cond_resched()) reads its CPU only with preemption
 *             off: between the read and its report it could otherwise run
 *             on another CPU and report for the first (the event is one
 *             step, so that read is what the model can check);
 *   liveness  from every state where the world is done (all queued, no
 *             reader inside), rounds of quiescent ticks, softirqs and
 *             switches on every CPU run every callback (bounded).
 *
 * A violation prints the events that lead to it, one per line, and the
 * program exits 1. The world is small on purpose: bugs in RCU's state
 * machine show with two CPUs and two callbacks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcu.h"
#include "rcu_machine.h"
#include "spinlock.h"

#define MAX_WORLD_CPUS 3
#define MAX_CALLBACKS  3
#define MAX_DEPTH      400
#define DRAIN_ROUNDS   (4 * (ncallbacks + 1))  /* a grace period takes two rounds; up to one per callback, and one more */

enum event {
	EV_TICK_QS, EV_TICK_KERNEL, EV_SOFTIRQ, EV_SCHEDULE, EV_READ_BEGIN, EV_READ_END,
	EV_CALL_RCU, EV_IPI, EV_IPI_IDLE, EV_COND_RESCHED, NR_EVENTS,
};

static const char *const event_names[NR_EVENTS] = {
	"tick, quiescent", "tick, kernel", "softirq", "schedule", "read begin", "read end",
	"call_rcu", "ipi", "ipi, idle", "cond_resched",
};

/* The model's state: everything but RCU's own, saved with it. */
struct model {
	u32 readers_begun;
	u32 queued;
	u32 ran;                        /* bit i: callback i has run */
	u32 inside;                     /* bit r: reader r is inside */
	u32 guard[MAX_CALLBACKS];       /* readers inside when callback i was queued */
	u32 violation;
	s8 reader_on[MAX_WORLD_CPUS];   /* the reader inside on this CPU, or -1 */
	bool softirq_raised[MAX_WORLD_CPUS];
	bool need_resched[MAX_WORLD_CPUS];
	u8 ipi_pending[MAX_WORLD_CPUS]; /* bit k: an IPI of enum rcu_ipi k */
};

enum { UNSAFE = 1, RAN_TWICE = 2, MISCOUNTED = 4, STUCK = 8, MIGRATABLE = 16 };

/* The world's shape, fixed for one search. */
static u32 ncpus = 2, ncallbacks = 2, nreaders = 2;
static enum rcu_mode mode;

static struct model m;
static struct rcu_head heads[MAX_CALLBACKS];
static u32 this_cpu_now;                /* the CPU an event runs on */
static bool preemptible_now;            /* the event is a thread that preemption may move */
static u32 preempt_depth;

/* --- the machine, as rcu_machine.h asks for it ------------------------------- */

/*
 * A thread may be preempted and moved to another CPU between any two of its
 * instructions unless preemption is off: a CPU number it reads then is only
 * a guess, and a state reported with it may be another CPU's. Every other
 * event runs in an interrupt or with interrupts off, where the CPU holds.
 */
u32 rcu_machine_cpu(void)
{
	if (preemptible_now && !preempt_depth)
		m.violation |= MIGRATABLE;
	return this_cpu_now;
}
u32 rcu_machine_nr_cpus(void) { return ncpus; }
bool rcu_machine_online(u32 cpu) { return cpu < ncpus; }
void rcu_machine_need_resched(void) { m.need_resched[this_cpu_now] = true; }
void rcu_machine_raise_softirq(void) { m.softirq_raised[this_cpu_now] = true; }
u64 rcu_machine_now_ns(void) { return 0; }
u64 rcu_machine_softirq_end_ns(void) { return ~0ULL; }   /* time is not in the model */
void rcu_machine_preempt_disable(void) { preempt_depth++; }  /* readers are the model's events */
void rcu_machine_preempt_enable(void) { preempt_depth--; }

void rcu_machine_send_ipi(u32 cpu, enum rcu_ipi ipi)
{
	m.ipi_pending[cpu] |= (u8)(1u << ipi);
}

void spinlock_recursion(struct spinlock *l)
{
	fprintf(stderr, "rcu_check: spinlock %s taken twice\n", l->name);
	abort();
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

/* --- states: save, restore, hash ----------------------------------------------- */

struct state {
	struct model m;
	struct rcu_head heads[MAX_CALLBACKS];
	u8 rcu[];                       /* rcu_host_save() */
};

static size_t state_size;

static void save(struct state *s)
{
	memcpy(&s->m, &m, sizeof(m));
	memcpy(s->heads, heads, sizeof(heads));
	rcu_host_save(s->rcu, ncpus);
}

static void restore(const struct state *s)
{
	memcpy(&m, &s->m, sizeof(m));
	memcpy(heads, s->heads, sizeof(heads));
	rcu_host_restore(s->rcu, ncpus);
}

/* FNV-1a over the state (rcu_host_save() leaves the lock's ticket counters out). */
static u64 hash_state(const struct state *s)
{
	u64 h = 14695981039346656037ULL;

	for (size_t i = 0; i < state_size; i++)
		h = (h ^ ((const u8 *)s)[i]) * 1099511628211ULL;
	return h;
}

#define SEEN_BITS 22
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
	case EV_SOFTIRQ:
		return m.softirq_raised[cpu];
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

static void run_event(enum event e, u32 cpu)
{
	this_cpu_now = cpu;
	switch (e) {
	case EV_TICK_QS:
		rcu_tick(true);
		break;
	case EV_TICK_KERNEL:
		rcu_tick(false);
		break;
	case EV_SOFTIRQ:
		m.softirq_raised[cpu] = false;
		rcu_process_callbacks();
		break;
	case EV_SCHEDULE:
		m.need_resched[cpu] = false;
		rcu_note_context_switch();
		break;
	case EV_COND_RESCHED:
		preemptible_now = true;         /* cond_resched(): a thread, preemption on */
		rcu_all_qs();
		preemptible_now = false;
		break;
	case EV_READ_BEGIN:
		m.reader_on[cpu] = (s8)m.readers_begun;
		m.inside |= 1u << m.readers_begun++;
		break;
	case EV_READ_END:
		m.inside &= ~(1u << m.reader_on[cpu]);
		m.reader_on[cpu] = -1;
		break;
	case EV_CALL_RCU:
		m.guard[m.queued] = m.inside;
		call_rcu(&heads[m.queued++], callback);
		break;
	case EV_IPI:
	case EV_IPI_IDLE:
		if (m.ipi_pending[cpu] & (1u << RCU_IPI_NOTICE))
			rcu_forced_ipi(e == EV_IPI_IDLE);
		if (m.ipi_pending[cpu] & (1u << RCU_IPI_RESCHED))
			m.need_resched[cpu] = true;
		m.ipi_pending[cpu] = 0;         /* a bare IPI is only acknowledged */
		break;
	default:
		break;
	}
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
			run_event(EV_IPI, cpu);
			run_event(EV_TICK_QS, cpu);
			while (m.softirq_raised[cpu])
				run_event(EV_SOFTIRQ, cpu);
			run_event(EV_SCHEDULE, cpu);
		}
	}
	return m.ran == (1u << m.queued) - 1;
}

/* --- the search -------------------------------------------------------------------- */

struct step {
	u8 event, cpu;
};

static struct step path[MAX_DEPTH];

static const char *const violation_names[] = {
	[UNSAFE] = "a callback ran while a reader from before its call_rcu() was inside",
	[RAN_TWICE] = "a callback ran twice",
	[MISCOUNTED] = "the queues do not hold the callbacks not yet run",
	[MIGRATABLE] = "a preemptible thread read its CPU number with preemption on (it may run elsewhere)",
};

static void report(u32 depth, u32 violation)
{
	const char *what = violation & UNSAFE ? violation_names[UNSAFE] :
			   violation & RAN_TWICE ? violation_names[RAN_TWICE] :
			   violation & MISCOUNTED ? violation_names[MISCOUNTED] :
			   violation & MIGRATABLE ? violation_names[MIGRATABLE] :
			   "rounds of quiescent states did not run every callback";

	printf("check-rcu: mode=%s cpus=%u callbacks=%u readers=%u: VIOLATION: %s\n",
	       rcu_modes[mode].name, ncpus, ncallbacks, nreaders, what);
	printf("check-rcu: the events that lead there:\n");
	for (u32 i = 0; i < depth; i++)
		printf("check-rcu:   %3u. cpu %u: %s\n", i + 1, path[i].cpu, event_names[path[i].event]);
	if (violation == STUCK)
		printf("check-rcu:   then %u rounds of a quiescent tick, the softirq and a switch on "
		       "every CPU\n", DRAIN_ROUNDS);
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
	}
	if (depth == MAX_DEPTH) {
		truncated++;
		goto out;
	}
	for (u32 cpu = 0; cpu < ncpus && ok; cpu++) {
		for (enum event e = 0; e < NR_EVENTS && ok; e++) {
			if (!allowed(e, cpu))
				continue;
			path[depth] = (struct step){ (u8)e, (u8)cpu };
			run_event(e, cpu);
			ok = search(depth + 1);
			restore(here);
		}
	}
out:
	free(here);
	return ok;
}

static bool check(enum rcu_mode which, u64 qhimark, bool resched)
{
	mode = which;
	/* with qhimark 1, rsinterval 1 too: fqs16's rounds come in a world this small */
	rcu_host_reset(which, qhimark, qhimark == 1 ? 1 : 1000, resched);
	memset(&m, 0, sizeof(m));
	memset(heads, 0, sizeof(heads));
	for (u32 cpu = 0; cpu < MAX_WORLD_CPUS; cpu++)
		m.reader_on[cpu] = -1;
	memset(seen, 0, sizeof(u64) << SEEN_BITS);
	nseen = explored = truncated = 0;
	bool ok = search(0);
	if (ok)
		printf("check-rcu: mode=%s%s cpus=%u callbacks=%u readers=%u qhimark=%llu: %llu states, "
		       "no violation%s\n", rcu_modes[which].name, resched ? " fqs_ipi=resched" : "",
		       ncpus, ncallbacks, nreaders, (unsigned long long)qhimark,
		       (unsigned long long)explored,
		       truncated ? " (the depth limit cut some paths)" : "");
	return ok;
}

int main(int argc, char **argv)
{
	if (argc == 4) {
		ncpus = (u32)atoi(argv[1]);
		ncallbacks = (u32)atoi(argv[2]);
		nreaders = (u32)atoi(argv[3]);
	} else if (argc != 1) {
		fprintf(stderr, "usage: rcu_check [CPUS CALLBACKS READERS]\n");
		return 2;
	}
	if (ncpus < 1 || ncpus > MAX_WORLD_CPUS || ncallbacks > MAX_CALLBACKS || nreaders > 8) {
		fprintf(stderr, "rcu_check: at most %d CPUs, %d callbacks, 8 readers\n",
			MAX_WORLD_CPUS, MAX_CALLBACKS);
		return 2;
	}
	state_size = sizeof(struct state) + rcu_host_state_size(ncpus);
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
	return ok ? 0 : 1;
}
