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
; Also here: kjmp_set/kjmp_resume, a setjmp/longjmp pair that lets the
; trap handler send a deliberate fault back to the code that expected it
; (see fault_catch() in kernel/trap.c).

bits 64
section .text

extern trap_dispatch

; Vectors whose exceptions push an error code.
%define HAS_ERROR(v) ((v) == 8 || (v) == 10 || (v) == 11 || (v) == 12 || (v) == 13 || (v) == 14 || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

%macro STUB 1
align 16
trap_stub_%1:
%if HAS_ERROR(%1) == 0
	push 0
%endif
	push %1
	jmp trap_common
%endmacro

%assign v 0
%rep 256
	STUB v
%assign v v + 1
%endrep

trap_common:
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
	cld                             ; the C ABI wants DF clear
	mov rdi, rsp
	call trap_dispatch
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
	add rsp, 16                     ; vector and error code
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
