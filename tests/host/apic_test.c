// SPDX-License-Identifier: MIT
/*
 * apic_test.c - the pure half of include/apic.h on the host: x2APIC MSR
 * numbers, the ICR in both modes, redirection entries, MADT override and
 * NMI flags, checked against the Intel SDM's tables and against QEMU's
 * real MADTs (tests/host/acpi_fixtures.c).
 *
 * QEMU's TCG has no x2APIC, so for the x2APIC encodings these checks are
 * all the testing there is short of real hardware.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "apic.h"
#include "ktest.h"
#include "acpi_fixtures.h"
#include "host.h"

static struct madt_info madt;  /* ~9 KiB: not on the stack */

/* SDM vol. 3A, table "Local APIC Register Address Map Supported by x2APIC". */
static void x2apic_msrs_are_the_sdms(struct ktest *t)
{
	EXPECT_EQ(t, x2apic_msr(LAPIC_ID), 0x802);
	EXPECT_EQ(t, x2apic_msr(LAPIC_VERSION), 0x803);
	EXPECT_EQ(t, x2apic_msr(LAPIC_TPR), 0x808);
	EXPECT_EQ(t, x2apic_msr(LAPIC_EOI), 0x80b);
	EXPECT_EQ(t, x2apic_msr(LAPIC_SVR), 0x80f);
	EXPECT_EQ(t, x2apic_msr(LAPIC_ESR), 0x828);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_CMCI), 0x82f);
	EXPECT_EQ(t, x2apic_msr(LAPIC_ICR_LOW), MSR_X2APIC_ICR);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_TIMER), 0x832);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_THERMAL), 0x833);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_PERF), 0x834);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_LINT0), 0x835);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_LINT1), 0x836);
	EXPECT_EQ(t, x2apic_msr(LAPIC_LVT_ERROR), 0x837);
	EXPECT_EQ(t, x2apic_msr(LAPIC_TIMER_INIT), 0x838);
	EXPECT_EQ(t, x2apic_msr(LAPIC_TIMER_COUNT), 0x839);
	EXPECT_EQ(t, x2apic_msr(LAPIC_TIMER_DIV), 0x83e);
}

static void apic_id_register_in_both_modes(struct ktest *t)
{
	EXPECT_EQ(t, apic_id_from_reg(0x03000000, false), 3);
	EXPECT_EQ(t, apic_id_from_reg(0xff000000, false), 0xff);
	EXPECT_EQ(t, apic_id_from_reg(0x00000003, false), 0);     /* low bits are not the ID */
	EXPECT_EQ(t, apic_id_from_reg(0x00012345, true), 0x12345);
}

/* xAPIC: 8-bit destination in ICR bits 56-63; the low half is the same in both modes. */
static void icr_xapic(struct ktest *t)
{
	u32 fixed = APIC_DM_FIXED | APIC_LEVEL_ASSERT | 0x50;

	EXPECT_EQ(t, apic_icr(3, fixed, false), 0x0300000000004050ULL);
	EXPECT_EQ(t, apic_icr(0x1ff, fixed, false) >> 56, 0xff);  /* only 8 bits fit */
	EXPECT_EQ(t, apic_icr(1, APIC_DM_NMI | APIC_LEVEL_ASSERT, false), 0x0100000000004400ULL);
	EXPECT_EQ(t, apic_icr(2, APIC_DM_INIT | APIC_LEVEL_ASSERT | APIC_TRIGGER_LEVEL, false),
		  0x020000000000c500ULL);
	EXPECT_EQ(t, apic_icr(2, APIC_DM_INIT | APIC_TRIGGER_LEVEL, false), 0x0200000000008500ULL);
	EXPECT_EQ(t, apic_icr(2, APIC_DM_STARTUP | APIC_LEVEL_ASSERT | 0x9e, false),
		  0x020000000000469eULL);
}

/* x2APIC: a 32-bit destination in bits 32-63 of MSR 0x830. */
static void icr_x2apic(struct ktest *t)
{
	u32 fixed = APIC_DM_FIXED | APIC_LEVEL_ASSERT | 0xf0;

	EXPECT_EQ(t, apic_icr(3, fixed, true), 0x00000003000040f0ULL);
	EXPECT_EQ(t, apic_icr(0x12345, fixed, true), 0x00012345000040f0ULL);
	EXPECT_EQ(t, apic_icr(0xffffffff, fixed, true) >> 32, 0xffffffff);
	EXPECT_EQ(t, apic_icr(7, APIC_DM_STARTUP | APIC_LEVEL_ASSERT | 0x08, true),
		  0x0000000700004608ULL);
}

static void lvt_and_entry_bits_are_the_sdms(struct ktest *t)
{
	EXPECT_EQ(t, APIC_DM_NMI, 0x400);
	EXPECT_EQ(t, APIC_DM_INIT, 0x500);
	EXPECT_EQ(t, APIC_DM_STARTUP, 0x600);
	EXPECT_EQ(t, APIC_PENDING, 0x1000);
	EXPECT_EQ(t, APIC_MASKED, 0x10000);
	EXPECT_EQ(t, APIC_TIMER_PERIODIC, 0x20000);
	EXPECT_EQ(t, APIC_TIMER_DEADLINE, 0x40000);
	EXPECT_EQ(t, APIC_SVR_ENABLE, 0x100);
}

/* INTI flags: polarity bits 0-1, trigger bits 2-3; 00 and the reserved 10 mean the ISA default. */
static void inti_flags(struct ktest *t)
{
	EXPECT_FALSE(t, inti_active_low(0x0));
	EXPECT_FALSE(t, inti_active_low(0x1));
	EXPECT_FALSE(t, inti_active_low(0x2));
	EXPECT_TRUE(t, inti_active_low(0x3));
	EXPECT_FALSE(t, inti_level(0x0));
	EXPECT_FALSE(t, inti_level(0x4));
	EXPECT_FALSE(t, inti_level(0x8));
	EXPECT_TRUE(t, inti_level(0xc));
	EXPECT_TRUE(t, inti_level(0xd));
	EXPECT_FALSE(t, inti_active_low(0xd));
}

/* QEMU's own MADTs: IRQ 0 at GSI 2, the PCI-ish IRQs 5, 9, 10, 11 level-triggered. */
static void expect_qemu_routes(struct ktest *t)
{
	const struct madt_override *ov = madt.overrides;
	u32 n = madt.noverrides;
	struct irq_route r;

	r = isa_irq_route(0, ov, n);
	EXPECT_EQ(t, r.gsi, 2);
	EXPECT_FALSE(t, r.active_low);
	EXPECT_FALSE(t, r.level);
	r = isa_irq_route(9, ov, n);
	EXPECT_EQ(t, r.gsi, 9);
	EXPECT_FALSE(t, r.active_low);
	EXPECT_TRUE(t, r.level);
	r = isa_irq_route(4, ov, n);            /* COM1: no override, identity, edge high */
	EXPECT_EQ(t, r.gsi, 4);
	EXPECT_FALSE(t, r.active_low);
	EXPECT_FALSE(t, r.level);
	r = isa_irq_route(2, ov, n);            /* nothing overrides IRQ 2 itself */
	EXPECT_EQ(t, r.gsi, 2);
}

static void routes_from_the_seabios_madt(struct ktest *t)
{
	ASSERT_EQ(t, acpi_parse_madt(fixture_story_apic, sizeof(fixture_story_apic), &madt), 0);
	expect_qemu_routes(t);
}

static void routes_from_the_ovmf_madt(struct ktest *t)
{
	ASSERT_EQ(t, acpi_parse_madt(fixture_q35_apic, sizeof(fixture_q35_apic), &madt), 0);
	expect_qemu_routes(t);
}

static void override_on_another_bus_is_not_isa(struct ktest *t)
{
	static const struct madt_override ov[] = {
		{ .bus = 1, .source_irq = 3, .gsi = 20, .flags = 0xf },
		{ .bus = 0, .source_irq = 7, .gsi = 17, .flags = 0xf },
	};
	struct irq_route r = isa_irq_route(3, ov, 2);

	EXPECT_EQ(t, r.gsi, 3);
	r = isa_irq_route(7, ov, 2);
	EXPECT_EQ(t, r.gsi, 17);
	EXPECT_TRUE(t, r.active_low);
	EXPECT_TRUE(t, r.level);
	r = isa_irq_route(7, ov, 0);            /* no overrides at all */
	EXPECT_EQ(t, r.gsi, 7);
}

static void redirection_entries(struct ktest *t)
{
	struct irq_route edge_high = { 2, false, false }, level_low = { 9, true, true };

	EXPECT_EQ(t, ioapic_entry(0x20, 0, edge_high, false), 0x20ULL);
	EXPECT_EQ(t, ioapic_entry(0x21, 3, edge_high, false), 0x0300000000000021ULL);
	EXPECT_EQ(t, ioapic_entry(0x29, 1, level_low, false), 0x010000000000a029ULL);
	EXPECT_EQ(t, ioapic_entry(0x29, 1, level_low, true), 0x010000000001a029ULL);
	EXPECT_EQ(t, ioapic_entry(0x30, 0x1ff, edge_high, false) >> 56, 0xff);
}

/* Version register: bits 0-7 version, 16-23 the highest entry's index. */
static void ioapic_size_from_version(struct ktest *t)
{
	EXPECT_EQ(t, ioapic_entries(0x00170020), 24);   /* QEMU */
	EXPECT_EQ(t, ioapic_entries(0x00170011), 24);   /* 82093AA */
	EXPECT_EQ(t, ioapic_entries(0x00000011), 1);
	EXPECT_EQ(t, ioapic_entries(0xffffffff), 256);  /* all ones: nothing answers */
}

static void nmi_entries_and_lints(struct ktest *t)
{
	ASSERT_EQ(t, acpi_parse_madt(fixture_story_apic, sizeof(fixture_story_apic), &madt), 0);
	ASSERT_EQ(t, madt.nnmis, 1);
	for (u32 uid = 0; uid < 4; uid++)                       /* QEMU: LINT1 on every CPU */
		EXPECT_TRUE(t, madt_nmi_applies(madt.nmis[0].acpi_uid, uid));
	EXPECT_EQ(t, madt.nmis[0].lint, 1);
	EXPECT_TRUE(t, madt_nmi_applies(0xffffffff, 1234));
	EXPECT_TRUE(t, madt_nmi_applies(5, 5));
	EXPECT_FALSE(t, madt_nmi_applies(5, 6));
	EXPECT_EQ(t, lint_nmi_lvt(0x0), 0x400);                 /* NMI, unmasked, high */
	EXPECT_EQ(t, lint_nmi_lvt(0xf), 0x2400);                /* active low; never level */
}

/* Delivery mode 010 (SMI): firmware's pin, never written; every other mode is ours. */
static void smi_pins_are_left_alone(struct ktest *t)
{
	EXPECT_FALSE(t, ioapic_pin_is_ours(0x0000000000010200ULL));     /* SMI, masked */
	EXPECT_FALSE(t, ioapic_pin_is_ours(0x0000000000000200ULL));     /* SMI, unmasked */
	EXPECT_FALSE(t, ioapic_pin_is_ours(0xff0000000000a2ffULL));     /* SMI, any other bits */
	EXPECT_TRUE(t, ioapic_pin_is_ours(0x0000000000010000ULL));      /* masked fixed: reset state */
	EXPECT_TRUE(t, ioapic_pin_is_ours(APIC_DM_NMI | APIC_MASKED));
	EXPECT_TRUE(t, ioapic_pin_is_ours(APIC_DM_INIT));
	EXPECT_TRUE(t, ioapic_pin_is_ours(0x0000000000000700ULL));      /* ExtINT */
	EXPECT_TRUE(t, ioapic_pin_is_ours(0x0000000000000100ULL));      /* lowest priority */
	EXPECT_TRUE(t, ioapic_pin_is_ours(ioapic_entry(0x30, 1, (struct irq_route){ 2, 0, 0 },
							false)));
}

static struct dmar_info dmar;

/* A DMAR whose flags are given, with two DRHD units. */
static u8 *dmar_with_flags(u8 flags, u32 *len)
{
	struct synth s;

	synth_begin(&s, "DMAR", 1, 48);
	synth_put(&s, 36, 38, 1);               /* 39-bit DMA addresses */
	synth_put(&s, 37, flags, 1);
	synth_dmar_drhd(&s, 0xfed90000, 0, false);
	synth_dmar_drhd(&s, 0xfed91000, 0, true);
	return synth_end(&s, len);
}

/* The DMAR's x2APIC opt-out flag, through the parser, decides the mode. */
static void dmar_x2apic_opt_out_keeps_xapic(struct ktest *t)
{
	u32 len;
	u8 *d = dmar_with_flags(DMAR_INTR_REMAP | DMAR_X2APIC_OPT_OUT, &len);
	struct apic_mode_choice c;

	ASSERT_EQ(t, acpi_parse_dmar(d, len, &dmar), 0);
	c = apic_choose_mode(true, false, dmar.flags & DMAR_X2APIC_OPT_OUT);
	EXPECT_FALSE(t, c.x2apic);
	EXPECT_STREQ(t, c.why, "the DMAR sets the x2APIC opt-out flag");
	c = apic_choose_mode(true, true, dmar.flags & DMAR_X2APIC_OPT_OUT);
	EXPECT_TRUE(t, c.x2apic);                /* firmware already on: no way back */
	free(d);

	d = dmar_with_flags(DMAR_INTR_REMAP, &len);
	ASSERT_EQ(t, acpi_parse_dmar(d, len, &dmar), 0);
	EXPECT_TRUE(t, apic_choose_mode(true, false, dmar.flags & DMAR_X2APIC_OPT_OUT).x2apic);
	EXPECT_FALSE(t, apic_choose_mode(false, false, dmar.flags & DMAR_X2APIC_OPT_OUT).x2apic);
	free(d);
}

static const struct ktest_case apic_bits_cases[] = {
	KTEST(smi_pins_are_left_alone),
	KTEST(dmar_x2apic_opt_out_keeps_xapic),
	KTEST(x2apic_msrs_are_the_sdms),
	KTEST(apic_id_register_in_both_modes),
	KTEST(icr_xapic),
	KTEST(icr_x2apic),
	KTEST(lvt_and_entry_bits_are_the_sdms),
	KTEST(inti_flags),
	KTEST(routes_from_the_seabios_madt),
	KTEST(routes_from_the_ovmf_madt),
	KTEST(override_on_another_bus_is_not_isa),
	KTEST(redirection_entries),
	KTEST(ioapic_size_from_version),
	KTEST(nmi_entries_and_lints),
	{},
};
KTEST_SUITE(apic_bits, apic_bits_cases);
