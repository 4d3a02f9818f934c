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
