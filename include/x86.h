/* SPDX-License-Identifier: MIT */
/*
 * x86.h - one-line wrappers around x86 instructions (like xv6's x86.h).
 *
 * Each function compiles to the instruction it is named after. The
 * "memory" clobbers keep the compiler from moving memory accesses across
 * instructions that have side effects on memory or devices.
 */
#ifndef X86_H
#define X86_H

#include "types.h"

static inline void outb(u16 port, u8 v) { __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory"); }
static inline void outw(u16 port, u16 v) { __asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port) : "memory"); }
static inline void outl(u16 port, u32 v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory"); }

static inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline u16 inw(u16 port)
{
	u16 v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline u32 inl(u16 port)
{
	u32 v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	/* The low half masked, then cast, as Linux's wrmsrl(): no cast that drops a constant's bits. */
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)(v & 0xffffffff)), "d"((u32)(v >> 32))
			 : "memory");
}

static inline void cpuid(u32 leaf, u32 subleaf, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(subleaf));
}

/* rdtsc is not serializing; good enough for timestamps and calibration. */
static inline u64 rdtsc(void)
{
	u32 lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

#define DEFINE_CR(n)                                                              \
	static inline u64 read_cr##n(void)                                        \
	{                                                                         \
		u64 v;                                                            \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                 \
		return v;                                                         \
	}                                                                         \
	static inline void write_cr##n(u64 v)                                     \
	{                                                                         \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory");        \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

#define RFLAGS_IF (1UL << 9)

#ifndef HOST_TEST
static inline u64 read_rflags(void)
{
	u64 v;
	__asm__ volatile("pushfq; popq %0" : "=r"(v));
	return v;
}
#else
/*
 * Host builds (unit tests, check-rcu, the simulator) run in user mode,
 * where nothing can be masked: cli() and sti() clear and set a flag of
 * their own, host_rflags, and read_rflags() reads it. Code that asks
 * whether interrupts are on then gets an answer a model controls:
 * check-rcu keeps one for each of its CPUs, and takes an interrupt only
 * where the flag says interrupts are on. (Weak: every host file may
 * define it; the linker keeps one.)
 */
__attribute__((weak)) u64 host_rflags = RFLAGS_IF;

static inline u64 read_rflags(void)
{
	return host_rflags;
}
#endif

static inline u64 read_rbp(void)
{
	u64 v;
	__asm__ volatile("mov %%rbp, %0" : "=r"(v));
	return v;
}

static inline u64 read_rsp(void)
{
	u64 v;
	__asm__ volatile("mov %%rsp, %0" : "=r"(v));
	return v;
}

#ifndef HOST_TEST
/* The interrupts-off tracer (kernel/irqoff.c) times each window from cli to sti. */
extern bool irqoff_tracing;
void irqoff_begin(u64 where);
void irqoff_end(void);

static inline void cli(void)
{
	if (irqoff_tracing && (read_rflags() & RFLAGS_IF)) {
		u64 where;
		__asm__ volatile("lea 0(%%rip), %0" : "=r"(where));
		__asm__ volatile("cli" ::: "memory");
		irqoff_begin(where);
		return;
	}
	__asm__ volatile("cli" ::: "memory");
}

static inline void sti(void)
{
	if (irqoff_tracing)
		irqoff_end();
	__asm__ volatile("sti" ::: "memory");
}
#else
static inline void cli(void) { host_rflags &= ~RFLAGS_IF; }
static inline void sti(void) { host_rflags |= RFLAGS_IF; }
#endif
static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
static inline void invlpg(u64 va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }

/* Disable interrupts and return whether they were on: pair with irq_restore(). */
static inline u64 irq_save(void)
{
	u64 flags = read_rflags();
	cli();
	return flags;
}

static inline void irq_restore(u64 flags)
{
	if (flags & RFLAGS_IF)
		sti();
}

/*
 * The PC's system control port B: bits 0/1 gate PIT channel 2 and the
 * speaker, bit 5 reads channel 2's output (kernel/time.c); bits 7/6 read an
 * NMI's SERR#/IOCHK# source, bits 2/3 clear and mask it (kernel/trap.c).
 */
#define PORT_B        0x61

/* Control register and MSR bits used by the boot path and by user mode. */
#define CR0_WP        (1UL << 16)
#define CR4_PAE       (1UL << 5)
#define CR4_PGE       (1UL << 7)
#define CR4_SMEP      (1UL << 20)       /* no kernel execution of user pages */
#define CR4_SMAP      (1UL << 21)       /* no kernel access to user pages unless RFLAGS.AC */
#define MSR_EFER      0xc0000080
#define EFER_SCE      (1UL << 0)        /* SYSCALL/SYSRET enabled */
#define EFER_NXE      (1UL << 11)
#define MSR_STAR      0xc0000081        /* SYSCALL's and SYSRET's selectors */
#define MSR_LSTAR     0xc0000082        /* SYSCALL's 64-bit entry point */
#define MSR_SFMASK    0xc0000084        /* RFLAGS bits SYSCALL clears */
#define MSR_PAT       0x277
#define MSR_GS_BASE   0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102   /* what SWAPGS exchanges GS base with */
#define RFLAGS_TF     (1UL << 8)
#define RFLAGS_DF     (1UL << 10)
#define RFLAGS_AC     (1UL << 18)

#endif
