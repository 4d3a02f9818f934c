// SPDX-License-Identifier: MIT
/*
 * irqoff.c - the interrupts-off tracer (see irqoff.h). x86.h's cli() and
 * sti() call in here, as trap_dispatch() does on interrupt entry and exit.
 */
#include "irqoff.h"
#include "percpu.h"
#include "time.h"
#include "x86.h"

/* One cache line per CPU: every cli and sti writes here, and two CPUs must not share a line. */
struct irqoff_cpu {
	u64 since;              /* TSC when the open window began; 0: none open */
	u64 where;
	u64 epoch;              /* irqoff_epoch when it began */
	u64 max_cycles;
	u64 max_where;
} __aligned(64);

bool irqoff_tracing;
static bool irqoff_started;     /* irqoff_start() ran: per-CPU data exists */
static u64 irqoff_epoch;        /* raised each time tracing goes on */
static struct irqoff_cpu irqoff_cpus[MAX_CPUS];

void irqoff_begin(u64 where)
{
	struct irqoff_cpu *c = &irqoff_cpus[smp_processor_id()];

	c->since = rdtsc();
	c->where = where;
	c->epoch = __atomic_load_n(&irqoff_epoch, __ATOMIC_RELAXED);
}

void irqoff_end(void)
{
	struct irqoff_cpu *c = &irqoff_cpus[smp_processor_id()];
	u64 cycles;

	if (!c->since || (read_rflags() & RFLAGS_IF))
		return;
	/* Begun before tracing last went on: its start is stale, its end not this window's. */
	if (c->epoch != __atomic_load_n(&irqoff_epoch, __ATOMIC_RELAXED)) {
		c->since = 0;
		return;
	}
	cycles = rdtsc() - c->since;
	c->since = 0;
	if (cycles > c->max_cycles) {
		c->max_cycles = cycles;
		c->max_where = c->where;
	}
}

void irqoff_start(void)
{
	irqoff_started = true;
	irqoff_trace(true);
}

bool irqoff_trace(bool on)
{
	bool was = __atomic_load_n(&irqoff_tracing, __ATOMIC_RELAXED);

	if (!irqoff_started)
		return false;
	if (on && !was)
		__atomic_add_fetch(&irqoff_epoch, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&irqoff_tracing, on, __ATOMIC_RELEASE);
	return was;
}

void irqoff_reset(void)
{
	for (u32 cpu = 0; cpu < MAX_CPUS; cpu++)
		__atomic_store_n(&irqoff_cpus[cpu].max_cycles, 0, __ATOMIC_RELAXED);
}

void irqoff_get(u32 cpu, struct irqoff_max *max)
{
	const struct irqoff_cpu *c = &irqoff_cpus[cpu];

	max->ns = tsc_khz ? c->max_cycles * 1000000 / tsc_khz : 0;
	max->where = c->max_where;
}
