/* SPDX-License-Identifier: MIT */
/*
 * vfs.h - the file table of 2.6.14-rc4, just enough of it to hit ENFILE.
 *
 * file_open() takes a struct file from the filp kmem_cache; past max_files
 * in nr_files (maxfiles=, default 50044, the limit of the machine in the
 * 2005 report) it fails with ENFILE and says "VFS: file-max limit N
 * reached". file_close() frees the file through call_rcu(): a closed file
 * is still counted until its callback runs, which is why a fast open/close
 * loop ran out of files. What nr_files counts is vfs.count=:
 *
 *   slab   (default) the objects of the filp cache's slabs, in use or not,
 *          as 2.6.14 and 2.6.15 counted them (filp_ctor/filp_dtor in
 *          fs/file_table.c): the count drops only when a slab goes back
 *   late   files opened and not yet freed by their RCU callback: testbed's
 *          simplification of the same thing, one file at a time (no kernel
 *          counted exactly so)
 *   early  files opened and not yet closed: the count drops at close,
 *          before call_rcu(), as the patch posted in October 2005 did and
 *          as 2.6.16 does ("fix file counting", Dipankar Sarma, February
 *          2006). No ENFILE any more, but the callback queue still grows.
 */
#ifndef VFS_H
#define VFS_H

#include "errno.h"
#include "rcu.h"
#include "types.h"

struct file {
	struct rcu_head rcu;
	const char *path;
	u32 flags;
};

void vfs_init(void);

/* Open path ("/dev/null" is the only file); NULL with *err = -ENFILE or -ENOENT. */
struct file *file_open(const char *path, int *err);
void file_close(struct file *f);

/* Free at once, no RCU: the baseline that shows what RCU costs (benchmarks only). */
void file_close_now(struct file *f);

u64 vfs_nr_files(void);                 /* what ENFILE is decided on (vfs.count) */
u64 vfs_max_files(void);
u64 vfs_set_max_files(u64 max);         /* tests: a limit within reach; returns the old one */
u64 vfs_peak_nr_files(void);
void vfs_reset_peak(void);
u64 vfs_files_in_cache(void);           /* struct file objects handed out by the cache */
enum vfs_count { VFS_COUNT_SLAB, VFS_COUNT_LATE, VFS_COUNT_EARLY };
void vfs_set_count(enum vfs_count mode);
enum vfs_count vfs_count_mode(void);
extern const char *const vfs_count_names[3];
/* Files opened and not yet freed (or, with early, not yet closed), whatever vfs.count says. */
u64 vfs_open_files(void);

#endif
