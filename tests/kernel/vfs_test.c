/*
 * vfs_test.c - what nr_files counts under each vfs.count (see vfs.h).
 *
 * One file opened with nothing else open: 2.6.14's count (slab) is a whole
 * slab's worth of objects, used or not, until the slab goes back (after
 * the CPUs' magazines are drained); late counts the one file until its
 * RCU callback frees it; early stops counting it at close.
 */
#include "ktest.h"
#include "rcu.h"
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

static const struct ktest_case vfs_cases[] = {
	KTEST(each_mode_counts_as_its_kernels_did),
	{},
};
KTEST_SUITE(vfs, vfs_cases);
