// SPDX-License-Identifier: MIT
/*
 * logring.c - the log's ring of bytes (see logring.h).
 *
 * Invariants: buf[i % size] holds byte i for every i in
 * [total - min(total, size), total); dropped_lines counts the '\n' bytes
 * overwritten so far, so "lines kept + dropped_lines" is every line ever
 * ended; last_dropped is byte total - size - 1 once the ring has wrapped.
 */
#include "logring.h"

void logring_put(struct logring *r, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *slot = &r->buf[r->total % r->size];

		if (r->total >= r->size) {
			r->dropped_lines += *slot == '\n';
			r->last_dropped = *slot;
		}
		*slot = s[i];
		r->total++;
	}
}

u64 logring_first(const struct logring *r)
{
	if (r->total <= r->size || r->last_dropped == '\n')
		return r->total - MIN(r->total, (u64)r->size);  /* the oldest byte starts a line */
	/* The oldest byte kept is mid-line: start after the first '\n'. */
	for (u64 i = r->total - r->size; i < r->total; i++)
		if (r->buf[i % r->size] == '\n')
			return i + 1;
	return r->total;                /* one line longer than the ring: nothing whole */
}

size_t logring_copy(const struct logring *r, u64 from, u64 end, char *buf, size_t len,
		    u64 *next)
{
	u64 first = logring_first(r);
	size_t n = 0;

	if (from < first)
		from = first;
	if (end > r->total)
		end = r->total;
	for (; from < end && n < len; from++)
		buf[n++] = r->buf[from % r->size];
	if (next)
		*next = from;
	return n;
}

u64 logring_last_lines(const struct logring *r, u64 lines)
{
	u64 first = logring_first(r), pos = r->total;

	if (!lines)
		return pos;
	if (pos > first && r->buf[(pos - 1) % r->size] == '\n')
		pos--;          /* the last line's own end */
	for (; pos > first; pos--)
		if (r->buf[(pos - 1) % r->size] == '\n' && --lines == 0)
			return pos;     /* just after the end of the line before them */
	return first;
}
