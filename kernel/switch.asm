; SPDX-License-Identifier: MIT
; switch.asm - switch_to(): leave one thread's stack, continue on another's.
;
; void switch_to(u64 *save_rsp, u64 next_rsp)
;
; The C ABI says rbx, rbp and r12-r15 survive a call; everything else the
; caller (schedule()) has already given up. So a thread's whole context is
; those six registers and its RIP, pushed on its own stack: save them, store
; RSP in *save_rsp, load next_rsp, pop the next thread's six, and "ret"
; pops its RIP. A thread that never ran has a stack prepared by
; thread_create() to look exactly like this, with thread_entry as its RIP.
;
;   next_rsp -> r15 r14 r13 r12 rbx rbp rip
;
; Interrupts are off and the run-queue lock is held around the switch
; (see schedule() in kernel/sched.c).

bits 64
section .text

global switch_to, thread_entry
extern sched_thread_start

switch_to:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; The first instructions of every new thread: rbp = 0 ends backtraces here.
thread_entry:
	xor ebp, ebp
	call sched_thread_start         ; never returns
	ud2
