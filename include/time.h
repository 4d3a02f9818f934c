/*
 * time.h - the TSC as the kernel's clock, each CPU's tick, and timers.
 *
 * time_init() finds the TSC frequency (CPUID leaf 0x15 when it states it,
 * else by counting TSC ticks across 10 ms of the PIT's channel 2) and from
 * then on ktime_ns() is the time since boot in nanoseconds. Before that it
 * returns 0, which is what the first printk timestamps show.
 *
 * The second half of this header is the arithmetic behind it, pure and
 * checked by the host unit tests (tests/host/time_test.c).
 */
#ifndef TIME_H
#define TIME_H

#include "types.h"

void time_init(void);
u64 ktime_ns(void);
void udelay(u64 us);

extern u64 tsc_khz;             /* TSC ticks per millisecond; 0 until time_init() */
extern const char *tsc_source;  /* how tsc_khz was found */

/*
 * After ACPI: measure the TSC again against the best reference the tables
 * offer (CPUID 0x15 when trustworthy, else the HPET, the ACPI PM timer,
 * PIT channel 2, in that order), and calibrate the local APIC timer the
 * same way. Keeps ktime_ns() continuous. Needs apic_init(); boot CPU only,
 * before other CPUs start and with interrupts off.
 */
void time_calibrate(void);

/* Start this CPU's periodic tick at HZ (hz=, default 1000). Interrupts may then be enabled. */
void timer_init_cpu(void);

extern u64 hz;                  /* ticks per second */
extern const char *tick_mode;   /* "tsc-deadline" or "periodic" */
extern u64 apic_timer_khz;      /* LAPIC timer counts per ms at divide 16; 0 until calibrated */

/*
 * Timers: run fn(t) on a chosen CPU once its delay has passed, from that
 * CPU's tick (so with tick granularity, interrupts off: keep fn short).
 * A ktimer starts zeroed ({0} or static) and stays valid until it has run
 * or been cancelled; on a CPU without a tick it waits. timer_add() on a pending timer moves it (new delay,
 * CPU, fn); fn may add its own timer again. timer_cancel() does not wait
 * for a fn that is already running on another CPU; timer_cancel_sync()
 * does, so a timer on the caller's stack may then go (not from its own fn,
 * nor with interrupts off on the timer's CPU).
 */
struct ktimer {
	u64 expires;                    /* ktime_ns() at which it fires */
	u32 cpu;
	void (*fn)(struct ktimer *t);
	void *data;
	bool pending;
	struct ktimer *next;            /* in its CPU's list, sorted by expires */
};

void timer_add(struct ktimer *t, u64 delay_ns, u32 cpu, void (*fn)(struct ktimer *), void *data);
bool timer_cancel(struct ktimer *t);   /* true if it was pending */
bool timer_cancel_sync(struct ktimer *t);      /* ...and its fn has finished running */

/* --- arithmetic (pure) ------------------------------------------------------- */

/*
 * Cycles to nanoseconds without division: ns = cycles * mult >> 32, with
 * mult = 10^6 / khz ns per cycle in 32.32 fixed point. The product is
 * 128-bit, so nothing overflows for centuries of uptime.
 */
static inline u64 time_ns_mult(u64 khz)
{
	return ((u64)1000000 << 32) / khz;
}

static inline u64 time_cycles_to_ns(u64 cycles, u64 mult)
{
	return (u64)(((unsigned __int128)cycles * mult) >> 32);
}

/*
 * The clock: ns = offset + (tsc - base) * mult >> 32. Rebasing at tsc
 * "now" to a new frequency keeps the clock's value at that instant, so
 * time never jumps when the TSC is recalibrated.
 */
struct tsc_scale {
	u64 base;               /* TSC value where offset applies */
	u64 offset;             /* nanoseconds at base */
	u64 mult;               /* time_ns_mult(khz) */
};

static inline u64 tsc_scale_ns(const struct tsc_scale *s, u64 tsc)
{
	if ((s64)(tsc - s->base) < 0)   /* another CPU's TSC a little behind: not before base */
		return s->offset;
	return s->offset + time_cycles_to_ns(tsc - s->base, s->mult);
}

static inline void tsc_scale_rebase(struct tsc_scale *s, u64 now, u64 khz)
{
	s->offset = s->mult ? tsc_scale_ns(s, now) : 0;
	s->base = now;
	s->mult = time_ns_mult(khz);
}

/* Ticks a counter of the given width advanced from then to now (at most one wrap apart). */
static inline u64 time_counter_delta(u64 then, u64 now, unsigned bits)
{
	u64 mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;

	return (now - then) & mask;
}

/*
 * The frequency in kHz of a counter that advanced ticks while one of
 * ref_hz advanced ref_ticks: ticks * ref_hz / ref_ticks / 1000, split into
 * quotient and remainder so that nothing overflows while ref_ticks *
 * ref_hz < 2^64 (a 10 ms window of any reference up to 40 GHz). The
 * kernel has no 128-bit division.
 */
static inline u64 time_khz_from_ratio(u64 ticks, u64 ref_ticks, u64 ref_hz)
{
	u64 q, r;

	if (!ref_ticks)
		return 0;
	q = ticks / ref_ticks;
	r = ticks % ref_ticks;
	return (q * ref_hz + r * ref_hz / ref_ticks) / 1000;
}

/* HPET: the capabilities register gives the counter's period in femtoseconds. */
static inline u64 time_hpet_hz(u32 period_fs)
{
	return period_fs ? 1000000000000000ULL / period_fs : 0;
}

/*
 * CPUID 0x15: EBX/EAX is the TSC/crystal ratio, ECX the crystal in Hz.
 * Trusted only when all three are there; 0 otherwise.
 */
static inline u64 time_cpuid15_khz(u32 eax, u32 ebx, u32 ecx)
{
	if (!eax || !ebx || !ecx)
		return 0;
	return (u64)ecx * ebx / eax / 1000;
}

#endif
