; SPDX-License-Identifier: MIT
; boot.asm - from GRUB's hand-off to kernel_main().
;
; GRUB (multiboot2) jumps to _start in 32-bit protected mode with paging off,
; EAX = the multiboot2 magic and EBX = the physical address of the boot
; information. This file:
;   1. carries the multiboot2 header GRUB looks for in the first 32 KiB;
;   2. checks that the CPU can run 64-bit code, and says so on COM1 and the
;      VGA text screen if it cannot;
;   3. builds temporary page tables: the first 4 GiB mapped three times, at 0
;      (identity, so the next instruction still runs after paging is on), at
;      PAGE_OFFSET (the direct map) and at KERNEL_VMA (-2 GiB, where the kernel
;      is linked), all with 2 MiB pages;
;   4. turns on PAE, long mode, NX (when the CPU has it) and paging, loads a
;      64-bit GDT and jumps to the higher half;
;   5. calls kernel_main(magic, info) on the boot stack.
; kernel/vm.c replaces these tables with the real ones very early.
;
; Everything before the jump to the higher half lives in .boot sections,
; linked at their physical addresses (see linker.ld).

KERNEL_VMA      equ 0xffffffff80000000
KSTACK_SIZE     equ 16384
IST_STACK_SIZE  equ 8192

MB2_MAGIC       equ 0xe85250d6
MB2_ARCH_I386   equ 0

PTE_P           equ 1 << 0
PTE_W           equ 1 << 1
PTE_PS          equ 1 << 7

COM1            equ 0x3f8

; ---------------------------------------------------------------------------
; The multiboot2 header: 8-byte aligned tags, ended by a type-0 tag.
section .multiboot
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))

	; Information request (type 1): ask for what the kernel needs. Flag 1 =
	; optional, so a loader that lacks one still boots us.
align 8
.info_req:
	dw 1, 1
	dd .info_req_end - .info_req
	dd 1            ; boot command line
	dd 6            ; memory map (E820 types)
	dd 8            ; framebuffer
	dd 14           ; ACPI 1.0 RSDP
	dd 15           ; ACPI 2.0+ RSDP
	dd 17           ; EFI memory map
.info_req_end:

	; Framebuffer (type 5): a 1024x768x32 linear framebuffer if there is
	; one; optional, since a text-mode machine may have none.
align 8
.framebuffer:
	dw 5, 1
	dd 20
	dd 1024, 768, 32

	; End tag.
align 8
	dw 0, 0
	dd 8
mb2_header_end:

; ---------------------------------------------------------------------------
section .boot.data
align 8
gdt64:
	dq 0                            ; null descriptor
	dq 0x00af9a000000ffff           ; 0x08: 64-bit code, DPL 0
	dq 0x00cf92000000ffff           ; 0x10: data, DPL 0
gdt64_end:
gdt64_ptr:
	dw gdt64_end - gdt64 - 1
	dd gdt64

msg_no_cpuid:   db "testbed: this CPU has no CPUID; it cannot run a 64-bit kernel", 0
msg_no_lm:      db "testbed: this CPU has no long mode (x86-64); cannot boot", 0

; Temporary page tables (zeroed by the loader: .bss-like, no file bytes).
section .boot.bss nobits alloc write align=4096
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096               ; PML4[0] and PML4[256]: 0-4 GiB
boot_pdpt_high: resb 4096               ; PML4[511]: -2 GiB
boot_pd:        resb 4 * 4096           ; 2048 x 2 MiB = 4 GiB
boot_pd_end:

; Stacks, each with an unmapped guard page below it (vm.c leaves the guard
; pages out of the final page tables, so an overflow faults at once).
section .stacks nobits alloc write align=4096
global boot_stack_guard, boot_stack_bottom, boot_stack_top
global df_stack_guard, df_stack_top, nmi_stack_guard, nmi_stack_top
boot_stack_guard:  resb 4096
boot_stack_bottom: resb KSTACK_SIZE
boot_stack_top:
df_stack_guard:    resb 4096
                   resb IST_STACK_SIZE
df_stack_top:
nmi_stack_guard:   resb 4096
                   resb IST_STACK_SIZE
nmi_stack_top:

; ---------------------------------------------------------------------------
section .boot.text
bits 32
global _start
_start:
	cli
	cld
	mov edi, eax                    ; magic: kept in EDI until kernel_main
	mov esi, ebx                    ; info:  kept in ESI
	mov esp, boot_stack_top - KERNEL_VMA

	; CPUID exists if EFLAGS.ID (bit 21) can be flipped.
	pushfd
	pop eax
	mov ecx, eax
	xor eax, 1 << 21
	push eax
	popfd
	pushfd
	pop eax
	push ecx
	popfd
	cmp eax, ecx
	mov ebp, msg_no_cpuid
	je boot_fail

	; Long mode: CPUID 0x80000001 EDX bit 29.
	mov eax, 0x80000000
	cpuid
	cmp eax, 0x80000001
	mov ebp, msg_no_lm
	jb boot_fail
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 29
	jz boot_fail
	mov ebx, edx                    ; EDX bit 20: NX, used below

	; The loader zeroes memory past the file's bytes, but a table full of
	; stale entries would be fatal: clear the tables ourselves.
	push edi
	mov edi, boot_pml4
	mov ecx, (boot_pd_end - boot_pml4) / 4
	xor eax, eax
	rep stosd
	pop edi

	call build_page_tables

	mov eax, cr4
	or eax, 1 << 5                  ; PAE
	mov cr4, eax
	mov eax, boot_pml4
	mov cr3, eax

	mov ecx, 0xc0000080             ; EFER
	rdmsr
	or eax, 1 << 8                  ; LME: long mode enable
	test ebx, 1 << 20
	jz .no_nx
	or eax, 1 << 11                 ; NXE: honour the NX bit in page tables
.no_nx:
	wrmsr

	mov eax, cr0
	or eax, (1 << 31) | (1 << 16) | 1   ; PG, WP (write-protect applies to ring 0), PE
	mov cr0, eax

	lgdt [gdt64_ptr]
	jmp 0x08:long_mode_low

; Identity-map, direct-map and high-map the first 4 GiB with 2 MiB pages.
build_page_tables:
	mov eax, boot_pdpt_low + (PTE_P | PTE_W)
	mov [boot_pml4 + 0 * 8], eax
	mov [boot_pml4 + 256 * 8], eax
	mov eax, boot_pdpt_high + (PTE_P | PTE_W)
	mov [boot_pml4 + 511 * 8], eax

	; boot_pdpt_low[0..3] -> the four page directories.
	mov eax, boot_pd + (PTE_P | PTE_W)
	xor ecx, ecx
.pdpt:
	mov [boot_pdpt_low + ecx * 8], eax
	add eax, 4096
	inc ecx
	cmp ecx, 4
	jb .pdpt
	; -2 GiB = PML4 511, PDPT 510: map the first 2 GiB there.
	mov eax, boot_pd + (PTE_P | PTE_W)
	mov [boot_pdpt_high + 510 * 8], eax
	add eax, 4096
	mov [boot_pdpt_high + 511 * 8], eax

	; 2048 PDEs: entry i maps physical i * 2 MiB. The high dword of each
	; entry stays zero: physical address bits 32+ of a 2 MiB page number.
	xor ecx, ecx
.pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [boot_pd + ecx * 8], eax
	mov eax, ecx
	shr eax, 11                     ; (i * 2 MiB) >> 32
	mov [boot_pd + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 2048
	jb .pd
	ret

; Print the string at EBP on COM1 and the VGA text screen, then stop.
; No stack, no long mode: this is the only output a too-old CPU gets.
boot_fail:
	mov ebx, 0xb8000
.next:
	movzx eax, byte [ebp]
	test al, al
	jz .halt
	mov byte [ebx], al
	mov byte [ebx + 1], 0x4f        ; white on red
	add ebx, 2
	mov ecx, 100000                 ; bounded wait: there may be no UART
	mov edx, COM1 + 5
.wait:
	in al, dx
	test al, 0x20
	jnz .send
	dec ecx
	jnz .wait
.send:
	mov edx, COM1
	mov al, [ebp]
	out dx, al
	inc ebp
	jmp .next
.halt:
	hlt
	jmp .halt

bits 64
long_mode_low:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov rax, higher_half
	jmp rax

; ---------------------------------------------------------------------------
section .text
extern kernel_main
extern __bss_start, __bss_end
higher_half:
	mov rsp, boot_stack_top
	; Zero .bss (C expects it), keeping the boot arguments in EDI and ESI.
	mov r8, rdi
	mov rdi, __bss_start
	mov rcx, __bss_end
	sub rcx, rdi
	xor eax, eax
	rep stosb
	mov rdi, r8
	xor ebp, ebp                    ; rbp = 0 ends every backtrace
	mov edi, edi                    ; zero-extend magic and info: the upper
	mov esi, esi                    ; halves are undefined after the switch
	call kernel_main
.hang:
	cli
	hlt
	jmp .hang
