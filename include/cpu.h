/* SPDX-License-Identifier: MIT */
/*
 * cpu.h - what this CPU is and the descriptor tables it runs with.
 *
 * cpu_identify() reads CPUID once into struct cpu_info; cpu_load_tables()
 * loads a CPU's own GDT and TSS. In 64-bit mode the TSS no longer switches
 * tasks; it holds the stacks the CPU switches to: RSP0, the kernel stack
 * an interrupt from user mode lands on, and the Interrupt Stack Table, the
 * stacks of the double fault and NMI vectors, so that they run even when
 * the current stack is what broke.
 *
 * The GDT, in the order SYSCALL and SYSRET need (user data right below
 * user code, 8 bytes above STAR's base; Intel SDM vol. 2, SYSRET):
 *
 *   0x00  null
 *   0x08  kernel code, 64-bit      KERNEL_CS
 *   0x10  kernel data              KERNEL_DS
 *   0x18  null                     (SYSRET's 32-bit user code: never used)
 *   0x20  user data, DPL 3         USER_DS = 0x23 (RPL 3)
 *   0x28  user code, 64-bit, DPL 3 USER_CS = 0x2b (RPL 3)
 *   0x30  TSS (16 bytes)           TSS_SEL
 */
#ifndef CPU_H
#define CPU_H

#include "types.h"

#define KERNEL_CS   0x08
#define KERNEL_DS   0x10
#define USER_BASE_SEL 0x18      /* STAR[63:48]: SYSRET loads SS = +8, CS = +16 */
#define USER_DS     0x23
#define USER_CS     0x2b
#define TSS_SEL     0x30

#define IST_DOUBLE_FAULT 1      /* TSS.IST1: vector 8 */
#define IST_NMI          2      /* TSS.IST2: vector 2 */

/* The 64-bit TSS: no task switching any more, just the stacks the CPU may switch to. */
struct tss {
	u32 reserved0;
	u64 rsp[3];             /* rsp[0]: the stack for interrupts from user mode */
	u64 reserved1;
	u64 ist[7];             /* ist[n - 1] is ISTn */
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;         /* past the limit: no I/O permission bitmap */
} __packed;

/* Each CPU's own GDT and TSS (the TSS holds its own IST stacks). */
struct cpu_tables {
	u64 gdt[8] __aligned(16);       /* the table above; the TSS takes two slots */
	struct tss tss;
};

struct cpu_info {
	char vendor[13];        /* "GenuineIntel", "AuthenticAMD", "TCGTCGTCGTCG"... */
	char brand[49];
	u32 max_leaf, max_ext_leaf;
	u32 family, model, stepping;
	bool nx, pdpe1gb, x2apic, tsc_deadline, invariant_tsc, hypervisor;
	bool smep, smap;        /* the kernel may not execute (SMEP) or touch (SMAP) user pages */
	char hypervisor_id[13];  /* "TCGTCGTCGTCG", "KVMKVMKVM" or "" */
};

extern struct cpu_info cpu_info;

/* Boot CPU: read CPUID into cpu_info. */
void cpu_identify(void);

/*
 * Load this CPU's GDT and TSS from *t, with the double-fault and NMI
 * stacks whose tops are given. Every CPU calls it once for itself.
 */
void cpu_load_tables(struct cpu_tables *t, u64 df_stack_top, u64 nmi_stack_top);

#endif
