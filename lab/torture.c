// SPDX-License-Identifier: MIT
/*
 * torture.c - readers against a replacing writer (see torture.h).
 *
 * The objects come from a SLAB_POISON cache made for the run and destroyed
 * after it, so a read of a freed object shows as poison, and a run leaves
 * nothing behind. The noise callbacks free small kmalloc blocks.
 */
#include "torture.h"
#include "cmdline.h"
#include "percpu.h"
#include "printk.h"
#include "rcu.h"
#include "sched.h"
#include "slab.h"
#include "time.h"
#include "x86.h"

#define TORTURE_ALIVE   0x600dcafe
#define RETIRED_MAX     64
#define NOISE_EVERY     16              /* a reader queues noise once in this many reads */
#define YIELD_EVERY     16              /* ...and gives its CPU away once in this many */
#define MAX_RUN_NS      (30UL * 1000 * 1000 * 1000)

static u64 torture_seconds;
PARAM_U64("torture", torture_seconds, 0, 86400);

struct torture_obj {
	struct rcu_head rcu;            /* first: the slab's free link may overwrite it */
	u32 magic;                      /* TORTURE_ALIVE; POISON_FREE bytes once freed */
	u32 pipe;
};

static struct kmem_cache *obj_cache;
static struct torture_obj __rcu *current_obj;   /* the writer replaces it; readers read it */
static volatile bool stopping;
static struct torture_result result;

static void count(u64 *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/*
 * Hold the read side: a moment (a delay loop, not a spin-wait: nothing to
 * yield for), or (now and then) across ticks, halted between them. A
 * halt outside the idle thread is no quiescent state, and it costs the
 * host nothing where a PAUSE loop would keep a virtual CPU busy.
 */
static void hold(u64 read)
{
	if (read % TORTURE_LONG_EVERY) {
		for (int i = 0; i < 50; i++)
			__asm__ volatile("" ::: "memory");
		return;
	}
	u64 until = this_cpu()->ticks + TORTURE_LONG_TICKS;     /* preemption is off */
	while (this_cpu()->ticks < until && !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE))
		hlt();
	count(&result.long_reads);
}

static void noise_callback(struct rcu_head *head)
{
	kfree(head);
}

static void reader(void *arg)
{
	for (u64 read = 1; !__atomic_load_n(&stopping, __ATOMIC_ACQUIRE); read++) {
		rcu_read_lock();
		struct torture_obj *p = rcu_dereference(current_obj);
		hold(read);
		u32 magic = __atomic_load_n(&p->magic, __ATOMIC_RELAXED);
		u32 pipe = __atomic_load_n(&p->pipe, __ATOMIC_RELAXED);
		rcu_read_unlock();
		count(&result.reads);
		if (magic != TORTURE_ALIVE)
			count(&result.freed_seen);
		else
			count(&result.pipe[MIN(pipe, 3u)]);
		if (read % NOISE_EVERY == 0) {
			struct rcu_head *noise = kmalloc(sizeof(*noise), 0);
			if (noise) {
				call_rcu(noise, noise_callback);
				count(&result.noise);
			}
		}
		/* Now and then give the CPU away, so grace periods (and the writer) move on. */
		if (read % YIELD_EVERY == 0)
			yield();
		else
			cond_resched();
	}
}

static void free_callback(struct rcu_head *head)
{
	kmem_cache_free(obj_cache, container_of(head, struct torture_obj, rcu));
}

struct writer_plan {
	u64 end_ns, give_up_ns, min_gps;
};

static bool writer_done(const struct writer_plan *plan)
{
	u64 now = ktime_ns();

	return now >= plan->give_up_ns || (now >= plan->end_ns && result.grace_periods >= plan->min_gps);
}

static void writer(void *arg)
{
	const struct writer_plan *plan = arg;
	struct torture_obj *retired[RETIRED_MAX];
	u32 nretired = 0;

	while (!writer_done(plan)) {
		struct torture_obj *fresh = kmem_cache_alloc(obj_cache, 0);
		if (!fresh)
			break;
		fresh->magic = TORTURE_ALIVE;
		fresh->pipe = 0;
		struct torture_obj *old = rcu_dereference_protected(current_obj, true /* one writer */);

		rcu_assign_pointer(current_obj, fresh);
		__atomic_store_n(&old->pipe, 1, __ATOMIC_RELEASE);     /* removed */
		result.writes++;
		if (result.writes % 2 || nretired == RETIRED_MAX) {
			call_rcu(&old->rcu, free_callback);
			continue;
		}
		retired[nretired++] = old;
		synchronize_rcu();
		result.grace_periods++;
		/* One more grace period for every retired object; free the old enough. */
		for (u32 i = 0; i < nretired;) {
			u32 pipe = __atomic_add_fetch(&retired[i]->pipe, 1, __ATOMIC_RELEASE);
			if (pipe >= TORTURE_PIPE_LEN) {
				kmem_cache_free(obj_cache, retired[i]);
				retired[i] = retired[--nretired];
			} else {
				i++;
			}
		}
	}
	__atomic_store_n(&stopping, true, __ATOMIC_RELEASE);
	synchronize_rcu();
	for (u32 i = 0; i < nretired; i++)
		kmem_cache_free(obj_cache, retired[i]);
}

static void print_result(const struct torture_result *r)
{
	printk("torture: reads=%llu writes=%llu gps=%llu pipe=%llu,%llu,%llu,%llu freed_seen=%llu "
	       "errors=%llu leaked=%llu\n", r->reads, r->writes, r->grace_periods,
	       r->pipe[0], r->pipe[1], r->pipe[2], r->pipe[3], r->freed_seen, r->errors,
	       r->leaked);
}

void torture_run(u64 ms, u64 min_gps, struct torture_result *r)
{
	static struct thread *readers[MAX_CPUS];
	u64 now = ktime_ns();
	struct writer_plan plan = { .end_ns = now + ms * 1000000, .give_up_ns = now + MAX_RUN_NS,
				    .min_gps = min_gps };

	obj_cache = kmem_cache_create("torture", sizeof(struct torture_obj), 8, SLAB_POISON);
	result = (struct torture_result){ 0 };
	stopping = false;
	struct torture_obj *first = obj_cache ? kmem_cache_alloc(obj_cache, 0) : NULL;

	if (!first) {
		pr_err("torture: no memory for the first object\n");
		*r = (struct torture_result){ .errors = 1 };
		kmem_cache_destroy(obj_cache);
		return;
	}
	first->magic = TORTURE_ALIVE;
	first->pipe = 0;
	rcu_assign_pointer(current_obj, first);         /* no reader runs yet */
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		readers[cpu] = percpu[cpu].online ? thread_create("torture-reader", reader, NULL, cpu) : NULL;
	struct thread *w = thread_create("torture-writer", writer, &plan, SCHED_ANY_CPU);
	if (w)
		thread_join(w);
	else
		stopping = true;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (readers[cpu])
			thread_join(readers[cpu]);
	kmem_cache_free(obj_cache, rcu_dereference_protected(current_obj, true /* all joined */));
	rcu_barrier();
	result.leaked = kmem_cache_in_use(obj_cache);
	result.errors = result.pipe[2] + result.pipe[3] + result.freed_seen + obj_cache->poison_errors;
	if (!result.leaked)
		kmem_cache_destroy(obj_cache);
	obj_cache = NULL;
	*r = result;
	print_result(r);
}

void torture_boot(void)
{
	struct torture_result r;

	if (torture_seconds)
		torture_run(torture_seconds * 1000, 0, &r);
}
