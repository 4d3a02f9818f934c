/*
 * time.c - calibrate the TSC and turn it into nanoseconds.
 *
 * The TSC counts at a constant rate on every CPU this kernel targets
 * (invariant TSC); we only need its frequency. Two sources, best first:
 *   1. CPUID 0x15: crystal frequency x ratio, when the CPU reports all three.
 *   2. The 8254 PIT, channel 2: its gate is software-controlled through port
 *      0x61 and its output can be read back there, so we can start a 10 ms
 *      one-shot countdown and count TSC ticks until it ends. Every PC (and
 *      QEMU) has one; the loop is bounded in case one does not.
 * ktime_ns() converts with a 32.32 fixed-point multiplier and a 128-bit
 * product, so it neither overflows nor needs division on the hot path.
 */
#include "time.h"
#include "printk.h"
#include "x86.h"

#define PIT_HZ          1193182         /* the 8254's input clock */
#define PIT_CALIB_MS    10
#define PIT_CH2_DATA    0x42
#define PIT_CMD         0x43
#define PORT_B          0x61            /* bit 0: ch2 gate, bit 1: speaker, bit 5: ch2 out */
#define FALLBACK_KHZ    1000000         /* 1 GHz, if every source fails */

u64 tsc_khz;
const char *tsc_source = "none";
static u64 tsc_base;
static u64 ns_mult;                     /* ns per tick, 32.32 fixed point */

static u64 khz_from_cpuid(void)
{
	u32 max, a, b, c, d;

	cpuid(0, 0, &max, &b, &c, &d);
	if (max < 0x15)
		return 0;
	cpuid(0x15, 0, &a, &b, &c, &d);     /* EBX/EAX = TSC/crystal ratio, ECX = crystal Hz */
	if (!a || !b || !c)
		return 0;
	return (u64)c * b / a / 1000;
}

/* TSC ticks during a 10 ms PIT channel-2 countdown, or 0 if it never ends. */
static u64 khz_from_pit(void)
{
	u16 count = PIT_HZ * PIT_CALIB_MS / 1000;
	u8 portb = inb(PORT_B);
	u64 start, end;
	u32 spins = 0;

	outb(PORT_B, (portb & ~0x02) | 0x01);   /* speaker off, gate on */
	outb(PIT_CMD, 0xb0);                    /* channel 2, lo/hi byte, mode 0, binary */
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	start = rdtsc();
	while (!(inb(PORT_B) & 0x20)) {
		if (++spins > 50 * 1000 * 1000) {
			outb(PORT_B, portb);
			return 0;
		}
	}
	end = rdtsc();
	outb(PORT_B, portb);
	return (end - start) / PIT_CALIB_MS;
}

void time_init(void)
{
	u64 khz = khz_from_cpuid();

	tsc_source = "cpuid 0x15";
	if (!khz) {
		khz = khz_from_pit();
		tsc_source = "pit";
	}
	if (khz < 1000 || khz > 100 * 1000 * 1000) {   /* outside 1 MHz..100 GHz: not believable */
		pr_warn("time: TSC calibration gave %llu kHz; assuming %u kHz\n",
			(unsigned long long)khz, FALLBACK_KHZ);
		khz = FALLBACK_KHZ;
		tsc_source = "fallback";
	}
	ns_mult = ((u64)1000000 << 32) / khz;
	tsc_base = rdtsc();
	tsc_khz = khz;
	pr_info("time: TSC %llu.%03llu MHz (%s)\n", (unsigned long long)khz / 1000,
		(unsigned long long)khz % 1000, tsc_source);
}

u64 ktime_ns(void)
{
	if (!tsc_khz)
		return 0;
	return (u64)(((unsigned __int128)(rdtsc() - tsc_base) * ns_mult) >> 32);
}

void udelay(u64 us)
{
	u64 khz = tsc_khz ? tsc_khz : FALLBACK_KHZ;
	u64 end = rdtsc() + us * khz / 1000;

	while ((s64)(rdtsc() - end) < 0)
		cpu_relax();
}
