// SPDX-License-Identifier: MIT
/*
 * sched_test.c - threads, preemption, wakeups, mutexes and migration on the
 * real CPUs. Waiting is bounded by ticks, never by wall-clock assertions.
 */
#include "bench.h"
#include "kstring.h"
#include "ktest.h"
#include "percpu.h"
#include "sched.h"
#include "smp.h"
#include "time.h"
#include "x86.h"

/* The highest online CPU, or this one on a single-CPU machine. */
static u32 other_cpu(void)
{
	for (u32 cpu = nr_cpus; cpu-- > 0;)
		if (percpu[cpu].online && cpu != smp_processor_id())
			return cpu;
	return smp_processor_id();
}

static void add_one(void *arg)
{
	__atomic_fetch_add((u32 *)arg, 1, __ATOMIC_RELAXED);
}

static void threads_run_and_are_joined(struct ktest *t)
{
	struct thread *th[16];
	u32 count = 0;

	for (u32 i = 0; i < ARRAY_SIZE(th); i++) {
		th[i] = thread_create("adder", add_one, &count, SCHED_ANY_CPU);
		ASSERT_TRUE(t, th[i] != NULL);
	}
	for (u32 i = 0; i < ARRAY_SIZE(th); i++)
		thread_join(th[i]);
	EXPECT_EQ(t, count, ARRAY_SIZE(th));
}

static void record_cpu(void *arg)
{
	*(u32 *)arg = smp_processor_id();
}

static void every_online_cpu_runs_a_thread(struct ktest *t)
{
	static u32 ran_on[MAX_CPUS];
	static struct thread *th[MAX_CPUS];
	u32 online = 0;

	for (u32 cpu = 0; cpu < nr_cpus; cpu++) {
		if (!percpu[cpu].online)
			continue;
		ran_on[cpu] = ~0u;
		th[cpu] = thread_create("pinned", record_cpu, &ran_on[cpu], cpu);
		ASSERT_TRUE(t, th[cpu] != NULL);
		online++;
	}
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online) {
			thread_join(th[cpu]);
			EXPECT_EQ(t, ran_on[cpu], cpu);
		}
	EXPECT_EQ(t, online, nr_cpus_online);
}

/*
 * Two threads that never yield, on one CPU. Each spins until both have
 * counted far enough: without preemption the first would spin until its
 * deadline with the other never running, and report it.
 */
struct spinner {
	volatile u64 count;
	volatile u64 *other;
	bool gave_up;
};

#define SPIN_TARGET 200000
#define SPIN_DEADLINE_TICKS 5000        /* 5 s at HZ 1000: generous for TCG */

static void spin_until_both_progress(void *arg)
{
	struct spinner *s = arg;
	u64 deadline = this_cpu()->ticks + SPIN_DEADLINE_TICKS;

	while (s->count < SPIN_TARGET || *s->other < SPIN_TARGET) {
		s->count++;
		if (this_cpu()->ticks > deadline) {
			s->gave_up = true;
			return;
		}
	}
}

static void cpu_bound_threads_share_a_cpu(struct ktest *t)
{
	struct spinner a = { 0 }, b = { 0 };
	u32 cpu = other_cpu();

	if (!hz)
		KTEST_SKIP(t, "no timer tick");
	a.other = &b.count;
	b.other = &a.count;
	struct thread *ta = thread_create("spin-a", spin_until_both_progress, &a, cpu);
	struct thread *tb = thread_create("spin-b", spin_until_both_progress, &b, cpu);
	ASSERT_TRUE(t, ta && tb);
	thread_join(ta);
	thread_join(tb);
	EXPECT_FALSE(t, a.gave_up);
	EXPECT_FALSE(t, b.gave_up);
	EXPECT_GE(t, a.count, SPIN_TARGET);
	EXPECT_GE(t, b.count, SPIN_TARGET);
}

/*
 * Ping-pong: each side completes the other's completion, pp->rounds times.
 * Every round is two cross-CPU wakeups, each racing a CPU on its way into
 * hlt. A few thousand rounds are enough to lose a wakeup if one can be
 * lost; under TCG each round costs up to a millisecond on a loaded host,
 * so the count stays small here and the benchmark below measures speed.
 */
#define PINGPONG_ROUNDS 4000

struct pingpong {
	struct completion ping, pong;
	u32 rounds;
	u32 pings, pongs;
};

static void ponger(void *arg)
{
	struct pingpong *pp = arg;

	for (u32 i = 0; i < pp->rounds; i++) {
		wait_for_completion(&pp->ping);
		pp->pongs++;
		complete(&pp->pong);
	}
}

static void pinger(void *arg)
{
	struct pingpong *pp = arg;

	for (u32 i = 0; i < pp->rounds; i++) {
		pp->pings++;
		complete(&pp->ping);
		wait_for_completion(&pp->pong);
	}
}

static void cross_cpu_ping_pong_loses_nothing(struct ktest *t)
{
	static struct pingpong pp;

	completion_init(&pp.ping);
	completion_init(&pp.pong);
	pp.rounds = PINGPONG_ROUNDS;
	pp.pings = pp.pongs = 0;
	struct thread *a = thread_create("pinger", pinger, &pp, smp_processor_id());
	struct thread *b = thread_create("ponger", ponger, &pp, other_cpu());
	ASSERT_TRUE(t, a && b);
	thread_join(a);
	thread_join(b);
	EXPECT_EQ(t, pp.pings, PINGPONG_ROUNDS);
	EXPECT_EQ(t, pp.pongs, PINGPONG_ROUNDS);
	EXPECT_EQ(t, pp.ping.done, 0);
	EXPECT_EQ(t, pp.pong.done, 0);
}

/* A mutex keeps a read-modify-write whole while threads on all CPUs race. */
struct counted {
	struct mutex lock;
	u64 value;
};

#define MUTEX_ROUNDS 5000

static void bump_under_mutex(void *arg)
{
	struct counted *c = arg;

	for (u32 i = 0; i < MUTEX_ROUNDS; i++) {
		mutex_lock(&c->lock);
		u64 v = c->value;
		if (i % 64 == 0)
			yield();        /* invite another thread into the critical section */
		c->value = v + 1;
		mutex_unlock(&c->lock);
	}
}

static void mutex_guards_a_counter(struct ktest *t)
{
	static struct counted c;
	struct thread *th[6];

	mutex_init(&c.lock, "test");
	c.value = 0;
	for (u32 i = 0; i < ARRAY_SIZE(th); i++) {
		th[i] = thread_create("bumper", bump_under_mutex, &c, SCHED_ANY_CPU);
		ASSERT_TRUE(t, th[i] != NULL);
	}
	for (u32 i = 0; i < ARRAY_SIZE(th); i++)
		thread_join(th[i]);
	EXPECT_EQ(t, c.value, ARRAY_SIZE(th) * MUTEX_ROUNDS);
	EXPECT_TRUE(t, c.lock.owner == NULL);
}

struct hop {
	u32 target, before, after;
};

static void hop_cpu(void *arg)
{
	struct hop *h = arg;
	struct cpumask only = { { 0 } };

	h->before = smp_processor_id();
	cpumask_set(&only, h->target);
	thread_set_affinity(current_thread(), &only);
	h->after = smp_processor_id();
}

static void affinity_change_migrates_the_thread(struct ktest *t)
{
	u32 home = smp_processor_id();  /* where the hopper starts (main itself may move) */
	struct hop h = { .target = other_cpu() };
	struct thread *th;

	if (h.target == home)
		KTEST_SKIP(t, "one CPU");
	th = thread_create("hopper", hop_cpu, &h, home);
	ASSERT_TRUE(t, th != NULL);
	thread_join(th);
	EXPECT_EQ(t, h.before, home);
	EXPECT_EQ(t, h.after, h.target);
}

/* Threads queued on one CPU get pulled by idle CPUs. */
static volatile u32 seen_cpus_mask;

static void note_cpu_and_spin(void *arg)
{
	u64 until = ktime_ns() + 20 * 1000 * 1000;      /* 20 ms of work */

	__atomic_fetch_or(&seen_cpus_mask, 1u << (raw_smp_processor_id() % 32), __ATOMIC_RELAXED);
	while (ktime_ns() < until)
		cpu_relax();
}

static void idle_cpus_pull_work(struct ktest *t)
{
	struct thread *th[8];
	struct cpumask all = { { 0 } };

	if (nr_cpus_online < 2)
		KTEST_SKIP(t, "one CPU");
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		cpumask_set(&all, cpu);
	seen_cpus_mask = 0;
	preempt_disable();      /* queue them all before any can run */
	for (u32 i = 0; i < ARRAY_SIZE(th); i++) {
		th[i] = thread_create("worker", note_cpu_and_spin, NULL, smp_processor_id());
		ASSERT_TRUE(t, th[i] != NULL);
		th[i]->affinity = all;  /* born on this CPU, free to move */
	}
	preempt_enable();
	for (u32 i = 0; i < ARRAY_SIZE(th); i++)
		thread_join(th[i]);
	u32 cpus = 0;
	for (u32 m = seen_cpus_mask; m; m &= m - 1)
		cpus++;
	EXPECT_GE(t, cpus, 2);
}

/*
 * Three completions delivered back to back wake three sleeping waiters:
 * none is lost when the count was already above zero (a wakeup only on the
 * count's 0 -> 1 step would strand two of them).
 */
struct waiters {
	struct completion done;
	u32 woke;
};

static void completion_waiter(void *arg)
{
	struct waiters *w = arg;

	wait_for_completion(&w->done);
	__atomic_fetch_add(&w->woke, 1, __ATOMIC_RELEASE);
}

static u32 sleeping(struct waitqueue *wq)
{
	u64 flags = spin_lock_irqsave(&wq->lock);
	u32 n = 0;

	for (struct list_head *l = wq->waiters.next; l != &wq->waiters; l = l->next)
		n++;
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

static void every_completion_wakes_a_waiter(struct ktest *t)
{
	static struct waiters w;
	struct thread *th[3];
	u32 woke;

	completion_init(&w.done);
	w.woke = 0;
	for (u32 i = 0; i < ARRAY_SIZE(th); i++)
		th[i] = thread_create("waiter", completion_waiter, &w, SCHED_ANY_CPU);
	for (u32 tries = 0; sleeping(&w.done.wq) < ARRAY_SIZE(th) && tries < 2000; tries++)
		msleep(1);
	ASSERT_EQ(t, sleeping(&w.done.wq), ARRAY_SIZE(th));
	u64 flags = irq_save();
	for (u32 i = 0; i < ARRAY_SIZE(th); i++)
		complete(&w.done);
	irq_restore(flags);
	for (u32 tries = 0; __atomic_load_n(&w.woke, __ATOMIC_ACQUIRE) < ARRAY_SIZE(th) &&
	     tries < 2000; tries++)
		msleep(1);
	woke = __atomic_load_n(&w.woke, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&w.woke, __ATOMIC_ACQUIRE) < ARRAY_SIZE(th)) {
		wake_up_all(&w.done.wq);        /* free the stranded, so they can be joined */
		msleep(1);
	}
	for (u32 i = 0; i < ARRAY_SIZE(th); i++)
		thread_join(th[i]);
	EXPECT_EQ(t, woke, ARRAY_SIZE(th));
}

/* A timed wait ends by its timeout when nothing comes, and at once when something does. */
static void late_completer(void *arg)
{
	msleep(5);
	complete(arg);
}

static void completion_wait_times_out(struct ktest *t)
{
	static struct completion c;

	completion_init(&c);
	u64 start = ktime_ns();
	EXPECT_FALSE(t, wait_for_completion_timeout(&c, 20UL * 1000 * 1000));
	EXPECT_GE(t, ktime_ns() - start, 20UL * 1000 * 1000);
	struct thread *th = thread_create("completer", late_completer, &c, other_cpu());
	ASSERT_TRUE(t, th != NULL);
	EXPECT_TRUE(t, wait_for_completion_timeout(&c, 5000UL * 1000 * 1000));
	thread_join(th);
	EXPECT_EQ(t, c.done, 0);        /* the one completion was taken, once */
}

/*
 * A thread of the lowest priority (ksoftirqd's) woken on a busy CPU waits
 * for the running thread's slice to end or for it to yield; 2.6.14's
 * nice 19 threads did not preempt either. Woken on an idle CPU it runs.
 */
struct lowest_wakeup {
	struct completion go;
	volatile bool ran;
	bool ran_during_spin;
};

static void lowest_thread(void *arg)
{
	struct lowest_wakeup *w = arg;

	wait_for_completion(&w->go);
	w->ran = true;
}

static void busy_waker(void *arg)
{
	struct lowest_wakeup *w = arg;
	u64 until = ktime_ns() + 20 * 1000000ULL;      /* well inside a 100 ms slice */

	complete(&w->go);               /* a local wakeup on a busy CPU */
	while (ktime_ns() < until)
		cpu_relax();            /* interrupts on: a preemption would come now */
	w->ran_during_spin = w->ran;
}

static void a_lowest_priority_wakeup_does_not_preempt(struct ktest *t)
{
	static struct lowest_wakeup w;
	u32 cpu = nr_cpus - 1;

	w = (struct lowest_wakeup){ 0 };
	completion_init(&w.go);
	struct thread *low = thread_create_lowest("lowest", lowest_thread, &w, cpu);
	ASSERT_TRUE(t, low);
	msleep(20);                     /* it runs on the idle CPU and waits */
	struct thread *busy = thread_create("busy", busy_waker, &w, cpu);
	if (busy)
		thread_join(busy);
	thread_join(low);
	EXPECT_TRUE(t, busy);
	EXPECT_FALSE(t, w.ran_during_spin);
	EXPECT_TRUE(t, w.ran);
}

struct long_slice {
	struct completion started;
	volatile bool done;
	u64 switches_during_spin;
};

static void highest_spinner(void *arg)
{
	struct long_slice *l = arg;
	u64 switches = current_thread()->switches;
	u64 until = ktime_ns() + 300 * 1000000ULL;     /* three normal slices */

	complete(&l->started);
	while (ktime_ns() < until)
		cpu_relax();            /* interrupts on: a slice's end would switch now */
	l->switches_during_spin = current_thread()->switches - switches;
	l->done = true;
}

static void waiting_competitor(void *arg)
{
	struct long_slice *l = arg;

	while (!l->done)
		cpu_relax();
}

/*
 * A thread made by thread_create_highest() keeps its CPU for 800 ms slices
 * (2.6.14's nice -20): spinning 300 ms with another thread runnable on its
 * CPU, it is not switched out once; a normal thread would be, about every
 * 100 ms.
 */
static void a_highest_priority_thread_keeps_its_cpu_for_800_ms(struct ktest *t)
{
	static struct long_slice l;
	u32 cpu = MAX_CPUS;

	for (u32 c = 0; c < nr_cpus && cpu == MAX_CPUS; c++)
		if (c != smp_processor_id() && percpu[c].online)
			cpu = c;
	if (cpu == MAX_CPUS)
		KTEST_SKIP(t, "one CPU");
	l = (struct long_slice){ .done = false };
	completion_init(&l.started);
	struct thread *high = thread_create_highest("highest", highest_spinner, &l, cpu);
	ASSERT_TRUE(t, high);
	wait_for_completion(&l.started);
	struct thread *other = thread_create("competitor", waiting_competitor, &l, cpu);
	thread_join(high);
	if (other)
		thread_join(other);
	EXPECT_TRUE(t, other);
	EXPECT_EQ(t, l.switches_during_spin, 0);
}

static const struct ktest_case sched_cases[] = {
	KTEST(a_lowest_priority_wakeup_does_not_preempt),
	KTEST(a_highest_priority_thread_keeps_its_cpu_for_800_ms),
	KTEST(threads_run_and_are_joined),
	KTEST(every_online_cpu_runs_a_thread),
	KTEST(cpu_bound_threads_share_a_cpu),
	KTEST(cross_cpu_ping_pong_loses_nothing),
	KTEST(mutex_guards_a_counter),
	KTEST(every_completion_wakes_a_waiter),
	KTEST(completion_wait_times_out),
	KTEST(affinity_change_migrates_the_thread),
	KTEST(idle_cpus_pull_work),
	{},
};
KTEST_SUITE(sched, sched_cases);

/* Manual: sleeping with a spinlock held must be caught (test=sched_bug). */
static void schedule_with_a_spinlock_held(struct ktest *t)
{
	static struct spinlock l = SPINLOCK_INIT("held across schedule");

	spin_lock(&l);
	schedule();             /* panics: scheduling while atomic */
	spin_unlock(&l);
	t->status = KTEST_FAIL;
}

static const struct ktest_case sched_bug_cases[] = {
	KTEST(schedule_with_a_spinlock_held),
	{},
};
KTEST_SUITE_MANUAL(sched_bug, sched_bug_cases);

/* Manual: taking a spinlock this CPU already holds is caught, not a silent hang (test=spinlock_bug). */
static void take_a_spinlock_twice(struct ktest *t)
{
	static struct spinlock l = SPINLOCK_INIT("taken twice");

	spin_lock(&l);
	spin_lock(&l);          /* panics: spinlock recursion */
	spin_unlock(&l);
	spin_unlock(&l);
	t->status = KTEST_FAIL;
}

static const struct ktest_case spinlock_bug_cases[] = {
	KTEST(take_a_spinlock_twice),
	{},
};
KTEST_SUITE_MANUAL(spinlock_bug, spinlock_bug_cases);

/* --- benchmarks ---------------------------------------------------------- */

#define BENCH_ROUNDS 5000         /* per timed run: bench.h's warm-up and runs repeat it */

static void yielder(void *arg)
{
	for (u32 i = 0; i < BENCH_ROUNDS; i++)
		yield();
}

/* Two threads yielding to each other on one CPU: each yield is one switch. */
static u64 context_switch_pass(void *unused)
{
	u32 cpu = other_cpu();
	u64 start = ktime_ns();
	struct thread *x = thread_create("yield-a", yielder, NULL, cpu);
	struct thread *y = thread_create("yield-b", yielder, NULL, cpu);

	if (x)
		thread_join(x);
	if (y)
		thread_join(y);
	return x && y ? (ktime_ns() - start) * 1000 / (2 * BENCH_ROUNDS) : 0;
}

static void bench_context_switch(const struct bench *b)
{
	struct bench_runs r = { 0 };

	bench_time_passes(&r, context_switch_pass, NULL);
	bench_report_runs(b, "", &r, "ns");
}
BENCH(context_switch, bench_context_switch);

/* A completion round trip between two CPUs is two wakeups. */
static u64 wakeup_pass(void *unused)
{
	static struct pingpong pp;
	u64 start;

	completion_init(&pp.ping);
	completion_init(&pp.pong);
	pp.rounds = BENCH_ROUNDS;
	start = ktime_ns();
	struct thread *a = thread_create("pinger", pinger, &pp, smp_processor_id());
	struct thread *c = thread_create("ponger", ponger, &pp, other_cpu());
	if (!a || !c)
		return 0;
	thread_join(a);
	thread_join(c);
	return (ktime_ns() - start) * 1000 / (2 * BENCH_ROUNDS);
}

static void bench_wakeup(const struct bench *b)
{
	struct bench_runs r = { 0 };

	bench_time_passes(&r, wakeup_pass, NULL);
	bench_report_runs(b, "_cross_cpu", &r, "ns");
}
BENCH(wakeup, bench_wakeup);

static void nothing(void *arg)
{
}

static u64 ipi_pass(void *unused)
{
	u32 cpu = other_cpu();
	u64 start = ktime_ns();

	for (u32 i = 0; i < BENCH_ROUNDS; i++)
		smp_call_function(cpu, nothing, NULL, true);
	return (ktime_ns() - start) * 1000 / BENCH_ROUNDS;
}

static void bench_ipi(const struct bench *b)
{
	struct bench_runs r = { 0 };

	bench_time_passes(&r, ipi_pass, NULL);
	bench_report_runs(b, "_roundtrip", &r, "ns");
}
BENCH(ipi, bench_ipi);
