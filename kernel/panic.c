// SPDX-License-Identifier: MIT
/*
 * panic.c - the last words: message, backtrace, exit.
 *
 * A backtrace follows the frame-pointer chain the compiler keeps with
 * -fno-omit-frame-pointer: every function starts with "push rbp; mov rbp,
 * rsp", so at [rbp] lies the caller's rbp and at [rbp + 8] the return
 * address into the caller:
 *
 *     higher addresses
 *     | return address into caller's caller |
 *     | caller's saved rbp                  | <- [rbp] of the caller
 *     | ...                                 |
 *     | return address into caller          | <- rbp + 8
 *     | saved rbp (caller's frame)          | <- rbp
 *     lower addresses
 *
 * boot.asm starts the chain with rbp = 0. The walk stops there, at an
 * unmapped or misaligned frame, when frames stop going up the stack, or
 * after BACKTRACE_MAX frames, so a corrupt stack cannot make it fault.
 */
#include "panic.h"
#include "debugexit.h"
#include "fbcon.h"
#include "format.h"
#include "kstring.h"
#include "ksyms.h"
#include "printk.h"
#include "smp.h"
#include "spinlock.h"
#include "vm.h"
#include "x86.h"

#define BACKTRACE_MAX 32

static bool panicking;

const char *ksym_lookup(u64 addr, u64 *offset, u64 *size)
{
	const struct ksym *s;

	if (addr < (u64)__text_start || addr >= (u64)__text_end)
		return NULL;
	s = ksym_search(ksyms, ksyms_count, addr, offset, size);
	return s ? s->name : NULL;
}

static void print_frame(u64 pc)
{
	u64 off, size;
	const char *name = ksym_lookup(pc, &off, &size);

	if (name)
		printk(KERN_EMERG "  [<%016llx>] %s+0x%llx/0x%llx\n", pc, name, off, size);
	else
		printk(KERN_EMERG "  [<%016llx>] ?\n", pc);
}

/*
 * A fault in a function that has not pushed rbp (a leaf compiled without a
 * frame, or the first instruction of any function) hides its caller from
 * the rbp chain. If the word at the top of the stack is a return address
 * whose call instruction (e8 rel32, just before it) targets the faulting
 * function, that caller is certain: return it, else 0.
 */
u64 backtrace_frameless_caller(u64 pc, u64 sp)
{
	u64 off, ret;
	s32 rel;

	if (!sp || !vm_mapped(sp) || !ksym_lookup(pc, &off, NULL))
		return 0;
	ret = *(u64 *)sp;
	if (!ksym_lookup(ret, NULL, NULL) || !ksym_lookup(ret - 5, NULL, NULL))
		return 0;
	if (*(u8 *)(ret - 5) != 0xe8)
		return 0;
	memcpy(&rel, (u8 *)(ret - 4), 4);
	return ret + rel == pc - off ? ret : 0;
}

void backtrace_print_from(u64 pc, u64 sp, u64 rbp)
{
	u64 caller = backtrace_frameless_caller(pc, sp);

	print_frame(pc);
	if (caller)
		print_frame(caller - 1);
	backtrace_print(0, rbp);
}

void backtrace_print(u64 pc, u64 rbp)
{
	if (pc)
		print_frame(pc);
	for (int depth = 0; rbp && depth < BACKTRACE_MAX; depth++) {
		if (!IS_ALIGNED(rbp, 8) || !vm_mapped(rbp) || !vm_mapped(rbp + 8)) {
			printk(KERN_EMERG "  (frame pointer %016llx is not readable; stopping)\n",
			       rbp);
			return;
		}
		u64 next = ((u64 *)rbp)[0], ret = ((u64 *)rbp)[1];
		if (!ret)
			return;
		/* The return address points after the call: look up ret - 1. */
		print_frame(ret - 1);
		if (next && next <= rbp) {
			printk(KERN_EMERG "  (frame chain goes down the stack; stopping)\n");
			return;
		}
		rbp = next;
	}
}

void spinlock_recursion(struct spinlock *l)
{
	panic("spinlock recursion: CPU %d takes lock \"%s\" it already holds",
	      l->holder, l->name ? l->name : "?");
}

bool panic_begin(void)
{
	cli();
	smp_stop_others();      /* the other CPUs halt; if one is already panicking, so do we */
	if (panicking)
		return false;
	panicking = true;
	printk_panic_mode();
	fbcon_start_drawing();  /* a panic before the boot drew the screen: draw it now */
	return true;
}

void panic_end(void)
{
	debugexit(EXIT_PANIC);
	for (;;) {
		cli();
		hlt();
	}
}

void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!panic_begin())
		panic_end();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printk(KERN_EMERG "PANIC: %s\n", msg);
	printk(KERN_EMERG "Backtrace:\n");
	backtrace_print(0, read_rbp());     /* starts with panic()'s caller */
	panic_end();
}
