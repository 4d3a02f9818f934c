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
 */
#include "vfs.h"
#include "cmdline.h"
#include "kstring.h"
#include "printk.h"
#include "slab.h"
#include "time.h"

static u64 max_files = 50044;
PARAM_U64("maxfiles", max_files, 1, 100000000);

static int count_mode = VFS_COUNT_SLAB;
PARAM_CHOICE("vfs.count", count_mode, "slab", "late", "early");
BUILD_BUG_ON(VFS_COUNT_SLAB != 0 || VFS_COUNT_LATE != 1 || VFS_COUNT_EARLY != 2);

static struct kmem_cache *file_cache;
static u64 nr_files;
static u64 peak_nr_files;
static u64 last_warning_ns;

#define WARN_INTERVAL_NS (1000UL * 1000 * 1000)    /* "VFS: file-max" at most once a second */

void vfs_init(void)
{
	file_cache = kmem_cache_create("filp", sizeof(struct file), 8, 0);
}

static void note_peak(u64 n)
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

struct file *file_open(const char *path, int *err)
{
	struct file *f;

	if (strcmp(path, "/dev/null")) {
		*err = -ENOENT;
		return NULL;
	}
	if (vfs_nr_files() >= max_files) {
		warn_limit();
		*err = -ENFILE;
		return NULL;
	}
	f = kmem_cache_alloc(file_cache, 0);
	if (!f) {
		*err = -ENFILE;
		return NULL;
	}
	u64 n = __atomic_add_fetch(&nr_files, 1, __ATOMIC_RELAXED);
	note_peak(count_mode == VFS_COUNT_SLAB ? vfs_nr_files() : n);
	f->path = "/dev/null";
	f->flags = 0;
	return f;
}

static void file_free_rcu(struct rcu_head *head)
{
	struct file *f = container_of(head, struct file, rcu);

	if (count_mode != VFS_COUNT_EARLY)
		__atomic_sub_fetch(&nr_files, 1, __ATOMIC_RELAXED);
	kmem_cache_free(file_cache, f);
}

void file_close(struct file *f)
{
	if (count_mode == VFS_COUNT_EARLY)
		__atomic_sub_fetch(&nr_files, 1, __ATOMIC_RELAXED);
	call_rcu(&f->rcu, file_free_rcu);
}

void file_close_now(struct file *f)
{
	__atomic_sub_fetch(&nr_files, 1, __ATOMIC_RELAXED);
	kmem_cache_free(file_cache, f);
}

u64 vfs_nr_files(void)
{
	if (count_mode == VFS_COUNT_SLAB)
		return __atomic_load_n(&file_cache->nr_slabs, __ATOMIC_RELAXED) *
		       file_cache->objs_per_slab;
	return __atomic_load_n(&nr_files, __ATOMIC_RELAXED);
}

u64 vfs_open_files(void)
{
	return __atomic_load_n(&nr_files, __ATOMIC_RELAXED);
}

u64 vfs_max_files(void)
{
	return max_files;
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
