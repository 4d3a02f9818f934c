// SPDX-License-Identifier: MIT
/*
 * vfs_test.c - what nr_files counts under each vfs.count (see vfs.h).
 *
 * One file opened with nothing else open: 2.6.14's count (slab) is a whole
 * slab's worth of objects, used or not, until the slab goes back (after
 * the CPUs' magazines are drained); late counts the one file until its
 * RCU callback frees it; early stops counting it at close.
 */
#include "kstring.h"
#include "ktest.h"
#include "percpu.h"
#include "rcu.h"
#include "sched.h"
#include "slab.h"
#include "vfs.h"

static void open_one(struct ktest *t, enum vfs_count mode, u64 *open, u64 *closed)
{
	int err;

	rcu_barrier();
	vfs_set_count(mode);
	struct file *f = file_open("/dev/null", &err);
	if (!f) {
		ktest_fail(t, __FILE__, __LINE__, "file_open: %d", err);
		return;
	}
	*open = vfs_nr_files();
	rcu_read_lock();                /* the callback cannot run before we look */
	file_close(f);
	*closed = vfs_nr_files();
	rcu_read_unlock();
	rcu_barrier();
}

static void each_mode_counts_as_its_kernels_did(struct ktest *t)
{
	enum vfs_count before = vfs_count_mode();
	u64 open, closed;

	rcu_barrier();
	ASSERT_EQ(t, vfs_open_files(), 0);
	open_one(t, VFS_COUNT_SLAB, &open, &closed);
	u64 per_slab = open;
	EXPECT_GT(t, per_slab, 1);                      /* the whole slab */
	EXPECT_EQ(t, closed, per_slab);                 /* closed, still in its slab */
	/* Freed into a CPU's magazine, the object keeps its slab, as 2.6.14's array cache did */
	EXPECT_EQ(t, vfs_nr_files(), per_slab);
	slab_drain_all();
	EXPECT_EQ(t, vfs_nr_files(), 0);                /* drained: the slab went back */
	open_one(t, VFS_COUNT_LATE, &open, &closed);
	EXPECT_EQ(t, open, 1);
	EXPECT_EQ(t, closed, 1);                        /* until the callback */
	open_one(t, VFS_COUNT_EARLY, &open, &closed);
	EXPECT_EQ(t, open, 1);
	EXPECT_EQ(t, closed, 0);                        /* at close */
	vfs_set_count(before);
	slab_drain_all();
	EXPECT_EQ(t, vfs_nr_files(), 0);
	ktest_log(t, "slab counts %llu files per slab", per_slab);
}

/*
 * nr_files is per CPU (vfs.c): every CPU keeps a delta and folds it into
 * the shared count a batch at a time. Every CPU opens more files than a
 * batch and keeps them: the count seen outside file_open() is exact.
 */
#define FILES_PER_CPU 100               /* three folds and a remainder on each CPU */

struct opener {
	struct file *files[FILES_PER_CPU];
	u32 opened;
};

static void open_many(void *arg)
{
	struct opener *o = arg;
	int err;

	for (o->opened = 0; o->opened < FILES_PER_CPU; o->opened++)
		if (!(o->files[o->opened] = file_open("/dev/null", &err)))
			break;
}

static void close_many(void *arg)
{
	struct opener *o = arg;

	while (o->opened)
		file_close_now(o->files[--o->opened]);
}

static void on_each_cpu_wait(void (*fn)(void *), struct opener *o)
{
	static struct thread *threads[MAX_CPUS];

	memset(threads, 0, sizeof(threads));

	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (percpu[cpu].online)
			threads[cpu] = thread_create("opener", fn, &o[cpu], cpu);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		if (threads[cpu])
			thread_join(threads[cpu]);
}

static void the_count_is_exact_with_every_cpu_opening(struct ktest *t)
{
	static struct opener o[MAX_CPUS];
	u64 before, want = 0;

	rcu_barrier();
	before = vfs_open_files();
	memset(o, 0, sizeof(o));
	on_each_cpu_wait(open_many, o);
	for (u32 cpu = 0; cpu < nr_cpus; cpu++)
		want += o[cpu].opened;
	EXPECT_EQ(t, want, (u64)FILES_PER_CPU * nr_cpus_online);
	EXPECT_EQ(t, vfs_open_files(), before + want);
	on_each_cpu_wait(close_many, o);
	EXPECT_EQ(t, vfs_open_files(), before);
	ktest_log(t, "%llu files opened on %u CPUs", want, nr_cpus_online);
}

/* Ten files short of the limit, far less than a batch: only the exact sum sees them. */
static void enfile_comes_at_max_files_exactly(struct ktest *t)
{
	enum vfs_count mode = vfs_count_mode();
	struct file *files[10];
	int err = 0;
	u32 n;

	rcu_barrier();
	vfs_set_count(VFS_COUNT_EARLY);
	u64 old_max = vfs_set_max_files(vfs_open_files() + 10);
	for (n = 0; n < 10; n++)
		if (!(files[n] = file_open("/dev/null", &err)))
			break;
	struct file *over = file_open("/dev/null", &err);
	vfs_set_max_files(old_max);
	EXPECT_EQ(t, n, 10);
	EXPECT_TRUE(t, over == NULL);
	EXPECT_EQ(t, err, -ENFILE);
	if (over)
		file_close_now(over);
	while (n)
		file_close_now(files[--n]);
	vfs_set_count(mode);
}

static const struct ktest_case vfs_cases[] = {
	KTEST(each_mode_counts_as_its_kernels_did),
	KTEST(the_count_is_exact_with_every_cpu_opening),
	KTEST(enfile_comes_at_max_files_exactly),
	{},
};
KTEST_SUITE(vfs, vfs_cases);
