// SPDX-License-Identifier: MIT
/*
 * acpi_test.c - what acpi_init() found agrees with the machine itself.
 *
 * The tables are compared with what QEMU says through fw_cfg (how many
 * CPUs, how many NUMA nodes and where each CPU is) and with the hardware
 * they describe: the local APIC base MSR, the boot CPU's APIC id, the PM
 * timer and HPET counting, the PCI Express ECAM answering. Checks that need
 * QEMU's fw_cfg, or a table the machine does not have, are skipped.
 */
#include "acpi.h"
#include "cmdline.h"
#include "cpu.h"
#include "fw_cfg.h"
#include "io.h"
#include "iommu.h"
#include "kstring.h"
#include "ktest.h"
#include "time.h"
#include "vm.h"
#include "x86.h"

#define MSR_APIC_BASE           0x1b
#define APIC_BASE_ADDR          0x000ffffffffff000UL
#define PM_TIMER_HZ             3579545
#define HPET_MAX_PERIOD_FS      100000000       /* 100 ns: the HPET spec's slowest */

static void rsdp_root_and_madt_found(struct ktest *t)
{
	u32 len = 0;

	EXPECT_NE(t, acpi.rsdp, 0);
	EXPECT_NE(t, acpi.root, 0);
	EXPECT_GT(t, acpi.ntables, 0);
	EXPECT_TRUE(t, acpi.has_madt);
	EXPECT_TRUE(t, acpi_find("APIC", &len) != NULL);
	EXPECT_GE(t, len, 44);
}

static void no_table_was_bad(struct ktest *t)
{
	EXPECT_EQ(t, acpi.nbad, 0);
}

/* Every table acpi_find() gives is mapped, signed and (on a good boot) sums to 0. */
static void found_tables_are_whole(struct ktest *t)
{
	static const char *const sigs[] = { "FACP", "APIC", "DSDT", "SRAT", "HPET", "MCFG" };
	u32 len;

	for (u32 i = 0; i < ARRAY_SIZE(sigs); i++) {
		const u8 *p = acpi_find(sigs[i], &len);

		if (!p)
			continue;
		EXPECT_EQ(t, memcmp(p, sigs[i], 4), 0);
		EXPECT_TRUE(t, vm_mapped((u64)p + len - 1));
		EXPECT_TRUE(t, acpi_checksum_ok(p, len));
	}
	EXPECT_TRUE(t, acpi_find("XYZW", &len) == NULL);
}

/*
 * The kernel's own verdict on a table with a bad checksum: used, as Linux
 * uses it, unless the boot asked for acpi.checksum=strict.
 */
static void bad_checksum_is_used_by_default(struct ktest *t)
{
	static u8 copy[4096];
	u32 len;
	const u8 *madt = acpi_find("APIC", &len);

	if (!madt || len > sizeof(copy))
		KTEST_SKIP(t, "no MADT that fits the copy");
	if (strstr(kernel_cmdline, "acpi.checksum="))
		KTEST_SKIP(t, "acpi.checksum= given: not the default");
	memcpy(copy, madt, len);
	copy[9] ^= 0x5a;
	EXPECT_TRUE(t, acpi_table_usable(copy, len));
	copy[9] ^= 0x5a;
	EXPECT_TRUE(t, acpi_table_usable(copy, len));
}

/*
 * The IOMMU fact: every DRHD (or AMD IOMMU) the tables list was looked at,
 * and none translates (firmware under QEMU never turns one on, nor does testbed).
 */
static void iommu_units_read_and_not_translating(struct ktest *t)
{
	if (!acpi.has_dmar && !acpi.has_ivrs) {
		EXPECT_EQ(t, iommu.kind, IOMMU_NONE);
		KTEST_SKIP(t, "no DMAR or IVRS (QEMU: -device intel-iommu)");
	}
	EXPECT_EQ(t, iommu.kind, acpi.has_dmar ? IOMMU_DMAR : IOMMU_IVRS);
	EXPECT_EQ(t, iommu.units, acpi.has_dmar ? acpi.dmar.ndrhd : acpi.ivrs.niommus);
	EXPECT_GT(t, iommu.units, 0);
	EXPECT_EQ(t, iommu.unreadable, 0);
	EXPECT_EQ(t, iommu.translating, 0);
}

static u32 enabled_cpus(void)
{
	u32 n = 0;

	for (u32 i = 0; i < acpi.madt.ncpus; i++)
		n += acpi.madt.cpus[i].enabled;
	return n;
}

static void madt_cpus_match_fw_cfg(struct ktest *t)
{
	u16 ncpus = 0;

	if (!fw_cfg_read_item(FW_CFG_NB_CPUS, &ncpus, sizeof(ncpus)))
		KTEST_SKIP(t, "no QEMU fw_cfg");
	ASSERT_TRUE(t, acpi.has_madt);
	EXPECT_EQ(t, enabled_cpus(), ncpus);
	EXPECT_EQ(t, acpi.madt.ncpus_dropped, 0);
}

static void madt_lapic_address_matches_msr(struct ktest *t)
{
	ASSERT_TRUE(t, acpi.has_madt);
	EXPECT_EQ(t, acpi.madt.lapic_address, rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDR);
}

/* CPUID leaf 1, EBX bits 31-24: the initial APIC id of the CPU we run on. */
static void boot_cpu_is_an_enabled_madt_cpu(struct ktest *t)
{
	u32 a, b, c, d;
	bool found = false;

	cpuid(1, 0, &a, &b, &c, &d);
	for (u32 i = 0; i < acpi.madt.ncpus; i++)
		if (acpi.madt.cpus[i].apic_id == b >> 24 && acpi.madt.cpus[i].enabled)
			found = true;
	EXPECT_TRUE(t, found);
}

/* QEMU's FW_CFG_NUMA item, read whole (see include/fw_cfg.h). */
static u64 numa_item[1 + MAX_CPUS + MAX_NODES];

static void srat_present_iff_qemu_has_nodes(struct ktest *t)
{
	u64 nodes = 0;

	if (!fw_cfg_read_item(FW_CFG_NUMA, &nodes, sizeof(nodes)))
		KTEST_SKIP(t, "no QEMU fw_cfg");
	EXPECT_EQ(t, acpi.has_srat, nodes > 0);
	if (nodes)
		EXPECT_EQ(t, acpi.srat.ncpus, enabled_cpus());
}

/* Each CPU's domain is the node QEMU put it in; each node's memory its size. */
static void srat_matches_qemu_numa(struct ktest *t)
{
	u16 limit = 0;
	u64 nodes = 0;

	if (!fw_cfg_read_item(FW_CFG_NUMA, &nodes, sizeof(nodes)) ||
	    !fw_cfg_read_item(FW_CFG_MAX_CPUS, &limit, sizeof(limit)))
		KTEST_SKIP(t, "no QEMU fw_cfg");
	if (!nodes || !acpi.has_srat)
		KTEST_SKIP(t, "no NUMA nodes");
	if (limit > MAX_CPUS || nodes > MAX_NODES)
		KTEST_SKIP(t, "more CPUs or nodes than this test reads");
	fw_cfg_read_item(FW_CFG_NUMA, numa_item, (1 + limit + nodes) * sizeof(u64));
	for (u32 i = 0; i < acpi.srat.ncpus; i++) {
		u32 id = acpi.srat.cpus[i].apic_id;

		ASSERT_LT(t, id, limit);
		EXPECT_EQ(t, acpi.srat.cpus[i].pxm, numa_item[1 + id]);
	}
	/* The SRAT leaves out the legacy hole 0xa0000-0x100000: up to 1 MiB less. */
	for (u32 node = 0; node < nodes; node++) {
		u64 want = numa_item[1 + limit + node], got = 0;

		for (u32 i = 0; i < acpi.srat.nmem; i++)
			if (acpi.srat.mem[i].pxm == node)
				got += acpi.srat.mem[i].end - acpi.srat.mem[i].base;
		EXPECT_LE(t, got, want);
		EXPECT_GE(t, got + (1UL << 20), want);
	}
}

static void fadt_is_facp_with_an_io_pm_timer(struct ktest *t)
{
	u32 len = 0;
	const u8 *f = acpi_find("FACP", &len);

	ASSERT_TRUE(t, f != NULL);
	EXPECT_EQ(t, memcmp(f, "FACP", 4), 0);
	EXPECT_GE(t, len, 116);
	ASSERT_TRUE(t, acpi.has_fadt);
	if (!fw_cfg_present())
		KTEST_SKIP(t, "not QEMU: the PM timer may be anywhere");
	EXPECT_EQ(t, acpi.fadt.pm_timer.space_id, ACPI_GAS_IO);
	EXPECT_NE(t, acpi.fadt.pm_timer.address, 0);
	EXPECT_LE(t, acpi.fadt.pm_timer.address, 0xfffc);
	EXPECT_NE(t, acpi.fadt.dsdt, 0);
	EXPECT_TRUE(t, acpi_find("DSDT", NULL) != NULL);
}

/*
 * A PM timer reading and the TSC at that moment. Under TCG the vCPU can be
 * descheduled at any time, so a reading whose bracketing TSC values lie
 * more than 50 us apart is taken again.
 */
static bool pm_timer_sample(u16 port, u32 mask, u64 *tsc, u32 *ticks)
{
	for (int tries = 0; tries < 20; tries++) {
		u64 before = rdtsc();
		u32 v = inl(port) & mask;
		u64 after = rdtsc();

		if (after - before < tsc_khz / 20) {
			*tsc = before + (after - before) / 2;
			*ticks = v;
			return true;
		}
	}
	return false;
}

/*
 * The PM timer answers at the FADT's port and counts up. Its rate against
 * the TSC is logged, not asserted: under TCG on a busy host the two clocks
 * are seen drifting apart by 2x, and speed is for `make bench` to show.
 */
static void pm_timer_advances(struct ktest *t)
{
	u16 port = (u16)acpi.fadt.pm_timer.address;
	u64 tsc_a = 0, tsc_b = 0, want;
	u32 mask, a = 0, b = 0, ticks;

	if (!acpi.has_fadt || acpi.fadt.pm_timer.space_id != ACPI_GAS_IO || !port)
		KTEST_SKIP(t, "no PM timer in I/O space");
	if (!tsc_khz)
		KTEST_SKIP(t, "no TSC frequency to compare with");
	mask = acpi.fadt.pm_timer_32bit ? 0xffffffff : 0xffffff;
	ASSERT_TRUE(t, pm_timer_sample(port, mask, &tsc_a, &a));
	udelay(10000);
	ASSERT_TRUE(t, pm_timer_sample(port, mask, &tsc_b, &b));
	ticks = (b - a) & mask;
	want = (tsc_b - tsc_a) * PM_TIMER_HZ / (tsc_khz * 1000);
	ktest_log(t, "%u PM timer ticks while the TSC says %llu", ticks, want);
	EXPECT_GT(t, ticks, 0);
	EXPECT_EQ(t, a & ~mask, 0);
	EXPECT_EQ(t, b & ~mask, 0);
}

/* General capabilities (offset 0): vendor in bits 16-31, period (fs) in 32-63. */
static void hpet_answers_at_its_address(struct ktest *t)
{
	void __iomem *regs;
	u64 caps;

	if (!acpi.has_hpet)
		KTEST_SKIP(t, "no HPET table");
	regs = ioremap(acpi.hpet.address, 1024, VM_UC);
	ASSERT_TRUE(t, regs != NULL);
	caps = readq(regs);
	EXPECT_NE(t, caps >> 32, 0);
	EXPECT_LE(t, caps >> 32, HPET_MAX_PERIOD_FS);
	EXPECT_NE(t, (caps >> 16) & 0xffff, 0xffff);
}

/* Bus 0, device 0, function 0 (the host bridge) answers in the first ECAM window. */
static void mcfg_window_answers(struct ktest *t)
{
	void __iomem *cfg;

	if (!acpi.has_mcfg)
		KTEST_SKIP(t, "no MCFG table (no PCI Express)");
	ASSERT_GT(t, acpi.mcfg.n, 0);
	cfg = ioremap(acpi.mcfg.e[0].base, 4096, VM_UC);
	ASSERT_TRUE(t, cfg != NULL);
	EXPECT_NE(t, readl(cfg) & 0xffff, 0xffff);
}

static const struct ktest_case acpi_cases[] = {
	KTEST(rsdp_root_and_madt_found),
	KTEST(no_table_was_bad),
	KTEST(found_tables_are_whole),
	KTEST(bad_checksum_is_used_by_default),
	KTEST(iommu_units_read_and_not_translating),
	KTEST(madt_cpus_match_fw_cfg),
	KTEST(madt_lapic_address_matches_msr),
	KTEST(boot_cpu_is_an_enabled_madt_cpu),
	KTEST(srat_present_iff_qemu_has_nodes),
	KTEST(srat_matches_qemu_numa),
	KTEST(fadt_is_facp_with_an_io_pm_timer),
	KTEST(pm_timer_advances),
	KTEST(hpet_answers_at_its_address),
	KTEST(mcfg_window_answers),
	{},
};
KTEST_SUITE(acpi, acpi_cases);
