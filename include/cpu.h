/*
 * cpu.h - what this CPU is and the descriptor tables it runs with.
 *
 * cpu_init() reads CPUID once into struct cpu_info and loads the kernel's
 * GDT (null, 64-bit code, data, and the TSS) and TSS. In 64-bit mode the
 * TSS no longer switches tasks; it holds the Interrupt Stack Table: the
 * stacks the CPU switches to for the double fault and NMI vectors, so that
 * they run even when the current stack is the thing that broke.
 */
#ifndef CPU_H
#define CPU_H

#include "types.h"

#define KERNEL_CS   0x08
#define KERNEL_DS   0x10
#define TSS_SEL     0x18

#define IST_DOUBLE_FAULT 1      /* TSS.IST1: vector 8 */
#define IST_NMI          2      /* TSS.IST2: vector 2 */

struct cpu_info {
	char vendor[13];        /* "GenuineIntel", "AuthenticAMD", "TCGTCGTCGTCG"... */
	char brand[49];
	u32 max_leaf, max_ext_leaf;
	u32 family, model, stepping;
	bool nx, pdpe1gb, x2apic, tsc_deadline, invariant_tsc, hypervisor;
	char hypervisor_id[13];  /* "TCGTCGTCGTCG", "KVMKVMKVM" or "" */
};

extern struct cpu_info cpu_info;

void cpu_init(void);

#endif
