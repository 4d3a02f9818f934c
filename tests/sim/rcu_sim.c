// SPDX-License-Identifier: MIT
/*
 * rcu_sim.c - make sim: kernel/rcu.c on a simulated machine of 1 to 4096
 * CPUs, deterministic, in one host thread.
 *
 * The machine is a discrete-event model. Each CPU runs one task: the
 * open/close storm in user mode or as a kernel thread, the hog (a kernel
 * thread that switches only when asked), a reader (a kernel thread that
 * loops in and out of RCU read-side critical sections), or nothing
 * (idle); and its ksoftirqd. Its events:
 *
 *   tick       every 1/HZ, at a phase the seed picks per CPU; it lands in
 *              user mode with the calibrated probability when the CPU
 *              runs a user storm (a quiescent state), in the kernel for a
 *              kernel storm or the hog (not one), in idle otherwise (one)
 *   IPI        a forcing IPI arriving, a calibrated latency after rcu.c
 *              sent it: bare (acknowledged), resched (sets need_resched)
 *              or notice (rcu_forced_ipi(), told whether the CPU is idle:
 *              a quiescent state there, as a tick is)
 *
 * Between its events a CPU runs what is current: storm iterations, each
 * a calibrated time, each opening and closing a file (call_rcu()); or
 * ksoftirqd's rounds. On the way out of each interrupt: the kernel's own
 * softirq_irq_exit() (kernel/softirq.c: up to 10 rounds within 2 ms and
 * while nothing asked for a switch, then ksoftirqd is woken), then a
 * switch if need_resched is set and no reader is inside, which is a
 * quiescent state (rcu_note_context_switch()). A storm calls
 * cond_resched() at the end of each iteration (the return from close(),
 * or the way back to user mode): rcu_all_qs(), then a switch if
 * need_resched is set. The hog never calls it (lab/storm.c).
 *
 * The scheduler is the kernel's round robin for two threads a CPU: the
 * task, and ksoftirqd at the lowest priority. Waking ksoftirqd takes the
 * CPU only from the idle thread; otherwise it waits for the task's slice
 * to end (storms and readers 100 ms, the hog 800 ms: it runs at the
 * highest priority), then runs for its own 5 ms slice (one tick), one
 * softirq_ksoftirqd_round() at a time with cond_resched() in between,
 * until nothing is raised or its slice ends. Callbacks take a calibrated
 * time each. The file table counts whole slabs of 128 files
 * (vfs.count=slab), max_files 50,044.
 *
 * rcu.c and softirq.c are the kernel's own files, built against this
 * machine through include/rcu_machine.h and include/softirq_machine.h.
 * Everything random comes from the seed, so the same seed prints the
 * same bytes. Each storm prints the kernel's own "storm:" line.
 *
 * Safety: every call_rcu() and every reader's start take a number from
 * one sequence, in the order the simulation runs them (the order rcu.c
 * sees). A callback that runs while a reader that started before its
 * call_rcu() is still inside stops the program (make sim's "readers").
 *
 * The calibration (struct calibration) was measured once on QEMU TCG,
 * topology story, HZ 250 (docs/sim.md says how).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rcu.h"
#include "rcu_machine.h"
#include "softirq.h"
#include "softirq_machine.h"
#include "spinlock.h"

#define HZ            250
#define TICK_NS       (1000000000ULL / HZ)
#define SLICE_TICKS   25                /* 100 ms: SCHED_SLICE_MS */
#define HOG_SLICE_TICKS 200             /* 800 ms: SCHED_MAX_SLICE_MS, the hog's (highest priority) */
#define KSOFTIRQD_SLICE_TICKS 1         /* 5 ms: SCHED_MIN_SLICE_MS, at least one tick */
#define SLAB_FILES    128
#define MAX_FILES     50044             /* the machine of the report */
#define ROUND_NS      100               /* a ksoftirqd round that ran no callback: its loop's cost */

struct calibration {
	u64 user_iter_ns;       /* one iteration of the user-mode storm */
	u32 user_tick_permille; /* its ticks that land in user mode, per thousand */
	u64 kernel_iter_ns;     /* one iteration of the kernel-thread storm */
	u64 callback_ns;        /* one RCU callback (a file freed) */
	u64 ipi_ns;             /* an IPI's delivery */
};

/*
 * QEMU TCG, story, HZ 250 (make run's Act 2): rc4's user storm, whose callbacks mostly wait,
 * ran 553 k iterations/s (1.8 us each); batch10k's, which runs them all, 313 k/s: 1.4 us more
 * per callback. About one tick in five lands in user mode (user_ticks 21/130 .. 38/146). The
 * kernel-thread storm: 1.72-1.78 M/s under rc4 and batch10k (0.58 us). An IPI: tens of us
 * (ipi_roundtrip 25-55 us, docs/smp.md).
 */
static const struct calibration cal = { 1800, 200, 580, 1400, 20000 };

enum task { TASK_IDLE, TASK_STORM_USER, TASK_STORM_KERNEL, TASK_HOG, TASK_READER };

struct sim_cpu {
	enum task task;
	u64 clock;              /* how far this CPU has run, ns */
	u64 next_tick;
	u64 ipi_at;             /* 0: none pending */
	u8 ipi_kinds;           /* bit k: enum rcu_ipi k */
	bool need_resched;
	bool in_ksoftirqd;      /* ksoftirqd is current, not the task */
	bool ksoftirqd_runnable;        /* woken, and not yet out of work */
	int preempt_count;      /* SOFTIRQ_OFFSET while softirq.c runs actions; 1 in a reader */
	u32 slice_left;
	u64 done, target;
	u64 ticks, user_ticks;
	u64 reader_seq;         /* the running reader's number in the sequence; 0: none */
	u64 reader_until;       /* when it leaves, or (outside) when the next one starts */
	u32 version;            /* of its entry in the event heap */
};

static struct sim_cpu *cpus;
static u32 ncpus, current;
static u64 rng_state;
static u64 seq;                         /* call_rcu()s and readers' starts, in the order run */
/* A user storm's ticks that came on time, and those of them in user mode, over a whole run. */
static u64 user_storm_ticks, user_storm_user_ticks;
static u64 think_ns;                    /* the running spec's */
static u64 readers_inside, readers_run, callbacks_checked;

/* --- the machine, for rcu.c ------------------------------------------------------- */

u32 rcu_machine_cpu(void) { return current; }
u32 rcu_machine_nr_cpus(void) { return ncpus; }
bool rcu_machine_online(u32 cpu) { return cpu < ncpus; }
void rcu_machine_need_resched(void) { cpus[current].need_resched = true; }
void rcu_machine_raise_softirq(void) { raise_softirq(SOFTIRQ_RCU); }
u64 rcu_machine_now_ns(void) { return cpus[current].clock; }
u64 rcu_machine_softirq_end_ns(void) { return softirq_end_ns(); }

void rcu_machine_check_own(u32 cpu)
{
	if (cpu != current) {
		fprintf(stderr, "sim: CPU %u touched CPU %u's RCU data\n", current, cpu);
		abort();
	}
}
void rcu_machine_preempt_disable(void) { }
void rcu_machine_preempt_enable(void) { }

/* --- the machine, for softirq.c ------------------------------------------------------- */

u32 softirq_machine_cpu(void) { return current; }
int softirq_machine_preempt_count(void) { return cpus[current].preempt_count; }
void softirq_machine_preempt_add(int n) { cpus[current].preempt_count += n; }
bool softirq_machine_need_resched(void) { return cpus[current].need_resched; }
u64 softirq_machine_now_ns(void) { return cpus[current].clock; }

static bool idle_now(const struct sim_cpu *c);

/* The kernel's wake_up_thread() of a lowest-priority thread: it takes the CPU only from idle. */
bool softirq_machine_wake_ksoftirqd(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];

	if (c->in_ksoftirqd)
		return false;
	c->ksoftirqd_runnable = true;
	if (idle_now(c))
		c->need_resched = true;
	return true;
}

static void heap_push(u32 cpu);

void rcu_machine_send_ipi(u32 cpu, enum rcu_ipi ipi)
{
	struct sim_cpu *c = &cpus[cpu];
	u64 at = cpus[current].clock + cal.ipi_ns;

	c->ipi_kinds |= (u8)(1u << ipi);
	if (!c->ipi_at || at < c->ipi_at) {
		c->ipi_at = at;
		heap_push(cpu);
	}
}

void spinlock_recursion(struct spinlock *l)
{
	fprintf(stderr, "rcu_sim: spinlock %s taken twice\n", l->name);
	abort();
}

static u64 rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* --- events: a heap of (time, cpu), stale entries skipped by version --------------- */

struct entry {
	u64 at;
	u32 cpu, version;
};

static struct entry *heap;
static u32 heap_len, heap_cap;
static u64 events;

static u64 next_event(const struct sim_cpu *c)
{
	return c->ipi_at && c->ipi_at < c->next_tick ? c->ipi_at : c->next_tick;
}

static bool before(const struct entry *a, const struct entry *b)
{
	return a->at < b->at || (a->at == b->at && a->cpu < b->cpu);
}

static void heap_push(u32 cpu)
{
	struct sim_cpu *c = &cpus[cpu];

	if (heap_len == heap_cap) {
		heap_cap = heap_cap ? 2 * heap_cap : 1024;
		heap = realloc(heap, heap_cap * sizeof(*heap));
		if (!heap)
			abort();
	}
	struct entry e = { next_event(c), cpu, ++c->version };
	u32 i = heap_len++;
	while (i && before(&e, &heap[(i - 1) / 2])) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i] = e;
}

static struct entry heap_pop(void)
{
	struct entry top = heap[0], last = heap[--heap_len];
	u32 i = 0;

	for (;;) {
		u32 child = 2 * i + 1;
		if (child >= heap_len)
			break;
		if (child + 1 < heap_len && before(&heap[child + 1], &heap[child]))
			child++;
		if (!before(&heap[child], &last))
			break;
		heap[i] = heap[child];
		i = child;
	}
	if (heap_len)
		heap[i] = last;
	return top;
}

/* --- the file table and the storm ---------------------------------------------------- */

struct file_head {
	struct rcu_head rcu;
	union {
		struct file_head *next_free;    /* free */
		struct {                        /* waiting for its callback: */
			u64 queued_at;          /* when close() queued it */
			u64 queued_seq;         /* and its number in the sequence */
		};
	};
};

static struct file_head *heads, *free_heads;
static u64 heads_used;                  /* heads[] handed out so far; the rest untouched */
static u64 live_files, peak_nr_files, total_done, max_files;
static u64 latency_sum, latency_max, latency_n;        /* call_rcu() to the callback, ns */
static s64 enfile_at;
static u32 storms_left;                 /* storming CPUs that have not done their share */
static u64 done_at_enfile;
static bool stopped;

static u64 nr_files(void)
{
	return (live_files + SLAB_FILES - 1) / SLAB_FILES * SLAB_FILES;
}

/* The safety check: no reader that started before f's call_rcu() is still inside. */
static void check_readers(const struct file_head *f)
{
	callbacks_checked++;
	for (u32 cpu = 0; cpu < ncpus; cpu++) {
		const struct sim_cpu *r = &cpus[cpu];
		if (r->reader_seq && r->reader_seq < f->queued_seq) {
			printf("sim: VIOLATION: a callback queued at %llu ran on CPU %u while CPU %u's "
			       "reader from %llu was inside\n", (unsigned long long)f->queued_seq,
			       current, cpu, (unsigned long long)r->reader_seq);
			exit(1);
		}
	}
}

static void file_free_rcu(struct rcu_head *rcu)
{
	struct file_head *f = (struct file_head *)rcu;
	u64 latency;

	if (readers_inside)
		check_readers(f);

	cpus[current].clock += cal.callback_ns;         /* rcu.budget_us sees the time pass */
	latency = cpus[current].clock - f->queued_at;

	latency_sum += latency;
	latency_n++;
	if (latency > latency_max)
		latency_max = latency;
	f->next_free = free_heads;
	free_heads = f;
	live_files--;
}

/* One open/close: false at ENFILE (file_open(): nr_files, whole slabs, at max_files). */
static bool storm_iteration(struct sim_cpu *c)
{
	if (nr_files() >= max_files)
		return false;
	struct file_head *f = free_heads;
	if (f)
		free_heads = f->next_free;
	else
		f = &heads[heads_used++];       /* pages of heads[] are touched only when needed */
	live_files++;
	if (nr_files() > peak_nr_files)
		peak_nr_files = nr_files();
	f->queued_at = c->clock;
	f->queued_seq = ++seq;
	call_rcu(&f->rcu, file_free_rcu);
	total_done++;
	if (++c->done == c->target)
		storms_left--;
	return true;
}

static bool storming(const struct sim_cpu *c)
{
	return (c->task == TASK_STORM_USER || c->task == TASK_STORM_KERNEL) && !stopped &&
	       c->done < c->target;
}

/* Does the task want the CPU (a storm with work left, the hog, a reader)? */
static bool task_runnable(const struct sim_cpu *c)
{
	return storming(c) || c->task == TASK_HOG || c->reader_seq;
}

/* In its idle thread: the task has nothing to do and ksoftirqd is not running. */
static bool idle_now(const struct sim_cpu *c)
{
	return !c->in_ksoftirqd && !task_runnable(c);
}

/* --- switches, ksoftirqd, readers --------------------------------------------------------- */

static u32 task_slice(const struct sim_cpu *c)
{
	return c->task == TASK_HOG ? HOG_SLICE_TICKS : SLICE_TICKS;
}

/*
 * schedule(): a quiescent state; then the other runnable thread if there
 * is one (round robin of the task and ksoftirqd), else the same again.
 */
static void schedule_sim(struct sim_cpu *c)
{
	rcu_note_context_switch();
	c->need_resched = false;
	if (!c->in_ksoftirqd && c->ksoftirqd_runnable) {
		c->in_ksoftirqd = true;
		c->slice_left = KSOFTIRQD_SLICE_TICKS;
	} else if (c->in_ksoftirqd && (task_runnable(c) || !c->ksoftirqd_runnable)) {
		c->in_ksoftirqd = false;
		c->slice_left = task_slice(c);
	} else {
		c->slice_left = c->in_ksoftirqd ? KSOFTIRQD_SLICE_TICKS : task_slice(c);
	}
}

/* cond_resched() outside any reader: rcu_all_qs(), then a switch if asked. */
static void cond_resched_sim(struct sim_cpu *c)
{
	rcu_all_qs();
	if (c->need_resched)
		schedule_sim(c);
}

/* ksoftirqd, up to time t: rounds until nothing is raised, then it blocks. */
static void run_ksoftirqd(struct sim_cpu *c, u64 t)
{
	while (c->in_ksoftirqd && c->clock < t) {
		u64 before = c->clock;

		if (!softirq_ksoftirqd_round()) {
			c->ksoftirqd_runnable = false;  /* nothing raised: it sleeps */
			schedule_sim(c);
			break;
		}
		if (c->clock == before)
			c->clock += ROUND_NS;
		cond_resched_sim(c);
	}
}

/*
 * A reader thread, up to time t: it wakes (a switch from idle), reads
 * (rcu_read_lock() ... rcu_read_unlock(): preempt_count 1, no switch),
 * then sleeps (a switch to idle) until the next read. Most reads are
 * short; one in four spans up to four ticks, so that ticks, IPIs
 * and softirqs land inside it. While it sleeps, the CPU is idle.
 */
static void run_reader(struct sim_cpu *c, u64 t)
{
	while (!c->in_ksoftirqd && c->task == TASK_READER && !stopped && c->reader_until <= t) {
		c->clock = MAX(c->clock, c->reader_until);
		if (c->reader_seq) {
			c->reader_seq = 0;              /* rcu_read_unlock() */
			c->preempt_count--;
			readers_inside--;
			c->reader_until = c->clock + rng() % TICK_NS;
			schedule_sim(c);                /* it sleeps */
		} else {
			rcu_note_context_switch();      /* woken: idle switches to it */
			c->reader_seq = ++seq;          /* rcu_read_lock() */
			c->preempt_count++;
			readers_inside++;
			readers_run++;
			c->reader_until = c->clock + (rng() % 4 ? rng() % 20000 : rng() % (4 * TICK_NS));
		}
	}
}

/* A storm, up to time t. */
static void run_storm_task(struct sim_cpu *c, u64 t)
{
	u64 iter = (c->task == TASK_STORM_USER ? cal.user_iter_ns : cal.kernel_iter_ns) + think_ns;

	while (!c->in_ksoftirqd && storming(c) && c->clock + iter <= t) {
		c->clock += iter;
		if (!storm_iteration(c)) {
			stopped = true;
			enfile_at = (s64)total_done;
			done_at_enfile = rcu_done_len(current);
			break;
		}
		cond_resched_sim(c);    /* after close(), or on the way back to user */
	}
}

/* Run c's current thread, and whatever it switches to, up to time t. */
static void run_until(struct sim_cpu *c, u64 t)
{
	for (u32 switches = 0; c->clock < t && switches < 16; switches++) {
		bool was_ksoftirqd = c->in_ksoftirqd;

		if (c->in_ksoftirqd)
			run_ksoftirqd(c, t);
		else if (c->task == TASK_READER)
			run_reader(c, t);
		else
			run_storm_task(c, t);
		if (c->in_ksoftirqd == was_ksoftirqd)
			break;                  /* no switch: ran up to t, or blocked */
	}
	if (c->clock < t)
		c->clock = t;
}

/* sched_tick(): RCU's tick with the kernel's own test, then the slice. */
static void tick(struct sim_cpu *c)
{
	bool late = c->clock > c->next_tick;    /* due while the CPU ran softirq work */
	bool user = false;

	if (!c->in_ksoftirqd && storming(c)) {
		c->ticks++;
		if (c->task == TASK_STORM_USER)
			user = rng() % 1000 < cal.user_tick_permille && !late;
		c->user_ticks += user;
		if (c->task == TASK_STORM_USER && !late) {
			user_storm_ticks++;
			user_storm_user_ticks += user;
		}
	}
	rcu_tick(rcu_tick_quiescent(user, idle_now(c), c->preempt_count, 1));
	if (idle_now(c)) {
		if (c->ksoftirqd_runnable)
			c->need_resched = true;         /* woken on an idle CPU: it runs */
	} else if (c->slice_left && --c->slice_left == 0) {
		c->need_resched = true;
	}
	c->next_tick += TICK_NS;
}

static void ipi(struct sim_cpu *c)
{
	if (c->ipi_kinds & (1u << RCU_IPI_NOTICE))
		rcu_forced_ipi(rcu_tick_quiescent(false, idle_now(c), c->preempt_count, 1));
	if (c->ipi_kinds & (1u << RCU_IPI_RESCHED))
		c->need_resched = true;
	c->ipi_kinds = 0;                               /* a bare one is only acknowledged */
	c->ipi_at = 0;
}

/* An interrupt, then its exit: the softirq, and a switch if asked and allowed. */
static void interrupt(u32 cpu, u64 at)
{
	struct sim_cpu *c = &cpus[cpu];

	current = cpu;
	run_until(c, at);
	if (at >= c->next_tick)
		tick(c);
	if (c->ipi_at && at >= c->ipi_at)
		ipi(c);
	softirq_irq_exit();
	if (c->need_resched && c->preempt_count == 0)
		schedule_sim(c);
	heap_push(cpu);
}

/* --- one storm --------------------------------------------------------------------------- */

struct storm_spec {
	enum rcu_mode mode;
	bool user;
	u32 ncpus;
	u32 storm_first, storm_count;   /* CPUs storm_first .. +storm_count-1 storm */
	s32 hog;                        /* the hog's CPU, or -1 */
	u64 per_cpu;
	u64 qhimark;
	u64 max_files;                  /* 0: MAX_FILES */
	bool readers;                   /* the other CPUs run readers instead of idling */
	u64 think_ns;                   /* a writer, not a storm: this long between iterations */
};

struct storm_outcome {
	s64 enfile_at;
	u64 iterations, gps, peak_qlen, fqs_rounds, ms;
};

static struct storm_outcome run_storm(const struct storm_spec *s, u64 seed)
{
	struct storm_outcome out = { 0 };
	u64 ticks = 0, user_ticks = 0, last = 0;

	ncpus = s->ncpus;
	cpus = calloc(ncpus, sizeof(*cpus));
	max_files = s->max_files ? s->max_files : MAX_FILES;
	heads = calloc(max_files + SLAB_FILES, sizeof(*heads));
	if (!cpus || !heads)
		abort();
	free_heads = NULL;
	heads_used = 0;
	live_files = peak_nr_files = total_done = done_at_enfile = 0;
	latency_sum = latency_max = latency_n = 0;
	enfile_at = -1;
	stopped = false;
	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	rcu_host_reset(s->mode, s->qhimark, 1000, false);
	softirq_host_reset();
	open_softirq(SOFTIRQ_RCU, rcu_process_callbacks);
	seq = readers_inside = 0;
	think_ns = s->think_ns;
	heap_len = 0;
	for (u32 cpu = 0; cpu < ncpus; cpu++) {
		struct sim_cpu *c = &cpus[cpu];
		bool storms = cpu >= s->storm_first && cpu < s->storm_first + s->storm_count;
		c->task = storms ? (s->user ? TASK_STORM_USER : TASK_STORM_KERNEL) :
			  (s32)cpu == s->hog ? TASK_HOG : s->readers ? TASK_READER : TASK_IDLE;
		c->target = s->per_cpu;
		c->slice_left = task_slice(c);
		c->next_tick = rng() % TICK_NS + 1;
		if (c->task == TASK_READER)
			c->reader_until = rng() % TICK_NS;
		heap_push(cpu);
	}
	u64 gps0 = rcu_completed_batches(), fqs0 = rcu_fqs_rounds();
	storms_left = s->per_cpu ? s->storm_count : 0;
	while (storms_left && !stopped && heap_len) {
		struct entry e = heap_pop();
		if (e.version != cpus[e.cpu].version)
			continue;
		events++;
		interrupt(e.cpu, e.at);
		last = e.at;
	}
	for (u32 cpu = 0; cpu < ncpus; cpu++) {
		ticks += cpus[cpu].ticks;
		user_ticks += cpus[cpu].user_ticks;
	}
	out.enfile_at = enfile_at;
	out.iterations = total_done;
	out.gps = rcu_completed_batches() - gps0;
	out.peak_qlen = rcu_peak_qlen();
	out.fqs_rounds = rcu_fqs_rounds() - fqs0;
	out.ms = last / 1000000;
	char enfile[24], cpulist[32], hog[16];
	if (enfile_at < 0)
		snprintf(enfile, sizeof(enfile), "none");
	else
		snprintf(enfile, sizeof(enfile), "%lld", (long long)enfile_at);
	if (s->storm_count == 1)
		snprintf(cpulist, sizeof(cpulist), "%u", s->storm_first);
	else
		snprintf(cpulist, sizeof(cpulist), "%u-%u", s->storm_first,
			 s->storm_first + s->storm_count - 1);
	if (s->hog < 0)
		snprintf(hog, sizeof(hog), "none");
	else
		snprintf(hog, sizeof(hog), "%d", s->hog);
	printf("storm: mode=%s where=%s cpus=%s hog=%s iterations=%llu enfile_at=%s "
	       "done_at_enfile=%llu peak_nr_files=%llu peak_qlen=%llu gps=%llu ms=%llu "
	       "user_ticks=%llu/%llu irqoff_max_us=0 irqoff_at=- ncpus=%u fqs_rounds=%llu "
	       "cb_latency_us=%llu/%llu max_files=%llu\n",
	       rcu_modes[s->mode].name, s->user ? "user" : "kernel", cpulist, hog,
	       (unsigned long long)total_done, enfile, (unsigned long long)done_at_enfile,
	       (unsigned long long)peak_nr_files, (unsigned long long)out.peak_qlen,
	       (unsigned long long)out.gps, (unsigned long long)out.ms,
	       (unsigned long long)user_ticks, (unsigned long long)ticks, ncpus,
	       (unsigned long long)out.fqs_rounds,
	       (unsigned long long)(latency_n ? latency_sum / latency_n / 1000 : 0),
	       (unsigned long long)(latency_max / 1000), (unsigned long long)max_files);
	free(cpus);
	free(heads);
	return out;
}

/* --- what QEMU showed, and whether the simulator agrees ------------------------------------ */

/* One outcome QEMU measured (story-report and rcu-claims boots, HZ 250, docs/rcu.md). */
struct claim {
	const char *name;               /* the story row or the rcu_claims case */
	enum rcu_mode mode;
	bool user;
	u32 ncpus, storm_first, storm_count;
	s32 hog;
	bool enfile;                    /* QEMU's outcome */
};

#define STORY_N (4 * MAX_FILES)

static const struct claim claims[] = {
	/* the story: CPU 2 storms, CPU 3 hogs, 4 CPUs */
	{ "story rc4 user alone", RCU_MODE_RC4, true, 4, 2, 1, -1, true },
	{ "story batch10k user alone", RCU_MODE_BATCH10K, true, 4, 2, 1, -1, false },
	{ "story count user alone", RCU_MODE_COUNT, true, 4, 2, 1, -1, false },
	{ "story fqs16 user alone", RCU_MODE_FQS16, true, 4, 2, 1, -1, false },
	{ "story fqs19 user alone", RCU_MODE_FQS19, true, 4, 2, 1, -1, false },
	{ "story fqs user alone", RCU_MODE_FQS, true, 4, 2, 1, -1, false },
	{ "story rc4 user hog", RCU_MODE_RC4, true, 4, 2, 1, 3, true },
	{ "story batch10k user hog", RCU_MODE_BATCH10K, true, 4, 2, 1, 3, true },
	{ "story count user hog", RCU_MODE_COUNT, true, 4, 2, 1, 3, true },
	{ "story fqs16 user hog", RCU_MODE_FQS16, true, 4, 2, 1, 3, true },
	{ "story fqs19 user hog", RCU_MODE_FQS19, true, 4, 2, 1, 3, true },
	{ "story fqs user hog", RCU_MODE_FQS, true, 4, 2, 1, 3, false },
	{ "story rc4 kernel alone", RCU_MODE_RC4, false, 4, 2, 1, -1, true },
	{ "story batch10k kernel alone", RCU_MODE_BATCH10K, false, 4, 2, 1, -1, true },
	{ "story count kernel alone", RCU_MODE_COUNT, false, 4, 2, 1, -1, false },
	{ "story fqs16 kernel alone", RCU_MODE_FQS16, false, 4, 2, 1, -1, false },
	{ "story fqs19 kernel alone", RCU_MODE_FQS19, false, 4, 2, 1, -1, false },
	{ "story fqs kernel alone", RCU_MODE_FQS, false, 4, 2, 1, -1, false },
	/* rcu_claims on story (4 CPUs) and pair (2): the storm below the last CPU, the hog on it */
	{ "rcu_claims.count_hits_enfile_against_a_hog (story)", RCU_MODE_COUNT, false, 4, 2, 1, 3, true },
	{ "rcu_claims.count_hits_enfile_against_a_hog (pair)", RCU_MODE_COUNT, false, 2, 0, 1, 1, true },
	{ "rcu_claims.fqs_survives_a_hog_with_a_bounded_queue (story)", RCU_MODE_FQS, false, 4, 2, 1, 3, false },
	{ "rcu_claims.fqs_survives_a_hog_with_a_bounded_queue (pair)", RCU_MODE_FQS, false, 2, 0, 1, 1, false },
	{ "rcu_claims.fqs16_and_fqs19_lose_to_a_kernel_hog fqs16 (pair)", RCU_MODE_FQS16, true, 2, 0, 1, 1, true },
	{ "rcu_claims.fqs16_and_fqs19_lose_to_a_kernel_hog fqs19 (pair)", RCU_MODE_FQS19, true, 2, 0, 1, 1, true },
	{ "rcu_claims.count_survives_and_bounds_the_queue (pair)", RCU_MODE_COUNT, false, 2, 1, 1, -1, false },
	{ "rcu_claims.batch10k_hits_enfile_with_a_storm_on_every_cpu (story)", RCU_MODE_BATCH10K, false, 4, 0, 4, -1, true },
};

/*
 * Each claim runs with AGREE_SEEDS seeds and the simulator's verdict is the majority, as
 * QEMU's are: batch10k alone survived 12 runs of 14 there. That row is random in both
 * (the simulator hits ENFILE in about a quarter of its runs): another seed can flip its
 * majority, so make test uses seed 1, and docs/sim.md says so.
 */
#define AGREE_SEEDS 9

/*
 * The model's own check: over every user storm of the run, the ticks that came on time
 * landed in user mode at the calibrated rate, within five standard deviations of the
 * binomial count (n ticks, p per mille each: variance n p (1000 - p) / 10^6).
 */
static bool user_ticks_as_calibrated(void)
{
	u64 n = user_storm_ticks, u = user_storm_user_ticks, p = cal.user_tick_permille;
	s64 off = (s64)(1000 * u) - (s64)(p * n);               /* x 1000: in per mille */
	bool ok = n > 0 && (u64)(off * off) <= 25 * n * p * (1000 - p);

	printf("sim: a user storm's ticks on time: %llu, in user mode: %llu (%llu per mille; "
	       "calibrated %llu) %s\n", n, u, n ? 1000 * u / n : 0, p, ok ? "agree" : "DISAGREE");
	return ok;
}

static bool agree(u64 seed)
{
	u32 disagree = 0;

	for (size_t i = 0; i < sizeof(claims) / sizeof(claims[0]); i++) {
		const struct claim *c = &claims[i];
		struct storm_spec s = { c->mode, c->user, c->ncpus, c->storm_first, c->storm_count,
					c->hog, STORY_N, 10000, 0, false, 0 };
		u32 enfiles = 0;
		for (u32 k = 0; k < AGREE_SEEDS; k++)
			enfiles += run_storm(&s, seed + 100 * i + k).enfile_at >= 0;
		bool enfile = 2 * enfiles > AGREE_SEEDS;
		printf("sim: %-66s QEMU %-9s simulator %-9s (ENFILE in %u of %u) %s\n", c->name,
		       c->enfile ? "ENFILE" : "survives", enfile ? "ENFILE" : "survives", enfiles,
		       AGREE_SEEDS, enfile == c->enfile ? "agree" : "DISAGREE");
		disagree += enfile != c->enfile;
	}
	printf("sim: %u of %zu outcomes agree with QEMU\n",
	       (u32)(sizeof(claims) / sizeof(claims[0])) - disagree, sizeof(claims) / sizeof(claims[0]));
	return user_ticks_as_calibrated() && disagree == 0;
}

static const u32 machine_sizes[] = { 2, 4, 16, 64, 512, 4096 };
#define NR_SIZES (sizeof(machine_sizes) / sizeof(machine_sizes[0]))

/*
 * What QEMU cannot show (docs/rcu.md, finding 1): a kernel-thread storm on every CPU
 * of 1 to 16 CPUs against the 2005 machine's 50,044 files, under count and fqs; then,
 * as machines grow to 512 CPUs, with the file limit grown with them (12,511 files a
 * CPU, the 2005 limit over its 4 CPUs), 50,000 iterations a CPU.
 */
static void storm_on_every_cpu(u64 seed)
{
	static const enum rcu_mode modes[] = { RCU_MODE_COUNT, RCU_MODE_FQS };

	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		enum rcu_mode mode = modes[m];

		for (u32 n = 1; n <= 16; n *= 2) {
			struct storm_spec s = { mode, false, n, 0, n, -1, STORY_N, 10000, 0, false, 0 };
			run_storm(&s, seed + n);
		}
		for (size_t i = 0; i < NR_SIZES && machine_sizes[i] <= 512; i++) {
			u32 n = machine_sizes[i];
			struct storm_spec s = { mode, false, n, 0, n, -1, 50000, 10000,
						(u64)n * (MAX_FILES / 4), false, 0 };
			run_storm(&s, seed + n);
		}
	}
}

/*
 * docs/rcu.md, finding 3: fqs with kernel-thread storms on CPUs 0-2 and a hog on CPU 3,
 * 200,000 iterations a CPU, 50,044 files. QEMU got past 600,000 in 3 runs of 5, with
 * four busy virtual CPUs on a 2-core host; here, ten seeds and no host.
 */
static void three_storms_and_a_hog(u64 seed)
{
	u32 enfiles = 0;

	for (u32 k = 0; k < 10; k++) {
		struct storm_spec s = { RCU_MODE_FQS, false, 4, 0, 3, 3, 200000, 10000, 0, false, 0 };
		enfiles += run_storm(&s, seed + k).enfile_at >= 0;
	}
	printf("sim: fqs, three storms and a hog: ENFILE in %u of 10 runs\n", enfiles);
}

/*
 * The largest world: a kernel-thread storm of 100,000 iterations on each of
 * 4096 CPUs under fqs, with files enough for all (409.6 million). It needs some 1.3 GB for
 * the callbacks queued at the peak, so make test does not run it: make sim SIM_ARGS=big.
 */
static void big(u64 seed)
{
	struct storm_spec s = { RCU_MODE_FQS, false, 4096, 0, 4096, -1, 100000, 10000,
				4096ULL * 100000, false, 0 };
	run_storm(&s, seed);
}

/*
 * The safety check at scale: writers on the first CPUs (an open and close
 * every 50 us, so that queues stay short and a callback runs soon after its
 * grace period: a storm's backlog would hide an early one behind
 * milliseconds of older callbacks), and every other CPU a reader thread
 * (run_reader()), in every mode, on 4 and 16 CPUs. A callback that runs
 * inside an older reader stops the program (check_readers()); each run
 * says how many callbacks ran while some reader was inside, each checked.
 */
static bool readers(u64 seed)
{
	static const struct { u32 ncpus, storms; bool user; } machines[] = {
		{ 4, 1, true }, { 4, 2, false }, { 16, 2, true }, { 16, 4, false },
	};

	u64 checked = 0;

	for (size_t i = 0; i < ARRAY_SIZE(machines); i++) {
		for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
			struct storm_spec s = {
				.mode = mode, .user = machines[i].user, .ncpus = machines[i].ncpus,
				.storm_count = machines[i].storms, .hog = -1, .per_cpu = 20000,
				.qhimark = 10000, .readers = true, .think_ns = 50000,
			};

			readers_run = callbacks_checked = 0;
			run_storm(&s, seed + 10 * i + mode);
			printf("sim: readers: mode=%s cpus=%u storms=%u: %llu callbacks ran beside "
			       "readers, none inside an older one (%llu readers)\n",
			       rcu_modes[mode].name, s.ncpus, s.storm_count,
			       (unsigned long long)callbacks_checked, (unsigned long long)readers_run);
			checked += callbacks_checked;
		}
	}
	return checked > 0;             /* a check that saw nothing checked nothing */
}

/* One user storm on CPU 0 of machines of 2 to 4096 CPUs, the others idle, every mode. */
static void scale(u64 seed)
{
	for (size_t i = 0; i < NR_SIZES; i++) {
		for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
			u32 n = machine_sizes[i];
			struct storm_spec s = { mode, true, n, 0, 1, -1, 100000, 10000, 0, false, 0 };
			run_storm(&s, seed + n + mode);
		}
	}
}

int main(int argc, char **argv)
{
	u64 seed = 1;
	const char *what = "all";

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else
			what = argv[i];
	}
	bool all = !strcmp(what, "all"), ok = true;
	clock_t start = clock();
	if (all || !strcmp(what, "agree"))
		ok = agree(seed);
	if (all || !strcmp(what, "every")) {
		storm_on_every_cpu(seed);
		three_storms_and_a_hog(seed);
	}
	if (all || !strcmp(what, "readers"))
		ok = readers(seed) && ok;
	if (all || !strcmp(what, "scale"))
		scale(seed);
	if (!strcmp(what, "big"))
		big(seed);
	double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
	fprintf(stderr, "bench: sim_events_per_s %.3f per_s (%llu events in %.1f s)\n",
		seconds > 0 ? (double)events / seconds : 0.0, (unsigned long long)events, seconds);
	return ok ? 0 : 1;
}
