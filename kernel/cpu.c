// SPDX-License-Identifier: MIT
/*
 * cpu.c - identify the CPU and load the GDT and TSS.
 *
 * The GDT of a 64-bit kernel is almost empty: segmentation is off, but CS
 * must still name a 64-bit code descriptor, SS a data descriptor, and the
 * TR register a TSS descriptor (16 bytes in long mode); user mode needs a
 * code and a data descriptor of privilege level 3 (the table is in cpu.h).
 * The TSS carries the IST stacks (see cpu.h); boot.asm's .stacks section
 * provides them, each with an unmapped guard page below. Its RSP0 is set
 * by the scheduler for a thread in user mode (kernel/user.c).
 */
#include "cpu.h"
#include "kstring.h"
#include "printk.h"
#include "x86.h"

BUILD_BUG_ON(sizeof(struct tss) != 104);

struct cpu_info cpu_info;

static void cpuid_string(u32 leaf, char *out)
{
	u32 r[4];

	cpuid(leaf, 0, &r[0], &r[1], &r[2], &r[3]);
	memcpy(out, &r[0], 16);
}

void cpu_identify(void)
{
	struct cpu_info *ci = &cpu_info;
	u32 a, b, c, d;

	cpuid(0, 0, &ci->max_leaf, &b, &c, &d);
	memcpy(ci->vendor + 0, &b, 4);
	memcpy(ci->vendor + 4, &d, 4);
	memcpy(ci->vendor + 8, &c, 4);
	cpuid(1, 0, &a, &b, &c, &d);
	ci->family = (a >> 8) & 0xf;
	ci->model = (a >> 4) & 0xf;
	if (ci->family == 0xf)
		ci->family += (a >> 20) & 0xff;
	if (ci->family >= 6)
		ci->model |= ((a >> 16) & 0xf) << 4;
	ci->stepping = a & 0xf;
	ci->x2apic = c & (1u << 21);
	ci->tsc_deadline = c & (1u << 24);
	ci->hypervisor = c & (1u << 31);
	if (ci->hypervisor) {
		cpuid(0x40000000, 0, &a, &b, &c, &d);
		memcpy(ci->hypervisor_id + 0, &b, 4);
		memcpy(ci->hypervisor_id + 4, &c, 4);
		memcpy(ci->hypervisor_id + 8, &d, 4);
	}
	if (ci->max_leaf >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		ci->smep = b & (1u << 7);
		ci->smap = b & (1u << 20);
	}
	cpuid(0x80000000, 0, &ci->max_ext_leaf, &b, &c, &d);
	if (ci->max_ext_leaf >= 0x80000001) {
		cpuid(0x80000001, 0, &a, &b, &c, &d);
		ci->nx = d & (1u << 20);
		ci->pdpe1gb = d & (1u << 26);
	}
	if (ci->max_ext_leaf >= 0x80000004) {
		cpuid_string(0x80000002, ci->brand);
		cpuid_string(0x80000003, ci->brand + 16);
		cpuid_string(0x80000004, ci->brand + 32);
	}
	if (ci->max_ext_leaf >= 0x80000007) {
		cpuid(0x80000007, 0, &a, &b, &c, &d);
		ci->invariant_tsc = d & (1u << 8);
	}
}

/* A 16-byte long-mode TSS descriptor, as two GDT slots. */
static void set_tss_descriptor(u64 *slot, u64 base, u32 limit)
{
	slot[0] = (limit & 0xffff) | (base & 0xffffff) << 16 |
		  (u64)0x89 << 40 |             /* present, DPL 0, type 9: available 64-bit TSS */
		  (u64)((limit >> 16) & 0xf) << 48 | ((base >> 24) & 0xff) << 56;
	slot[1] = base >> 32;
}

void cpu_load_tables(struct cpu_tables *t, u64 df_stack_top, u64 nmi_stack_top)
{
	struct {
		u16 limit;
		u64 base;
	} __packed gdtr = { sizeof(t->gdt) - 1, (u64)t->gdt };

	t->tss = (struct tss){ .iomap_base = sizeof(struct tss) };
	t->tss.ist[IST_DOUBLE_FAULT - 1] = df_stack_top;
	t->tss.ist[IST_NMI - 1] = nmi_stack_top;

	t->gdt[0] = 0;
	t->gdt[1] = 0x00af9a000000ffff; /* 0x08: code, 64-bit (L), present, DPL 0 */
	t->gdt[2] = 0x00cf92000000ffff; /* 0x10: data, writable, present, DPL 0 */
	t->gdt[3] = 0;                  /* 0x18: SYSRET's 32-bit code, never used */
	t->gdt[4] = 0x00cff2000000ffff; /* 0x20: data, writable, present, DPL 3 */
	t->gdt[5] = 0x00affa000000ffff; /* 0x28: code, 64-bit (L), present, DPL 3 */
	set_tss_descriptor(&t->gdt[6], (u64)&t->tss, sizeof(struct tss) - 1);

	/*
	 * Load the GDT, reload CS with a far return, the data segments, then TR.
	 * GS is left alone: its base (MSR_GS_BASE) is the per-CPU pointer, and
	 * loading the selector would clear it.
	 */
	__asm__ volatile(
		"lgdt %0\n\t"
		"pushq %1\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w3\n\t"
		: : "m"(gdtr), "i"(KERNEL_CS), "r"((u64)KERNEL_DS), "r"((u64)TSS_SEL)
		: "rax", "memory");
}
