/*
 * torture.c - readers against a replacing writer (see torture.h).
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

#define TORTURE_ALIVE        0x600dcafe
#define RCU_TORTURE_PIPE_LEN 3          /* freed after two grace periods past removal */
#define RETIRED_MAX          64

static u64 torture_seconds;
PARAM_U64("torture", torture_seconds, 0, 86400);

struct torture_obj {
	struct rcu_head rcu;            /* first: the slab's free link may overwrite it */
	u32 magic;                      /* TORTURE_ALIVE; POISON_FREE bytes once freed */
	u32 pipe;
};

static struct kmem_cache *obj_cache;
static struct torture_obj *volatile current_obj;
static volatile bool stopping;
static struct torture_result result;

static void reader(void *arg)
{
	while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		rcu_read_lock();
		struct torture_obj *p = __atomic_load_n(&current_obj, __ATOMIC_ACQUIRE);
		for (int i = 0; i < 50; i++)    /* hold the object a little */
			cpu_relax();
		u32 magic = __atomic_load_n(&p->magic, __ATOMIC_RELAXED);
		u32 pipe = __atomic_load_n(&p->pipe, __ATOMIC_RELAXED);
		rcu_read_unlock();
		__atomic_fetch_add(&result.reads, 1, __ATOMIC_RELAXED);
		if (magic != TORTURE_ALIVE)
			__atomic_fetch_add(&result.freed_seen, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&result.pipe[MIN(pipe, 3u)], 1, __ATOMIC_RELAXED);
		/* Now and then give the CPU away, so grace periods (and the writer) move on. */
		if (result.reads % 256 == 0)
			yield();
		else
			cond_resched();
	}
}

static void free_callback(struct rcu_head *head)
{
	kmem_cache_free(obj_cache, container_of(head, struct torture_obj, rcu));
}

static void writer(void *arg)
{
	u64 end = ktime_ns() + *(u64 *)arg * 1000000;
	struct torture_obj *retired[RETIRED_MAX];
	u32 nretired = 0;

	while (ktime_ns() < end) {
		struct torture_obj *fresh = kmem_cache_alloc(obj_cache, 0);
		if (!fresh)
			break;
		fresh->magic = TORTURE_ALIVE;
		fresh->pipe = 0;
		struct torture_obj *old = __atomic_exchange_n(&current_obj, fresh, __ATOMIC_ACQ_REL);
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
			if (pipe >= RCU_TORTURE_PIPE_LEN) {
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

void torture_run(u64 ms, struct torture_result *r)
{
	static struct thread *readers[MAX_CPUS];

	if (!obj_cache)
		obj_cache = kmem_cache_create("torture", sizeof(struct torture_obj), 8, SLAB_POISON);
	result = (struct torture_result){ 0 };
	stopping = false;
	current_obj = kmem_cache_alloc(obj_cache, 0);
	current_obj->magic = TORTURE_ALIVE;
	current_obj->pipe = 0;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		readers[cpu] = percpu[cpu].online ? thread_create("torture-reader", reader, NULL, cpu) : NULL;
	struct thread *w = thread_create("torture-writer", writer, &ms, SCHED_ANY_CPU);
	if (w)
		thread_join(w);
	else
		stopping = true;
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (readers[cpu])
			thread_join(readers[cpu]);
	kmem_cache_free(obj_cache, current_obj);
	rcu_barrier();
	result.errors = result.pipe[3] + result.freed_seen + obj_cache->poison_errors;
	*r = result;
	printk("torture: reads=%llu writes=%llu gps=%llu pipe=%llu,%llu,%llu,%llu freed_seen=%llu "
	       "errors=%llu leaked=%llu\n", r->reads, r->writes, r->grace_periods,
	       r->pipe[0], r->pipe[1], r->pipe[2], r->pipe[3], r->freed_seen, r->errors,
	       obj_cache->inuse);
}

void torture_boot(void)
{
	struct torture_result r;

	if (torture_seconds)
		torture_run(torture_seconds * 1000, &r);
}
