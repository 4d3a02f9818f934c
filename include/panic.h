/* SPDX-License-Identifier: MIT */
/*
 * panic.h - stop the machine loudly.
 *
 * panic() prints "PANIC: <message>", a backtrace with function names, and
 * then leaves QEMU through isa-debug-exit with code 2 (QEMU exits 5), or
 * halts forever on a machine without that device. A panic while panicking
 * skips straight to the exit.
 */
#ifndef PANIC_H
#define PANIC_H

#include "types.h"

void __noreturn panic(const char *fmt, ...) __printf(1, 2);

/* For trap_panic(): begin (stop other output, once) and end (exit/halt). */
bool panic_begin(void);
void __noreturn panic_end(void);

/*
 * Print "  [<addr>] name+0xoff/0xsize" for pc (unless 0), then for the return
 * address of each frame on the chain that starts at rbp.
 */
void backtrace_print(u64 pc, u64 rbp);

/*
 * The same for an interrupted context (pc, its stack pointer sp and rbp):
 * also finds the caller of a function that faulted before saving rbp.
 */
void backtrace_print_from(u64 pc, u64 sp, u64 rbp);
/*
 * The caller of the function at pc if that function has not pushed rbp yet
 * (its first instructions, or a leaf without a frame): the word at sp,
 * when the call just before it (e8 rel32) targets that function; else 0.
 * Reads only sp's word and kernel text: safe in an NMI.
 */
u64 backtrace_frameless_caller(u64 pc, u64 sp);

#define BUG_ON(cond)                                                            \
	do {                                                                    \
		if (unlikely(cond))                                             \
			panic("BUG_ON(%s) at %s:%d", #cond, __FILE__, __LINE__); \
	} while (0)

#endif
