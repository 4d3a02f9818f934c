/* SPDX-License-Identifier: MIT */
/*
 * trap.h - exceptions and interrupts: the IDT, the trap frame, handlers.
 *
 * Every one of the 256 vectors enters through a stub in kernel/entry.asm
 * that builds a struct trap_frame and calls trap_dispatch(). Exceptions
 * (vectors 0-31) nobody expected end in a panic that prints the vector's
 * name, the error code, CR2, every register and a symbolized backtrace.
 * Other vectors go to the handler registered for them.
 *
 * fault_catch() lets a caller run code that is expected to fault (a test
 * that touches an unmapped page, say) and get the fault's details back
 * instead of a panic.
 */
#ifndef TRAP_H
#define TRAP_H

#include "types.h"

/* Pushed by entry.asm and the CPU: lowest address first. */
struct trap_frame {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
};

enum {
	VEC_DE = 0, VEC_DB = 1, VEC_NMI = 2, VEC_BP = 3, VEC_OF = 4, VEC_BR = 5,
	VEC_UD = 6, VEC_NM = 7, VEC_DF = 8, VEC_TS = 10, VEC_NP = 11, VEC_SS = 12,
	VEC_GP = 13, VEC_PF = 14, VEC_MF = 16, VEC_AC = 17, VEC_MC = 18, VEC_XM = 19,
	VEC_FIRST_IRQ = 32,
	VEC_DEVICE_FIRST = 0x50,        /* MSI, MSI-X and routed INTx: 0x50-0xdf */
	VEC_DEVICE_LAST = 0xdf,
};

/* The vector field of a system call's frame (kernel/entry.asm's syscall_entry). */
#define SYSCALL_VECTOR 0x100

/* Did the frame come from user mode (CPL 3)? */
static inline bool trap_from_user(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}

/*
 * A setjmp/longjmp pair (kernel/entry.asm): kjmp_set() saves the
 * callee-saved registers, stack pointer and return address and returns 0;
 * a frame rewritten by trap_resume_at() "returns" from it a second time,
 * with 1. fault_catch() and user_run() are built on it.
 */
struct kjmp {
	u64 rbx, rbp, r12, r13, r14, r15, rsp, rip;
};
int kjmp_set(struct kjmp *buf) __attribute__((returns_twice));

/* Make the frame's iretq land in kjmp_set()'s second return, in the kernel (RFLAGS kept). */
void trap_resume_at(struct trap_frame *f, struct kjmp *jmp);

typedef void (*trap_handler_t)(struct trap_frame *f);

void trap_init(void);

/* Load the IDT trap_init() built into this CPU's IDTR: every CPU shares it. */
void trap_load_idt(void);

/* Route vector (>= 32) to handler; NULL restores "unexpected interrupt". */
void trap_set_handler(unsigned vector, trap_handler_t handler);

/* A free device vector, now routed to handler; -1 if none is left. */
int trap_alloc_vector(trap_handler_t handler);
void trap_free_vector(int vector);             /* give back what trap_alloc_vector() gave; <0 ignored */
u32 trap_vectors_in_use(void);                 /* device vectors with a handler */

/* "page fault", "general protection", ... or "interrupt" for vectors >= 32. */
const char *trap_name(unsigned vector);

/* What fault_catch() saw. */
struct fault_info {
	u64 vector;
	u64 error_code;
	u64 cr2;                /* the faulting address (page faults only) */
	u64 rip;                /* the instruction that faulted */
	u64 handler_rsp;        /* where the handler's frame was: tells which stack it ran on */
};

/*
 * Run fn(arg). If it raises an exception (vectors 0-31), do not panic:
 * unwind back here, fill *info and return true. Returns false if fn
 * returned normally. Catches nest: the innermost catch gets the fault.
 */
bool fault_catch(void (*fn)(void *), void *arg, struct fault_info *info);

/* Print the frame's registers and backtrace, then stop the machine. */
void __noreturn trap_panic(struct trap_frame *f);

/* Every vector's C entry, called from kernel/entry.asm's stubs with the frame they built. */
void trap_dispatch(struct trap_frame *f);

/*
 * NMIs that came in unasked (not smp_stop_others()'s): counted per CPU by
 * the handler, reported by that CPU's next tick with trap_report_nmis().
 */
void trap_report_nmis(void);
u64 trap_nmis_seen(u32 cpu);
u64 trap_nmis_reported(u32 cpu);

#endif
