/* SPDX-License-Identifier: MIT */
/*
 * smp.h - starting the other CPUs, and asking them to do things (IPIs).
 *
 * smp_boot() starts every enabled MADT CPU with INIT-SIPI-SIPI through the
 * real-mode trampoline copied to the page below 1 MiB that mm.c set aside,
 * all at once (each finds its number by its APIC ID) unless
 * smp.parallel=off; each CPU climbs to long mode, loads the kernel's page
 * tables, gets its per-CPU area, GDT/TSS (own IST stacks), IDT, local APIC
 * and tick, and enters the scheduler's idle loop. An AP not online with
 * the others is started alone; one that does not answer then is reported
 * and skipped.
 */
#ifndef SMP_H
#define SMP_H

#include "types.h"

void smp_boot(void);
/*
 * APs that smp.parallel=on (the default) did not bring up with the others
 * and smp_boot() then started alone: 0 on a machine where every AP found
 * itself by its APIC ID.
 */
extern u32 smp_started_alone;
/*
 * The start of all APs together: from the first INIT to the last of them
 * seen online, in ns (0: none came online together), and whether the
 * second STARTUP had to be sent (fewer had started after the 200 us).
 */
extern u64 smp_together_ns;
extern bool smp_second_startup;
/* smp.parallel: were the APs started all at once (on) or one at a time (off)? */
bool smp_parallel(void);

/*
 * Run fn(arg) on cpu (from its IPI handler, interrupts off); wait: until it
 * returned. On this CPU, fn runs at once with interrupts off; for a CPU
 * that is not online, nothing runs (a warning says so). fn must be short
 * and must not sleep.
 */
void smp_call_function(u32 cpu, void (*fn)(void *), void *arg, bool wait);

/* Run fn(arg) on every online CPU, this one included. */
void smp_call_function_all(void (*fn)(void *), void *arg, bool wait);

/*
 * A call not done after 5 s is reported: the waiter names each CPU that
 * still holds it (queued, running, or its queue locked) and asks it by
 * NMI where it is. The last report, for tests:
 */
#define SMP_LATE_FRAMES 8
enum smp_late_state { SMP_LATE_NONE, SMP_LATE_QUEUED, SMP_LATE_RUNNING, SMP_LATE_QUEUE_LOCKED };
struct smp_late_call {
	u32 reports;                    /* late-call reports so far */
	u32 waiter, cpu;                /* the last CPU named, and who waited for it */
	enum smp_late_state state;
	bool answered_nmi, irqs_on;     /* where it was, if it answered: */
	u64 rip, frames[SMP_LATE_FRAMES];       /* frames: return addresses, 0-ended */
};
const struct smp_late_call *smp_last_late_call(void);

/* A test aid: report after ms instead of 5 s (0: back to 5 s); returns the old value. */
u32 smp_set_call_wait_warn_ms(u32 ms);

/* A test aid: the next call queued sends no IPI, as if it were lost on the way. */
void smp_lose_next_call_ipi(void);

struct trap_frame;
/* The NMI handler asks first: was this NMI a waiter's "where are you"? (answered if so) */
bool smp_nmi_snapshot(const struct trap_frame *f);

/* Make cpu look at need_resched now. */
void smp_send_reschedule(u32 cpu);

/*
 * The reschedule vector alone, need_resched untouched: the target
 * acknowledges it and switches only if it was going to anyway. Linux
 * 2.6's x86-64 smp_send_reschedule() was this (its callers set
 * TIF_NEED_RESCHED first); RCU's fqs16 and fqs19 modes replay it.
 */
void smp_send_bare_reschedule(u32 cpu);

/*
 * Panic: stop every other CPU (NMI), so the panicking one prints alone.
 * Returns with interrupts off. If another CPU is already stopping the
 * machine, halts this CPU instead of returning; on the CPU that stopped
 * the others, a second call (a panic inside the panic) just returns.
 */
void smp_stop_others(void);

/* For the NMI handler: has smp_stop_others() asked every CPU to halt? */
bool smp_stop_requested(void);

/* The NMI handler's answer to it: halt with interrupts off, for good. */
void smp_halt_this_cpu(void) __noreturn;

/* The scheduler's entry for a CPU that has just come up (sched.c); never returns. */
void sched_ap_enter(void) __noreturn;

#endif
