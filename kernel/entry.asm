; SPDX-License-Identifier: MIT
; entry.asm - the first and last instructions of every exception and interrupt.
;
; The CPU pushes SS, RSP, RFLAGS, CS, RIP (and, for some exceptions, an
; error code), then jumps to the IDT's handler. Each stub below makes the
; frame uniform - it pushes a 0 where the CPU pushed no error code, then the
; vector number - and jumps to trap_common, which saves every general
; register and calls trap_dispatch(struct trap_frame *). The layout of the
; pushes here IS struct trap_frame in include/trap.h, read bottom-up:
;
;   rsp ->  r15 r14 r13 r12 r11 r10 r9 r8 rbp rdi rsi rdx rcx rbx rax
;           vector error_code rip cs rflags rsp ss
;
; 15 registers + 2 words + the CPU's 5 = 22 words = 176 bytes, a multiple
; of 16: the CPU aligned RSP to 16 before pushing, so RSP is aligned again
; at the call, as the C ABI expects.
;
; From user mode (CS's low bits 3) the entry also swaps GS: in user mode
; the GS base is the user's (0) and MSR_KERNEL_GS_BASE holds this CPU's
; struct percpu; SWAPGS exchanges the two, and the exit swaps back if it
; returns to user mode. The NMI, the double fault and the machine check
; may arrive anywhere, even between an entry and its SWAPGS, so they look
; at the GS base itself (a kernel address has its top bit set): Linux's
; "paranoid" entry.
;
; SYSCALL (syscall_entry) builds the same frame on the kernel stack, with
; vector SYSCALL_VECTOR, runs syscall_dispatch() with interrupts on, and
; returns with iretq like any trap. user_enter() is the first entry into
; user mode (kernel/user.c).
;
; Also here: kjmp_set/kjmp_resume, a setjmp/longjmp pair that lets the
; trap handler send a deliberate fault back to the code that expected it
; (see fault_catch() in kernel/trap.c), and a user program's exit back to
; user_run().

bits 64
section .text

extern trap_dispatch, syscall_dispatch

USER_CS         equ 0x2b
USER_DS         equ 0x23
SYSCALL_VECTOR  equ 0x100        ; the vector field of a system call's frame
MSR_GS_BASE     equ 0xc0000101
PERCPU_USER_RSP equ 8            ; struct percpu (include/percpu.h)
PERCPU_KERNEL_RSP equ 16

; Vectors whose exceptions push an error code.
%define HAS_ERROR(v) ((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || (v) == 13 || (v) == 14 || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

; Vectors that may arrive between an entry and its SWAPGS.
%define PARANOID(v) ((v) == 2 || (v) == 8 || (v) == 18)

%macro STUB 1
align 16
trap_stub_%1:
%if HAS_ERROR(%1) == 0
	push 0
%endif
	push %1
%if PARANOID(%1)
	jmp paranoid_common
%else
	jmp trap_common
%endif
%endmacro

%macro SAVE_REGS 0
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
%endmacro

%macro RESTORE_REGS 0
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
%endmacro

%assign v 0
%rep 256
	STUB v
%assign v v + 1
%endrep

; [rsp] vector, [rsp + 8] error code, [rsp + 16] RIP, [rsp + 24] CS
trap_common:
	test byte [rsp + 24], 3
	jz .from_kernel
	swapgs                          ; from user mode: the kernel's GS base
.from_kernel:
	SAVE_REGS
	cld                             ; the C ABI wants DF clear
	mov rdi, rsp
	call trap_dispatch
	RESTORE_REGS
	add rsp, 16                     ; vector and error code
	test byte [rsp + 8], 3          ; the frame's CS: back to user mode?
	jz .to_kernel
	swapgs
.to_kernel:
	iretq

; The NMI, double fault and machine check: decide by the GS base itself.
paranoid_common:
	SAVE_REGS
	mov ecx, MSR_GS_BASE
	rdmsr
	xor ebx, ebx                    ; rbx (kept across the call): 1 if we swapped
	test edx, edx
	js .kernel_gs                   ; top bit set: already the kernel's
	swapgs
	mov ebx, 1
.kernel_gs:
	cld
	mov rdi, rsp
	call trap_dispatch
	test ebx, ebx
	jz .no_swap
	swapgs
.no_swap:
	RESTORE_REGS
	add rsp, 16
	iretq

; SYSCALL: RIP in RCX, RFLAGS in R11, still on the user stack, interrupts
; off (MSR_SFMASK clears IF). Build a trap frame on this thread's kernel
; stack (percpu.kernel_rsp, set by user_enter and the scheduler).
global syscall_entry
syscall_entry:
	swapgs
	mov [gs:PERCPU_USER_RSP], rsp
	mov rsp, [gs:PERCPU_KERNEL_RSP]
	push USER_DS                    ; ss
	push qword [gs:PERCPU_USER_RSP] ; rsp
	push r11                        ; rflags
	push USER_CS                    ; cs
	push rcx                        ; rip
	push 0                          ; error code
	push SYSCALL_VECTOR
	SAVE_REGS
	cld
	sti                             ; system calls run with interrupts on
	mov rdi, rsp
	call syscall_dispatch
	cli
	RESTORE_REGS
	add rsp, 16
	test byte [rsp + 8], 3          ; exit() and a kill return into the kernel
	jz .to_kernel
	swapgs
.to_kernel:
	iretq

; void user_enter(const struct user_regs *r, u64 *thread_kstack, u64 *tss_rsp0)
; Interrupts off. From here on, this thread's kernel frames go below the
; current stack pointer: record it as the thread's kernel stack for user
; mode, this CPU's SYSCALL stack and its TSS.RSP0, then iretq to user mode
; with every register but the three arguments cleared.
;   struct user_regs { rip, rsp, rdi, rsi, rdx }
global user_enter
user_enter:
	mov rax, rsp
	and rax, -16
	mov [rsi], rax
	mov [rdx], rax
	mov [gs:PERCPU_KERNEL_RSP], rax
	push USER_DS
	push qword [rdi + 8]            ; rsp
	push 0x202                      ; RFLAGS: IF, and bit 1, always set
	push USER_CS
	push qword [rdi + 0]            ; rip
	mov rsi, [rdi + 24]
	mov rdx, [rdi + 32]
	mov rdi, [rdi + 16]
	xor eax, eax
	xor ebx, ebx
	xor ecx, ecx
	xor ebp, ebp
	xor r8d, r8d
	xor r9d, r9d
	xor r10d, r10d
	xor r11d, r11d
	xor r12d, r12d
	xor r13d, r13d
	xor r14d, r14d
	xor r15d, r15d
	swapgs
	iretq

; The stubs' addresses, for trap_init() to put in the IDT.
section .rodata
global trap_stubs
align 8
trap_stubs:
%assign v 0
%rep 256
	dq trap_stub_ %+ v
%assign v v + 1
%endrep

section .text
; int kjmp_set(struct kjmp *buf): save the callee-saved registers, the stack
; pointer and the return address; return 0. kjmp_resume(buf) comes back
; here a second time, returning 1.
global kjmp_set, kjmp_resume
kjmp_set:
	mov [rdi + 0], rbx
	mov [rdi + 8], rbp
	mov [rdi + 16], r12
	mov [rdi + 24], r13
	mov [rdi + 32], r14
	mov [rdi + 40], r15
	lea rax, [rsp + 8]              ; the caller's RSP after our return
	mov [rdi + 48], rax
	mov rax, [rsp]                  ; our return address
	mov [rdi + 56], rax
	xor eax, eax
	ret

; void kjmp_resume(struct kjmp *buf): never returns; kjmp_set returns 1.
; Entered from iretq with RSP = buf->rsp, so it must not push first.
kjmp_resume:
	mov rbx, [rdi + 0]
	mov rbp, [rdi + 8]
	mov r12, [rdi + 16]
	mov r13, [rdi + 24]
	mov r14, [rdi + 32]
	mov r15, [rdi + 40]
	mov rsp, [rdi + 48]
	mov eax, 1
	jmp [rdi + 56]
