; SPDX-License-Identifier: MIT
; storm_user.asm - Serge Belyshev's loop of October 2005, as a user program.
;
;	for (i = 0; i < n; i++)
;		close(open("/dev/null", O_RDONLY));
;
; (his stopped at the first failure: "open (55499): Too many open files in
; system"). It runs in user mode (kernel/user.c) and reaches the kernel
; through SYSCALL, so a tick that lands between its system calls is a
; quiescent state, as it was for 2.6.14's rcu_check_callbacks(cpu, user).
;
; In:  rdi = n, rsi = the storm's stop flag (a byte in the shared page: the
;      kernel sets it when another CPU has hit ENFILE), rdx = the report in
;      the task's scratch: { u64 done; s64 error; u64 pause; u64 think; }
;      (in: pause nonzero for a PAUSE after every iteration, storm.pause=on;
;      think, turns of an empty loop in user mode after every iteration,
;      storm.think)
; Out: exit(0) when done or stopped; exit(1) with report.error = -errno
;      when open() fails.

bits 64
section .user_text progbits alloc exec nowrite align=16

SYS_OPEN  equ 2
SYS_CLOSE equ 3
SYS_EXIT  equ 60

global storm_user
storm_user:
	mov r12, rdi                    ; n
	mov r13, rsi                    ; &stop
	mov r14, rdx                    ; &report
	xor r15d, r15d                  ; i (SYSCALL keeps r12-r15; it clobbers rcx, r11)
.loop:
	cmp r15, r12
	jae .done
	cmp byte [r13], 0
	jne .done
	mov eax, SYS_OPEN
	lea rdi, [rel dev_null]
	xor esi, esi                    ; O_RDONLY
	syscall
	test rax, rax
	js .failed
	mov rdi, rax
	mov eax, SYS_CLOSE
	syscall
	inc r15
	mov [r14], r15                  ; report.done
	mov rcx, [r14 + 24]             ; report.think: time in user mode
.think:
	test rcx, rcx
	jz .thought
	dec rcx
	jmp .think
.thought:
	cmp qword [r14 + 16], 0         ; report.pause
	je .loop
	pause
	jmp .loop
.failed:
	mov [r14 + 8], rax              ; report.error = -errno
	mov eax, SYS_EXIT
	mov edi, 1
	syscall
.done:
	mov eax, SYS_EXIT
	xor edi, edi
	syscall
	ud2                             ; exit does not return

dev_null: db "/dev/null", 0
