; SPDX-License-Identifier: MIT
; trampoline.asm - how an application processor (AP) climbs to long mode.
;
; A CPU woken by INIT and a STARTUP IPI begins in 16-bit real mode at
; CS:IP = VV00:0000, where VV is the SIPI's vector: the code must sit at the
; start of a 4 KiB page below 1 MiB. kernel/smp.c copies this blob to the
; page mm.c kept for it (ap_trampoline_phys, known only at run time), fills
; in the parameter block and sends the IPIs. The climb:
;
;   16-bit real mode   count itself in params.started, note params.attempt;
;                      flat GDT; CR0.PE
;     -> 32-bit protected mode (paging off)
;                      CR4.PAE, CR3 = params.cr3, EFER.LME (+NXE), CR0.PG
;     -> 64-bit long mode, still on this page (identity-mapped by that CR3)
;                      who am I, which CPU, its stack, claim it (below);
;                      RSP = its kernel stack, jump to params.entry(cpu)
;     -> ap_main(cpu) in kernel/smp.c, on the CPU's own kernel stack
;
; Who am I. Every AP reads the ID its local APIC answers to, the one the
; STARTUP IPI was sent to (Linux 6.5's STARTUP_READ_APICID does the same).
; Started one at a time (smp.parallel=off, or a CPU started again alone),
; an AP is told its number in params.cpu, and goes on only if its APIC
; agrees with the MADT's entry for that number (or cannot be read). Started
; all at once (smp.parallel=on, the default; Linux 6.5's parallel
; bring-up), params.cpu is FIND_BY_APIC_ID and every AP searches the MADT's
; list for its ID (params.apic_ids, the kernel's numa.cpu_apic_id[]).
; Either way the number gives the stack (params.stacks, smp.c's
; ap_stacks[]: 24-byte entries, the kernel stack first; 0 for a CPU the
; boot CPU is not starting). An AP with no entry, or no stack, counts
; itself in *params.lost and halts with interrupts off.
;
; The claim. Before it touches the stack, the AP moves ap_states[cpu] from
; STARTING to ALIVE, tagged with the attempt it read in real mode, in one
; locked compare-and-swap; the boot CPU moves it to ABANDONED the same way
; when it gives up on that start, and only then sends INIT. So an AP that
; wakes up late, from a start given up on, finds the state moved on and
; halts, on no stack: it can neither take a CPU's place nor share its stack.

; Invariants:
;   - Position-independent: the blob is linked inside .rodata at some
;     kernel address and runs at another; every address it uses is
;     base + (label - trampoline_start), with the base found at run time.
;     The boot CPU fills in the three pointers that hold linear addresses
;     (the GDT's base, the two far jumps' offsets) when it copies the blob.
;   - params.cr3 is below 4 GiB (a 32-bit mov loads it) and maps this page
;     at its own physical address, executable: the instruction after the
;     one that turns paging on is fetched through it. smp.c builds such a
;     PML4 (a copy of the kernel's upper half plus that one page).
;   - The blob writes to itself only params.started, with a lock inc in
;     real mode (several APs may run it at once); with paging on, the page
;     can be mapped read-only: hence the GDT's accessed bits come already
;     set. In long mode it writes only kernel memory (*params.lost, its
;     ap_states[] entry) and its own IA32_APIC_BASE.
;   - The GDT's selectors match the kernel's (0x08 64-bit code, 0x10 data),
;     so ap_main() starts with the segment registers cpu_load_tables()
;     expects; 0x18 is a 32-bit code segment used on the way only.
;   - No stack until RSP is loaded in 64-bit mode, after the claim.
;
; Facts from the Intel SDM, vol. 3A: the STARTUP IPI sets CS:IP = VV00:0000
; (8.4.4, MP spec B.4.2); paging must be off while EFER.LME is set, PAE must
; be on before CR0.PG, and after CR0.PG with LME the CPU is in
; compatibility mode until a far transfer loads a code segment with L = 1
; (9.8.5, "Initializing IA-32e Mode"). IA32_APIC_BASE (MSR 0x1b): EN bit
; 11, EXTD bit 10, the page's address from bit 12; x2APIC mode is entered
; from xAPIC mode (EN, then EN and EXTD), and its ID is MSR 0x802; the xAPIC
; ID register is at offset 0x20, the ID in bits 31:24 (vol. 3A, the chapter
; "Advanced Programmable Interrupt Controller (APIC)").

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

FIND_BY_APIC_ID equ 0xffffffff          ; params.cpu: look yourself up (smp.c's)
AP_STACKS_ENTRY equ 24                  ; sizeof(struct ap_stacks) in smp.c
AP_STARTING     equ 1                   ; enum ap_state in smp.c, in bits 1:0 of a
AP_ALIVE        equ 2                   ; state; the attempt above them
MSR_APIC_BASE   equ 0x1b
APIC_BASE_EXTD  equ 1 << 10             ; x2APIC mode (with EN)
APIC_BASE_EN    equ 1 << 11             ; the APIC is enabled
APIC_BASE_ADDR  equ 0x000ffffffffff000  ; the register page's physical address
MSR_X2APIC_ID   equ 0x802
XAPIC_ID        equ 0x20                ; the ID register: bits 31:24

; Offsets inside the blob: what runs relative to its base.
%define OFF(label) ((label) - trampoline_start)

section .rodata.trampoline progbits alloc noexec nowrite align=16
align 16
global trampoline_start, trampoline_end, trampoline_params
; What the boot CPU links (linear address = page + offset): three pointers and their targets.
global trampoline_gdt, trampoline_gdt_base
global trampoline_protected_mode, trampoline_protected_mode_ptr
global trampoline_long_mode, trampoline_long_mode_ptr

; ---------------------------------------------------------------------------
bits 16
trampoline_start:
	cli
	cld
	mov ax, cs                      ; CS = VV00: the page's segment
	mov ds, ax
	lock inc dword [OFF(params.started)]
	mov esi, [OFF(params.attempt)]  ; ESI = this start's attempt, kept to the claim
	movzx ebx, ax
	shl ebx, 4                      ; EBX = the page's physical address, kept to the end

	o32 lgdt [OFF(gdt_ptr)]
	mov eax, cr0
	and eax, ~(CR0_CD | CR0_NW)     ; caches on, whatever INIT left
	or eax, CR0_PE
	mov cr0, eax
	jmp dword far [OFF(protected_mode_ptr)]

; ---------------------------------------------------------------------------
bits 32
protected_mode:
trampoline_protected_mode:
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
trampoline_long_mode:
	mov ax, SEL_DATA
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov ebx, ebx                    ; the upper halves of RBX and RSI are undefined
	mov esi, esi                    ; after the switch

; Who am I: R10D = the ID my local APIC answers to (0xffffffff if it cannot
; be read), the one the STARTUP IPI was sent to: x2APIC mode, MSR 0x802;
; xAPIC mode, the ID register (bits 31:24 at offset 0x20) through the
; kernel's uncached mapping of the APIC page, if this APIC answers at the
; address the boot CPU's does. An AP still in xAPIC mode on a machine the
; kernel runs in x2APIC mode switches first (EN, then EN and EXTD, as
; apic.c's enter_x2apic_mode() would a moment later). RDMSR and WRMSR use
; ECX, EAX and EDX only: RBX keeps the base, RSI the attempt.
	mov ecx, MSR_APIC_BASE
	rdmsr                           ; EDX:EAX = IA32_APIC_BASE
	test eax, APIC_BASE_EXTD
	jnz .x2apic
	cmp dword [rbx + OFF(params.x2apic)], 0
	jne .to_x2apic
	mov r11, [rbx + OFF(params.xapic)]
	test r11, r11
	jz .unknown                     ; no mapping of the page to read it through
	test eax, APIC_BASE_EN
	jnz .enabled
	or eax, APIC_BASE_EN            ; disabled, the page would not answer
	wrmsr
.enabled:
	shl rdx, 32
	or rax, rdx
	mov r9, APIC_BASE_ADDR
	and rax, r9
	cmp rax, [rbx + OFF(params.xapic_phys)]
	jne .unknown                    ; this APIC answers elsewhere
	mov r10d, [r11 + XAPIC_ID]
	shr r10d, 24
	jmp .which_cpu
.to_x2apic:
	or eax, APIC_BASE_EN
	wrmsr
	or eax, APIC_BASE_EXTD
	wrmsr
.x2apic:
	mov ecx, MSR_X2APIC_ID
	rdmsr
	mov r10d, eax
	jmp .which_cpu
.unknown:
	mov r10d, 0xffffffff

; Which CPU: EDI. Told (one AP alone), the APIC must agree with the MADT's
; entry (a CPU whose ID cannot be read is trusted); else the ID is searched
; in the MADT's list.
.which_cpu:
	mov r11, [rbx + OFF(params.apic_ids)]
	mov edi, [rbx + OFF(params.cpu)]
	cmp edi, FIND_BY_APIC_ID
	je .search
	cmp r10d, 0xffffffff
	je .stack
	cmp [r11 + rdi * 4], r10d
	je .stack
	jmp .lost
.search:
	cmp r10d, 0xffffffff
	je .lost
	mov ecx, [rbx + OFF(params.ncpus)]
	xor edi, edi
.next:
	cmp edi, ecx
	jae .lost
	cmp [r11 + rdi * 4], r10d
	je .stack
	inc edi
	jmp .next

; Its stack: R9 = ap_stacks[cpu].kernel (0: not one being started).
.stack:
	mov rax, [rbx + OFF(params.stacks)]
	imul rdx, rdi, AP_STACKS_ENTRY
	mov r9, [rax + rdx]
	test r9, r9
	jz .lost

; Claim it before touching the stack: ap_states[cpu] from STARTING to
; ALIVE, both tagged with this start's attempt (ESI, read in real mode), in
; one locked compare-and-swap. It fails if the boot CPU gave up on this
; start (ABANDONED) or another start of this CPU is under way: a CPU that
; woke up late halts here, on no stack, and can take nobody's place.
	mov r11, [rbx + OFF(params.states)]
	lea eax, [rsi * 4 + AP_STARTING]
	lea edx, [rsi * 4 + AP_ALIVE]
	lock cmpxchg [r11 + rdi * 4], edx
	jne .halt
	mov rsp, r9
	mov rax, [rbx + OFF(params.entry)]
	xor ebp, ebp                    ; rbp = 0 ends every backtrace
	push 0                          ; a null return address: RSP is as after a call
	jmp rax                         ; ap_main(EDI)

.lost:                                  ; no entry for me, or not one being started
	mov rax, [rbx + OFF(params.lost)]
	mov [rax + 4], r10d             ; the ID, for the boot CPU to report
	lock inc dword [rax]            ; one more lost: the boot CPU stops waiting for it
.halt:
	cli
	hlt
	jmp .halt

; ---------------------------------------------------------------------------
; The accessed bit (type bit 0) of each descriptor is already set: else the
; CPU sets it when it loads the selector, a write, and with paging on this
; page is read-only: the far jump into 64-bit code would page-fault with no
; IDT, a triple fault. (TCG does not check that write; hardware and KVM do.)
align 16
gdt:
trampoline_gdt:
	dq 0                            ; null
	dq 0x00af9b000000ffff           ; 0x08: code, 64-bit (L), present, DPL 0, accessed
	dq 0x00cf93000000ffff           ; 0x10: data, 4 GiB, writable, present, accessed
	dq 0x00cf9b000000ffff           ; 0x18: code, 32-bit (D), 4 GiB, present, accessed
gdt_end:

align 4
gdt_ptr:
	dw gdt_end - gdt - 1
trampoline_gdt_base:
.base:	dd 0                            ; linked by the boot CPU

; Far pointers (offset, selector) for the two mode-changing jumps.
protected_mode_ptr:
trampoline_protected_mode_ptr:
	dd 0                            ; offset: linked by the boot CPU
	dw SEL_CODE32
long_mode_ptr:
trampoline_long_mode_ptr:
	dd 0                            ; offset: linked by the boot CPU
	dw SEL_CODE64

; The parameter block. Its layout is struct trampoline_params in smp.c.
align 8
trampoline_params:
params:
.cr3:		dd 0                    ; +0  page tables, below 4 GiB
.efer:		dd 0                    ; +4  EFER bits to set: LME (+NXE)
.entry:		dq 0                    ; +8  64-bit entry: ap_main
.states:	dq 0                    ; +16 u32 ap_states[], by logical CPU
.cpu:		dd 0                    ; +24 logical CPU number (one AP alone), or FIND_BY_APIC_ID
.started:	dd 0                    ; +28 each AP adds 1 on its first instructions
.apic_ids:	dq 0                    ; +32 u32 APIC IDs, by logical CPU (the MADT's list)
.stacks:	dq 0                    ; +40 struct ap_stacks, by logical CPU
.ncpus:		dd 0                    ; +48 entries in both
.x2apic:	dd 0                    ; +52 the kernel runs the APICs in x2APIC mode
.lost:		dq 0                    ; +56 struct ap_lost, for an AP with no entry
.xapic:		dq 0                    ; +64 xAPIC mode: the APIC page, mapped uncached
.xapic_phys:	dq 0                    ; +72 xAPIC mode: its physical address
.attempt:	dd 0                    ; +80 which start this is: tags the states
.pad:		dd 0                    ; +84

trampoline_end:
