// SPDX-License-Identifier: MIT
/*
 * vfs.c - struct file, nr_files and ENFILE (see vfs.h).
 *
 * What nr_files counts depends on vfs.count (vfs.h has the history):
 *
 *   slab   every object of every slab the filp cache holds, in use or not:
 *          2.6.14's filp_ctor/filp_dtor counted each object as its slab was
 *          made and given back; here that number is read from the cache
 *          (nr_slabs x objs_per_slab). Free files waiting in the CPUs'
 *          magazines keep their slabs and count, as those in 2.6.14's
 *          per-CPU array caches did
 *   late   one atomic counter, raised by file_open(), lowered by the RCU
 *          callback that frees the file
 *   early  the same counter, lowered at close, before call_rcu()
 *
 * The counter is kept in every mode (lowered in the callback unless early),
 * so that tests may switch modes between storms. The check against
 * max_files and the increment are not one step, as in 2.6.14's
 * get_empty_filp(): a few opens racing at the limit may pass it together,
 * which the report's numbers do not care about.
 *
 * The counter is per CPU, as Linux's became with the same patch that
 * counts early (Dipankar Sarma's "Fix file counting", LKML, 16 February
 * 2006: "we use a separate percpu counter, nr_files", after a patch of
 * Eric Dumazet's; 2.6.14 kept files_stat.nr_files under a spinlock,
 * filp_count_lock). Each CPU adds to its own delta, on its own cache
 * line, and folds it into the shared count when it reaches
 * +-NR_FILES_BATCH, so CPUs that open and close do not pass one line back
 * and forth twice an iteration (two CPUs freeing at once each keep more of
 * their rate alone with deltas than with one shared counter: docs/rcu.md).
 *
 * The shared count alone is off by less than NR_FILES_BATCH per running
 * CPU; the exact sum (count plus every delta) is taken where that
 * matters: when the limit may have been reached, as Linux's
 * get_empty_filp() does in later trees ("percpu_counters are inaccurate.
 * Do an expensive check before we go and fail."), and for every reader
 * outside file_open(). The peak is the highest shared count plus the
 * opening CPU's own delta: exact on one CPU and at the limit, otherwise
 * low by less than NR_FILES_BATCH per other CPU. A fold adds to the
 * count before it takes from the delta, so a racing exact sum may read up
 * to a batch high, never low.
 */
#include "vfs.h"
#include "cmdline.h"
#include "kstring.h"
#include "percpu.h"
#include "printk.h"
#include "slab.h"
#include "time.h"

static u64 max_files = 50044;
PARAM_U64("maxfiles", max_files, 1, 100000000);

static int count_mode = VFS_COUNT_SLAB;
PARAM_CHOICE("vfs.count", count_mode, "slab", "late", "early");
BUILD_BUG_ON(VFS_COUNT_SLAB != 0 || VFS_COUNT_LATE != 1 || VFS_COUNT_EARLY != 2);

static struct kmem_cache *file_cache;
static u64 peak_nr_files;

#define NR_FILES_BATCH 32               /* a CPU's delta folds into the count at +-this */

/* nr_files, per CPU: the shared count and each CPU's delta, one cache line each. */
static struct {
	s64 count;
} __aligned(64) nr_files;
static struct {
	s64 delta;
} __aligned(64) nr_files_delta[MAX_CPUS];

/* Add v to this CPU's delta, folding it at +-NR_FILES_BATCH; returns the count as this CPU sees it. */
__hot static s64 nr_files_add(s64 v)
{
	s64 *mine = &nr_files_delta[smp_processor_id()].delta;
	/* Atomic on the own line: an interrupt (the RCU callback) or a migration cannot tear it. */
	s64 d = __atomic_add_fetch(mine, v, __ATOMIC_RELAXED);

	if (d >= NR_FILES_BATCH || d <= -NR_FILES_BATCH) {
		s64 count = __atomic_add_fetch(&nr_files.count, d, __ATOMIC_RELAXED);

		__atomic_sub_fetch(mine, d, __ATOMIC_RELAXED);
		return count;
	}
	return __atomic_load_n(&nr_files.count, __ATOMIC_RELAXED) + d;
}

/* The shared count alone, and the most it can be below the exact sum. */
static s64 nr_files_approx(void)
{
	return __atomic_load_n(&nr_files.count, __ATOMIC_RELAXED);
}

static s64 nr_files_slack(void)
{
	return (s64)(NR_FILES_BATCH - 1) * MAX(nr_cpus_online, 1u);    /* only a running CPU has a delta */
}

/* The count plus every CPU's delta; never below 0. */
static u64 nr_files_exact(void)
{
	s64 sum = nr_files_approx();

	for (u32 cpu = 0; cpu < MAX(nr_cpus, 1u) && cpu < MAX_CPUS; cpu++)
		sum += __atomic_load_n(&nr_files_delta[cpu].delta, __ATOMIC_RELAXED);
	return sum > 0 ? (u64)sum : 0;
}

/* Whether nr_files (late, early) has reached max_files: exact only when it may have. */
__hot static bool nr_files_at_limit(void)
{
	if (nr_files_approx() + nr_files_slack() < (s64)max_files)
		return false;
	return nr_files_exact() >= max_files;
}

static u64 last_warning_ns;

#define WARN_INTERVAL_NS (1000UL * 1000 * 1000)    /* "VFS: file-max" at most once a second */

void vfs_init(void)
{
	file_cache = kmem_cache_create("filp", sizeof(struct file), 8, 0);
}

__hot static void note_peak(u64 n)
{
	u64 peak = __atomic_load_n(&peak_nr_files, __ATOMIC_RELAXED);

	while (n > peak && !__atomic_compare_exchange_n(&peak_nr_files, &peak, n, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void warn_limit(void)
{
	u64 now = ktime_ns(), last = __atomic_load_n(&last_warning_ns, __ATOMIC_RELAXED);

	if ((last && now - last < WARN_INTERVAL_NS) ||
	    !__atomic_compare_exchange_n(&last_warning_ns, &last, now ? now : 1, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	printk(KERN_WARNING "VFS: file-max limit %llu reached\n", max_files);
}

__hot struct file *file_open(const char *path, int *err)
{
	struct file *f;

	if (strcmp(path, "/dev/null")) {
		*err = -ENOENT;
		return NULL;
	}
	if (count_mode == VFS_COUNT_SLAB ? vfs_nr_files() >= max_files : nr_files_at_limit()) {
		warn_limit();
		*err = -ENFILE;
		return NULL;
	}
	f = kmem_cache_alloc(file_cache, 0);
	if (!f) {
		*err = -ENFILE;
		return NULL;
	}
	s64 seen = nr_files_add(1);

	if (count_mode == VFS_COUNT_SLAB) {
		note_peak(vfs_nr_files());
	} else {
		/* Near the limit the peak is exact, as ENFILE's check is. */
		note_peak(seen + nr_files_slack() >= (s64)max_files ? nr_files_exact() :
			  seen > 0 ? (u64)seen : 0);
	}
	f->path = "/dev/null";
	f->flags = 0;
	return f;
}

/* The files of a callback pass, freed together; each counted free once its memory is. */
__hot_batch static void file_free_bulk(void **files, u32 n)
{
	kmem_cache_free_bulk(file_cache, n, files);
	if (count_mode != VFS_COUNT_EARLY)
		nr_files_add(-(s64)n);
}

__hot_batch static void file_free_rcu(struct rcu_head *head)
{
	rcu_free_bulk(file_free_bulk, container_of(head, struct file, rcu));
}

__hot void file_close(struct file *f)
{
	if (count_mode == VFS_COUNT_EARLY)
		nr_files_add(-1);
	call_rcu(&f->rcu, file_free_rcu);
}

__hot void file_close_now(struct file *f)
{
	nr_files_add(-1);
	kmem_cache_free(file_cache, f);
}

__hot u64 vfs_nr_files(void)
{
	if (count_mode == VFS_COUNT_SLAB)
		return __atomic_load_n(&file_cache->nr_slabs, __ATOMIC_RELAXED) *
		       file_cache->objs_per_slab;
	return nr_files_exact();
}

u64 vfs_open_files(void)
{
	return nr_files_exact();
}

u64 vfs_max_files(void)
{
	return max_files;
}

u64 vfs_set_max_files(u64 max)
{
	u64 old = max_files;

	max_files = max;
	return old;
}

u64 vfs_peak_nr_files(void)
{
	return peak_nr_files;
}

void vfs_reset_peak(void)
{
	peak_nr_files = vfs_nr_files();
}

u64 vfs_files_in_cache(void)
{
	return kmem_cache_in_use(file_cache);
}

void vfs_set_count(enum vfs_count mode)
{
	count_mode = mode;
}

enum vfs_count vfs_count_mode(void)
{
	return (enum vfs_count)count_mode;
}

const char *const vfs_count_names[3] = { "slab", "late", "early" };
