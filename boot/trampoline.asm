; trampoline.asm - how an application processor (AP) climbs to long mode.
;
; A CPU woken by INIT and a STARTUP IPI begins in 16-bit real mode at
; CS:IP = VV00:0000, where VV is the SIPI's vector: the code must sit at the
; start of a 4 KiB page below 1 MiB. kernel/smp.c copies this blob to the
; page mm.c kept for it (ap_trampoline_phys, known only at run time), fills
; in the parameter block and sends the IPIs. The climb:
;
;   16-bit real mode   base = CS * 16; say "started"; flat GDT; CR0.PE
;     -> 32-bit protected mode (paging off)
;                      CR4.PAE, CR3 = params.cr3, EFER.LME (+NXE), CR0.PG
;     -> 64-bit long mode, still on this page (identity-mapped by that CR3)
;                      RSP = params.stack, jump to params.entry(params.cpu)
;     -> ap_main(cpu) in kernel/smp.c, on the CPU's own kernel stack
;
; Invariants:
;   - Position-independent: the blob is linked inside .rodata at some
;     kernel address and runs at another; every address it uses is
;     base + (label - trampoline_start), with the base found at run time.
;   - params.cr3 is below 4 GiB (a 32-bit mov loads it) and maps this page
;     at its own physical address, executable: the instruction after the
;     one that turns paging on is fetched through it. smp.c builds such a
;     PML4 (a copy of the kernel's upper half plus that one page).
;   - The blob writes only to itself, and only in real mode, before paging:
;     params.started (for the boot CPU to see) and the three addresses
;     below that depend on where it runs. With paging on, the page can be
;     mapped read-only: hence the GDT's accessed bits come already set.
;   - The GDT's selectors match the kernel's (0x08 64-bit code, 0x10 data),
;     so ap_main() starts with the segment registers cpu_load_tables()
;     expects; 0x18 is a 32-bit code segment used on the way only.
;   - No stack until RSP is loaded from params.stack in 64-bit mode.
;
; Facts from the Intel SDM, vol. 3A: the STARTUP IPI sets CS:IP = VV00:0000
; (8.4.4, MP spec B.4.2); paging must be off while EFER.LME is set, PAE must
; be on before CR0.PG, and after CR0.PG with LME the CPU is in
; compatibility mode until a far transfer loads a code segment with L = 1
; (9.8.5, "Initializing IA-32e Mode").

CR0_PE          equ 1 << 0
CR0_WP          equ 1 << 16
CR0_NW          equ 1 << 29
CR0_CD          equ 1 << 30
CR0_PG          equ 1 << 31
CR4_PAE         equ 1 << 5
MSR_EFER        equ 0xc0000080

SEL_CODE64      equ 0x08
SEL_DATA        equ 0x10
SEL_CODE32      equ 0x18

; Offsets inside the blob: what runs relative to its base.
%define OFF(label) ((label) - trampoline_start)

section .rodata.trampoline progbits alloc noexec nowrite align=16
align 16
global trampoline_start, trampoline_end, trampoline_params

; ---------------------------------------------------------------------------
bits 16
trampoline_start:
	cli
	cld
	mov ax, cs                      ; CS = VV00: the page's segment
	mov ds, ax
	mov byte [OFF(params.started)], 1
	movzx ebx, ax
	shl ebx, 4                      ; EBX = the page's physical address, kept to the end

	; The GDT descriptor and the far pointer into 32-bit code hold linear
	; addresses: only known now.
	lea eax, [ebx + OFF(gdt)]
	mov [OFF(gdt_ptr.base)], eax
	lea eax, [ebx + OFF(protected_mode)]
	mov [OFF(protected_mode_ptr)], eax
	lea eax, [ebx + OFF(long_mode)]
	mov [OFF(long_mode_ptr)], eax

	o32 lgdt [OFF(gdt_ptr)]
	mov eax, cr0
	and eax, ~(CR0_CD | CR0_NW)     ; caches on, whatever INIT left
	or eax, CR0_PE
	mov cr0, eax
	jmp dword far [OFF(protected_mode_ptr)]

; ---------------------------------------------------------------------------
bits 32
protected_mode:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax

	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax
	mov eax, [ebx + OFF(params.cr3)]
	mov cr3, eax

	mov ecx, MSR_EFER
	rdmsr
	or eax, [ebx + OFF(params.efer)] ; LME, and NXE when the CPU has NX
	wrmsr

	mov eax, cr0
	or eax, CR0_PG | CR0_WP
	mov cr0, eax                    ; long mode is active: compatibility mode

	; Loading a code segment with L = 1 leaves compatibility mode.
	jmp far [ebx + OFF(long_mode_ptr)]

; ---------------------------------------------------------------------------
bits 64
long_mode:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov ebx, ebx                    ; the upper half of RBX is undefined after the switch
	mov rsp, [rbx + OFF(params.stack)]
	mov edi, [rbx + OFF(params.cpu)] ; ap_main(cpu)
	mov rax, [rbx + OFF(params.entry)]
	xor ebp, ebp                    ; rbp = 0 ends every backtrace
	push 0                          ; a null return address: RSP is as after a call
	jmp rax

; ---------------------------------------------------------------------------
; The accessed bit (type bit 0) of each descriptor is already set: else the
; CPU sets it when it loads the selector, a write, and with paging on this
; page is read-only: the far jump into 64-bit code would page-fault with no
; IDT, a triple fault. (TCG does not check that write; hardware and KVM do.)
align 16
gdt:
	dq 0                            ; null
	dq 0x00af9b000000ffff           ; 0x08: code, 64-bit (L), present, DPL 0, accessed
	dq 0x00cf93000000ffff           ; 0x10: data, 4 GiB, writable, present, accessed
	dq 0x00cf9b000000ffff           ; 0x18: code, 32-bit (D), 4 GiB, present, accessed
gdt_end:

align 4
gdt_ptr:
	dw gdt_end - gdt - 1
.base:	dd 0                            ; filled in at run time

; Far pointers (offset, selector) for the two mode-changing jumps.
protected_mode_ptr:
	dd 0                            ; offset: filled in at run time
	dw SEL_CODE32
long_mode_ptr:
	dd 0                            ; offset: filled in at run time
	dw SEL_CODE64

; The parameter block. Its layout is struct trampoline_params in smp.c.
align 8
trampoline_params:
params:
.cr3:		dd 0                    ; +0  page tables, below 4 GiB
.efer:		dd 0                    ; +4  EFER bits to set: LME (+NXE)
.entry:		dq 0                    ; +8  64-bit entry: ap_main
.stack:		dq 0                    ; +16 top of the CPU's kernel stack
.cpu:		dd 0                    ; +24 logical CPU number: ap_main's argument
.started:	dd 0                    ; +28 the AP sets it to 1 on its first instructions

trampoline_end:
