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
	u64 pages[MAX_NODES];   /* free, plus kept by the vm */
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
	for (u32 i = 0; i < r->ncaches; i++)
		r->inuse[i] = kmem_cache_in_use(r->cache[i]);
	for (u32 node = 0; node < numa.nr_nodes; node++)
		r->pages[node] = node_pages(node);
}

static void leaks_before(void)
{
	take(&before);
}

/* The objects cache had in use before the suite; 0 if it is new. */
static u64 inuse_before(const struct kmem_cache *cache)
{
	for (u32 i = 0; i < before.ncaches; i++)
		if (before.cache[i] == cache)
			return before.inuse[i];
	return 0;
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
		if (after.pages[node] != before.pages[node])
			ktest_fail(t, __FILE__, __LINE__, "node %u: %llu pages free or kept, %llu before",
				   node, after.pages[node], before.pages[node]);
}

const struct ktest_leak_check ktest_leaks = {
	.before = leaks_before,
	.after = leaks_after,
};
