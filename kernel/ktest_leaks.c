// SPDX-License-Identifier: MIT
/*
 * ktest_leaks.c - what the kernel does around its tests: each test suite
 * gives back what it took, and each case runs on one CPU.
 *
 * The test runner (ktest.c) calls leaks_before() ahead of a suite and
 * leaks_after() as the suite's last case, leaks_nothing. Both first wait
 * for every RCU callback queued so far (rcu_barrier()), since a closed file
 * or a freed object is only given back by its callback, then empty every
 * CPU's slab magazines (slab_drain_all()), since a freed object waiting in
 * one keeps its slab's pages. Then they count:
 *
 *   swiotlb slabs in use          every mapping unmapped
 *   open files (nr_files)         every file closed and freed
 *   each CPU's callback queue     nothing queued that never ran
 *   each slab cache's objects     every object freed (a cache the suite
 *                                 made must be empty or destroyed)
 *   device interrupt vectors      every vector allocated given back
 *   failed debug checks           none (debug=on: debug.h)
 *   each node's free pages        every page back (every CPU's per-CPU page
 *                                 lists drained first), counting the pages the
 *                                 vm keeps for good (freed stacks stay mapped
 *                                 for the next thread; page tables stay)
 *
 * A difference fails leaks_nothing with one line per resource. The counts
 * are of the whole machine, so a suite must not leave threads running that
 * take or give back any of these after it ends.
 */
#include "ktest.h"
#include "debug.h"
#include "mm.h"
#include "numa.h"
#include "page_alloc.h"
#include "percpu.h"
#include "rcu.h"
#include "sched.h"
#include "slab.h"
#include "swiotlb.h"
#include "trap.h"
#include "vfs.h"
#include "vm.h"

#define LEAK_CACHES 64          /* slab caches compared; more are counted, not compared */

struct resources {
	u32 swiotlb_slabs;
	u64 open_files;
	u32 vectors;
	u64 debug_failures;
	u64 qlen[MAX_CPUS];
	u32 ncaches;
	struct kmem_cache *cache[LEAK_CACHES];
	u64 inuse[LEAK_CACHES];
	u64 slabs[LEAK_CACHES], cached[LEAK_CACHES];    /* to say where pages went */
	u64 pages[MAX_NODES];   /* free, plus kept by the vm */
	u64 kept[MAX_NODES];
};

static struct resources before, after;

static u64 node_pages(u32 node)
{
	u64 pages = vm_pages_kept((int)node);

	for (int zone = 0; zone < NR_ZONES; zone++)
		pages += nr_free_pages((int)node, zone);
	return pages;
}

static void take(struct resources *r)
{
	struct swiotlb_stats st;

	rcu_barrier();
	slab_drain_all();       /* first: a drained magazine may give slabs' pages back */
	mm_drain_pcp_all();     /* pages on per-CPU lists back in the zones: the counts are exact */
	swiotlb_get_stats(&st);
	r->swiotlb_slabs = st.used_slabs;
	r->open_files = vfs_open_files();
	r->vectors = trap_vectors_in_use();
	r->debug_failures = debug_failures();
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		r->qlen[cpu] = rcu_qlen(cpu);
	r->ncaches = MIN(slab_caches(r->cache, LEAK_CACHES), (u32)LEAK_CACHES);
	for (u32 i = 0; i < r->ncaches; i++) {
		struct kmem_cache_stats st;

		kmem_cache_get_stats(r->cache[i], &st);
		r->inuse[i] = st.in_use;
		r->slabs[i] = st.slabs;
		r->cached[i] = st.cached;
	}
	for (u32 node = 0; node < numa.nr_nodes; node++) {
		r->pages[node] = node_pages(node);
		r->kept[node] = vm_pages_kept((int)node);
	}
}

/* The index of cache in before's list, or -1 if it is new. */
static int index_before(const struct kmem_cache *cache)
{
	for (u32 i = 0; i < before.ncaches; i++)
		if (before.cache[i] == cache)
			return (int)i;
	return -1;
}

/*
 * Pages missing or extra: say what else moved, so that a failure in a log
 * names a suspect (the vm's kept pages, a cache's slabs, objects still in a
 * magazine after the drain).
 */
static void explain_pages(struct ktest *t, u32 node)
{
	ktest_log(t, "node %u: %llu pages kept by the vm, %llu before", node, after.kept[node],
		  before.kept[node]);
	for (u32 i = 0; i < after.ncaches; i++) {
		int b = index_before(after.cache[i]);
		u64 slabs = b < 0 ? 0 : before.slabs[b];

		if (after.slabs[i] != slabs || after.cached[i])
			ktest_log(t, "slab cache %s: %llu slabs of %u pages, %llu before; %llu objects "
				  "cached after the drain", after.cache[i]->name, after.slabs[i],
				  1u << after.cache[i]->order, slabs, after.cached[i]);
	}
}

static void leaks_before(void)
{
	take(&before);
}

/* The objects cache had in use before the suite; 0 if it is new. */
static u64 inuse_before(const struct kmem_cache *cache)
{
	int i = index_before(cache);

	return i < 0 ? 0 : before.inuse[i];
}

static void leaks_after(struct ktest *t)
{
	take(&after);
	EXPECT_EQ(t, after.swiotlb_slabs, before.swiotlb_slabs);
	EXPECT_EQ(t, after.open_files, before.open_files);
	EXPECT_EQ(t, after.vectors, before.vectors);
	if (after.debug_failures != before.debug_failures)
		ktest_fail(t, __FILE__, __LINE__, "%llu debug checks failed during the suite (the log "
			   "has \"debug:\" lines)", after.debug_failures - before.debug_failures);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (after.qlen[cpu] != before.qlen[cpu])
			ktest_fail(t, __FILE__, __LINE__, "cpu %u: %llu RCU callbacks queued, %llu before",
				   cpu, after.qlen[cpu], before.qlen[cpu]);
	for (u32 i = 0; i < after.ncaches; i++) {
		u64 was = inuse_before(after.cache[i]);
		if (after.inuse[i] != was)
			ktest_fail(t, __FILE__, __LINE__, "slab cache %s: %llu objects in use, %llu before",
				   after.cache[i]->name, after.inuse[i], was);
	}
	for (u32 node = 0; node < numa.nr_nodes; node++)
		if (after.pages[node] != before.pages[node]) {
			ktest_fail(t, __FILE__, __LINE__, "node %u: %llu pages free or kept, %llu before",
				   node, after.pages[node], before.pages[node]);
			explain_pages(t, node);
		}
}

/*
 * Each case stays on the CPU it starts on, unless it moves itself: a test
 * that reads its CPU number (smp_processor_id()) to put a timer there,
 * or to pick another CPU, must not be moved by the scheduler between the
 * read and the use (a console test failed that way: its thread, woken on
 * another CPU, wrote a queue it took for another CPU's). The thread's
 * own affinity is given back after the case.
 */
static struct cpumask case_affinity;

static void case_begin(void)
{
	struct thread *self = current_thread();
	struct cpumask here = { { 0 } };

	case_affinity = self->affinity;
	cpumask_set(&here, raw_smp_processor_id());
	thread_set_affinity(self, &here);
}

static void case_end(void)
{
	thread_set_affinity(current_thread(), &case_affinity);
}

const struct ktest_hooks ktest_kernel_hooks = {
	.before_suite = leaks_before,
	.after_suite = leaks_after,
	.before_case = case_begin,
	.after_case = case_end,
};
