; SPDX-License-Identifier: MIT
; user_programs.asm - small user-mode programs for the user suite
; (tests/kernel/user_test.c). Each takes its arguments in rdi, rsi, rdx
; and ends with exit(status) (system call 60), unless it is meant to die.

bits 64
section .user_text progbits alloc exec nowrite align=16

SYS_WRITE  equ 1
SYS_OPEN   equ 2
SYS_CLOSE  equ 3
SYS_GETPID equ 39
SYS_EXIT   equ 60

%macro EXIT 1
	mov edi, %1
	mov eax, SYS_EXIT
	syscall
	ud2
%endmacro

; write(1, "hello from user mode\n"), then exit(42).
global user_hello
user_hello:
	mov eax, SYS_WRITE
	mov edi, 1
	lea rsi, [rel hello]
	mov edx, hello_len
	syscall
	EXIT 42

; exit(getpid()).
global user_getpid
user_getpid:
	mov eax, SYS_GETPID
	syscall
	mov rdi, rax
	mov eax, SYS_EXIT
	syscall
	ud2

; rax = open("/dev/null"), close(it) twice: exit with what the second close returned.
global user_close_twice
user_close_twice:
	mov eax, SYS_OPEN
	lea rdi, [rel dev_null]
	xor esi, esi
	syscall
	test rax, rax
	js .out
	mov rbx, rax
	mov rdi, rbx
	mov eax, SYS_CLOSE
	syscall
	mov rdi, rbx
	mov eax, SYS_CLOSE
	syscall
.out:
	mov rdi, rax
	mov eax, SYS_EXIT
	syscall
	ud2

; open(rdi) (a path address of the caller's choosing): exit with the result.
global user_open_path
user_open_path:
	xor esi, esi
	mov eax, SYS_OPEN
	syscall
	mov rdi, rax
	mov eax, SYS_EXIT
	syscall
	ud2

; write(1, rdi, 8): exit with the result (a kernel address gives -EFAULT).
global user_write_from
user_write_from:
	mov rsi, rdi
	mov edi, 1
	mov edx, 8
	mov eax, SYS_WRITE
	syscall
	mov rdi, rax
	mov eax, SYS_EXIT
	syscall
	ud2

; System call rdi (an unknown number): exit with the result.
global user_syscall_number
user_syscall_number:
	mov rax, rdi
	syscall
	mov rdi, rax
	mov eax, SYS_EXIT
	syscall
	ud2

; Open rdi files and exit without closing them: the kernel closes them.
global user_open_and_leave
user_open_and_leave:
	mov r12, rdi
.again:
	test r12, r12
	jz .out
	mov eax, SYS_OPEN
	lea rdi, [rel dev_null]
	xor esi, esi
	syscall
	dec r12
	jmp .again
.out:
	EXIT 0

; Read the quadword at rdi (a kernel address): a page fault kills it.
global user_read_kernel
user_read_kernel:
	mov rax, [rdi]
	EXIT 0

; Write into its own code: a protection fault.
global user_write_text
user_write_text:
	lea rax, [rel user_write_text]
	mov byte [rax], 0x90
	EXIT 0

; cli is privileged: a general protection fault.
global user_cli
user_cli:
	cli
	EXIT 0

; Spin until the byte at rdi is non-zero, counting loops into [rsi]; then exit(0).
global user_spin
user_spin:
	xor eax, eax
.wait:
	inc rax
	mov [rsi], rax
	pause
	cmp byte [rdi], 0
	je .wait
	EXIT 0

; Clobber every register it may, then call getpid and check the
; callee-saved ones survived: exit(0) if they did, 1 if not.
global user_registers_survive
user_registers_survive:
	mov rbx, 0x1111111111111111
	mov rbp, 0x2222222222222222
	mov r12, 0x3333333333333333
	mov r13, 0x4444444444444444
	mov r14, 0x5555555555555555
	mov r15, 0x6666666666666666
	mov rsp, rsp
	mov eax, SYS_GETPID
	syscall
	mov rax, 0x1111111111111111
	cmp rbx, rax
	jne .bad
	mov rax, 0x2222222222222222
	cmp rbp, rax
	jne .bad
	mov rax, 0x3333333333333333
	cmp r12, rax
	jne .bad
	mov rax, 0x4444444444444444
	cmp r13, rax
	jne .bad
	mov rax, 0x5555555555555555
	cmp r14, rax
	jne .bad
	mov rax, 0x6666666666666666
	cmp r15, rax
	jne .bad
	EXIT 0
.bad:
	EXIT 1

hello: db "hello from user mode", 10
hello_len equ $ - hello
dev_null: db "/dev/null", 0
