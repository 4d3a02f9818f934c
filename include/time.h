/* SPDX-License-Identifier: MIT */
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

/* Whether an 8254 PIT counts here (10 ms of channel 2, measured once). */
bool time_pit_counts(void);
/* The TSC rate by 10 ms of PIT channel 2 now, or 0 if no PIT counts. */
u64 time_pit_khz(void);

/* Start this CPU's periodic tick at HZ (hz=, default 1000). Interrupts may then be enabled. */
void timer_init_cpu(void);
/* Whether timer_init_cpu() starts a tick: false when the APIC timer does not count (periodic mode). */
bool time_tick_runs(void);
/*
 * For a short wait of the boot CPU's (starting the other CPUs): this CPU's
 * APIC timer interrupts every us microseconds, only to end a hlt, instead
 * of ticking; its tick pauses until time_fine_wakeups_end() starts it
 * again. False (nothing changed) if the APIC timer does not count or us
 * does not fit its counter. Interrupts on or off; the caller's CPU.
 */
bool time_fine_wakeups_begin(u32 us);
void time_fine_wakeups_end(void);

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

/* What CPUID says about the TSC's rate: the raw registers, for time_cpuid_khz(). */
struct cpuid_tsc {
	bool intel;                     /* "GenuineIntel": leaves 0x15/0x16 are Intel's */
	u32 max_leaf;                   /* CPUID.0:EAX */
	u32 family, model;              /* with the extended family and model folded in */
	u32 eax15, ebx15, ecx15;        /* crystal ratio denominator, numerator, crystal Hz */
	u32 eax16;                      /* bits 15:0: the processor's base frequency, MHz */
};

void time_read_cpuid(struct cpuid_tsc *c);     /* this CPU's, for time_cpuid_khz() */

/*
 * Crystals of the family-6 models whose CPUID 0x15 gives the ratio but
 * ECX 0, as Linux's native_calibrate_tsc() (arch/x86/kernel/tsc.c)
 * listed them from v4.10 (2017): Skylake and Kaby Lake client 24 MHz,
 * Goldmont 19.2 MHz, Denverton (Goldmont-X) 25 MHz. Since Daniel Drake's
 * "x86/tsc: Use CPUID.0x16 to calculate missing crystal frequency" (v5.2,
 * May 2019) Linux keeps only Denverton and derives the rest from leaf
 * 0x16; we keep the table, then fall back to leaf 0x16.
 */
static inline u32 time_known_crystal_khz(u32 family, u32 model)
{
	if (family != 6)
		return 0;
	switch (model) {
	case 0x4e: case 0x5e:           /* Skylake mobile, desktop */
	case 0x8e: case 0x9e:           /* Kaby Lake (and Coffee Lake) mobile, desktop */
		return 24000;
	case 0x5c:                      /* Goldmont (Apollo Lake) */
		return 19200;
	case 0x5f:                      /* Goldmont-X (Denverton) */
		return 25000;
	}
	return 0;
}

/*
 * The TSC rate CPUID gives, in kHz, or 0. *exact is true when it is the
 * hardware's own statement (leaf 0x15 with a crystal from ECX or from the
 * model table: Linux's X86_FEATURE_TSC_KNOWN_FREQ), false when it is the
 * base frequency of leaf 0x16, close to the TSC rate on Intel parts since
 * Skylake but only nominal, so time_calibrate() measures it again.
 */
/*
 * Leaf 0x15: EBX/EAX is the TSC/crystal ratio, ECX the crystal in Hz
 * (Intel SDM vol. 2A, CPUID, "Time Stamp Counter and Nominal Core Crystal
 * Clock Information Leaf").
 */
static inline u64 time_cpuid_khz(const struct cpuid_tsc *c, bool *exact)
{
	*exact = false;
	if (!c->intel)
		return 0;
	if (c->max_leaf >= 0x15 && c->eax15 && c->ebx15) {
		u64 crystal_khz = c->ecx15 ? c->ecx15 / 1000 : time_known_crystal_khz(c->family, c->model);

		if (crystal_khz) {
			*exact = true;
			return crystal_khz * c->ebx15 / c->eax15;
		}
	}
	if (c->max_leaf >= 0x16 && (c->eax16 & 0xffff))
		return (u64)(c->eax16 & 0xffff) * 1000;
	return 0;
}

/*
 * TSC-deadline mode loses interrupts on some Intel parts with old
 * microcode (Haswell, Broadwell, Skylake, Kaby Lake errata): one lost
 * deadline and that CPU's tick never comes again. The lowest microcode
 * revision with the fix, per family-6 model and stepping, as Linux lists
 * it in arch/x86/kernel/apic/apic.c's deadline_match[] (added in 2017,
 * v4.13's apic_check_deadline_errata(); v5.8 made the check decide between
 * deadline and periodic mode, apic_validate_deadline_timer()). 0: no
 * erratum known; ~0: no fixed microcode for that stepping.
 */
static inline u32 time_deadline_min_microcode(u32 family, u32 model, u32 stepping)
{
	if (family != 6)
		return 0;
	switch (model) {
	case 0x3f:                                      /* Haswell-X */
		return stepping == 2 ? 0x3a : stepping == 4 ? 0x0f : ~0U;
	case 0x4f:                                      /* Broadwell-X */
		return 0x0b000020;
	case 0x56:                                      /* Broadwell-D (Xeon D) */
		switch (stepping) {
		case 2: return 0x00000011;
		case 3: return 0x0700000e;
		case 4: return 0x0f00000c;
		case 5: return 0x0e000003;
		}
		return ~0U;
	case 0x55:                                      /* Skylake-X */
		return stepping == 3 ? 0x01000136 : stepping == 4 ? 0x02000014 :
		       stepping >= 5 ? 0 : ~0U;
	case 0x3c: return 0x22;                         /* Haswell */
	case 0x45: return 0x20;                         /* Haswell-L */
	case 0x46: return 0x17;                         /* Haswell-G */
	case 0x3d: return 0x25;                         /* Broadwell */
	case 0x47: return 0x17;                         /* Broadwell-G */
	case 0x4e: case 0x5e: return 0xb2;              /* Skylake-L, Skylake */
	case 0x8e: case 0x9e: return 0x52;              /* Kaby Lake-L, Kaby Lake */
	}
	return 0;
}

/*
 * The error bound of a measurement, in parts per million: each end is a
 * careful sample whose true moment lies within half its bracket, so the
 * span is off by at most (bracket0 + bracket1) / 2 of span ticks.
 */
static inline u64 time_error_ppm(u64 bracket0, u64 bracket1, u64 span)
{
	if (!span)
		return ~0ULL;
	return (bracket0 + bracket1) / 2 * 1000000 / span;
}

#endif
