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
	u64 max_cycles;
	u64 max_where;
} __aligned(64);

bool irqoff_tracing;
static struct irqoff_cpu irqoff_cpus[MAX_CPUS];

void irqoff_begin(u64 where)
{
	struct irqoff_cpu *c = &irqoff_cpus[smp_processor_id()];

	c->since = rdtsc();
	c->where = where;
}

void irqoff_end(void)
{
	struct irqoff_cpu *c = &irqoff_cpus[smp_processor_id()];
	u64 cycles;

	if (!c->since || (read_rflags() & RFLAGS_IF))
		return;
	cycles = rdtsc() - c->since;
	c->since = 0;
	if (cycles > c->max_cycles) {
		c->max_cycles = cycles;
		c->max_where = c->where;
	}
}

void irqoff_start(void)
{
	irqoff_tracing = true;
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
