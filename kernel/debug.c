// SPDX-License-Identifier: MIT
/*
 * debug.c - what a failed debug check does (see debug.h).
 *
 * It prints once per place and counts always: a rule broken in a loop
 * would otherwise drown the log and the serial console, and the count is
 * what the tests read. The places are kept in a small table; past its
 * size, failures are still counted and the first line says the table is
 * full. Runs in any context, interrupts on or off.
 */
#include "debug.h"
#include "cmdline.h"
#include "panic.h"
#include "percpu.h"
#include "printk.h"
#include "sched.h"
#include "spinlock.h"

int debug_checks;
PARAM_CHOICE("debug", debug_checks, "off", "on");

#define DEBUG_PLACES 32

static struct spinlock places_lock = SPINLOCK_INIT("debug");
static struct { const char *what, *where; } places[DEBUG_PLACES];
static u32 nplaces;
static u64 failures;

/* Has this place been reported? If not, remember it; true the first time. */
static bool first_time(const char *what, const char *where, bool *full)
{
	u64 flags = spin_lock_irqsave(&places_lock);
	bool first = true;

	for (u32 i = 0; i < nplaces && first; i++)
		if (places[i].what == what && places[i].where == where)
			first = false;
	*full = first && nplaces == DEBUG_PLACES;
	if (first && !*full)
		places[nplaces++] = (typeof(places[0])){ what, where };
	spin_unlock_irqrestore(&places_lock, flags);
	return first && !*full;
}

void debug_fail(const char *what, const char *where)
{
	bool full;

	static bool said_full;

	__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
	if (!first_time(what, where, &full)) {
		if (full && !__atomic_exchange_n(&said_full, true, __ATOMIC_RELAXED))
			printk(KERN_ERR "debug: more places fail than %u; counted, not printed\n",
			       DEBUG_PLACES);
		return;
	}
	const struct percpu *pc = raw_this_cpu();
	printk(KERN_ERR "debug: %s in %s() (CPU %u, %s, preempt_count %d)\n", what, where, pc->cpu,
	       pc->current ? pc->current->name : "boot", pc->preempt_count);
	backtrace_print(0, read_rbp());
}

u64 debug_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}

/*
 * smp_processor_id() or this_cpu() in code that may move (percpu.h):
 * preemption and interrupts on, no interrupt being handled, a scheduler
 * running threads, and the current thread allowed on other CPUs too.
 */
void debug_percpu_access(const struct percpu *pc, const char *what, const char *where)
{
	const struct thread *t = pc->current;
	struct cpumask others;

	if (pc->preempt_count || pc->irq_depth || !(read_rflags() & RFLAGS_IF) || !t ||
	    !pc->online)
		return;
	others = t->affinity;
	others.bits[pc->cpu / 64] &= ~(1UL << (pc->cpu % 64));
	if (!cpumask_empty(&others))
		debug_fail(what, where);
}
