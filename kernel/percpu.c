// SPDX-License-Identifier: MIT
/*
 * percpu.c - the per-CPU array and how a CPU finds its own entry.
 */
#include "percpu.h"
#include "x86.h"

/* kernel/entry.asm's SYSCALL entry reaches these two at fixed offsets. */
BUILD_BUG_ON(offsetof(struct percpu, user_rsp) != 8);
BUILD_BUG_ON(offsetof(struct percpu, kernel_rsp) != 16);

struct percpu percpu[MAX_CPUS];
u32 nr_cpus = 1;
u32 nr_cpus_online = 1;

void percpu_init(u32 cpu, u32 apic_id, u32 node)
{
	struct percpu *p = &percpu[cpu];

	p->self = p;
	p->cpu = cpu;
	p->apic_id = apic_id;
	p->node = node;
	wrmsr(MSR_GS_BASE, (u64)p);
}
