/* SPDX-License-Identifier: MIT */
/*
 * logring.h - the kernel log's ring of bytes, and how much of it was lost.
 *
 * printk keeps every byte it logs in one ring (kernel/printk.c); dmesg and
 * the framebuffer's scroll-back read it back. The ring keeps the newest
 * `size` bytes ever written. When it wraps, the oldest bytes go: a line
 * whose '\n' is overwritten counts as dropped, and readers start at the
 * first whole line kept, so they never show half a line.
 *
 *   total bytes ever put:  |--- dropped ---|-partial-|---- whole lines kept ----|
 *                          0             first-?   first                      total
 *
 * Pure logic, no locking (the caller holds printk's lock); host-tested.
 */
#ifndef LOGRING_H
#define LOGRING_H

#include "types.h"

struct logring {
	char *buf;
	size_t size;            /* bytes in buf */
	u64 total;              /* bytes ever put; total % size is the write position */
	u64 dropped_lines;      /* lines whose end was overwritten */
	char last_dropped;      /* the newest byte overwritten: '\n' if the oldest kept starts a line */
};

/* Append n bytes, overwriting (and counting) the oldest when full. */
void logring_put(struct logring *r, const char *s, size_t n);

/* Offset (in bytes ever put) of the oldest whole line kept. */
u64 logring_first(const struct logring *r);

/* Offset of the start of the last `lines` lines (a partial last line counts as one). */
u64 logring_last_lines(const struct logring *r, u64 lines);

/*
 * Copy the kept bytes from offset `from` (clamped to logring_first())
 * up to `end` (clamped to total) into buf, at most len bytes. Returns
 * the number copied; *next (if not NULL) is the offset after them.
 */
size_t logring_copy(const struct logring *r, u64 from, u64 end, char *buf, size_t len,
		    u64 *next);

#endif
