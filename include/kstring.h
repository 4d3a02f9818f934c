/* SPDX-License-Identifier: MIT */
/*
 * kstring.h - the C string and memory functions the kernel provides.
 *
 * Same names and meanings as the C library, so pure modules (parsers,
 * allocators) build unchanged for the host unit tests, where the C
 * library's versions are used instead of kernel/string.c.
 */
#ifndef KSTRING_H
#define KSTRING_H

#include "types.h"

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);

#endif
