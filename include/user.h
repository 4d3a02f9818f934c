/* SPDX-License-Identifier: MIT */
/*
 * user.h - user mode: programs that run at privilege level 3 and call the
 * kernel through SYSCALL, as Serge Belyshev's open/close loop did in 2005.
 *
 * There is one user address space, in the lower half of the kernel's own
 * page tables (the kernel half has no user bit, so user code cannot touch
 * it):
 *
 *   USER_TEXT    0x400000       the programs: the kernel image's .user_text
 *                               section (NASM, lab/ and tests/kernel/),
 *                               read-only and executable
 *   USER_SHARED  0x600000       one page the kernel writes and programs read
 *                               (the storm's stop flag)
 *   USER_STACKS  0x7f0000000000 one 64 KiB slot per running task: 16 KiB of
 *                               stack (its top 256 bytes are the task's
 *                               scratch, see below), the rest unmapped
 *
 * A thread runs a program with user_task_run(): it enters user mode with
 * three arguments in rdi, rsi, rdx and comes back when the program calls
 * exit(status), or when it faults: the program is killed with a message
 * ("user: <name> killed: ..."), the kernel goes on. Interrupts from user
 * mode land on the thread's kernel stack (TSS.RSP0), and a tick that lands
 * in user mode is a quiescent state for RCU.
 *
 * System calls use Linux's x86-64 numbers and registers (rax: number; rdi,
 * rsi, rdx: arguments; rax: result or -errno; rcx and r11 clobbered):
 *
 *   1  write(fd 1 or 2, buf, len)   printed as "user: <name>: <text>"
 *   2  open(path, flags)            file_open(): a file descriptor, -ENFILE...
 *   3  close(fd)                    file_close(): freed through call_rcu()
 *  24  sched_yield()
 *  39  getpid()                     the thread's id
 *  60  exit(status)
 *
 * A task's scratch (the top 256 bytes of its stack slot) is where a
 * program reports to the kernel: the kernel reads it through the direct
 * map at any time (user_task_scratch()), the program through the address
 * it is given.
 */
#ifndef USER_H
#define USER_H

#include "trap.h"
#include "types.h"

#define USER_TEXT       0x400000ULL
#define USER_SHARED     0x600000ULL
#define USER_STACKS     0x7f0000000000ULL
#define USER_SLOT_SIZE  (64ULL << 10)
#define USER_STACK_SIZE (16ULL << 10)
#define USER_SCRATCH_SIZE 256
#define USER_MAX_FDS    16
#define USER_KILLED     (-1000)         /* user_task_run(): the program faulted */

#define SYS_WRITE       1
#define SYS_OPEN        2
#define SYS_CLOSE       3
#define SYS_SCHED_YIELD 24
#define SYS_GETPID      39
#define SYS_EXIT        60

struct user_task;

/* Boot CPU, once the page allocator runs: map the programs and the shared page. */
void user_init(void);

/* Every CPU: SYSCALL's MSRs, and SMEP/SMAP where the CPU has them. */
void user_cpu_init(void);

/* A task named name with a fresh stack slot; NULL (said) if none is left. */
struct user_task *user_task_create(const char *name);

/*
 * Run program (a symbol in .user_text) in user mode on this thread until
 * it exits: its status, or USER_KILLED if it faulted. One run at a time
 * per task; the task's files stay open between runs.
 */
long user_task_run(struct user_task *u, const void *program, u64 a0, u64 a1, u64 a2);

/* Close what the task left open and give its slot back. */
void user_task_destroy(struct user_task *u);

/* The task's scratch: the kernel's pointer, and the address the program sees. */
void *user_task_scratch(struct user_task *u);
u64 user_task_scratch_va(const struct user_task *u);

/* System calls the task made, and the fault that killed it (0 if none: vector + 1). */
u64 user_task_syscalls(const struct user_task *u);
u64 user_task_fault(const struct user_task *u);

/* The shared page, as the kernel writes it. */
void *user_shared(void);

/* Where program (a symbol in .user_text) is in user mode. */
u64 user_program_va(const void *program);

/* Copy from user memory, or -EFAULT for an address outside the user half or unmapped. */
int copy_from_user(void *dst, u64 src, u64 len);

/* From trap.c: an exception in user mode; from entry.asm: a system call. */
void user_fault(struct trap_frame *f);
void syscall_dispatch(struct trap_frame *f);

#endif
