// SPDX-License-Identifier: MIT
/*
 * apic_test.c - the interrupt controllers are set up as the MADT says, and
 * interrupts really arrive through them.
 *
 * Register checks: the local APIC is enabled with the spurious vector, its
 * ID is the MADT's for CPU 0, LINT0/1 follow the MADT's NMI entries, every
 * I/O APIC answers with a sane version and size, and no pin can raise an
 * exception vector.
 * Delivery checks, with interrupts on: an IPI to ourselves arrives (and
 * waits while interrupts are off), and ISA IRQ 0 from the PIT arrives at
 * the GSI its override names. Last, the APIC logged no error through all
 * of it.
 *
 * The cases borrow a free device vector (trap_alloc_vector) and give it
 * back. Waits are bounded by the TSC, never by hlt alone.
 */
#include "acpi.h"
#include "apic.h"
#include "ktest.h"
#include "percpu.h"
#include "sched.h"
#include "time.h"
#include "trap.h"
#include "x86.h"

#define WAIT_MS         2000            /* TSC time allowed for an interrupt to arrive */

#define PIT_CH0_DATA    0x40
#define PIT_CMD         0x43
#define PIT_CH0_ONESHOT 0x30            /* channel 0, lo/hi byte, mode 0 (out rises at 0), binary */
#define PIT_1MS         1193            /* input clock 1.193182 MHz */

static volatile u32 arrivals;
static volatile u64 arrived_vector;

static void count_arrival(struct trap_frame *f)
{
	arrived_vector = f->vector;
	arrivals++;
	apic_eoi();
}

/* Spin (interrupts as they are) until arrivals reaches want or WAIT_MS pass. */
static bool wait_arrivals(u32 want)
{
	u64 end = rdtsc() + tsc_khz * WAIT_MS;

	while (arrivals < want && (s64)(rdtsc() - end) < 0)
		cpu_relax();
	return arrivals >= want;
}

/* Every case touches the APIC: without apic_init() that would be a NULL access. */
#define REQUIRE_APIC(t) ASSERT_TRUE(t, apic_ready())

/* --- registers ----------------------------------------------------------------- */

/* Logical CPU numbers are MADT order: this CPU's APIC ID is its MADT entry's. */
static void lapic_id_is_this_cpus_madt_entry(struct ktest *t)
{
	REQUIRE_APIC(t);
	if (!acpi.has_madt)
		KTEST_SKIP(t, "no MADT");
	ASSERT_GT(t, acpi.madt.ncpus, 0);
	preempt_disable();              /* the test thread may run on any CPU */
	u32 id = apic_read_id(), cpu = smp_processor_id();
	preempt_enable();
	u32 entry = 0, enabled = 0;
	for (; entry < acpi.madt.ncpus; entry++)        /* the cpu-th enabled entry */
		if (acpi.madt.cpus[entry].enabled && enabled++ == cpu)
			break;
	ASSERT_LT(t, entry, acpi.madt.ncpus);
	EXPECT_EQ(t, id, acpi.madt.cpus[entry].apic_id);
	EXPECT_EQ(t, percpu[cpu].apic_id, id);
}

static void lapic_is_enabled_in_its_mode(struct ktest *t)
{
	u64 base = rdmsr(MSR_APIC_BASE);
	u32 svr;

	REQUIRE_APIC(t);
	svr = lapic_read(LAPIC_SVR);
	EXPECT_TRUE(t, base & APIC_BASE_EN);
	EXPECT_EQ(t, !!(base & APIC_BASE_EXTD), apic_x2apic);
	EXPECT_TRUE(t, svr & APIC_SVR_ENABLE);
	EXPECT_EQ(t, svr & 0xff, VEC_SPURIOUS);
	EXPECT_EQ(t, lapic_read(LAPIC_LVT_ERROR), VEC_APIC_ERROR);
}

/* Each LINT is an unmasked NMI input if a MADT NMI entry names it for CPU 0, else masked. */
static void lints_follow_the_madt(struct ktest *t)
{
	bool nmi[2] = { false, false };
	u32 lvt[2];

	REQUIRE_APIC(t);
	if (!acpi.has_madt)
		KTEST_SKIP(t, "no MADT");
	lvt[0] = lapic_read(LAPIC_LVT_LINT0);
	lvt[1] = lapic_read(LAPIC_LVT_LINT1);
	for (u32 i = 0; i < acpi.madt.nnmis; i++)
		if (acpi.madt.nmis[i].lint <= 1 &&
		    madt_nmi_applies(acpi.madt.nmis[i].acpi_uid, acpi.madt.cpus[0].acpi_uid))
			nmi[acpi.madt.nmis[i].lint] = true;
	for (int l = 0; l < 2; l++) {
		if (nmi[l]) {
			EXPECT_EQ(t, lvt[l] & (7u << 8), APIC_DM_NMI);
			EXPECT_FALSE(t, lvt[l] & APIC_MASKED);
		} else {
			EXPECT_TRUE(t, lvt[l] & APIC_MASKED);
		}
	}
}

/* Versions 0x11 (82093AA) to 0x20 (PIIX/ICH and QEMU) exist; 1-240 pins. */
static void ioapics_read_back_sane(struct ktest *t)
{
	REQUIRE_APIC(t);
	if (!acpi.has_madt)
		KTEST_SKIP(t, "no MADT");
	EXPECT_EQ(t, nr_ioapics, acpi.madt.nioapics);
	ASSERT_GT(t, nr_ioapics, 0);
	for (u32 i = 0; i < nr_ioapics; i++) {
		EXPECT_GE(t, ioapics[i].version, 0x11);
		EXPECT_LE(t, ioapics[i].version, 0x20);
		EXPECT_GE(t, ioapics[i].nentries, 1);
		EXPECT_LE(t, ioapics[i].nentries, 240);
		EXPECT_EQ(t, ioapics[i].gsi_base, acpi.madt.ioapics[i].gsi_base);
		ktest_log(t, "I/O APIC %u: version 0x%x, %u pins from GSI %u", ioapics[i].id,
			  ioapics[i].version, ioapics[i].nentries, ioapics[i].gsi_base);
	}
}

/* A pin is masked, or routed to a device vector: none can raise an exception vector. */
static void no_ioapic_pin_points_at_an_exception(struct ktest *t)
{
	u32 bad = 0;

	REQUIRE_APIC(t);
	for (u32 i = 0; i < nr_ioapics; i++) {
		for (u32 pin = 0; pin < ioapics[i].nentries; pin++) {
			u64 e = ioapic_read_entry(ioapics[i].gsi_base + pin);

			bad += !(e & APIC_MASKED) && (e & 0xff) < VEC_FIRST_IRQ;
		}
	}
	EXPECT_EQ(t, bad, 0);
}

/* --- delivery ------------------------------------------------------------------ */

/* Sent with interrupts off, the IPI waits in the IRR; sti lets it in, once. */
static void self_ipi_arrives(struct ktest *t)
{
	bool arrived;

	REQUIRE_APIC(t);
	ASSERT_TRUE(t, read_rflags() & RFLAGS_IF);
	arrivals = 0;
	arrived_vector = 0;
	int vec = trap_alloc_vector(count_arrival);
	ASSERT_GE(t, vec, VEC_DEVICE_FIRST);
	cli();
	apic_send_ipi(apic_read_id(), (u8)vec);
	udelay(100);
	EXPECT_EQ(t, arrivals, 0);
	sti();
	arrived = wait_arrivals(1);
	trap_free_vector(vec);
	EXPECT_TRUE(t, arrived);
	EXPECT_EQ(t, arrivals, 1);
	EXPECT_EQ(t, arrived_vector, (unsigned)vec);
}

/*
 * The PIT's channel 0 in one-shot mode raises ISA IRQ 0 after 1 ms; the
 * I/O APIC pin it arrives at is the one the MADT's override names (GSI 2
 * on QEMU), with the override's polarity and trigger. The BIOS may have
 * left channel 0 running periodically, so more than one may arrive.
 */
static void isa_irq0_arrives_through_its_override(struct ktest *t)
{
	struct irq_route r = isa_irq_route(0, acpi.madt.overrides, acpi.madt.noverrides);
	u64 entry;
	bool arrived;

	REQUIRE_APIC(t);
	if (!nr_ioapics)
		KTEST_SKIP(t, "no I/O APIC");
	if (!time_pit_counts())
		KTEST_SKIP(t, "no PIT counting (none, or gated off)");
	ASSERT_TRUE(t, read_rflags() & RFLAGS_IF);
	arrivals = 0;
	int vec = trap_alloc_vector(count_arrival);
	ASSERT_GE(t, vec, VEC_DEVICE_FIRST);
	ASSERT_TRUE(t, ioapic_route_irq(0, (u8)vec, apic_read_id()));
	entry = ioapic_read_entry(r.gsi);
	outb(PIT_CMD, PIT_CH0_ONESHOT);
	outb(PIT_CH0_DATA, PIT_1MS & 0xff);
	outb(PIT_CH0_DATA, PIT_1MS >> 8);
	arrived = wait_arrivals(1);
	ioapic_mask_gsi(r.gsi);
	trap_free_vector(vec);
	EXPECT_TRUE(t, arrived);
	EXPECT_EQ(t, arrived_vector, (unsigned)vec);
	EXPECT_EQ(t, entry, ioapic_entry((u8)vec, apic_read_id(), r, false));
	EXPECT_TRUE(t, ioapic_read_entry(r.gsi) & APIC_MASKED);
	ktest_log(t, "IRQ 0 arrived at GSI %u (%s, %s)", r.gsi, r.active_low ? "low" : "high",
		  r.level ? "level" : "edge");
}

/*
 * A vector nobody handles still gets its end of interrupt: left in
 * service, it would block every vector of its priority class and below on
 * this CPU for good, the tick (0x40, below every device vector) among them.
 * The claim is that ticks go on, not how fast: the wait ends at the second
 * tick, or fails after a second without it (a host that deschedules the
 * vCPU delays ticks, and QEMU keeps one pending, but a blocked class stops
 * them for good).
 */
static void unexpected_vector_does_not_stop_the_tick(struct ktest *t)
{
	REQUIRE_APIC(t);
	int vec = trap_alloc_vector(count_arrival);
	ASSERT_GE(t, vec, VEC_DEVICE_FIRST);
	trap_free_vector(vec);          /* routed to nobody again */
	preempt_disable();                              /* this CPU's ticks, this CPU's APIC */
	apic_send_ipi(apic_read_id(), (u8)vec);
	udelay(1000);
	bool in_service = apic_in_service((u8)vec);
	u64 ticks = this_cpu()->ticks, ticked = 0;
	for (u32 ms = 0; ms < 1000 && ticked < 2; ms++) {
		udelay(1000);
		ticked = this_cpu()->ticks - ticks;
	}
	preempt_enable();
	EXPECT_FALSE(t, in_service);
	EXPECT_GE(t, ticked, 2);
}

static void no_apic_errors(struct ktest *t)
{
	REQUIRE_APIC(t);
	EXPECT_EQ(t, apic_error_status(), 0);
	EXPECT_EQ(t, apic_errors, 0);
}

static const struct ktest_case apic_cases[] = {
	KTEST(lapic_id_is_this_cpus_madt_entry),
	KTEST(lapic_is_enabled_in_its_mode),
	KTEST(lints_follow_the_madt),
	KTEST(ioapics_read_back_sane),
	KTEST(no_ioapic_pin_points_at_an_exception),
	KTEST(self_ipi_arrives),
	KTEST(isa_irq0_arrives_through_its_override),
	KTEST(unexpected_vector_does_not_stop_the_tick),
	KTEST(no_apic_errors),
	{},
};
KTEST_SUITE(apic, apic_cases);
