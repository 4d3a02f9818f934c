// SPDX-License-Identifier: MIT
/*
 * time.c - the TSC as the clock, each CPU's tick, and timers on the tick.
 *
 * The clock. The TSC counts at a constant rate on every CPU this kernel
 * targets (invariant TSC); we only need its frequency. ktime_ns() turns
 * TSC ticks into nanoseconds since boot with a 32.32 multiplier and a
 * 128-bit product (struct tsc_scale in time.h): no division, no overflow.
 *
 * Calibration, twice:
 *   time_init(), before anything else exists: CPUID if it states the
 *     frequency (leaf 0x15's crystal x ratio, the crystal from ECX or, where
 *     ECX is 0, from the model table of time_known_crystal_khz()), else
 *     CPUID 0x16's base frequency as an estimate, else 2 ms of the 8254
 *     PIT's channel 2 (its gate and output are in port 0x61, so a one-shot
 *     countdown can be watched), else 1 GHz assumed.
 *   time_calibrate(), once ACPI has said what the machine has: the first
 *     source in this list that works,
 *       1. CPUID 0x15, when it stated the frequency (nothing measures better);
 *       2. the HPET's main counter (ACPI HPET table; period in fs);
 *       3. the ACPI PM timer (FADT; 3.579545 MHz, 24 or 32 bits, wraps);
 *       4. the PIT again;
 *     counting TSC ticks against a free-running counter for 2 ms (8 or
 *     32 ms when the reads are too slow for 0.2%). The two ends are careful
 *     readings: of 20, the one with the two TSC reads around it closest
 *     together, timed at their midpoint. No bound depends on the early
 *     estimate, which may be far off: a reference is dead when STUCK_READS
 *     reads in a row return the same count, and the precision is judged
 *     against the span measured. The local APIC timer (divide 16) counts
 *     down through the same window and is read as carefully right after
 *     the reference at both ends: its ticks against the window's TSC cycles
 *     give its rate, with no window of its own (2 ms less of boot). Only
 *     when the TSC rate came without a window (CPUID 0x15, the PIT's own
 *     countdown), or no reference counted (then against the early
 *     estimate), is the APIC timer measured alone against the TSC, the same
 *     careful way. Its readings' brackets are not held to CALIB_MAX_PPM
 *     (the reference's are); time.apic_timer_rate_holds checks the result.
 *
 * The tick. timer_init_cpu() starts HZ interrupts a second on its CPU, on
 * VEC_LAPIC_TIMER: in TSC-deadline mode (re-armed each tick, one WRMSR)
 * when the CPU has it, else in the APIC timer's periodic mode. Each tick
 * counts this_cpu()->ticks, runs the CPU's expired ktimers, calls
 * sched_tick() and ends with EOI.
 *
 * Fine wake-ups. While the boot CPU starts the others it waits through
 * the MP specification's delays halted, and a tick (4 ms at HZ 250) is too
 * coarse to end them: time_fine_wakeups_begin() lends it its APIC timer,
 * periodic at a few microseconds' period on VEC_LAPIC_WAKEUP, whose handler
 * only sends the EOI; time_fine_wakeups_end() starts the tick again, a
 * whole period from then. The ticks in between are not made up: only the
 * boot CPU runs, and no ktimer waits on it yet.
 *
 * Timers. Each CPU has a list of ktimers sorted by expiry, under its own
 * lock; any CPU may add to any list, only the owner's tick runs them.
 *
 * Invariants:
 *   - ktime_ns() never goes back: the scale changes only in set_tsc_khz(),
 *     rebased at that instant, on the boot CPU before any other CPU runs
 *     and with interrupts off;
 *   - a CPU's timer list is sorted by expires, equal ones in the order
 *     they were added, and is changed only under its lock with interrupts
 *     off;
 *   - a ktimer is on a list exactly when it is pending; its fn runs on
 *     its CPU from the tick, with that list unlocked.
 */
#include "time.h"
#include "acpi.h"
#include "apic.h"
#include "cmdline.h"
#include "cpu.h"
#include "io.h"
#include "kstring.h"
#include "mce.h"
#include "param.h"
#include "percpu.h"
#include "printk.h"
#include "profile.h"
#include "sched.h"
#include "spinlock.h"
#include "trap.h"
#include "vm.h"
#include "x86.h"

#define PIT_HZ          1193182         /* the 8254's input clock */
#define PIT_CALIB_MS    10      /* time_calibrate()'s PIT window, the last resort */
#define PIT_EARLY_MS    2       /* time_init()'s: an estimate time_calibrate() replaces */
#define PIT_CH2_DATA    0x42
#define PIT_CMD         0x43
#define FALLBACK_KHZ    1000000         /* 1 GHz, if every source fails */
#define MSR_BIOS_SIGN_ID 0x8b           /* bits 63:32: the microcode revision loaded */

#define CALIB_MS        2               /* each measurement of time_calibrate(), at first (*) */
#define CALIB_TRIES     3               /* 2, 8, 32 ms: until the error bound is met */
#define CALIB_MAX_PPM   2000            /* 0.2%: the error bound a measurement must meet */
/*
 * (*) 2 ms, not 10: the boot waits for the calibration (one window for
 * the TSC and the APIC timer), and 2 ms of HPET still bound the error on
 * QEMU far inside CALIB_MAX_PPM (docs/boot.md); a worse reading escalates
 * to 8 and 32 ms by itself.
 * Linux, too, keeps the boot's calibration short and refines it later:
 * arch/x86/kernel/tsc.c's tsc_refine_calibration_work() measures over a
 * second from a delayed work "so we don't block the boot process";
 * testbed does not refine (yet).
 */
#define STUCK_READS     100000          /* this many equal reads in a row: the counter is dead */
#define SAMPLE_TRIES    20              /* readings per careful sample */

#define PM_TIMER_HZ     3579545         /* ACPI PM timer: a third of the 10.74 MHz NTSC clock */
#define HPET_CAP        0x000           /* bits 32-63: period in fs; bit 13: 64-bit counter */
#define HPET_CONFIG     0x010           /* bit 0: the main counter runs */
#define HPET_COUNTER    0x0f0
#define HPET_CAP_64BIT  (1UL << 13)
#define HPET_ENABLE     (1UL << 0)
#define HPET_MAX_PERIOD_FS 100000000    /* the spec's slowest counter: 10 MHz */
#define HPET_MMIO_SIZE  1024

u64 tsc_khz;
const char *tsc_source = "none";
static u64 boot_tsc;                    /* the TSC when time_init() set the first rate */
static u64 calib_error_ppm = ~0ULL;     /* of khz_against()'s last result; ~0: not measured so */
static struct tsc_scale scale;

/* hz=100..10000: timer interrupts per second on each CPU. */
u64 hz = 250;                   /* 2.6.14 x86-64's default (CONFIG_HZ_250) */
PARAM_U64("hz", hz, 100, 10000);

const char *tick_mode = "none";
u64 apic_timer_khz;
static u64 tsc_per_tick;                /* TSC-deadline mode: TSC ticks between ticks */
static u32 apic_count_per_tick;         /* periodic mode: the APIC timer's initial count */

/* --- the clock ---------------------------------------------------------------- */

static bool khz_believable(u64 khz)
{
	return khz >= 1000 && khz <= 100 * 1000 * 1000;    /* 1 MHz..100 GHz */
}

/* Switch to a new frequency; ktime_ns() continues from where it is. Interrupts off. */
static void set_tsc_khz(u64 khz, const char *source)
{
	tsc_scale_rebase(&scale, rdtsc(), khz);
	tsc_khz = khz;
	tsc_source = source;
}

u64 ktime_ns(void)
{
	if (!tsc_khz)
		return 0;
	return tsc_scale_ns(&scale, rdtsc());
}

void udelay(u64 us)
{
	u64 khz = tsc_khz ? tsc_khz : FALLBACK_KHZ;
	u64 end = rdtsc() + us * khz / 1000;

	while ((s64)(rdtsc() - end) < 0)
		cpu_relax();
}

/* --- frequency sources ----------------------------------------------------------- */

void time_read_cpuid(struct cpuid_tsc *c)
{
	u32 a, b, cx, d, fms;

	*c = (struct cpuid_tsc){ 0 };
	cpuid(0, 0, &c->max_leaf, &b, &cx, &d);
	c->intel = b == 0x756e6547 && d == 0x49656e69 && cx == 0x6c65746e;     /* GenuineIntel */
	cpuid(1, 0, &fms, &b, &cx, &d);
	c->family = (fms >> 8) & 0xf;
	c->model = (fms >> 4) & 0xf;
	if (c->family == 0xf)
		c->family += (fms >> 20) & 0xff;
	if (c->family >= 6)
		c->model |= ((fms >> 16) & 0xf) << 4;
	if (c->max_leaf >= 0x15)
		cpuid(0x15, 0, &c->eax15, &c->ebx15, &c->ecx15, &d);
	if (c->max_leaf >= 0x16)
		cpuid(0x16, 0, &c->eax16, &a, &cx, &d);
}

/* CPUID's statement of the TSC rate (leaf 0x15), or 0: time_calibrate()'s first source. */
static u64 khz_from_cpuid(void)
{
	struct cpuid_tsc c;
	bool exact;
	u64 khz;

	time_read_cpuid(&c);
	khz = time_cpuid_khz(&c, &exact);
	return exact ? khz : 0;
}

/*
 * TSC ticks a millisecond over an ms-long PIT channel-2 countdown, or 0 if there is no
 * PIT to count: many boards have none, or gate it off (QEMU's
 * -machine pit=off), and port 0x61's OUT2 bit then never changes. Mode 0
 * drives OUT2 low when the count is written, so a countdown that is over
 * within PIT_MIN_POLLS reads never ran (a real one takes thousands: each
 * read of port 0x61 takes a microsecond or more); one that is not over
 * after PIT_GIVE_UP_TSC cycles never ends: 33 ms at 6 GHz, 200 ms at
 * 1 GHz, the slowest TSC an x86-64 machine without a PIT has. There is no
 * other clock yet to bound it with.
 */
#define PIT_MIN_POLLS   100
#define PIT_GIVE_UP_TSC (200ULL * 1000 * 1000)

static u64 khz_from_pit_ms(u32 ms)
{
	u16 count = (u16)(PIT_HZ * ms / 1000);
	u8 portb = inb(PORT_B);
	u64 start, end;
	u32 polls = 0;

	outb(PORT_B, (portb & ~0x02) | 0x01);   /* speaker off, gate on */
	outb(PIT_CMD, 0xb0);                    /* channel 2, lo/hi byte, mode 0, binary */
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	start = rdtsc();
	while (!(inb(PORT_B) & 0x20)) {
		polls++;
		if (rdtsc() - start > PIT_GIVE_UP_TSC) {
			outb(PORT_B, portb);
			return 0;
		}
	}
	end = rdtsc();
	outb(PORT_B, portb);
	if (polls < PIT_MIN_POLLS)
		return 0;               /* OUT2 was high at once: no PIT counting */
	return (end - start) / ms;
}

static u64 khz_from_pit(void)
{
	return khz_from_pit_ms(PIT_CALIB_MS);
}

u64 time_pit_khz(void)
{
	u64 flags = irq_save();
	u64 khz = khz_from_pit();

	irq_restore(flags);
	return khz;
}

bool time_pit_counts(void)
{
	static int counts = -1;         /* not asked yet */

	if (counts < 0)
		counts = time_pit_khz() != 0;
	return counts;
}

/* A free-running counter that counts up, to measure the TSC against (or the other way round). */
struct refclock {
	const char *name;
	u64 hz;                         /* 0 when that is what is being measured */
	unsigned bits;                  /* it wraps at 2^bits */
	u64 (*read)(void);
};

/* How far the counter and the TSC advanced between two careful samples. */
struct span {
	u64 ticks;
	u64 tsc;
};

/*
 * A reading of rc and the TSC at that moment: the TSC is read just before
 * and just after, and of SAMPLE_TRIES readings the one with the narrowest
 * bracket is kept (its midpoint is then at most half that far off; under
 * TCG a device read can take tens of microseconds). Returns that bracket,
 * in TSC cycles.
 */
static u64 sample(const struct refclock *rc, u64 *tsc, u64 *value)
{
	u64 best = ~0ULL;

	for (int i = 0; i < SAMPLE_TRIES; i++) {
		u64 before = rdtsc();
		u64 v = rc->read();
		u64 width = rdtsc() - before;

		if (width < best) {
			best = width;
			*tsc = before + width / 2;
			*value = v;
		}
	}
	return best;
}

/*
 * Watch rc until it has advanced at least min_ticks and the TSC at least
 * min_tsc, between two careful samples. In between, plain readings keep
 * count of the wraps. False if rc stopped: STUCK_READS reads in a row gave
 * the same count (a bound in reads of the counter itself, not in time by
 * a TSC rate that may be wrong). *error_ppm: how far off the span may be.
 * With also, a second counter that advances less than 2^bits in the
 * window is sampled as carefully right after rc at both ends, and its
 * span against the TSC goes to *also_out: one window measures both.
 */
static bool watch(const struct refclock *rc, u64 min_ticks, u64 min_tsc, struct span *out,
		  u64 *error_ppm, const struct refclock *also, struct span *also_out)
{
	u64 t0, t1, prev, v, bracket0, bracket1, a_t0 = 0, a_t1 = 0, a0 = 0, a1 = 0;
	u64 ticks = 0;
	u32 same = 0;

	bracket0 = sample(rc, &t0, &prev);
	if (also)
		sample(also, &a_t0, &a0);
	while (ticks < min_ticks || rdtsc() - t0 < min_tsc) {
		v = rc->read();
		if (v == prev && ++same >= STUCK_READS)
			return false;
		if (v != prev)
			same = 0;
		ticks += time_counter_delta(prev, v, rc->bits);
		prev = v;
	}
	bracket1 = sample(rc, &t1, &v);
	if (also) {
		sample(also, &a_t1, &a1);
		*also_out = (struct span){ time_counter_delta(a0, a1, also->bits), a_t1 - a_t0 };
	}
	ticks += time_counter_delta(prev, v, rc->bits);
	*out = (struct span){ ticks, t1 - t0 };
	*error_ppm = time_error_ppm(bracket0, bracket1, t1 - t0);
	return true;
}

/*
 * The local APIC timer, measured in the TSC calibration's own window when
 * that is a counter's (HPET, PM timer): apic_span holds its ticks and the
 * TSC cycles of the window, apic_alongside says it was taken. Else, or
 * with CPUID's rate (no window), measure_apic_timer_khz() takes a window
 * of its own.
 */
static u64 apic_timer_up(void);
static const struct refclock apic_rc = { "local APIC timer", 0, 32, apic_timer_up };
static struct span apic_span;
static bool apic_alongside;

/*
 * TSC kHz from CALIB_MS of the reference rc (4 and 16 times that when the
 * error bound is above CALIB_MAX_PPM), or 0 if it does not count. The APIC
 * timer, counting down from time_calibrate()'s start, is sampled in the
 * same window (apic_span).
 */
static u64 khz_against(const struct refclock *rc)
{
	u64 ms = CALIB_MS, error_ppm = 0;
	struct span s;

	for (int i = 0; i < CALIB_TRIES; i++, ms *= 4) {
		if (!watch(rc, rc->hz * ms / 1000, 0, &s, &error_ppm, &apic_rc, &apic_span)) {
			pr_warn("time: the %s stopped counting (%u equal reads); not used\n",
				rc->name, STUCK_READS);
			return 0;
		}
		if (error_ppm <= CALIB_MAX_PPM) {
			calib_error_ppm = error_ppm;
			apic_alongside = true;
			return time_khz_from_ratio(s.tsc, s.ticks, rc->hz);
		}
	}
	pr_warn("time: the %s reads too slowly for a %u ppm bound (%llu ppm in %llu ms); not used\n",
		rc->name, CALIB_MAX_PPM, error_ppm, ms / 4);
	return 0;
}

static u8 __iomem *hpet;

static u64 hpet_read64(void)
{
	return readq(hpet + HPET_COUNTER);
}

static u64 hpet_read32(void)
{
	return readl(hpet + HPET_COUNTER);
}

/* Map the HPET, check its period, start its main counter, measure against it. */
static u64 khz_from_hpet(void)
{
	u64 cap;
	u32 period;
	struct refclock rc;

	if (!acpi.has_hpet || !(hpet = ioremap(acpi.hpet.address, HPET_MMIO_SIZE, VM_UC)))
		return 0;
	cap = readq(hpet + HPET_CAP);
	period = cap >> 32;
	if (!period || period > HPET_MAX_PERIOD_FS) {
		pr_warn("time: HPET period %u fs is not possible; HPET not used\n", period);
		return 0;
	}
	writeq(readq(hpet + HPET_CONFIG) | HPET_ENABLE, hpet + HPET_CONFIG);
	rc = (struct refclock){ "HPET", time_hpet_hz(period), 64, hpet_read64 };
	if (!(cap & HPET_CAP_64BIT))
		rc = (struct refclock){ "HPET", time_hpet_hz(period), 32, hpet_read32 };
	return khz_against(&rc);
}

static u16 pm_timer_port;
static void __iomem *pm_timer_mmio;

static u64 pm_timer_read(void)
{
	return pm_timer_mmio ? readl(pm_timer_mmio) : inl(pm_timer_port);
}

/* The FADT's PM timer, in I/O or memory space. */
static u64 khz_from_pm_timer(void)
{
	const struct acpi_gas *g = &acpi.fadt.pm_timer;
	struct refclock rc = { "PM timer", PM_TIMER_HZ, acpi.fadt.pm_timer_32bit ? 32 : 24,
			       pm_timer_read };

	if (!acpi.has_fadt || !g->address)
		return 0;
	if (g->space_id == ACPI_GAS_IO && g->address <= 0xfffc)
		pm_timer_port = (u16)g->address;
	else if (g->space_id == ACPI_GAS_MEMORY)
		pm_timer_mmio = ioremap(g->address, 4, VM_UC);
	if (!pm_timer_port && !pm_timer_mmio)
		return 0;
	return khz_against(&rc);
}

/* time_calibrate()'s sources, best first. */
static const struct {
	const char *name;
	u64 (*khz)(void);
} tsc_references[] = {
	{ "cpuid 0x15", khz_from_cpuid },
	{ "hpet", khz_from_hpet },
	{ "pm timer", khz_from_pm_timer },
	{ "pit", khz_from_pit },
};

void time_init(void)
{
	struct cpuid_tsc c;
	const char *source;
	bool exact;
	u64 khz;

	time_read_cpuid(&c);
	khz = time_cpuid_khz(&c, &exact);
	source = exact ? "cpuid 0x15" : "cpuid 0x16";
	if (!khz) {
		khz = khz_from_pit_ms(PIT_EARLY_MS);
		source = "pit";
	}
	if (!khz) {
		pr_warn("time: no TSC rate from CPUID and no PIT counting (none, or gated off); "
			"assuming %u kHz until calibrated\n", FALLBACK_KHZ);
		khz = FALLBACK_KHZ;
		source = "fallback";
	} else if (!khz_believable(khz)) {
		pr_warn("time: TSC calibration gave %llu kHz; assuming %u kHz\n",
			khz, FALLBACK_KHZ);
		khz = FALLBACK_KHZ;
		source = "fallback";
	}
	boot_tsc = rdtsc();
	set_tsc_khz(khz, source);
	pr_info("time: TSC %llu.%03llu MHz (%s)\n", khz / 1000, khz % 1000, tsc_source);
}

/*
 * After an early estimate more than 2% off: the stamps so far ran on it,
 * so say how long the boot really took up to here.
 */
static void report_early_error(u64 early_khz, const char *early_source)
{
	u64 off = early_khz > tsc_khz ? early_khz - tsc_khz : tsc_khz - early_khz;
	u64 cycles = rdtsc() - boot_tsc;

	if (off * 50 <= tsc_khz)
		return;
	pr_info("time: the early %s rate was %llu%% off: the stamps above are in its "
		"units (%llu ms of them are %llu ms)\n", early_source, off * 100 / tsc_khz,
		cycles / early_khz, cycles / tsc_khz);
}

/* --- the local APIC timer -------------------------------------------------------- */

/* The APIC timer counts down; its complement counts up, like every refclock. */
static u64 apic_timer_up(void)
{
	return ~apic_timer_current();
}

/*
 * Let the APIC timer count down from the top for CALIB_MS of TSC time.
 * It cannot reach 0 (2^32 counts take seconds at any real bus rate), so
 * no interrupt is left behind.
 */
static u64 measure_apic_timer_khz(void)
{
	struct span s;
	u64 error_ppm;
	bool ok;

	apic_timer_oneshot(0xffffffff);
	ok = watch(&apic_rc, 0, tsc_khz * CALIB_MS, &s, &error_ppm, NULL, NULL);
	apic_timer_stop();
	return ok ? time_khz_from_ratio(s.ticks, s.tsc, tsc_khz * 1000) : 0;
}

/* The microcode revision the boot CPU runs (IA32_BIOS_SIGN_ID after a CPUID 1). */
static u32 microcode_revision(void)
{
	u32 a, b, c, d;

	wrmsr(MSR_BIOS_SIGN_ID, 0);
	cpuid(1, 0, &a, &b, &c, &d);
	return rdmsr(MSR_BIOS_SIGN_ID) >> 32;
}

/*
 * TSC-deadline mode only where no erratum can lose a deadline: a
 * hypervisor emulates it (as Linux trusts it there); on Intel hardware
 * the microcode must be at least time_deadline_min_microcode()'s.
 */
static bool deadline_is_safe(void)
{
	u32 need, have;

	if (cpu_info.hypervisor || strcmp(cpu_info.vendor, "GenuineIntel"))
		return true;
	need = time_deadline_min_microcode(cpu_info.family, cpu_info.model, cpu_info.stepping);
	if (!need)
		return true;
	have = microcode_revision();
	if (have >= need)
		return true;
	pr_warn("time: TSC-deadline mode can lose interrupts on this CPU with microcode 0x%x "
		"(fixed in 0x%x): periodic mode\n", have, need);
	return false;
}

/* What every CPU's tick will be: the mode, and its period in that mode's units. */
static void choose_tick(void)
{
	if (cpu_info.tsc_deadline && deadline_is_safe()) {
		tick_mode = "tsc-deadline";
		tsc_per_tick = tsc_khz * 1000 / hz;
		return;
	}
	tick_mode = "periodic";
	apic_count_per_tick = (u32)MAX(apic_timer_khz * 1000 / hz, 1);
	if (!apic_timer_khz)
		pr_err("time: the local APIC timer does not count: no tick\n");
}

void time_calibrate(void)
{
	u64 flags = irq_save();
	u64 early_khz = tsc_khz;
	const char *early_source = tsc_source;
	u64 khz = 0;

	apic_timer_oneshot(0xffffffff);         /* counts down through the window(s) below */
	for (size_t i = 0; i < ARRAY_SIZE(tsc_references) && !khz; i++) {
		calib_error_ppm = ~0ULL;
		apic_alongside = false;
		khz = tsc_references[i].khz();
		if (khz && !khz_believable(khz)) {
			pr_warn("time: %s says the TSC runs at %llu kHz; not believed\n",
				tsc_references[i].name, khz);
			khz = 0;
		}
		if (khz)
			set_tsc_khz(khz, tsc_references[i].name);
	}
	if (!khz)
		pr_warn("time: no reference counted; the TSC rate stays the early %s one\n",
			tsc_source);
	if (khz && calib_error_ppm != ~0ULL)
		pr_info("time: TSC %llu.%03llu MHz (%s, within %llu ppm)\n", tsc_khz / 1000,
			tsc_khz % 1000, tsc_source, calib_error_ppm);
	else
		pr_info("time: TSC %llu.%03llu MHz (%s)\n", tsc_khz / 1000, tsc_khz % 1000,
			tsc_source);
	report_early_error(early_khz, early_source);
	apic_timer_stop();
	if (khz && apic_alongside && apic_span.ticks)
		apic_timer_khz = time_khz_from_ratio(apic_span.ticks, apic_span.tsc, tsc_khz * 1000);
	else
		apic_timer_khz = measure_apic_timer_khz();
	choose_tick();
	irq_restore(flags);
	pr_info("time: LAPIC timer %llu kHz, tick %llu Hz (%s)\n", apic_timer_khz, hz, tick_mode);
}

/* --- timers ------------------------------------------------------------------------ */

/* One CPU's timers, and its next TSC deadline. Own cache line: other CPUs add here. */
struct timer_queue {
	struct spinlock lock;
	struct ktimer *head;            /* soonest first */
	struct ktimer *running;         /* the timer whose fn runs now, or NULL */
	u64 next_tick;                  /* TSC-deadline mode: TSC value of the next tick */
} __aligned(64);

static struct timer_queue timer_queues[MAX_CPUS] = {
	[0 ... MAX_CPUS - 1] = { .lock = SPINLOCK_INIT("timers") },
};

/* Unlink t from its CPU's list if it is there. Caller holds that list's lock. */
static bool unlink_timer(struct timer_queue *q, struct ktimer *t)
{
	for (struct ktimer **pp = &q->head; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			t->next = NULL;
			t->pending = false;
			return true;
		}
	}
	return false;
}

/*
 * The list is searched rather than t->pending trusted, so that a timer
 * that was never added (or is garbage on the stack) is simply not found.
 */
bool timer_cancel(struct ktimer *t)
{
	struct timer_queue *q;
	u64 flags;
	bool found;

	if (t->cpu >= MAX_CPUS)
		return false;
	q = &timer_queues[t->cpu];
	flags = spin_lock_irqsave(&q->lock);
	found = unlink_timer(q, t);
	spin_unlock_irqrestore(&q->lock, flags);
	return found;
}

bool timer_cancel_sync(struct ktimer *t)
{
	bool was = false;

	if (t->cpu >= MAX_CPUS)
		return false;
	do {            /* a fn that adds its timer again may put it back while we wait */
		was |= timer_cancel(t);
		while (__atomic_load_n(&timer_queues[t->cpu].running, __ATOMIC_ACQUIRE) == t)
			cpu_relax();
	} while (t->pending);
	return was;
}

void timer_add(struct ktimer *t, u64 delay_ns, u32 cpu, void (*fn)(struct ktimer *), void *data)
{
	struct timer_queue *q;
	struct ktimer **pp;
	u64 now = ktime_ns(), flags;

	if (cpu >= MAX_CPUS) {
		pr_warn("time: timer for CPU %u put on CPU %u\n", cpu, smp_processor_id());
		cpu = smp_processor_id();
	}
	timer_cancel(t);
	t->expires = now + MIN(delay_ns, ~0ULL - now);
	t->cpu = cpu;
	t->fn = fn;
	t->data = data;
	q = &timer_queues[cpu];
	flags = spin_lock_irqsave(&q->lock);
	for (pp = &q->head; *pp && (*pp)->expires <= t->expires; pp = &(*pp)->next)
		;
	t->next = *pp;
	*pp = t;
	t->pending = true;
	spin_unlock_irqrestore(&q->lock, flags);
}

/*
 * Run every timer that had expired when this tick began. One read of the
 * clock: a fn that adds its timer again with no delay runs at the next
 * tick, not in an endless loop here. Interrupts are off (tick handler).
 */
static void run_timers(struct timer_queue *q)
{
	u64 now = ktime_ns();
	struct ktimer *t;

	spin_lock(&q->lock);
	while ((t = q->head) && t->expires <= now) {
		q->head = t->next;
		t->next = NULL;
		t->pending = false;
		__atomic_store_n(&q->running, t, __ATOMIC_RELEASE);
		spin_unlock(&q->lock);
		t->fn(t);
		spin_lock(&q->lock);
		__atomic_store_n(&q->running, NULL, __ATOMIC_RELEASE);
	}
	spin_unlock(&q->lock);
}

/* --- the tick ---------------------------------------------------------------------- */

/* TSC-deadline mode: the next tick one period after the last; after missed ticks, from now. */
static void arm_next_deadline(struct timer_queue *q)
{
	u64 now = rdtsc();

	q->next_tick += tsc_per_tick;
	if ((s64)(q->next_tick - now) <= 0)
		q->next_tick = now + tsc_per_tick;
	apic_timer_deadline(q->next_tick);
}

static void tick(struct trap_frame *f)
{
	struct percpu *me = this_cpu();
	struct timer_queue *q = &timer_queues[me->cpu];

	me->ticks++;
	profile_tick(f);
	trap_report_nmis();
	if (me->ticks % hz == 0)
		mce_poll();             /* once a second: corrected errors */
	if (tsc_per_tick)
		arm_next_deadline(q);
	run_timers(q);
	sched_tick(trap_from_user(f));
	apic_eoi();
}

bool time_tick_runs(void)
{
	return tsc_per_tick || apic_timer_khz;
}

static void wakeup_interrupt(struct trap_frame *f)
{
	(void)f;
	apic_eoi();
}

bool time_fine_wakeups_begin(u32 us)
{
	u64 count = apic_timer_khz * us / 1000;

	if (!count || count > 0xffffffff)
		return false;
	trap_set_handler(VEC_LAPIC_WAKEUP, wakeup_interrupt);
	apic_timer_wakeups((u32)count);
	return true;
}

void time_fine_wakeups_end(void)
{
	timer_init_cpu();
}

void timer_init_cpu(void)
{
	struct timer_queue *q = &timer_queues[smp_processor_id()];

	trap_set_handler(VEC_LAPIC_TIMER, tick);
	if (tsc_per_tick) {
		q->next_tick = rdtsc();
		arm_next_deadline(q);
	} else if (apic_timer_khz) {
		apic_timer_periodic(apic_count_per_tick);
	}
}
