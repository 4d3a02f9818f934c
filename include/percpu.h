/* SPDX-License-Identifier: MIT */
/*
 * percpu.h - each CPU's own data, reached through the GS segment base.
 *
 * Every CPU has one struct percpu in the percpu[] array, indexed by its
 * logical number, and points its MSR_GS_BASE at it. The struct's first
 * field points to itself, so "mov %gs:0, %rax" gives this CPU's struct
 * in one instruction, whichever CPU runs it:
 *
 *   CPU 0: GS base -> percpu[0] = { .self = &percpu[0], .cpu = 0, ... }
 *   CPU 1: GS base -> percpu[1] = { .self = &percpu[1], .cpu = 1, ... }
 *
 * A thread may move to another CPU whenever it can be preempted, so a
 * pointer from this_cpu() is only stable with preemption (or interrupts)
 * off.
 */
#ifndef PERCPU_H
#define PERCPU_H

#include "cpu.h"
#include "debug.h"
#include "param.h"
#include "types.h"

struct thread;
struct runqueue;
struct fault_catcher;

struct trap_frame;

struct percpu {
	struct percpu *self;            /* must stay first: %gs:0 */
	u64 user_rsp;                   /* %gs:8: SYSCALL's scratch for the user stack pointer */
	u64 kernel_rsp;                 /* %gs:16: the stack SYSCALL switches to (= TSS.rsp[0]) */
	u32 cpu;                        /* logical CPU number (0: the boot CPU, then MADT order) */
	u32 apic_id;
	u32 node;                       /* NUMA node */
	bool online;
	struct thread *current;         /* the thread running here */
	struct thread *idle;            /* this CPU's idle thread */
	struct runqueue *rq;            /* this CPU's run queue (sched.c) */
	int preempt_count;              /* > 0: do not switch threads */
	int irq_depth;                  /* interrupt handlers running (nesting) */
	const struct trap_frame *irq_frame;     /* what the outermost one interrupted */
	bool need_resched;              /* switch at the next chance */
	u64 ticks;                      /* timer interrupts taken here */
	struct fault_catcher *catcher;  /* innermost fault_catch() before threads (trap.c) */
	void *rcu;                      /* RCU's per-CPU data */
	struct cpu_tables tables;       /* this CPU's GDT and TSS */
};

extern struct percpu percpu[MAX_CPUS];
extern u32 nr_cpus;                     /* CPUs the MADT lists (enabled) */
extern u32 nr_cpus_online;

/*
 * This CPU's struct, unchecked: for data that is right whichever CPU the
 * thread ends up on (its current thread, the preempt_count it is about to
 * test), or a value that may be stale (a node to prefer, a message).
 */
static inline struct percpu *raw_this_cpu(void)
{
	struct percpu *p;

	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

/*
 * This CPU's number, for code that stays on this CPU while it uses it:
 * preemption or interrupts off, in an interrupt, or a thread pinned here.
 * With debug=on anything else is reported (debug.h): a thread moved to
 * another CPU right after the read would use the first CPU's data.
 * raw_smp_processor_id() is for a number that may be stale, such as in a
 * message or a statistic.
 */
void debug_percpu_access(const struct percpu *pc, const char *what, const char *where);

static inline u32 raw_smp_processor_id(void)
{
	return raw_this_cpu()->cpu;
}

static inline u32 smp_processor_id_in(const char *where)
{
	struct percpu *pc = raw_this_cpu();

#ifndef HOST_TEST
	if (unlikely(debug_checks))
		debug_percpu_access(pc, "smp_processor_id() in preemptible code", where);
#endif
	return pc->cpu;
}
#define smp_processor_id() smp_processor_id_in(__func__)

/*
 * This CPU's struct, under the same rule as smp_processor_id(), checked
 * the same way (Linux's this_cpu_ptr() under CONFIG_DEBUG_PREEMPT).
 */
static inline struct percpu *this_cpu_in(const char *where)
{
	struct percpu *pc = raw_this_cpu();

#ifndef HOST_TEST
	if (unlikely(debug_checks))
		debug_percpu_access(pc, "this_cpu() in preemptible code", where);
#endif
	return pc;
}
#define this_cpu() this_cpu_in(__func__)

#ifndef HOST_TEST
/*
 * Count this CPU's preempt_count up or down in one instruction on %gs, as
 * Linux's this_cpu_inc() does. "this_cpu()->preempt_count++" would be two:
 * load the pointer, then add through it; an interrupt between them may
 * switch the thread to another CPU, and the add then lands on the old
 * CPU's count, which stays raised for good (and ours never was).
 */
static inline void preempt_count_inc(void)
{
	__asm__ volatile("incl %%gs:%c0" : : "i"(offsetof(struct percpu, preempt_count)) : "memory");
}

/*
 * Read one field of this CPU's struct in one instruction on %gs, as
 * Linux's this_cpu_read() does: right for whichever CPU the thread is on
 * when the load runs, so no check is needed. Through raw_this_cpu() it
 * would be two, and a thread moved between them reads the CPU it left.
 */
static inline bool this_cpu_need_resched(void)
{
	bool need;

	__asm__ volatile("movb %%gs:%c1, %0" : "=q"(need) : "i"(offsetof(struct percpu, need_resched)));
	return need;
}

static inline int this_cpu_preempt_count(void)
{
	int count;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(count) : "i"(offsetof(struct percpu, preempt_count)));
	return count;
}

/* Count down; true if the count reached zero. */
static inline bool preempt_count_dec_and_test(void)
{
	bool zero;

	__asm__ volatile("decl %%gs:%c1"
			 : "=@ccz"(zero)
			 : "i"(offsetof(struct percpu, preempt_count))
			 : "memory");
	return zero;
}
#endif

/* Fill percpu[cpu] and point this CPU's GS base at it. */
void percpu_init(u32 cpu, u32 apic_id, u32 node);

#endif
