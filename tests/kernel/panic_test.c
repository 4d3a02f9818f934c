// SPDX-License-Identifier: MIT
/*
 * panic_test.c - a deliberate crash (test=panic), for the runner to check
 * that a kernel bug ends in a named, symbolized backtrace and exit code 2.
 * Manual: test=all never runs it.
 */
#include "ktest.h"

/* NULL, read through a volatile so the compiler cannot prove it and cheat. */
static u64 *volatile ktest_panic_target;

/* noinline and the empty asm keep three real frames for the backtrace. */
__attribute__((noinline)) static void ktest_panic_level3(u64 value)
{
	*ktest_panic_target = value;    /* a page fault nobody catches */
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void ktest_panic_level2(u64 value)
{
	ktest_panic_level3(value + 1);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void ktest_panic_level1(struct ktest *t)
{
	ktest_panic_level2(0xdead);
	__asm__ volatile("" ::: "memory");
	ktest_log(t, "still alive after a NULL write: the fault was lost");
	t->status = KTEST_FAIL;
}

static const struct ktest_case panic_cases[] = {
	KTEST(ktest_panic_level1),
	{},
};
KTEST_SUITE_MANUAL(panic, panic_cases);
