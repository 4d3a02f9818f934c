// SPDX-License-Identifier: MIT
/*
 * string.c - memcpy and friends for the kernel.
 *
 * The compiler may emit calls to memcpy, memmove, memset and memcmp even in
 * freestanding code (struct copies, zeroing), so these must exist. The copy
 * and fill loops are string instructions, which keeps the code free of SSE:
 * "rep movsq"/"rep stosq" for the whole quadwords, then "rep movsb"/"rep
 * stosb" for the last 0-7 bytes (as Linux's x86-64 memcpy did before
 * ERMSB). On hardware both forms run at full speed (fast strings); under
 * QEMU's TCG, which moves one element per iteration, quadwords copy eight
 * times faster, and the 64 MiB bounce pool is filled in a fraction of the
 * time.
 */
#include "kstring.h"

void *memcpy(void *dst, const void *src, size_t n)
{
	void *ret = dst;
	size_t quads = n >> 3, bytes = n & 7;

	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(quads) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(bytes) : : "memory");
	return ret;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	/* Overlapping with dst above src: copy backwards (DF=1), then restore DF. */
	d += n - 1;
	s += n - 1;
	__asm__ volatile("std; rep movsb; cld" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;
	u64 pattern = 0x0101010101010101ULL * (u8)c;
	size_t quads = n >> 3, bytes = n & 7;

	__asm__ volatile("rep stosq" : "+D"(dst), "+c"(quads) : "a"(pattern) : "memory");
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(bytes) : "a"(pattern) : "memory");
	return ret;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;

	for (size_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] - q[i];
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

	for (size_t i = 0; i < n; i++)
		if (p[i] == (unsigned char)c)
			return (void *)(p + i);
	return NULL;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

__hot int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n > 0; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			break;
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return NULL;
	}
}

char *strstr(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (; *haystack; haystack++)
		if (!strncmp(haystack, needle, n))
			return (char *)haystack;
	return n == 0 ? (char *)haystack : NULL;
}
