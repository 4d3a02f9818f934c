// SPDX-License-Identifier: MIT
/*
 * time_test.c - the pure arithmetic of include/time.h on the host: cycles
 * to nanoseconds, the clock staying continuous when the TSC frequency is
 * corrected, counters that wrap (the 24-bit PM timer), frequency ratios at
 * the sizes calibration really sees, the HPET period and CPUID 0x15.
 */
#include "ktest.h"
#include "time.h"
#include "host.h"

#define GHZ_2_6 2600000ULL              /* kHz */

static void cycles_to_ns_at_round_frequencies(struct ktest *t)
{
	EXPECT_EQ(t, time_cycles_to_ns(1000000000, time_ns_mult(1000000)), 1000000000);  /* 1 GHz */
	EXPECT_EQ(t, time_cycles_to_ns(2000000, time_ns_mult(2000000)), 1000000);        /* 2 GHz */
	EXPECT_EQ(t, time_cycles_to_ns(0, time_ns_mult(GHZ_2_6)), 0);
}

/* A year of cycles at 2.6 GHz converts within a part per billion (32.32 fixed point). */
static void cycles_to_ns_after_a_year(struct ktest *t)
{
	u64 year_s = 365ULL * 24 * 3600;
	u64 ns = time_cycles_to_ns(year_s * GHZ_2_6 * 1000, time_ns_mult(GHZ_2_6));
	u64 want = year_s * 1000000000ULL;

	EXPECT_LE(t, ns > want ? ns - want : want - ns, want / 1000000000);
}

/* Rebasing keeps the clock's value at that instant, and the new rate applies after it. */
static void rebase_keeps_time_continuous(struct ktest *t)
{
	struct tsc_scale s = { 0 };
	u64 before, after;

	tsc_scale_rebase(&s, 5000, 2000000);            /* boot: 2 GHz estimate at TSC 5000 */
	EXPECT_EQ(t, tsc_scale_ns(&s, 5000), 0);
	before = tsc_scale_ns(&s, 2000005000ULL);       /* one "second" later */
	EXPECT_EQ(t, before, 1000000000);
	tsc_scale_rebase(&s, 2000005000ULL, 2500000);   /* measured: really 2.5 GHz */
	after = tsc_scale_ns(&s, 2000005000ULL);
	EXPECT_EQ(t, after, before);
	after = tsc_scale_ns(&s, 2000005000ULL + 2500000000ULL);
	EXPECT_GE(t, after, before + 1000000000 - 1);   /* the multiplier truncates: 1 ns */
	EXPECT_LE(t, after, before + 1000000000);
}

static void rebase_never_goes_back(struct ktest *t)
{
	struct tsc_scale s = { 0 };
	u64 prev = 0, tsc = 100;
	u64 khz[] = { 1000000, 3000000, 2999000, 1000, 100000000 };

	tsc_scale_rebase(&s, tsc, khz[0]);
	for (u32 i = 1; i < ARRAY_SIZE(khz); i++) {
		for (u32 k = 0; k < 1000; k++) {
			u64 now = tsc_scale_ns(&s, tsc += 997);

			EXPECT_GE(t, now, prev);
			prev = now;
		}
		tsc_scale_rebase(&s, tsc, khz[i]);
		EXPECT_EQ(t, tsc_scale_ns(&s, tsc), prev);
	}
}

/* Another CPU's TSC slightly behind the base reads as the base, not as centuries. */
static void tsc_before_base_reads_as_base(struct ktest *t)
{
	struct tsc_scale s = { 0 };

	tsc_scale_rebase(&s, 1000, 1000000);
	tsc_scale_rebase(&s, 1000000, 1000000);
	EXPECT_EQ(t, tsc_scale_ns(&s, 999000), tsc_scale_ns(&s, 1000000));
}

static void counters_wrap(struct ktest *t)
{
	EXPECT_EQ(t, time_counter_delta(0xfffff0, 0x000010, 24), 0x20);        /* PM timer */
	EXPECT_EQ(t, time_counter_delta(0x123, 0x456, 24), 0x333);
	EXPECT_EQ(t, time_counter_delta(0xfffffff0, 0x10, 32), 0x20);
	EXPECT_EQ(t, time_counter_delta(~0ULL - 1, 3, 64), 5);
	EXPECT_EQ(t, time_counter_delta(0x1fffff0, 0x1000010, 24), 0x20);      /* stray high bits */
	EXPECT_EQ(t, time_counter_delta(7, 7, 24), 0);
}

/*
 * The sizes time_calibrate() meets: 10 ms of each reference against a
 * 2.6 GHz TSC. A whole number of reference ticks is not always exactly
 * 10 ms (143182 at 14.31818 MHz is 10.000014 ms), and the result says so.
 */
static void ratios_at_calibration_sizes(struct ktest *t)
{
	u64 tsc_10ms = GHZ_2_6 * 10;

	EXPECT_EQ(t, time_khz_from_ratio(tsc_10ms, 1000000, 100000000), GHZ_2_6); /* QEMU HPET */
	EXPECT_EQ(t, time_khz_from_ratio(tsc_10ms, 143182, 14318180), 2599996);   /* PC HPET */
	EXPECT_EQ(t, time_khz_from_ratio(tsc_10ms, 35795, 3579545), 2600032);     /* PM timer */
	EXPECT_EQ(t, time_khz_from_ratio(625000, tsc_10ms, GHZ_2_6 * 1000), 62500); /* LAPIC */
	EXPECT_EQ(t, time_khz_from_ratio(1, 0, 1000), 0);
}

/* No overflow where a plain 64-bit ticks * ref_hz would: 40 GHz x 10 ms. */
static void ratio_without_overflow(struct ktest *t)
{
	u64 ref_hz = 40000000000ULL, ref_ticks = ref_hz / 100;

	EXPECT_EQ(t, time_khz_from_ratio(ref_ticks * 3, ref_ticks, ref_hz), 3 * ref_hz / 1000);
	EXPECT_EQ(t, time_khz_from_ratio(ref_ticks / 3, ref_ticks, ref_hz), ref_hz / 3 / 1000);
}

static void hpet_period(struct ktest *t)
{
	EXPECT_EQ(t, time_hpet_hz(10000000), 100000000);        /* QEMU: 10 ns */
	EXPECT_EQ(t, time_hpet_hz(69841279), 14318179);         /* 14.318 MHz, truncated */
	EXPECT_EQ(t, time_hpet_hz(100000000), 10000000);        /* the spec's slowest */
	EXPECT_EQ(t, time_hpet_hz(0), 0);
}

#define SKYLAKE_DESKTOP 0x5e

/* Leaf 0x15 with a stated crystal is exact; without one, only a known model makes it so. */
static void cpuid_states_the_tsc_rate(struct ktest *t)
{
	struct cpuid_tsc c = { .intel = true, .max_leaf = 0x16, .family = 6, .model = 0x8f,
			       .eax15 = 2, .ebx15 = 216, .ecx15 = 24000000, .eax16 = 2600 };
	bool exact;

	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 2592000);              /* 24 MHz x 108 */
	EXPECT_TRUE(t, exact);
	c.ecx15 = 0;                                                    /* crystal not stated */
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 2600000);              /* leaf 0x16's base */
	EXPECT_FALSE(t, exact);
	c.model = SKYLAKE_DESKTOP;                                      /* 24 MHz by the table */
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 2592000);
	EXPECT_TRUE(t, exact);
	c.model = 0x5c;                                                 /* Goldmont: 19.2 MHz */
	c.eax15 = 1;
	c.ebx15 = 100;
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 1920000);
	EXPECT_TRUE(t, exact);
	c.model = 0x5f;                                                 /* Denverton: 25 MHz */
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 2500000);
	c.family = 15;                                                  /* the table is family 6's */
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 2600000);
	EXPECT_FALSE(t, exact);
}

static void cpuid_rate_needs_its_leaves(struct ktest *t)
{
	struct cpuid_tsc c = { .intel = true, .max_leaf = 0x16, .family = 6, .model = SKYLAKE_DESKTOP,
			       .eax15 = 0, .ebx15 = 216, .ecx15 = 24000000, .eax16 = 0 };
	bool exact = true;

	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 0);                    /* no ratio, no base */
	EXPECT_FALSE(t, exact);
	c.eax15 = 2;
	c.ebx15 = 0;
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 0);
	c.ebx15 = 216;
	c.max_leaf = 0x14;                                              /* leaves not there */
	c.eax16 = 2600;
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 0);
	c.max_leaf = 0x16;
	c.eax16 = 0xabcd0000;                                           /* only bits 15:0 count */
	c.eax15 = 0;
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 0);
	c.eax16 = 0x12340a28;
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 2600000);
	c.intel = false;                                                /* AMD: leaves are Intel's */
	c.eax15 = 2;
	EXPECT_EQ(t, time_cpuid_khz(&c, &exact), 0);
}

/* The microcode a deadline-mode tick needs, as Linux's deadline_match[] lists it. */
static void deadline_errata_by_model(struct ktest *t)
{
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x5e, 3), 0xb2);       /* Skylake */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x9e, 10), 0x52);      /* Kaby/Coffee Lake */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x3f, 2), 0x3a);       /* Haswell-EP */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x3f, 4), 0x0f);       /* Haswell-EX */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x3f, 1), ~0U);        /* no fix known */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x56, 5), 0x0e000003); /* Xeon D */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x55, 4), 0x02000014); /* Skylake-X */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x55, 7), 0);          /* Cascade Lake */
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x55, 2), ~0U);
	EXPECT_EQ(t, time_deadline_min_microcode(6, 0x97, 2), 0);          /* Alder Lake */
	EXPECT_EQ(t, time_deadline_min_microcode(0x19, 0x3c, 1), 0);        /* not family 6 */
}

/* The error bound: half of both brackets, over the span. */
static void error_bound_of_a_span(struct ktest *t)
{
	EXPECT_EQ(t, time_error_ppm(2600, 2600, 26000000), 100);        /* 1 us each end of 10 ms */
	EXPECT_EQ(t, time_error_ppm(130000, 0, 26000000), 2500);
	EXPECT_EQ(t, time_error_ppm(0, 0, 26000000), 0);
	EXPECT_EQ(t, time_error_ppm(1, 1, 0), ~0ULL);
}

static const struct ktest_case time_math_cases[] = {
	KTEST(cycles_to_ns_at_round_frequencies),
	KTEST(cycles_to_ns_after_a_year),
	KTEST(rebase_keeps_time_continuous),
	KTEST(rebase_never_goes_back),
	KTEST(tsc_before_base_reads_as_base),
	KTEST(counters_wrap),
	KTEST(ratios_at_calibration_sizes),
	KTEST(ratio_without_overflow),
	KTEST(hpet_period),
	KTEST(cpuid_states_the_tsc_rate),
	KTEST(cpuid_rate_needs_its_leaves),
	KTEST(error_bound_of_a_span),
	KTEST(deadline_errata_by_model),
	{},
};
KTEST_SUITE(time_math, time_math_cases);
