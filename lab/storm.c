// SPDX-License-Identifier: MIT
/*
 * storm.c - the open/close storm and the hog (see storm.h).
 *
 * One thread per storming CPU runs storm_loop() (in the kernel) or
 * storm_loop_user() (which runs lab/storm_user.asm in user mode); one per
 * hog CPU runs hog_loop(). They share a little state: the iteration count
 * (to stamp the first ENFILE), a stop flag, and the number of storm
 * threads still going, which tells the hogs when to stop. A user storm
 * counts in its task's scratch (the kernel sums them) and reads its stop
 * flag from the shared page's first byte.
 *
 * storm.pause=on ends every iteration, kernel or user, with PAUSE, the
 * x86 spin-wait hint (the hog's loop always has one). A CPU executes it
 * in a few cycles; an emulator that runs all virtual CPUs on one host
 * thread takes it as "let another CPU run" (QEMU's x86 helper for it
 * says just that). QEMU 7.2's -icount scheduler gives the first busy
 * virtual CPU of each round all the instructions up to the next timer
 * and the CPUs after it none (docs/rcu.md, "Under -icount"): without a
 * yield in the storm, the CPUs after a storming one never run, not even
 * their ticks. The icount topologies set it; it changes no other result.
 */
#include "storm.h"
#include "bench.h"
#include "cmdline.h"
#include "format.h"
#include "irqoff.h"
#include "ksyms.h"
#include "kstring.h"
#include "percpu.h"
#include "printk.h"
#include "profile.h"
#include "rcu.h"
#include "sched.h"
#include "slab.h"
#include "storm_trace.h"
#include "time.h"
#include "user.h"
#include "vfs.h"
#include "x86.h"

extern const char storm_user[];         /* lab/storm_user.asm */

static u64 storm_iterations;            /* storm= (per CPU); 0: no storm at boot */
PARAM_U64("storm", storm_iterations, 0, 1000000000);
static char storm_cpus_arg[64] = "all";
PARAM_STR("storm.cpus", storm_cpus_arg);
static char hog_arg[64] = "none";
PARAM_STR("hog", hog_arg);
static int where_arg = STORM_USER;
PARAM_CHOICE("storm.where", where_arg, "user", "kernel");
static int storm_pause;                 /* storm.pause=on: PAUSE after every iteration */
PARAM_CHOICE("storm.pause", storm_pause, "off", "on");
static u64 storm_think;                 /* storm.think=N: N turns of a user-mode loop after each */
PARAM_U64("storm.think", storm_think, 0, 1000000);

u64 storm_set_think(u64 turns)
{
	u64 old = storm_think;

	storm_think = turns;
	return old;
}

const char *const storm_where_names[2] = { [STORM_USER] = "user", [STORM_KERNEL] = "kernel" };

enum storm_where storm_default_where(void)
{
	return (enum storm_where)where_arg;
}

/* A user storm's report, in its task's scratch (lab/storm_user.asm writes it). */
struct storm_report {
	u64 done;
	s64 error;              /* -errno of the open() that failed */
	u64 pause;              /* in: PAUSE after every iteration (storm.pause) */
	u64 think;              /* in: turns of a user-mode loop after every iteration */
};

/* One CPU's count of a kernel storm, on a cache line of its own. */
struct storm_count {
	u64 done;
} __attribute__((aligned(64)));

struct storm_state {
	u64 per_cpu;
	u64 done;               /* iterations of the user storms that ended */
	struct storm_count done_on[MAX_CPUS];   /* each kernel storm's, written by its CPU only */
	s64 enfile_at;
	u64 done_at_enfile;     /* rcu_done_len() of the CPU that hit ENFILE, then */
	struct cpumask owing_at_enfile; /* the CPUs that then still owed the grace period */
	bool stop;
	bool interrupted;       /* stopped on request (storm_run_watched()), not by ENFILE */
	bool failed;            /* a user storm could not run, or was killed */
	u64 ticks, user_ticks;  /* the storm threads', summed as each ends */
	u32 running;            /* storm threads not finished */
	volatile struct storm_report *report[MAX_CPUS];        /* user storms, per CPU */
};

/* Iterations so far, all CPUs. */
static u64 storm_done(struct storm_state *s)
{
	u64 done = __atomic_load_n(&s->done, __ATOMIC_RELAXED);

	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		done += __atomic_load_n(&s->done_on[cpu].done, __ATOMIC_RELAXED);
		if (s->report[cpu])
			done += s->report[cpu]->done;
	}
	return done;
}

/* Stop every storm thread at its next iteration (the user storms read the shared byte). */
static void storm_stop(struct storm_state *s)
{
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
	if (user_shared())
		__atomic_store_n((u8 *)user_shared(), 1, __ATOMIC_RELEASE);
}

/* The first ENFILE: stamp it with the iterations done so far, and stop everyone. */
static void storm_hit_enfile(struct storm_state *s)
{
	s64 none = -1;

	if (__atomic_compare_exchange_n(&s->enfile_at, &none, (s64)storm_done(s), false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		s->done_at_enfile = rcu_done_len(smp_processor_id());
		rcu_owing_cpus(&s->owing_at_enfile);
	}
	storm_stop(s);
}

/* A storm thread ends: add up its ticks, and tell the hogs when it was the last. */
static void storm_thread_done(struct storm_state *s)
{
	struct thread *self = current_thread();

	__atomic_add_fetch(&s->ticks, self->ticks, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->user_ticks, self->user_ticks, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&s->running, 1, __ATOMIC_RELEASE);
}

/*
 * The kernel storm. Its count is its CPU's own line (a shared counter's
 * line would travel between the storming CPUs on every iteration).
 */
__hot static void storm_loop(void *arg)
{
	struct storm_state *s = arg;
	u64 *done = &s->done_on[smp_processor_id()].done;      /* pinned here */

	for (u64 i = 0; i < s->per_cpu && !__atomic_load_n(&s->stop, __ATOMIC_RELAXED); i++) {
		int err;
		struct file *f = file_open("/dev/null", &err);

		if (!f) {
			storm_hit_enfile(s);
			break;
		}
		file_close(f);
		__atomic_store_n(done, i + 1, __ATOMIC_RELAXED);
		if (storm_pause)
			cpu_relax();
		cond_resched();         /* where the user-space loop returned from close() */
	}
	storm_thread_done(s);
}

/* Serge's program, in user mode, on this CPU. */
static void storm_loop_user(void *arg)
{
	struct storm_state *s = arg;
	u32 cpu = smp_processor_id();   /* pinned here */
	struct user_task *u = user_task_create("storm");

	if (!u) {
		s->failed = true;
		__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
		storm_thread_done(s);
		return;
	}
	volatile struct storm_report *report = user_task_scratch(u);
	report->pause = storm_pause;
	report->think = storm_think;
	s->report[cpu] = report;
	long status = user_task_run(u, storm_user, s->per_cpu, USER_SHARED, user_task_scratch_va(u));
	if (status == 1 && report->error == -ENFILE) {
		storm_hit_enfile(s);
	} else if (status != 0) {
		pr_err("storm: the user storm on CPU %u ended with status %ld (error %lld)\n", cpu,
		       status, report->error);
		s->failed = true;
		__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
		__atomic_store_n((u8 *)user_shared(), 1, __ATOMIC_RELEASE);
	}
	/* Fold its count in before its scratch goes. */
	u64 flags = irq_save();
	__atomic_add_fetch(&s->done, report->done, __ATOMIC_RELAXED);
	s->report[cpu] = NULL;
	irq_restore(flags);
	user_task_destroy(u);
	storm_thread_done(s);
}

/*
 * Spin in the kernel until the storm ends, scheduling only when asked:
 * need_resched set by its tick (the slice is over) or by an IPI, and the
 * switch made on the way out of that interrupt (sched_preempt_irq()). No
 * cond_resched() in the loop: under fqs that would report a quiescent
 * state by itself (rcu_all_qs()), and the hog is the thread no such call
 * reaches, the one only a forcing IPI can make switch.
 *
 * It runs at the highest priority, 2.6.14's nice -20, whose slices were
 * 800 ms (task_timeslice()): with 100 ms ones, whether Serge's program
 * fills the file table before the hog's slice ends and gives a quiescent
 * state is a race that the host decides under TCG, and the story's count
 * and fqs19 verdicts flip with it (docs/rcu.md). With 800 ms the verdict
 * says what a mode's forcing does, not the host's phase.
 */
static void hog_loop(void *arg)
{
	struct storm_state *s = arg;

	while (__atomic_load_n(&s->running, __ATOMIC_ACQUIRE))
		cpu_relax();
}

/*
 * A storm longer than a second shows its progress on the screen, once a
 * second, in place (printk_progress(): not logged, not on serial, so no
 * line a script reads changes). The timer runs on a CPU that neither
 * storms nor hogs, so the storm's CPUs see no extra interrupt or switch;
 * on a machine with no such CPU there is no progress line.
 */
#define PROGRESS_PERIOD_NS (1000ULL * 1000 * 1000)

static struct {
	struct ktimer timer;
	struct storm_state *s;
	u64 t0;
	volatile bool stop;
} progress;

static void progress_tick(struct ktimer *t)
{
	u64 ms = (ktime_ns() - progress.t0) / 1000000;

	if (progress.stop)
		return;
	printk_progress("storm: %llu s: %llu iterations, nr_files %llu, mode %s ...", ms / 1000,
			storm_done(progress.s), vfs_nr_files(), rcu_mode_name());
	timer_add(t, PROGRESS_PERIOD_NS, t->cpu, progress_tick, NULL);
}

static void progress_start(struct storm_state *s, const struct cpumask *cpus,
			   const struct cpumask *hogs)
{
	progress.stop = true;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online && !cpumask_test(cpus, cpu) && !cpumask_test(hogs, cpu)) {
			progress = (typeof(progress)){ .s = s, .t0 = ktime_ns() };
			timer_add(&progress.timer, PROGRESS_PERIOD_NS, cpu, progress_tick, NULL);
			return;
		}
}

static void progress_stop(void)
{
	if (progress.stop)
		return;
	progress.stop = true;
	timer_cancel_sync(&progress.timer);
}

static void print_result(const struct storm_result *r)
{
	char cpus[64], hogs[64], owing[64] = "-", enfile[24], where[64] = "-";
	u64 offset, size;
	const char *sym = ksym_lookup(r->irqoff_where, &offset, &size);

	if (!r->irqoff_traced)
		snprintf(where, sizeof(where), "untraced");
	else if (sym)
		snprintf(where, sizeof(where), "%s+0x%llx", sym, offset);
	if (r->enfile_at < 0) {
		snprintf(enfile, sizeof(enfile), "none");
	} else {
		snprintf(enfile, sizeof(enfile), "%lld", r->enfile_at);
		if (!*cpumask_format(&r->owing_at_enfile, owing, sizeof(owing)))
			snprintf(owing, sizeof(owing), "none");   /* no grace period was running */
	}
	printk("storm: mode=%s where=%s cpus=%s hog=%s iterations=%llu enfile_at=%s "
	       "done_at_enfile=%llu peak_nr_files=%llu peak_qlen=%llu gps=%llu ms=%llu user_ticks=%llu/%llu "
	       "irqoff_max_us=%llu irqoff_at=%s owing_at_enfile=%s\n", rcu_modes[r->mode].name,
	       storm_where_names[r->where], cpumask_format(&r->cpus, cpus, sizeof(cpus)),
	       cpumask_format(&r->hogs, hogs, sizeof(hogs)), r->iterations,
	       enfile, r->done_at_enfile, r->peak_nr_files, r->peak_qlen, r->gps, r->ms, r->user_ticks, r->ticks,
	       r->irqoff_max_us, where, owing);
}

/*
 * The caller waits for a watched storm instead of sleeping on its
 * threads: every WATCH_POLL_MS it asks stop_asked() (the shell: was
 * Ctrl-C typed?), and once a second it prints a progress line, logged and
 * on every console. It watches from a CPU that neither storms nor hogs if
 * there is one, so the storm's CPUs see no extra switch; on a machine
 * without one its wakeups are switches on its own CPU.
 */
#define WATCH_POLL_MS 10

static void watch(struct storm_state *s, const struct cpumask *cpus, const struct cpumask *hogs,
		  bool (*stop_asked)(void))
{
	struct thread *self = current_thread();
	struct cpumask before = self->affinity, spare = { { 0 } };
	u64 t0 = ktime_ns(), next = t0 + PROGRESS_PERIOD_NS;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online && !cpumask_test(cpus, cpu) && !cpumask_test(hogs, cpu))
			cpumask_set(&spare, cpu);
	if (!cpumask_empty(&spare)) {
		thread_set_affinity(self, &spare);
		yield();
	}
	while (__atomic_load_n(&s->running, __ATOMIC_ACQUIRE) > 0) {
		if (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED) && stop_asked()) {
			s->interrupted = true;
			storm_stop(s);
		}
		if (ktime_ns() >= next) {
			printk("storm: %llu s: %llu iterations, nr_files %llu, mode %s\n",
			       (next - t0) / PROGRESS_PERIOD_NS, storm_done(s), vfs_nr_files(),
			       rcu_mode_name());
			next += PROGRESS_PERIOD_NS;
		}
		msleep(WATCH_POLL_MS);
	}
	thread_set_affinity(self, &before);
}

void storm_run(enum storm_where where, u64 n, const struct cpumask *cpus,
	       const struct cpumask *hogs, struct storm_result *r)
{
	storm_run_watched(where, n, cpus, hogs, r, NULL);
}

void storm_run_watched(enum storm_where where, u64 n, const struct cpumask *cpus,
		       const struct cpumask *hogs, struct storm_result *r, bool (*stop_asked)(void))
{
	static struct thread *threads[MAX_CPUS * 2];
	static struct storm_state s;
	u32 nthreads = 0;

	if (where == STORM_USER && !user_shared()) {
		pr_warn("storm: no user mode; storming in the kernel instead\n");
		where = STORM_KERNEL;
	}
	memset(&s, 0, sizeof(s));       /* 64 KiB of counts: no struct literal on the stack */
	s.per_cpu = n;
	s.enfile_at = -1;
	if (user_shared())
		__atomic_store_n((u8 *)user_shared(), 0, __ATOMIC_RELEASE);
	*r = (struct storm_result){ .mode = rcu_mode(), .where = where, .cpus = *cpus, .hogs = *hogs };
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (cpumask_test(cpus, cpu) && percpu[cpu].online)
			s.running++;
	vfs_reset_peak();
	rcu_reset_peak();
	irqoff_reset();
	bool traced = irqoff_tracing;
	u64 gps0 = rcu_completed_batches(), fqs0 = rcu_fqs_rounds(), t0 = ktime_ns();

	bool profiled = profile_begin();

	storm_trace_start(cpus);
	if (!stop_asked)
		progress_start(&s, cpus, hogs);
	preempt_disable();      /* start them all before any runs */
	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!percpu[cpu].online)
			continue;
		if (cpumask_test(cpus, cpu))
			threads[nthreads++] = thread_create("storm", where == STORM_USER ?
							    storm_loop_user : storm_loop, &s, cpu);
		else if (cpumask_test(hogs, cpu))
			threads[nthreads++] = thread_create_highest("hog", hog_loop, &s, cpu);
	}
	preempt_enable();
	if (stop_asked)
		watch(&s, cpus, hogs, stop_asked);
	for (u32 i = 0; i < nthreads; i++)
		if (threads[i])
			thread_join(threads[i]);
	progress_stop();

	r->ns = ktime_ns() - t0;
	profile_end(profiled, "storm");
	r->ms = r->ns / 1000000;
	r->iterations = storm_done(&s);
	r->enfile_at = s.enfile_at;
	r->done_at_enfile = s.done_at_enfile;
	r->owing_at_enfile = s.owing_at_enfile;
	r->interrupted = s.interrupted;
	r->peak_nr_files = vfs_peak_nr_files();
	r->peak_qlen = rcu_peak_qlen();
	r->gps = rcu_completed_batches() - gps0;
	r->fqs_rounds = rcu_fqs_rounds() - fqs0;
	r->ticks = s.ticks;
	r->user_ticks = s.user_ticks;
	r->irqoff_traced = traced && irqoff_tracing;
	for (u32 cpu = 0; cpu < nr_cpus && r->irqoff_traced; cpu++) {
		struct irqoff_max max;

		if (!cpumask_test(cpus, cpu))
			continue;
		irqoff_get(cpu, &max);
		if (max.ns / 1000 >= r->irqoff_max_us) {
			r->irqoff_max_us = max.ns / 1000;
			r->irqoff_where = max.where;
		}
	}
	print_result(r);
	storm_trace_stop(r);
	rcu_drain();
	slab_drain_all();       /* and the files freed into magazines give their slabs back */
}

void storm_run_in_mode(enum rcu_mode mode, enum storm_where where, u64 n,
		       const struct cpumask *cpus, const struct cpumask *hogs,
		       struct storm_result *r)
{
	enum rcu_mode before = rcu_mode();

	rcu_barrier();
	rcu_set_mode(mode);
	storm_run(where, n, cpus, hogs, r);
	rcu_set_mode(before);
}

void storm_boot(void)
{
	struct cpumask cpus = { { 0 } }, hogs = { { 0 } };
	struct storm_result r;
	const char *why;

	if (!storm_iterations)
		return;
	if (strcmp(hog_arg, "none") && !cpumask_parse(hog_arg, nr_cpus, &hogs, &why)) {
		pr_warn("storm: ignored hog=%s: %s\n", hog_arg, why);
		memset(&hogs, 0, sizeof(hogs));
	}
	if (!cpumask_parse(storm_cpus_arg, nr_cpus, &cpus, &why)) {
		pr_warn("storm: ignored storm.cpus=%s: %s; storming on all CPUs\n", storm_cpus_arg, why);
		cpumask_parse("all", nr_cpus, &cpus, &why);
	}
	cpumask_andnot(&cpus, &cpus, &hogs);    /* a hog CPU does not storm */
	storm_run(storm_default_where(), storm_iterations, &cpus, &hogs, &r);
}

/* --- benchmarks: the storm's rate per mode, against freeing at once --------- */

#define RATE_ITERATIONS 100000

/* A one-CPU storm (stopping at ENFILE, as always); its iterations per second. */
static u64 storm_rate(enum rcu_mode mode, enum storm_where where, struct storm_result *r)
{
	struct cpumask cpus = { { 0 } }, none = { { 0 } };

	cpumask_set(&cpus, nr_cpus - 1);
	storm_run_in_mode(mode, where, RATE_ITERATIONS, &cpus, &none, r);
	return r->ns ? r->iterations * 1000000000 / r->ns : 0;
}

/*
 * The same loop freeing at once. One file stays open throughout, as a real
 * process holds its stdin: otherwise each close would empty the only slab
 * and hand its page back, and the baseline would measure the page allocator.
 * An open that fails makes the run worthless (an iteration that only
 * checks the limit is no open and close): it is said, counting the
 * anchor's among RATE_ITERATIONS + 1 opens, and the rate is 0, which
 * makes every ratio of the run 0 rather than too good.
 */
struct direct_run {
	u64 ns;
	u32 failed;
	int err;                /* the first failure's, and the files open then */
	u64 open_then;
};

/* An open of the loop failed: count it, and keep the first failure's error and files open. */
static void direct_failed(struct direct_run *run, int err)
{
	if (!run->failed++) {
		run->err = err;
		run->open_then = vfs_open_files();
	}
}

__hot static void direct_loop(void *arg)
{
	int anchor_err;
	struct file *anchor = file_open("/dev/null", &anchor_err);
	struct direct_run *run = arg;
	u64 start = ktime_ns();

	if (!anchor)            /* without it the loop would measure the page allocator */
		direct_failed(run, anchor_err);

	for (u32 i = 0; i < RATE_ITERATIONS; i++) {
		int err;
		struct file *f = file_open("/dev/null", &err);
		if (f)
			file_close_now(f);
		else
			direct_failed(run, err);
		cond_resched();
	}
	run->ns = ktime_ns() - start;
	if (anchor)
		file_close_now(anchor);
}

/* The freeing-at-once loop on the highest CPU: iterations per second; 0 if an open failed. */
static u64 direct_rate(void)
{
	struct direct_run run = { 0 };
	struct thread *t = thread_create("direct", direct_loop, &run, nr_cpus - 1);

	if (!t)
		return 0;
	thread_join(t);
	if (run.failed) {
		pr_warn("storm: the loop freeing at once failed %u of %u opens (the first: error %d "
			"with %llu files open): no rate\n", run.failed, RATE_ITERATIONS + 1, run.err,
			run.open_then);
		return 0;
	}
	return run.ns ? (u64)RATE_ITERATIONS * 1000000000 / run.ns : 0;
}

/* How a mode's timed runs ended: those stopped by ENFILE, and after how many iterations. */
struct enfile_runs {
	u32 stopped;
	s64 first, last;        /* the fewest and the most iterations done at ENFILE */
};

static void note_enfile(struct enfile_runs *e, const struct storm_result *r)
{
	if (r->enfile_at < 0)
		return;
	if (!e->stopped++ || r->enfile_at < e->first)
		e->first = r->enfile_at;
	if (r->enfile_at > e->last)
		e->last = r->enfile_at;
}

/*
 * A run that hit ENFILE stopped there: its rate is of the iterations up to
 * ENFILE, most of them only queueing a callback, not of RATE_ITERATIONS
 * opens and closes with their frees. That is the bug the modes without a
 * brake reproduce (rc4, batch10k), and a brake that fails to hold (count's
 * did, at hz=100 on story: docs/performance.md) would look faster for it.
 * So every mode says how many of its timed runs stopped, as a result of
 * its own, and a line says where.
 */
static void report_enfile(const struct bench *b, enum rcu_mode mode, const struct enfile_runs *e)
{
	char suffix[40];

	snprintf(suffix, sizeof(suffix), "_%s_stopped_at_enfile", rcu_modes[mode].name);
	bench_report(b, suffix, (u64)e->stopped * 1000, "runs");
	if (e->stopped)
		printk("storm: storm_rate: %s stopped at ENFILE in %u of %u timed runs (after "
		       "%lld-%lld of %u iterations): its rate is of the iterations up to ENFILE\n",
		       rcu_modes[mode].name, e->stopped, bench_nr_runs(), e->first, e->last,
		       RATE_ITERATIONS);
}

/*
 * Each run times the loop freeing at once and then the storm under every
 * mode, so each mode's ratio is taken against the baseline of its own run.
 */
static void bench_storm_rate(const struct bench *b)
{
	struct bench_runs direct = { 0 }, rate[RCU_NR_MODES] = { 0 };
	struct enfile_runs enfile[RCU_NR_MODES] = { 0 };
	struct storm_result r;

	if (!direct_rate())                     /* warm-up: the caches and slabs are made */
		return;
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++)
		storm_rate(mode, STORM_KERNEL, &r);
	for (u32 run = 0; run < bench_nr_runs(); run++) {
		bench_runs_add(&direct, direct_rate() * 1000);
		for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
			bench_runs_add(&rate[mode], storm_rate(mode, STORM_KERNEL, &r) * 1000);
			note_enfile(&enfile[mode], &r);
		}
	}
	bench_report_runs(b, "_no_rcu", &direct, "per_s");
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
		char suffix[24];

		snprintf(suffix, sizeof(suffix), "_%s", rcu_modes[mode].name);
		bench_report_runs(b, suffix, &rate[mode], "per_s");
		snprintf(suffix, sizeof(suffix), "_%s_vs_no_rcu", rcu_modes[mode].name);
		bench_report_ratio(b, suffix, &rate[mode], &direct);
		report_enfile(b, mode, &enfile[mode]);
	}
}
BENCH(storm_rate, bench_storm_rate);

/*
 * How the kernel storm scales: rcu.mode=fqs vfs.count=early (for the
 * comparison with Linux 6.1's four open/close processes on story:
 * docs/performance.md), on the highest CPU alone and then on every online
 * CPU, in each run: one CPU's rate, all CPUs' aggregate, their ratio run
 * by run; then, with the interrupts-off tracer on, as many storms on all
 * CPUs again for their longest interrupts-off window. On pair "all" is
 * the two-CPU storm, on story the four-CPU one. Each run also storms on
 * every other CPU alone: under QEMU one virtual CPU often runs much faster
 * than another (docs/performance.md), so the highest CPU alone may stand
 * for a fast or a slow one; the mean of all the CPUs alone is the fairer
 * "one CPU" (_1cpu_mean, _vs_1cpu_mean).
 */
#define SCALING_ITERATIONS 200000       /* per CPU and storm: long enough that a host hiccup is a small part */

static u64 storm_rate_on(const struct cpumask *cpus, struct storm_result *r)
{
	struct cpumask none = { { 0 } };

	storm_run_in_mode(RCU_MODE_FQS, STORM_KERNEL, SCALING_ITERATIONS, cpus, &none, r);
	return r->ns ? r->iterations * 1000000000 / r->ns : 0;
}

static void bench_storm_scaling(const struct bench *b)
{
	struct bench_runs one = { 0 }, mean = { 0 }, all = { 0 }, irqoff = { 0 };
	struct cpumask last = { { 0 } }, every = { { 0 } };
	enum vfs_count count_before = vfs_count_mode();
	struct storm_result r;
	char suffix[24];
	u32 n = 0;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online) {
			cpumask_set(&every, cpu);
			n++;
		}
	if (n < 2)
		return;
	cpumask_set(&last, nr_cpus - 1);
	vfs_set_count(VFS_COUNT_EARLY);
	storm_rate_on(&last, &r);               /* warm-up: slabs, magazines, queues */
	storm_rate_on(&every, &r);
	for (u32 run = 0; run < bench_nr_runs(); run++) {
		u64 alone = storm_rate_on(&last, &r), sum = alone;

		bench_runs_add(&one, alone * 1000);
		for (u32 cpu = 0; cpu < nr_cpus - 1; cpu++) {
			struct cpumask just = { { 0 } };

			if (!percpu[cpu].online)
				continue;
			cpumask_set(&just, cpu);
			sum += storm_rate_on(&just, &r);
		}
		bench_runs_add(&mean, sum * 1000 / n);
		bench_runs_add(&all, storm_rate_on(&every, &r) * 1000);
	}
	/* The windows, from storms of their own: the tracer would slow the timed ones. */
	bool was = irqoff_trace(true);

	for (u32 run = 0; run < bench_nr_runs(); run++) {
		storm_rate_on(&every, &r);
		bench_runs_add(&irqoff, r.irqoff_max_us * 1000);
	}
	irqoff_trace(was);
	vfs_set_count(count_before);
	bench_report_runs(b, "_1cpu", &one, "per_s");
	snprintf(suffix, sizeof(suffix), "_%ucpus", n);
	bench_report_runs(b, suffix, &all, "per_s");
	snprintf(suffix, sizeof(suffix), "_%ucpus_vs_1cpu", n);
	bench_report_ratio(b, suffix, &all, &one);
	bench_report_runs(b, "_1cpu_mean", &mean, "per_s");
	snprintf(suffix, sizeof(suffix), "_%ucpus_vs_1cpu_mean", n);
	bench_report_ratio(b, suffix, &all, &mean);
	snprintf(suffix, sizeof(suffix), "_%ucpus_irqoff_max", n);
	bench_report_runs(b, suffix, &irqoff, "us");
}
BENCH(storm_scaling, bench_storm_scaling);

/*
 * The longest interrupts-off window on the storming CPU during a user
 * storm, per mode (irqoff.h). Callbacks run with interrupts on, so what is
 * left is short critical sections; under TCG a window also grows whenever
 * the host preempts the virtual CPU inside one, so the maximum is noisy.
 */
static void bench_storm_irqoff(const struct bench *b)
{
	bool was = irqoff_trace(true);  /* what this benchmark reads */

	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
		struct bench_runs irqoff = { 0 };
		char suffix[24];
		struct storm_result r;

		storm_rate(mode, STORM_USER, &r);       /* warm-up */
		for (u32 run = 0; run < bench_nr_runs(); run++) {
			storm_rate(mode, STORM_USER, &r);
			bench_runs_add(&irqoff, r.irqoff_max_us * 1000);
		}
		snprintf(suffix, sizeof(suffix), "_%s", rcu_modes[mode].name);
		bench_report_runs(b, suffix, &irqoff, "us");
	}
	irqoff_trace(was);
}
BENCH(storm_irqoff, bench_storm_irqoff);

/*
 * synchronize_rcu() latency while a storm runs on the highest CPU: the
 * waiter sits on another CPU and calls it over and over until the storm
 * ends. The idle figure is the synchronize_rcu benchmark in bench.c. Only
 * the modes that bound the queue: under the others the storm ends at
 * ENFILE with the waiter's callback still queued.
 */
struct sync_under_storm {
	enum rcu_mode mode;
	volatile bool storm_done;
};

static void storm_thread(void *arg)
{
	struct sync_under_storm *s = arg;
	struct cpumask cpus = { { 0 } }, none = { { 0 } };
	struct storm_result r;

	cpumask_set(&cpus, nr_cpus - 1);
	storm_run_in_mode(s->mode, STORM_KERNEL, RATE_ITERATIONS, &cpus, &none, &r);
	s->storm_done = true;
}

/* One storm on the highest CPU with synchronize_rcu() called over and over here. */
static void synchronize_under_storm(enum rcu_mode mode, u64 *mean_ns, u64 *worst_ns)
{
	struct sync_under_storm s = { .mode = mode };
	u64 total = 0, worst = 0, calls = 0;

	struct thread *t = thread_create("storm-bench", storm_thread, &s, nr_cpus - 1);
	if (!t)
		return;
	while (!s.storm_done) {
		u64 start = ktime_ns();
		synchronize_rcu();
		u64 ns = ktime_ns() - start;
		total += ns;
		worst = MAX(worst, ns);
		calls++;
	}
	thread_join(t);
	*mean_ns = calls ? total / calls : 0;
	*worst_ns = worst;
}

static void bench_synchronize_rcu_storm(const struct bench *b)
{
	if (nr_cpus < 2 || smp_processor_id() == nr_cpus - 1)
		return;
	for (enum rcu_mode mode = 0; mode < RCU_NR_MODES; mode++) {
		struct bench_runs mean = { 0 }, worst = { 0 };
		u64 m = 0, w = 0;
		char suffix[32];

		if (!rcu_modes[mode].count_resched && rcu_modes[mode].forcing == RCU_FORCE_NONE)
			continue;
		synchronize_under_storm(mode, &m, &w);  /* warm-up */
		for (u32 run = 0; run < bench_nr_runs(); run++) {
			synchronize_under_storm(mode, &m, &w);
			bench_runs_add(&mean, m);
			bench_runs_add(&worst, w);
		}
		snprintf(suffix, sizeof(suffix), "_%s", rcu_modes[mode].name);
		bench_report_runs(b, suffix, &mean, "us");
		snprintf(suffix, sizeof(suffix), "_%s_max", rcu_modes[mode].name);
		bench_report_runs(b, suffix, &worst, "us");
	}
}
BENCH(synchronize_rcu_storm, bench_synchronize_rcu_storm);
