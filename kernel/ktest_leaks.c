// SPDX-License-Identifier: MIT
/*
 * ktest_leaks.c - each test suite gives back what it took.
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
#include "mm.h"
#include "numa.h"
#include "page_alloc.h"
#include "percpu.h"
#include "rcu.h"
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

const struct ktest_leak_check ktest_leaks = {
	.before = leaks_before,
	.after = leaks_after,
};
