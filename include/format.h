/* SPDX-License-Identifier: MIT */
/*
 * format.h - printf-style formatting into a buffer, and small text helpers.
 *
 * Pure code: no console, no locks, no globals, so kernel/format.c builds for
 * the host unit tests (tests/host/format_test.c) as well as for the kernel.
 */
#ifndef FORMAT_H
#define FORMAT_H

#include <stdarg.h>
#include "types.h"

/*
 * C99 vsnprintf: writes at most size bytes including the NUL (nothing when
 * size is 0) and returns the length the full output would have had.
 * Conversions: %d %i %u %x %X %o %c %s %p %%, flags "-0+ #", width and
 * precision (numbers or '*'), length modifiers hh h l ll z t j.
 * %p prints 0x and 16 hex digits. An unknown conversion is printed as is.
 */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/*
 * Copy at most size-1 bytes of src into dst and NUL-terminate (size > 0).
 * Returns strlen(src): truncation happened when the result is >= size.
 */
size_t kstrlcpy(char *dst, const char *src, size_t size);

/*
 * Walk a comma-separated list of names: start with *cursor pointing at the
 * list; each call sets *item and *len to the next non-empty name and
 * returns true, false at the end ("a,,b" gives a, then b).
 */
bool list_next(const char **cursor, const char **item, size_t *len);

/*
 * Build a list of words separated by blanks in buf (size bytes): start
 * with words_start(), then words_add() each word; a word that does not
 * fit is cut at the buffer's end, as snprintf() cuts, and words_add()
 * returns false from then on: the list is full.
 */
struct words {
	char *buf;
	size_t size, used;              /* used may pass size: the list was cut */
};

static inline struct words words_start(char *buf, size_t size)
{
	if (size)
		buf[0] = '\0';
	return (struct words){ buf, size, 0 };
}

bool words_add(struct words *w, const char *word, size_t len);

#endif
