/*
 * vfs.h - the file table of 2.6.14-rc4, just enough of it to hit ENFILE.
 *
 * file_open() takes a struct file from a kmem_cache and counts it in
 * nr_files; past max_files (maxfiles=, default 50044, the limit of the
 * machine in the 2005 report) it fails with ENFILE and says
 * "VFS: file-max limit N reached". file_close() frees the file through
 * call_rcu(), and nr_files drops only when the callback runs, as in
 * 2.6.14-rc4: that is why a fast open/close loop ran out of files.
 * vfs.count=early drops nr_files at close time instead (Linus's other
 * patch): no ENFILE any more, but the callback queue still grows.
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

u64 vfs_nr_files(void);
u64 vfs_max_files(void);
u64 vfs_peak_nr_files(void);
void vfs_reset_peak(void);
u64 vfs_files_in_cache(void);           /* struct file objects handed out by the cache */
void vfs_set_count_early(bool early);

#endif
