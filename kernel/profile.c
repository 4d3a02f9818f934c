// SPDX-License-Identifier: MIT
/*
 * profile.c - a sampling profile: which functions the ticks interrupt.
 *
 * Linux 2.6 did it so (kernel/profile.c, profile_tick() and profile_hit():
 * the boot option profile=N, then each timer tick's kernel pc, shifted
 * right by N, counted in prof_buffer, which readprofile read from
 * /proc/profile). testbed counts per function instead of per 2^N bytes:
 * hits[i] is the number of ticks that found a CPU inside ksyms[i], found
 * by binary search in the symbol table. A tick that finds the idle thread
 * counts as idle, one in user mode as user, one outside the kernel's text
 * as other.
 *
 * What it cannot see, as 2.6's could not: the tick waits while interrupts
 * are off, so time spent with them off is charged to where they came back
 * on (usually the same function: irq_restore() is inlined). Profilers
 * driven by the NMI (oprofile, perf) came for that.
 *
 * Invariants: hits[] has ksyms_count counters, each raised by one atomic
 * add from a tick; a profile's numbers are read after profile_end()'s
 * caller stopped what it measured, so they are exact for its ticks.
 */
#include "profile.h"
#include "cmdline.h"
#include "ksyms.h"
#include "page_alloc.h"
#include "printk.h"
#include "sched.h"
#include "trap.h"
#include "vm.h"

#define PROFILE_TOP 12          /* functions printed per profile */

static int profile_arg;
PARAM_CHOICE("profile", profile_arg, "off", "on");

static u32 *hits;               /* ksyms_count counters, or NULL */
static u64 idle_hits, user_hits, other_hits;
static bool sampling;
static u32 running;             /* profiles begun and not ended */

void profile_init(void)
{
	u64 bytes = (u64)ksyms_count * sizeof(u32);
	u32 order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	struct page *p = alloc_pages(order, NODE_ANY, ALLOC_ZERO);

	if (!p) {
		if (profile_arg)        /* without profile=on nobody asked */
			pr_warn("profile: no memory for %u counters; not profiling\n", ksyms_count);
		return;
	}
	hits = page_address(p);
	sampling = profile_arg;
	if (sampling)
		pr_info("profile: sampling at every tick, %u functions\n", ksyms_count);
}

bool profile_enabled(void)
{
	return sampling;
}

bool profile_set(bool on)
{
	bool was = sampling;

	sampling = on && hits;
	return was;
}

void profile_clear(void)
{
	if (!hits)
		return;
	for (u32 i = 0; i < ksyms_count; i++)
		__atomic_store_n(&hits[i], 0, __ATOMIC_RELAXED);
	idle_hits = user_hits = other_hits = 0;
}

void profile_tick(const struct trap_frame *f)
{
	const struct ksym *s;
	u64 off;

	if (!__atomic_load_n(&sampling, __ATOMIC_RELAXED))
		return;
	if (trap_from_user(f)) {
		__atomic_add_fetch(&user_hits, 1, __ATOMIC_RELAXED);
		return;
	}
	if (current_thread()->is_idle) {
		__atomic_add_fetch(&idle_hits, 1, __ATOMIC_RELAXED);
		return;
	}
	s = f->rip >= (u64)__text_start && f->rip < (u64)__text_end ?
	    ksym_search(ksyms, ksyms_count, f->rip, &off, NULL) : NULL;
	if (s)
		__atomic_add_fetch(&hits[s - ksyms], 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&other_hits, 1, __ATOMIC_RELAXED);
}

u64 profile_hits_of(const void *fn)
{
	u64 off;
	const struct ksym *s = hits ? ksym_search(ksyms, ksyms_count, (u64)fn, &off, NULL) : NULL;

	return s && !off ? __atomic_load_n(&hits[s - ksyms], __ATOMIC_RELAXED) : 0;
}

u64 profile_hits_idle(void)
{
	return __atomic_load_n(&idle_hits, __ATOMIC_RELAXED);
}

static u64 busy_hits(void)
{
	u64 sum = __atomic_load_n(&user_hits, __ATOMIC_RELAXED) +
		  __atomic_load_n(&other_hits, __ATOMIC_RELAXED);

	for (u32 i = 0; hits && i < ksyms_count; i++)
		sum += __atomic_load_n(&hits[i], __ATOMIC_RELAXED);
	return sum;
}

u64 profile_hits_total(void)
{
	return busy_hits() + profile_hits_idle();
}

bool profile_begin(void)
{
	if (!sampling || __atomic_fetch_add(&running, 1, __ATOMIC_ACQ_REL))
		return false;
	profile_clear();
	return true;
}

/* "12.3" from hits out of total, in tenths of a percent. */
static void print_share(const char *name, u64 n, u64 busy)
{
	u64 tenths = busy ? n * 1000 / busy : 0;

	pr_info("profile: %5llu.%llu%% %7llu  %s\n", tenths / 10, tenths % 10, n, name);
}

u32 profile_top(u32 *top, u32 max)
{
	u32 ntop = 0;

	/* The max largest counters, largest first: insertion into a short list. */
	for (u32 i = 0; hits && max && i < ksyms_count; i++) {
		u32 h = __atomic_load_n(&hits[i], __ATOMIC_RELAXED), at;

		if (!h || (ntop == max && h <= hits[top[ntop - 1]]))
			continue;
		at = ntop < max ? ntop++ : max - 1;     /* full: the last goes */
		for (; at > 0 && hits[top[at - 1]] < h; at--)
			top[at] = top[at - 1];
		top[at] = i;
	}
	return ntop;
}

void profile_end(bool started, const char *what)
{
	u32 top[PROFILE_TOP], ntop;
	u64 busy;

	if (!sampling && !started)
		return;
	if (__atomic_load_n(&running, __ATOMIC_ACQUIRE))
		__atomic_sub_fetch(&running, 1, __ATOMIC_ACQ_REL);
	if (!started)
		return;
	busy = busy_hits();
	pr_info("profile: %s: %llu ticks with work, %llu idle (the functions most ticks found)\n",
		what, busy, profile_hits_idle());
	ntop = profile_top(top, PROFILE_TOP);
	for (u32 i = 0; i < ntop; i++)
		print_share(ksyms[top[i]].name, hits[top[i]], busy);
	if (user_hits)
		print_share("(user mode)", user_hits, busy);
	if (other_hits)
		print_share("(outside the kernel's text)", other_hits, busy);
}
