// SPDX-License-Identifier: MIT
/*
 * acpi_test.c - kernel/acpi_parse.c on the host: QEMU's real tables
 * (acpi_fixtures.c) must parse to exactly what QEMU was told, and damaged
 * copies of them (bad checksums, short lengths, entries of length 0 or
 * running past the end, impossible addresses, too many CPUs, a SLIT too
 * small for its size) must be refused or parsed as far as is safe, with a
 * warning naming the table. Every damaged table is a malloc'd buffer of
 * exactly its length, so ASan reports any byte read past it.
 *
 * What QEMU was told (tests/topologies/story.topo):
 *   node 0: CPUs 0-1, no memory; node 1: CPU 2, 3 GiB; node 2: CPU 3, 3 GiB.
 * What it built: APIC ids 0-3; SeaBIOS's SRAT puts node 1 at 0-0xa0000 and
 * 1 MiB-3 GiB and node 2 at 4-7 GiB; q35 keeps only 2 GiB below the PCI
 * hole, so node 1 is 0-0xa0000, 1 MiB-2 GiB and 4-5 GiB, node 2 5-8 GiB.
 * Both pad the SRAT with disabled zero-length memory entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "acpi_fixtures.h"
#include "host.h"
#include "iommu.h"
#include "ktest.h"
#include "numa.h"
#include "unaligned.h"

/* Results live here, not on the stack: struct madt_info is ~9 KiB. */
static struct madt_info madt;
static struct srat_info srat;
static struct slit_info slit;
static struct mcfg_info mcfg;
static struct hpet_info hpet;
static struct fadt_info fadt;

/* --- making damaged copies ----------------------------------------------------- */

static void put16(u8 *p, u16 v)
{
	memcpy(p, &v, sizeof(v));
}

static void put32(u8 *p, u32 v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(u8 *p, u64 v)
{
	memcpy(p, &v, sizeof(v));
}

/* A malloc'd copy of the first len bytes of src (len may exceed it: zeros). */
static u8 *copy_of(const u8 *src, size_t src_len, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	memset(p, 0, len);
	memcpy(p, src, MIN(src_len, len));
	return p;
}

#define COPY(fixture) copy_of(fixture, sizeof(fixture), sizeof(fixture))

/* Make the bytes of a table of len bytes sum to 0 again (byte 9 is the checksum). */
static void fix_checksum(u8 *t, u32 len)
{
	u8 sum = 0;

	t[9] = 0;
	for (u32 i = 0; i < len; i++)
		sum += t[i];
	t[9] = (u8)-sum;
}

/* Set a table's length field to len, keeping its checksum right. */
static void set_length(u8 *t, u32 len)
{
	put32(t + 4, len);
	fix_checksum(t, len);
}

/* --- the fixtures themselves ------------------------------------------------------ */

struct fixture {
	const char *name;
	const u8 *bytes;
	u32 len;
};

#define FIXTURE(f) { #f, f, sizeof(f) }

static const struct fixture tables[] = {
	FIXTURE(fixture_story_rsdt), FIXTURE(fixture_story_facp), FIXTURE(fixture_story_apic),
	FIXTURE(fixture_story_srat), FIXTURE(fixture_story_hpet), FIXTURE(fixture_story_slit),
	FIXTURE(fixture_q35_xsdt), FIXTURE(fixture_q35_facp), FIXTURE(fixture_q35_apic),
	FIXTURE(fixture_q35_srat), FIXTURE(fixture_q35_mcfg), FIXTURE(fixture_q35_hpet),
	FIXTURE(fixture_single_apic),
};

static void fixtures_have_good_checksums(struct ktest *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		u32 len;

		memcpy(&len, tables[i].bytes + 4, 4);
		EXPECT_EQ(t, len, tables[i].len);
		if (!acpi_checksum_ok(tables[i].bytes, tables[i].len))
			ktest_log(t, "%s: bad checksum", tables[i].name);
		EXPECT_TRUE(t, acpi_checksum_ok(tables[i].bytes, tables[i].len));
	}
	EXPECT_TRUE(t, acpi_checksum_ok(fixture_story_rsdp, 20));
	EXPECT_TRUE(t, acpi_checksum_ok(fixture_q35_rsdp, 20));
	EXPECT_TRUE(t, acpi_checksum_ok(fixture_q35_rsdp, 36));
}

static void checksum_catches_one_changed_byte(struct ktest *t)
{
	u8 *srat = COPY(fixture_story_srat);

	srat[200] ^= 0x40;
	EXPECT_FALSE(t, acpi_checksum_ok(srat, sizeof(fixture_story_srat)));
	EXPECT_TRUE(t, acpi_checksum_ok(srat, 0));     /* nothing sums to 0 */
	free(srat);
}

/* --- RSDP ------------------------------------------------------------------------ */

static void rsdp_v0_from_seabios_gives_the_rsdt(struct ktest *t)
{
	u8 *r = COPY(fixture_story_rsdp);
	u64 root = 0;
	bool x = true;

	host_log_clear();
	ASSERT_EQ(t, acpi_parse_rsdp(r, 20, &root, &x), 0);
	EXPECT_EQ(t, root, 0xbffe1d40);
	EXPECT_FALSE(t, x);
	EXPECT_STREQ(t, host_log(), "");
	free(r);
}

static void rsdp_v2_from_ovmf_gives_the_xsdt(struct ktest *t)
{
	u8 *r = COPY(fixture_q35_rsdp);
	u64 root = 0;
	bool x = false;

	host_log_clear();
	ASSERT_EQ(t, acpi_parse_rsdp(r, 36, &root, &x), 0);
	EXPECT_EQ(t, root, 0x7f77c0e8);
	EXPECT_TRUE(t, x);
	EXPECT_STREQ(t, host_log(), "");
	free(r);
}

/* GRUB's ACPI 1.0 tag holds 20 bytes even of a revision 2 RSDP: use the RSDT. */
static void rsdp_v2_cut_to_20_bytes_gives_the_rsdt(struct ktest *t)
{
	u8 *r = copy_of(fixture_q35_rsdp, 36, 20);
	u64 root = 0;
	bool x = true;

	ASSERT_EQ(t, acpi_parse_rsdp(r, 20, &root, &x), 0);
	EXPECT_EQ(t, root, 0x7f77c074);
	EXPECT_FALSE(t, x);
	free(r);
}

static void rsdp_v0_bad_checksum_refused(struct ktest *t)
{
	u8 *r = COPY(fixture_story_rsdp);
	u64 root = 0;
	bool x;

	r[9] ^= 1;      /* the OEM id: covered by the checksum */
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_rsdp(r, 20, &root, &x), -1);
	EXPECT_TRUE(t, host_log_has("ACPI: RSDP: bad checksum"));
	free(r);
}

static void rsdp_v2_bad_extended_checksum_refused(struct ktest *t)
{
	u8 *r = COPY(fixture_q35_rsdp);
	u64 root = 0;
	bool x;

	r[33] ^= 1;     /* reserved: outside the 20-byte checksum, inside the extended one */
	host_log_clear();
	EXPECT_TRUE(t, acpi_checksum_ok(r, 20));
	EXPECT_EQ(t, acpi_parse_rsdp(r, 36, &root, &x), -1);
	EXPECT_TRUE(t, host_log_has("ACPI: RSDP: bad extended checksum"));
	free(r);
}

static void rsdp_v2_bad_v1_checksum_refused(struct ktest *t)
{
	u8 *r = COPY(fixture_q35_rsdp);
	u64 root = 0;
	bool x;

	r[8] ^= 1;
	EXPECT_EQ(t, acpi_parse_rsdp(r, 36, &root, &x), -1);
	free(r);
}

static void rsdp_v2_length_past_buffer_refused(struct ktest *t)
{
	u8 *r = COPY(fixture_q35_rsdp);
	u64 root = 0;
	bool x;

	put32(r + 20, 40);
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_rsdp(r, 36, &root, &x), -1);
	EXPECT_TRUE(t, host_log_has("ACPI: RSDP: length 40"));
	free(r);
}

static void rsdp_v2_without_xsdt_uses_rsdt(struct ktest *t)
{
	u8 *r = COPY(fixture_q35_rsdp);
	u64 root = 0;
	bool x = true;

	put64(r + 24, 0);
	r[32] = 0;
	u8 sum = 0;
	for (int i = 0; i < 36; i++)
		sum += r[i];
	r[32] = (u8)-sum;
	ASSERT_EQ(t, acpi_parse_rsdp(r, 36, &root, &x), 0);
	EXPECT_EQ(t, root, 0x7f77c074);
	EXPECT_FALSE(t, x);
	free(r);
}

static void rsdp_short_or_unsigned_refused(struct ktest *t)
{
	u8 *r = copy_of(fixture_story_rsdp, 20, 19);
	u64 root = 0;
	bool x;

	EXPECT_EQ(t, acpi_parse_rsdp(r, 19, &root, &x), -1);
	free(r);
	r = COPY(fixture_story_rsdp);
	r[0] = 'r';
	EXPECT_EQ(t, acpi_parse_rsdp(r, 20, &root, &x), -1);
	free(r);
}

/* --- RSDT and XSDT ------------------------------------------------------------------ */

static void rsdt_lists_seabios_tables(struct ktest *t)
{
	static const u64 want[] = { 0xbffe1aa4, 0xbffe1b18, 0xbffe1ba8, 0xbffe1be0, 0xbffe1d18 };
	u64 out[8] = { 0 };

	ASSERT_EQ(t, acpi_root_entries(fixture_story_rsdt, sizeof(fixture_story_rsdt), false,
				       out, 8), 5);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(t, out[i], want[i]);
	EXPECT_EQ(t, out[5], 0);
}

static void xsdt_lists_ovmf_tables(struct ktest *t)
{
	u64 out[8] = { 0 };

	ASSERT_EQ(t, acpi_root_entries(fixture_q35_xsdt, sizeof(fixture_q35_xsdt), true, out, 8),
		  7);
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(t, out[i], 0x7f778000 - 0x1000 * (u64)i);
}

static void root_entries_bounded_by_max(struct ktest *t)
{
	u64 out[3] = { 0, 0, 0 };

	EXPECT_EQ(t, acpi_root_entries(fixture_q35_xsdt, sizeof(fixture_q35_xsdt), true, out, 2),
		  7);
	EXPECT_EQ(t, out[1], 0x7f777000);
	EXPECT_EQ(t, out[2], 0);        /* untouched */
}

static void root_wrong_kind_or_truncated_lists_nothing(struct ktest *t)
{
	u64 out[8];
	u8 *r = copy_of(fixture_q35_xsdt, sizeof(fixture_q35_xsdt), 60);

	host_log_clear();
	EXPECT_EQ(t, acpi_root_entries(fixture_q35_xsdt, sizeof(fixture_q35_xsdt), false, out, 8),
		  0);
	EXPECT_TRUE(t, host_log_has("ACPI: RSDT: signature is not \"RSDT\""));
	EXPECT_EQ(t, acpi_root_entries(r, 60, true, out, 8), 0);
	EXPECT_TRUE(t, host_log_has("ACPI: XSDT: length 92 but only 60 bytes given"));
	free(r);
}

static void root_partial_entry_ignored(struct ktest *t)
{
	u8 *r = copy_of(fixture_story_rsdt, sizeof(fixture_story_rsdt), 54);
	u64 out[8];

	set_length(r, 54);
	host_log_clear();
	EXPECT_EQ(t, acpi_root_entries(r, 54, false, out, 8), 4);
	EXPECT_TRUE(t, host_log_has("ACPI: RSDT: 2 bytes after the last whole entry ignored"));
	free(r);
}

/* --- MADT ------------------------------------------------------------------------ */

static void expect_qemu_madt(struct ktest *t, const struct madt_info *m, u32 ncpus)
{
	static const struct madt_override isa[] = {
		{ 0, 0, 2, 0x0 }, { 0, 5, 5, 0xd }, { 0, 9, 9, 0xd }, { 0, 10, 10, 0xd },
		{ 0, 11, 11, 0xd },
	};

	EXPECT_EQ(t, m->lapic_address, 0xfee00000);
	EXPECT_EQ(t, m->flags, 1);      /* PCAT_COMPAT: 8259s present */
	ASSERT_EQ(t, m->ncpus, ncpus);
	EXPECT_EQ(t, m->ncpus_dropped, 0);
	for (u32 i = 0; i < ncpus; i++) {
		EXPECT_EQ(t, m->cpus[i].apic_id, i);
		EXPECT_EQ(t, m->cpus[i].acpi_uid, i);
		EXPECT_TRUE(t, m->cpus[i].enabled);
		EXPECT_FALSE(t, m->cpus[i].x2apic);
	}
	ASSERT_EQ(t, m->nioapics, 1);
	EXPECT_EQ(t, m->ioapics[0].id, 0);
	EXPECT_EQ(t, m->ioapics[0].address, 0xfec00000);
	EXPECT_EQ(t, m->ioapics[0].gsi_base, 0);
	ASSERT_EQ(t, m->noverrides, ARRAY_SIZE(isa));
	for (u32 i = 0; i < ARRAY_SIZE(isa); i++) {
		EXPECT_EQ(t, m->overrides[i].bus, isa[i].bus);
		EXPECT_EQ(t, m->overrides[i].source_irq, isa[i].source_irq);
		EXPECT_EQ(t, m->overrides[i].gsi, isa[i].gsi);
		EXPECT_EQ(t, m->overrides[i].flags, isa[i].flags);
	}
	ASSERT_EQ(t, m->nnmis, 1);
	EXPECT_EQ(t, m->nmis[0].acpi_uid, 0xff);        /* every CPU */
	EXPECT_EQ(t, m->nmis[0].lint, 1);
	EXPECT_EQ(t, m->nmis[0].flags, 0);
}

static void madt_story_seabios(struct ktest *t)
{
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_madt(fixture_story_apic, sizeof(fixture_story_apic), &madt), 0);
	expect_qemu_madt(t, &madt, 4);
	EXPECT_STREQ(t, host_log(), "");
}

static void madt_story_q35_ovmf(struct ktest *t)
{
	EXPECT_EQ(t, acpi_parse_madt(fixture_q35_apic, sizeof(fixture_q35_apic), &madt), 0);
	expect_qemu_madt(t, &madt, 4);
}

static void madt_single(struct ktest *t)
{
	EXPECT_EQ(t, acpi_parse_madt(fixture_single_apic, sizeof(fixture_single_apic), &madt), 0);
	expect_qemu_madt(t, &madt, 1);
}

/* Entries of the story MADT: 4 LAPICs at 44.., the I/O APIC at 76, overrides, the NMI at 138. */
#define MADT_CPU2       60
#define MADT_NMI        138

static void madt_entry_length_0_stops_the_walk(struct ktest *t)
{
	u8 *m = COPY(fixture_story_apic);

	m[MADT_CPU2 + 1] = 0;
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_madt(m, sizeof(fixture_story_apic), &madt), 1);
	EXPECT_EQ(t, madt.ncpus, 2);
	EXPECT_EQ(t, madt.nioapics, 0);
	EXPECT_TRUE(t, host_log_has("ACPI: MADT: entry type 0 at offset 60 has length 0"));
	free(m);
}

static void madt_entry_length_1_stops_the_walk(struct ktest *t)
{
	u8 *m = COPY(fixture_story_apic);

	m[MADT_CPU2 + 1] = 1;
	EXPECT_EQ(t, acpi_parse_madt(m, sizeof(fixture_story_apic), &madt), 1);
	EXPECT_EQ(t, madt.ncpus, 2);
	free(m);
}

static void madt_entry_past_the_end_stops_the_walk(struct ktest *t)
{
	u8 *m = COPY(fixture_story_apic);

	m[MADT_NMI + 1] = 10;   /* 4 bytes past the table */
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_madt(m, sizeof(fixture_story_apic), &madt), 1);
	EXPECT_EQ(t, madt.ncpus, 4);
	EXPECT_EQ(t, madt.noverrides, 5);
	EXPECT_EQ(t, madt.nnmis, 0);
	EXPECT_TRUE(t, host_log_has("runs past the end"));
	free(m);
}

static void madt_entry_too_short_for_its_type_skipped(struct ktest *t)
{
	u8 *m = COPY(fixture_story_apic);

	m[MADT_CPU2] = 9;       /* an 8-byte entry claiming to be a 16-byte x2APIC */
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_madt(m, sizeof(fixture_story_apic), &madt), 1);
	EXPECT_EQ(t, madt.ncpus, 3);
	EXPECT_EQ(t, madt.cpus[2].apic_id, 3);
	EXPECT_EQ(t, madt.nioapics, 1);         /* the walk went on */
	EXPECT_EQ(t, madt.nnmis, 1);
	EXPECT_TRUE(t, host_log_has("ACPI: MADT: entry type 9 at offset 60 has length 8, "
				    "less than 16"));
	free(m);
}

static void madt_truncated_or_short_refused(struct ktest *t)
{
	u8 *m = copy_of(fixture_story_apic, sizeof(fixture_story_apic), 100);

	host_log_clear();
	EXPECT_EQ(t, acpi_parse_madt(m, 100, &madt), -1);
	EXPECT_EQ(t, madt.ncpus, 0);
	EXPECT_TRUE(t, host_log_has("ACPI: MADT: length 144 but only 100 bytes given"));
	set_length(m, 40);
	EXPECT_EQ(t, acpi_parse_madt(m, 100, &madt), -1);
	EXPECT_TRUE(t, host_log_has("ACPI: MADT: length 40 is less than the 44 bytes"));
	EXPECT_EQ(t, acpi_parse_madt(m, 20, &madt), -1);
	free(m);
}

static void madt_wrong_signature_refused(struct ktest *t)
{
	EXPECT_EQ(t, acpi_parse_madt(fixture_story_srat, sizeof(fixture_story_srat), &madt), -1);
}

/* A MADT of n x2APIC entries with IDs first, first+1, ... (uid = 1000 + i). */
static u8 *x2apic_madt(u32 n, u32 first, u32 *len)
{
	*len = 44 + 16 * n;
	u8 *m = copy_of(fixture_story_apic, 44, *len);

	for (u32 i = 0; i < n; i++) {
		u8 *e = m + 44 + 16 * i;

		e[0] = 9;
		e[1] = 16;
		put32(e + 4, first + i);
		put32(e + 8, i % 2 ? 1 : 2);    /* enabled, or online-capable */
		put32(e + 12, 1000 + i);
	}
	set_length(m, *len);
	return m;
}

static void madt_more_cpus_than_max_bounded(struct ktest *t)
{
	u32 len;
	u8 *m = x2apic_madt(MAX_CPUS + 44, 0, &len);

	char line[128];

	host_log_clear();
	EXPECT_EQ(t, acpi_parse_madt(m, len, &madt), 0);    /* over the limit is no problem */
	EXPECT_EQ(t, madt.ncpus, MAX_CPUS);
	EXPECT_EQ(t, madt.ncpus_dropped, 44);
	EXPECT_EQ(t, madt.ncpus_dropped_enabled, 0);
	/* Every enabled entry (the odd ones) made it, in table order, to the end. */
	u32 enabled = 0;
	for (u32 i = 0; i < madt.ncpus; i++)
		enabled += madt.cpus[i].enabled;
	EXPECT_EQ(t, enabled, (MAX_CPUS + 44) / 2);
	EXPECT_EQ(t, madt.cpus[MAX_CPUS - 1].apic_id, MAX_CPUS + 43);
	snprintf(line, sizeof(line), "ACPI: MADT: 44 of %d CPU entries dropped (MAX_CPUS %d), "
		 "0 of them enabled; the rest is used", MAX_CPUS + 44, MAX_CPUS);
	EXPECT_TRUE(t, host_log_has(line));
	free(m);
}

/* QEMU with APIC IDs above 255: hundreds of disabled entries, then the real CPUs. */
static void madt_enabled_cpus_after_disabled_placeholders_are_kept(struct ktest *t)
{
	u32 len;
	u8 *m = x2apic_madt(MAX_CPUS + 2, 0, &len);

	for (u32 i = 0; i < MAX_CPUS; i++)
		put32(m + 44 + 16 * i + 8, 0);          /* disabled placeholders */
	put32(m + 44 + 16 * MAX_CPUS + 8, 1);           /* two real CPUs, IDs 256 and 257 */
	put32(m + 44 + 16 * (MAX_CPUS + 1) + 8, 1);
	acpi_parse_madt(m, len, &madt);
	EXPECT_EQ(t, madt.ncpus, MAX_CPUS);
	EXPECT_TRUE(t, madt.cpus[MAX_CPUS - 2].enabled);
	EXPECT_EQ(t, madt.cpus[MAX_CPUS - 2].apic_id, MAX_CPUS);
	EXPECT_EQ(t, madt.cpus[MAX_CPUS - 1].apic_id, MAX_CPUS + 1);
	free(m);
}

static void madt_x2apic_ids_above_255(struct ktest *t)
{
	u32 len;
	u8 *m = x2apic_madt(3, 0x1fe, &len);

	ASSERT_EQ(t, acpi_parse_madt(m, len, &madt), 0);
	ASSERT_EQ(t, madt.ncpus, 3);
	EXPECT_EQ(t, madt.cpus[0].apic_id, 0x1fe);
	EXPECT_EQ(t, madt.cpus[2].apic_id, 0x200);
	EXPECT_EQ(t, madt.cpus[1].acpi_uid, 1001);
	EXPECT_TRUE(t, madt.cpus[1].x2apic);
	EXPECT_TRUE(t, madt.cpus[1].enabled);
	EXPECT_FALSE(t, madt.cpus[0].enabled);
	EXPECT_TRUE(t, madt.cpus[0].online_capable);
	free(m);
}

/* x2APIC NMI (type 10) and the 64-bit LAPIC address override (type 5). */
static void madt_x2apic_nmi_and_address_override(struct ktest *t)
{
	u32 len = 44 + 12 + 12;
	u8 *m = copy_of(fixture_story_apic, 44, len);

	m[44] = 10;
	m[45] = 12;
	put16(m + 46, 0x5);             /* flags */
	put32(m + 48, 0xffffffff);      /* every CPU */
	m[52] = 1;                      /* LINT1 */
	m[56] = 5;
	m[57] = 12;
	put64(m + 60, 0xfee00000ULL + 0x100000000ULL);
	set_length(m, len);
	ASSERT_EQ(t, acpi_parse_madt(m, len, &madt), 0);
	ASSERT_EQ(t, madt.nnmis, 1);
	EXPECT_EQ(t, madt.nmis[0].acpi_uid, 0xffffffff);
	EXPECT_EQ(t, madt.nmis[0].lint, 1);
	EXPECT_EQ(t, madt.nmis[0].flags, 5);
	EXPECT_EQ(t, madt.lapic_address, 0x1fee00000ULL);
	free(m);
}

/* --- SRAT ------------------------------------------------------------------------- */

struct range {
	u32 pxm;
	u64 base, end;
};

static void expect_srat(struct ktest *t, const struct srat_info *s, const struct range *r,
			u32 n)
{
	static const u32 cpu_pxm[4] = { 0, 0, 1, 2 };

	ASSERT_EQ(t, s->ncpus, 4);
	for (u32 i = 0; i < 4; i++) {
		EXPECT_EQ(t, s->cpus[i].apic_id, i);
		EXPECT_EQ(t, s->cpus[i].pxm, cpu_pxm[i]);
		EXPECT_FALSE(t, s->cpus[i].x2apic);
	}
	ASSERT_EQ(t, s->nmem, n);       /* the disabled, empty padding is gone */
	for (u32 i = 0; i < n; i++) {
		EXPECT_EQ(t, s->mem[i].pxm, r[i].pxm);
		EXPECT_EQ(t, s->mem[i].base, r[i].base);
		EXPECT_EQ(t, s->mem[i].end, r[i].end);
		EXPECT_FALSE(t, s->mem[i].hotplug);
		EXPECT_FALSE(t, s->mem[i].nonvolatile);
	}
}

static void srat_story_seabios(struct ktest *t)
{
	static const struct range want[] = {
		{ 1, 0x0, 0xa0000 },
		{ 1, 0x100000, 0xc0000000 },
		{ 2, 0x100000000, 0x1c0000000 },
	};

	host_log_clear();
	EXPECT_EQ(t, acpi_parse_srat(fixture_story_srat, sizeof(fixture_story_srat), &srat), 0);
	expect_srat(t, &srat, want, ARRAY_SIZE(want));
	EXPECT_STREQ(t, host_log(), "");
}

static void srat_story_q35_ovmf(struct ktest *t)
{
	static const struct range want[] = {
		{ 1, 0x0, 0xa0000 },
		{ 1, 0x100000, 0x80000000 },
		{ 1, 0x100000000, 0x140000000 },
		{ 2, 0x140000000, 0x200000000 },
	};

	EXPECT_EQ(t, acpi_parse_srat(fixture_q35_srat, sizeof(fixture_q35_srat), &srat), 0);
	expect_srat(t, &srat, want, ARRAY_SIZE(want));
}

/* Story SRAT: CPU entries at 48, 64, 80, 96; memory at 112, 152, 192; padding at 232, 272. */
#define SRAT_CPU0       48
#define SRAT_MEM1       152
#define SRAT_MEM2       192
#define SRAT_PAD2       272

static void srat_disabled_cpu_ignored(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	put32(s + SRAT_CPU0 + 4, 0);
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 0);
	EXPECT_EQ(t, srat.ncpus, 3);
	EXPECT_EQ(t, srat.cpus[0].apic_id, 1);
	free(s);
}

static void srat_flags_hotplug_and_nonvolatile(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	put32(s + SRAT_MEM2 + 28, 0x7);
	ASSERT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 0);
	ASSERT_EQ(t, srat.nmem, 3);
	EXPECT_TRUE(t, srat.mem[2].hotplug);
	EXPECT_TRUE(t, srat.mem[2].nonvolatile);
	free(s);
}

static void srat_enabled_zero_length_dropped(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	put32(s + SRAT_PAD2 + 28, 1);   /* enabled, but still 0 bytes */
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 0);
	EXPECT_EQ(t, srat.nmem, 3);
	free(s);
}

static void srat_range_past_2_52_rejected(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	put64(s + SRAT_MEM2 + 8, PHYS_ADDR_MAX - 0x1000);
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 1);
	EXPECT_EQ(t, srat.nmem, 2);
	EXPECT_TRUE(t, host_log_has("ACPI: SRAT: memory 0xffffffffff000+0xc0000000 (PXM 2) "
				    "goes past 2^52; ignored"));
	put64(s + SRAT_MEM2 + 8, PHYS_ADDR_MAX);
	put64(s + SRAT_MEM2 + 16, 1);
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 1);
	put64(s + SRAT_MEM2 + 8, 0x1000);
	put64(s + SRAT_MEM2 + 16, ~0ULL);       /* base + length wraps */
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 1);
	EXPECT_EQ(t, srat.nmem, 2);
	free(s);
}

static void srat_entry_length_0_stops_the_walk(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	s[SRAT_MEM1 + 1] = 0;
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 1);
	EXPECT_EQ(t, srat.ncpus, 4);
	EXPECT_EQ(t, srat.nmem, 1);
	EXPECT_TRUE(t, host_log_has("ACPI: SRAT: entry type 1 at offset 152 has length 0"));
	free(s);
}

static void srat_entry_past_the_end_stops_the_walk(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	s[SRAT_PAD2 + 1] = 41;
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 1);
	EXPECT_EQ(t, srat.nmem, 3);
	EXPECT_TRUE(t, host_log_has("ACPI: SRAT: entry type 1 at offset 272 (length 41) "
				    "runs past"));
	free(s);
}

static void srat_memory_entry_too_short_skipped(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	s[SRAT_CPU0] = 1;       /* a 16-byte entry claiming to be memory (40) */
	EXPECT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 1);
	EXPECT_EQ(t, srat.ncpus, 3);
	EXPECT_EQ(t, srat.nmem, 3);
	free(s);
}

static void srat_truncated_refused(struct ktest *t)
{
	u8 *s = copy_of(fixture_story_srat, sizeof(fixture_story_srat), 100);

	host_log_clear();
	EXPECT_EQ(t, acpi_parse_srat(s, 100, &srat), -1);
	EXPECT_EQ(t, srat.ncpus + srat.nmem, 0);
	EXPECT_TRUE(t, host_log_has("ACPI: SRAT: length 312 but only 100 bytes given"));
	free(s);
}

/* Cut at the end of the first memory entry: a shorter but whole table. */
static void srat_shortened_table_parses_what_it_holds(struct ktest *t)
{
	u8 *s = copy_of(fixture_story_srat, sizeof(fixture_story_srat), SRAT_MEM1);

	set_length(s, SRAT_MEM1);
	EXPECT_EQ(t, acpi_parse_srat(s, SRAT_MEM1, &srat), 0);
	EXPECT_EQ(t, srat.ncpus, 4);
	EXPECT_EQ(t, srat.nmem, 1);
	free(s);
}

/* Domain bits 8-31 of a type 0 entry count from SRAT revision 2 (ACPI 3.0) on. */
static void srat_cpu_domain_high_bytes_by_revision(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);

	s[SRAT_CPU0 + 2] = 0x01;
	s[SRAT_CPU0 + 9] = 0x34;
	s[SRAT_CPU0 + 10] = 0x12;
	put32(s + SRAT_MEM1 + 2, 0x501);
	ASSERT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 0);
	EXPECT_EQ(t, srat.cpus[0].pxm, 0x01);   /* revision 1: 8 bits */
	EXPECT_EQ(t, srat.mem[1].pxm, 0x01);
	s[8] = 3;
	ASSERT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 0);
	EXPECT_EQ(t, srat.cpus[0].pxm, 0x123401);
	EXPECT_EQ(t, srat.mem[1].pxm, 0x501);
	free(s);
}

static void srat_x2apic_affinity(struct ktest *t)
{
	u8 *s = COPY(fixture_story_srat);
	u8 *e = s + SRAT_CPU0;  /* turn CPUs 0 and 1 (32 bytes) into one 24-byte x2APIC
				   entry and an 8-byte entry of an unknown type */

	memset(e, 0, 32);
	e[0] = 2;
	e[1] = 24;
	put32(e + 4, 7);        /* domain */
	put32(e + 8, 0x300);    /* x2APIC id */
	put32(e + 12, 1);       /* enabled */
	e[24] = 0x7f;
	e[25] = 8;
	ASSERT_EQ(t, acpi_parse_srat(s, sizeof(fixture_story_srat), &srat), 0);
	ASSERT_EQ(t, srat.ncpus, 3);
	EXPECT_EQ(t, srat.cpus[0].apic_id, 0x300);
	EXPECT_EQ(t, srat.cpus[0].pxm, 7);
	EXPECT_TRUE(t, srat.cpus[0].x2apic);
	EXPECT_EQ(t, srat.cpus[1].apic_id, 2);
	free(s);
}

/* --- SLIT ------------------------------------------------------------------------ */

static void slit_story_with_distances(struct ktest *t)
{
	static const u8 want[3][3] = { { 10, 20, 30 }, { 20, 10, 25 }, { 30, 25, 10 } };

	ASSERT_EQ(t, acpi_parse_slit(fixture_story_slit, sizeof(fixture_story_slit), &slit), 0);
	ASSERT_EQ(t, slit.n, 3);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			EXPECT_EQ(t, slit.dist[i][j], want[i][j]);
}

static void slit_n_too_big_for_the_table(struct ktest *t)
{
	u8 *s = COPY(fixture_story_slit);

	put64(s + 36, 4);
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_slit(s, sizeof(fixture_story_slit), &slit), -1);
	EXPECT_EQ(t, slit.n, 0);
	EXPECT_TRUE(t, host_log_has("ACPI: SLIT: 4 localities need 16 bytes; the table has 9"));
	put64(s + 36, 1ULL << 32);      /* n * n would overflow 64 bits */
	EXPECT_EQ(t, acpi_parse_slit(s, sizeof(fixture_story_slit), &slit), -1);
	put64(s + 36, 0);
	EXPECT_EQ(t, acpi_parse_slit(s, sizeof(fixture_story_slit), &slit), -1);
	free(s);
}

static void slit_bad_distances_refused(struct ktest *t)
{
	u8 *s = COPY(fixture_story_slit);

	s[44 + 4] = 20;         /* [1][1]: local must be 10 */
	EXPECT_EQ(t, acpi_parse_slit(s, sizeof(fixture_story_slit), &slit), -1);
	s[44 + 4] = 10;
	s[44 + 1] = 10;         /* [0][1]: remote must be more than 10 */
	EXPECT_EQ(t, acpi_parse_slit(s, sizeof(fixture_story_slit), &slit), -1);
	free(s);
}

/* --- MCFG, HPET ------------------------------------------------------------------ */

static void mcfg_q35(struct ktest *t)
{
	ASSERT_EQ(t, acpi_parse_mcfg(fixture_q35_mcfg, sizeof(fixture_q35_mcfg), &mcfg), 0);
	ASSERT_EQ(t, mcfg.n, 1);
	EXPECT_EQ(t, mcfg.e[0].base, 0xb0000000);
	EXPECT_EQ(t, mcfg.e[0].segment, 0);
	EXPECT_EQ(t, mcfg.e[0].bus_start, 0);
	EXPECT_EQ(t, mcfg.e[0].bus_end, 255);
}

static void mcfg_partial_entry_ignored(struct ktest *t)
{
	u8 *m = copy_of(fixture_q35_mcfg, sizeof(fixture_q35_mcfg), 59);

	set_length(m, 59);
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_mcfg(m, 59, &mcfg), 1);
	EXPECT_EQ(t, mcfg.n, 0);
	EXPECT_TRUE(t, host_log_has("ACPI: MCFG: 15 bytes after the last whole entry ignored"));
	free(m);
}

static void mcfg_bad_window_ignored(struct ktest *t)
{
	u8 *m = COPY(fixture_q35_mcfg);

	m[44 + 10] = 5;
	m[44 + 11] = 4;         /* last bus before the first */
	EXPECT_EQ(t, acpi_parse_mcfg(m, sizeof(fixture_q35_mcfg), &mcfg), 1);
	EXPECT_EQ(t, mcfg.n, 0);
	free(m);
}

static void hpet_seabios_and_ovmf(struct ktest *t)
{
	ASSERT_EQ(t, acpi_parse_hpet(fixture_story_hpet, sizeof(fixture_story_hpet), &hpet), 0);
	EXPECT_EQ(t, hpet.address, 0xfed00000);
	EXPECT_EQ(t, hpet.number, 0);
	EXPECT_EQ(t, hpet.min_tick, 0);
	ASSERT_EQ(t, acpi_parse_hpet(fixture_q35_hpet, sizeof(fixture_q35_hpet), &hpet), 0);
	EXPECT_EQ(t, hpet.address, 0xfed00000);
}

static void hpet_in_io_space_refused(struct ktest *t)
{
	u8 *h = COPY(fixture_story_hpet);

	h[40] = ACPI_GAS_IO;
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_hpet(h, sizeof(fixture_story_hpet), &hpet), -1);
	EXPECT_TRUE(t, host_log_has("ACPI: HPET: base 0xfed00000 in address space 1 is unusable"));
	free(h);
}

/* --- FADT ------------------------------------------------------------------------ */

static void fadt_seabios_is_acpi_1_0_sized(struct ktest *t)
{
	ASSERT_EQ(t, sizeof(fixture_story_facp), 116);
	ASSERT_EQ(t, acpi_parse_fadt(fixture_story_facp, sizeof(fixture_story_facp), &fadt), 0);
	EXPECT_EQ(t, fadt.sci_irq, 9);
	EXPECT_EQ(t, fadt.smi_cmd, 0xb2);
	EXPECT_EQ(t, fadt.acpi_enable, 0xf1);
	EXPECT_EQ(t, fadt.pm1a_cnt, 0x604);
	EXPECT_EQ(t, fadt.pm_timer.space_id, ACPI_GAS_IO);
	EXPECT_EQ(t, fadt.pm_timer.bit_width, 32);
	EXPECT_EQ(t, fadt.pm_timer.address, 0x608);
	EXPECT_FALSE(t, fadt.pm_timer_32bit);
	EXPECT_FALSE(t, fadt.reset_supported);  /* no RESET_REG in a 1.0 FADT */
	EXPECT_EQ(t, fadt.reset_reg.address, 0);
	EXPECT_EQ(t, fadt.dsdt, 0xbffe0040);
}

static void fadt_ovmf_q35_has_reset_and_x_fields(struct ktest *t)
{
	ASSERT_EQ(t, acpi_parse_fadt(fixture_q35_facp, sizeof(fixture_q35_facp), &fadt), 0);
	EXPECT_EQ(t, fadt.sci_irq, 9);
	EXPECT_EQ(t, fadt.acpi_enable, 2);
	EXPECT_EQ(t, fadt.pm1a_cnt, 0x604);
	EXPECT_EQ(t, fadt.pm_timer.space_id, ACPI_GAS_IO);      /* from X_PM_TMR_BLK */
	EXPECT_EQ(t, fadt.pm_timer.bit_width, 32);
	EXPECT_EQ(t, fadt.pm_timer.address, 0x608);
	EXPECT_FALSE(t, fadt.pm_timer_32bit);
	EXPECT_TRUE(t, fadt.reset_supported);
	EXPECT_EQ(t, fadt.reset_reg.space_id, ACPI_GAS_IO);
	EXPECT_EQ(t, fadt.reset_reg.address, 0xcf9);
	EXPECT_EQ(t, fadt.reset_value, 0xf);
	EXPECT_EQ(t, fadt.dsdt, 0x7f779000);
}

static void fadt_prefers_x_pm_tmr_blk(struct ktest *t)
{
	u8 *f = COPY(fixture_q35_facp);

	f[208] = ACPI_GAS_MEMORY;
	put64(f + 212, 0xfe000008);
	ASSERT_EQ(t, acpi_parse_fadt(f, sizeof(fixture_q35_facp), &fadt), 0);
	EXPECT_EQ(t, fadt.pm_timer.space_id, ACPI_GAS_MEMORY);
	EXPECT_EQ(t, fadt.pm_timer.address, 0xfe000008);
	memset(f + 208, 0, 12);         /* no X_PM_TMR_BLK: the 32-bit port */
	put32(f + 76, 0xb008);
	ASSERT_EQ(t, acpi_parse_fadt(f, sizeof(fixture_q35_facp), &fadt), 0);
	EXPECT_EQ(t, fadt.pm_timer.space_id, ACPI_GAS_IO);
	EXPECT_EQ(t, fadt.pm_timer.bit_width, 32);
	EXPECT_EQ(t, fadt.pm_timer.address, 0xb008);
	free(f);
}

/* The OVMF FADT cut to 116 bytes: an ACPI 1.0 table; nothing past Flags is read. */
static void fadt_cut_to_1_0_size(struct ktest *t)
{
	u8 *f = copy_of(fixture_q35_facp, sizeof(fixture_q35_facp), 116);

	put32(f + 76, 0xb008);  /* differs from X_PM_TMR_BLK, which is gone */
	set_length(f, 116);
	ASSERT_EQ(t, acpi_parse_fadt(f, 116, &fadt), 0);
	EXPECT_EQ(t, fadt.pm_timer.address, 0xb008);
	EXPECT_FALSE(t, fadt.reset_supported);
	EXPECT_EQ(t, fadt.dsdt, 0x7f779000);    /* the 32-bit DSDT field */
	free(f);
}

static void fadt_shorter_than_1_0_refused(struct ktest *t)
{
	u8 *f = copy_of(fixture_story_facp, sizeof(fixture_story_facp), 112);

	set_length(f, 112);
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_fadt(f, 112, &fadt), -1);
	EXPECT_TRUE(t, host_log_has("ACPI: FADT: length 112 is less than the 116 bytes"));
	free(f);
}

/* --- any bytes at all ---------------------------------------------------------- */

typedef int (*parser_fn)(const void *t, size_t len);

static int parse_madt(const void *t, size_t len)
{
	return acpi_parse_madt(t, len, &madt);
}

static int parse_srat(const void *t, size_t len)
{
	return acpi_parse_srat(t, len, &srat);
}

static int parse_slit(const void *t, size_t len)
{
	return acpi_parse_slit(t, len, &slit);
}

static int parse_mcfg(const void *t, size_t len)
{
	return acpi_parse_mcfg(t, len, &mcfg);
}

static int parse_hpet(const void *t, size_t len)
{
	return acpi_parse_hpet(t, len, &hpet);
}

static int parse_fadt(const void *t, size_t len)
{
	return acpi_parse_fadt(t, len, &fadt);
}

static const struct {
	parser_fn parse;
	const u8 *bytes;
	u32 len;
} targets[] = {
	{ parse_madt, fixture_story_apic, sizeof(fixture_story_apic) },
	{ parse_srat, fixture_story_srat, sizeof(fixture_story_srat) },
	{ parse_srat, fixture_q35_srat, sizeof(fixture_q35_srat) },
	{ parse_slit, fixture_story_slit, sizeof(fixture_story_slit) },
	{ parse_mcfg, fixture_q35_mcfg, sizeof(fixture_q35_mcfg) },
	{ parse_hpet, fixture_q35_hpet, sizeof(fixture_q35_hpet) },
	{ parse_fadt, fixture_q35_facp, sizeof(fixture_q35_facp) },
};

/*
 * Every table cut to every length (its length field saying so too), and
 * random bytes changed in whole tables: the parsers must neither read
 * outside the buffer (ASan) nor loop. Runs in a child with stdout closed:
 * thousands of warnings are expected and not worth reading.
 */
static void torture(void)
{
	u64 seed = 0x2005102714;

	if (!freopen("/dev/null", "w", stdout))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		for (u32 len = 0; len <= targets[i].len; len++) {
			u8 *p = copy_of(targets[i].bytes, targets[i].len, len);

			if (len >= 8)
				put32(p + 4, len);
			targets[i].parse(p, len);
			free(p);
		}
		for (int round = 0; round < 2000; round++) {
			u8 *p = copy_of(targets[i].bytes, targets[i].len, targets[i].len);

			for (int k = 0; k < 4; k++) {
				seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
				p[(seed >> 33) % targets[i].len] = (u8)(seed >> 13);
			}
			targets[i].parse(p, targets[i].len);
			free(p);
		}
	}
}

static void any_bytes_parse_safely(struct ktest *t)
{
	EXPECT_EQ(t, host_run_in_child(torture), 0);
}

/* A DSDT of 36 header bytes, then body. */
static size_t dsdt(u8 *out, const u8 *body, size_t n)
{
	memset(out, 0, 36);
	memcpy(out, "DSDT", 4);
	memcpy(out + 36, body, n);
	return 36 + n;
}

static void s5_sleep_type_from_the_dsdt(struct ktest *t)
{
	static const u8 qemu[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a, 0x05,
				   0x00, 0x00, 0x00 };          /* Name(_S5, Package(4) {5, 0, 0, 0}) */
	static const u8 zero[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x05, 0x04, 0x00, 0x00,
				   0x00, 0x00 };
	static const u8 long_pkglength[] = { '_', 'S', '5', '_', 0x12, 0x40, 0x00, 0x04, 0x0a,
					     0x07, 0, 0, 0 };   /* PkgLength in two bytes */
	static const u8 none[] = { '_', 'S', '4', '_', 0x12, 0x06, 0x04, 0x0a, 0x05, 0, 0, 0 };
	static const u8 cut[] = { 0, 0, 0, 0, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a };
	u8 buf[128];

	EXPECT_EQ(t, acpi_dsdt_s5_type(buf, dsdt(buf, qemu, sizeof(qemu))), 5);
	EXPECT_EQ(t, acpi_dsdt_s5_type(buf, dsdt(buf, zero, sizeof(zero))), 0);
	EXPECT_EQ(t, acpi_dsdt_s5_type(buf, dsdt(buf, long_pkglength, sizeof(long_pkglength))), 7);
	EXPECT_EQ(t, acpi_dsdt_s5_type(buf, dsdt(buf, none, sizeof(none))), -1);
	EXPECT_EQ(t, acpi_dsdt_s5_type(buf, dsdt(buf, cut, sizeof(cut))), -1);     /* ends in the package */
	EXPECT_EQ(t, acpi_dsdt_s5_type(buf, 20), -1);                               /* shorter than a header */
}

/* --- big servers, limits, checksums, the root table ----------------------------------- */

static struct numa_layout layout;
static struct memmap ram;

/* 1 GiB of usable RAM per node of fixture_big_server(). */
static void big_server_ram(u32 nodes)
{
	memset(&ram, 0, sizeof(ram));
	for (u32 n = 0; n < nodes; n++)
		ram.e[ram.n++] = (struct memmap_entry){ BIG_MEM_BASE + n * BIG_NODE_MEM,
							BIG_MEM_BASE + (n + 1) * BIG_NODE_MEM,
							E820_USABLE };
}

/*
 * 512 x2APIC CPUs (MADT type 9, IDs 256-1278) on 8 nodes (SRAT type 2 and
 * one memory range per node), the boot CPU listed last: the kernel's own
 * path (parse, then numa_build() with the boot CPU's APIC ID) gives 512
 * CPUs on 8 nodes, the boot CPU as CPU 0 on its own node.
 */
static void big_server_512_x2apic_cpus_on_8_nodes_boot_cpu_last(struct ktest *t)
{
	u8 *m, *r;
	u32 mlen, rlen, bsp = 300;              /* on node 300 / 64 = 4 */

	fixture_big_server(512, 8, bsp, &m, &mlen, &r, &rlen);
	host_log_clear();
	ASSERT_EQ(t, acpi_parse_madt(m, mlen, &madt), 0);
	ASSERT_EQ(t, acpi_parse_srat(r, rlen, &srat), 0);
	EXPECT_EQ(t, madt.ncpus, 512);
	EXPECT_EQ(t, madt.cpus[511].apic_id, BIG_APIC_ID(bsp));
	EXPECT_EQ(t, srat.ncpus, 512);
	EXPECT_EQ(t, srat.nmem, 8);
	EXPECT_EQ(t, madt.nioapics, 1);

	big_server_ram(8);
	numa_build(&layout, &madt, &srat, NULL, &ram, NULL, BIG_APIC_ID(bsp));
	ASSERT_EQ(t, layout.ncpus, 512);
	EXPECT_EQ(t, layout.nr_nodes, 8);
	EXPECT_EQ(t, layout.cpu_apic_id[0], BIG_APIC_ID(bsp));
	EXPECT_EQ(t, layout.cpu_node[0], 4);
	EXPECT_EQ(t, layout.cpu_apic_id[1], BIG_APIC_ID(0));   /* then table order */
	EXPECT_EQ(t, layout.cpu_apic_id[511], BIG_APIC_ID(511));
	for (u32 n = 0; n < 8; n++) {
		EXPECT_EQ(t, cpumask_weight(&layout.nodes[n].cpus), 64);
		EXPECT_EQ(t, layout.nodes[n].ram_bytes, BIG_NODE_MEM);
	}
	/* Every APIC ID once: the boot CPU is not started again, nobody is left out. */
	for (u32 cpu = 1; cpu < layout.ncpus; cpu++)
		EXPECT_NE(t, layout.cpu_apic_id[cpu], BIG_APIC_ID(bsp));
	EXPECT_TRUE(t, host_log_has("numa: the boot CPU (APIC ID 856) is enabled MADT CPU 511; "
				    "it is CPU 0"));
	free(m);
	free(r);
}

/* A boot CPU the MADT does not list at all (or no MADT): CPU 0 all the same. */
static void boot_cpu_missing_from_the_madt_is_cpu_0(struct ktest *t)
{
	u8 *m, *r;
	u32 mlen, rlen;

	fixture_big_server(16, 2, 3, &m, &mlen, &r, &rlen);
	ASSERT_EQ(t, acpi_parse_madt(m, mlen, &madt), 0);
	big_server_ram(2);
	host_log_clear();
	numa_build(&layout, &madt, NULL, NULL, &ram, "test", 7);
	EXPECT_EQ(t, layout.ncpus, 17);
	EXPECT_EQ(t, layout.cpu_apic_id[0], 7);
	EXPECT_TRUE(t, host_log_has("the boot CPU (APIC ID 7) is no enabled MADT entry"));
	numa_build(&layout, NULL, NULL, NULL, &ram, "test", 9);
	EXPECT_EQ(t, layout.ncpus, 1);
	EXPECT_EQ(t, layout.cpu_apic_id[0], 9);
	free(m);
	free(r);
}

/*
 * More enabled CPUs than MAX_CPUS, with the boot CPU among the last: it is
 * still CPU 0 (the parser keeps enabled CPUs, numa_build() the boot CPU).
 */
static void boot_cpu_past_max_cpus_is_still_cpu_0(struct ktest *t)
{
	struct synth s;
	u32 len;
	u8 *m;

	synth_begin(&s, "APIC", 5, 44);
	for (u32 i = 0; i < MAX_CPUS + 5; i++)
		synth_madt_x2apic(&s, i, i, 1);
	m = synth_end(&s, &len);
	host_log_clear();
	ASSERT_EQ(t, acpi_parse_madt(m, len, &madt), 0);
	EXPECT_EQ(t, madt.ncpus_dropped, 5);
	EXPECT_EQ(t, madt.ncpus_dropped_enabled, 5);
	EXPECT_TRUE(t, host_log_has("5 of them enabled; the rest is used"));
	big_server_ram(1);
	numa_build(&layout, &madt, NULL, NULL, &ram, "test", MAX_CPUS - 1);
	EXPECT_EQ(t, layout.ncpus, MAX_CPUS);
	EXPECT_EQ(t, layout.cpu_apic_id[0], MAX_CPUS - 1);
	EXPECT_EQ(t, layout.cpu_apic_id[1], 0);
	free(m);
}

/* MAX_IOAPICS + 3 I/O APICs and MAX_IRQ_OVERRIDES + 2 overrides: counted, the rest kept. */
static void madt_over_the_limits_is_counted_and_kept(struct ktest *t)
{
	struct synth s;
	char line[128];
	u32 len;
	u8 *m;

	synth_begin(&s, "APIC", 5, 44);
	synth_madt_lapic(&s, 0, 0, 1);
	synth_madt_lapic(&s, 1, 1, 1);
	for (u32 i = 0; i < MAX_IOAPICS + 3; i++)
		synth_madt_ioapic(&s, (u8)i, 0xfec00000 + i * 0x1000, i * 24);
	for (u32 i = 0; i < MAX_IRQ_OVERRIDES + 2; i++)
		synth_madt_override(&s, (u8)i, i + 100, 0);
	synth_madt_lapic(&s, 2, 2, 1);          /* after the overflow: still found */
	m = synth_end(&s, &len);
	host_log_clear();
	ASSERT_EQ(t, acpi_parse_madt(m, len, &madt), 0);
	EXPECT_EQ(t, madt.ncpus, 3);
	EXPECT_EQ(t, madt.nioapics, MAX_IOAPICS);
	EXPECT_EQ(t, madt.nioapics_dropped, 3);
	EXPECT_EQ(t, madt.ioapics[MAX_IOAPICS - 1].gsi_base, (MAX_IOAPICS - 1) * 24);
	EXPECT_EQ(t, madt.noverrides, MAX_IRQ_OVERRIDES);
	EXPECT_EQ(t, madt.noverrides_dropped, 2);
	snprintf(line, sizeof(line), "ACPI: MADT: 3 of %d I/O APIC entries dropped (MAX_IOAPICS %d)",
		 MAX_IOAPICS + 3, MAX_IOAPICS);
	EXPECT_TRUE(t, host_log_has(line));
	snprintf(line, sizeof(line), "ACPI: MADT: 2 of %d interrupt overrides dropped "
		 "(MAX_IRQ_OVERRIDES %d)", MAX_IRQ_OVERRIDES + 2, MAX_IRQ_OVERRIDES);
	EXPECT_TRUE(t, host_log_has(line));
	free(m);
}

static void srat_over_the_limits_is_counted_and_kept(struct ktest *t)
{
	struct synth s;
	char line[128];
	u32 len;
	u8 *r;

	synth_begin(&s, "SRAT", 3, 48);
	for (u32 i = 0; i < MAX_CPUS + 2; i++)
		synth_srat_x2apic(&s, i, i % 2);
	for (u32 i = 0; i < MAX_MEM_AFFINITY + 1; i++)
		synth_srat_mem(&s, (u64)i << 30, 1ULL << 30, i % 2);
	r = synth_end(&s, &len);
	host_log_clear();
	ASSERT_EQ(t, acpi_parse_srat(r, len, &srat), 0);
	EXPECT_EQ(t, srat.ncpus, MAX_CPUS);
	EXPECT_EQ(t, srat.ncpus_dropped, 2);
	EXPECT_EQ(t, srat.nmem, MAX_MEM_AFFINITY);
	EXPECT_EQ(t, srat.nmem_dropped, 1);
	snprintf(line, sizeof(line), "ACPI: SRAT: 1 of %d memory ranges dropped (MAX_MEM_AFFINITY %d)",
		 MAX_MEM_AFFINITY + 1, MAX_MEM_AFFINITY);
	EXPECT_TRUE(t, host_log_has(line));
	free(r);
}

/* A bad checksum: Linux's warning, and the table used; strict refuses it. */
static void bad_checksum_warns_and_is_used_unless_strict(struct ktest *t)
{
	u8 *m = COPY(fixture_story_apic);

	m[9] ^= 0x10;                           /* 0x?? instead of the right byte */
	host_log_clear();
	EXPECT_TRUE(t, acpi_table_checksum_accepted(m, sizeof(fixture_story_apic),
						    ACPI_CHECKSUM_WARN));
	char line[96];
	snprintf(line, sizeof(line), "ACPI: Incorrect checksum in table [APIC] - 0x%02X, "
		 "should be 0x%02X; used anyway", m[9], fixture_story_apic[9]);
	EXPECT_TRUE(t, host_log_has(line));
	ASSERT_EQ(t, acpi_parse_madt(m, sizeof(fixture_story_apic), &madt), 0);
	EXPECT_EQ(t, madt.ncpus, 4);

	host_log_clear();
	EXPECT_FALSE(t, acpi_table_checksum_accepted(m, sizeof(fixture_story_apic),
						     ACPI_CHECKSUM_STRICT));
	EXPECT_TRUE(t, host_log_has("refused (acpi.checksum=strict)"));
	EXPECT_TRUE(t, acpi_table_checksum_accepted(fixture_story_apic, sizeof(fixture_story_apic),
						    ACPI_CHECKSUM_STRICT));
	free(m);
}

/* "Physical memory" for acpi_choose_root(): a few tables at made-up addresses. */
struct phys_table {
	u64 pa;
	const u8 *bytes;
	u32 len;
};
static struct phys_table phys[4];

static const void *map_phys(void *ctx, u64 pa, u32 len)
{
	(void)ctx;
	for (u32 i = 0; i < ARRAY_SIZE(phys); i++)
		if (phys[i].bytes && phys[i].pa == pa && len <= phys[i].len)
			return phys[i].bytes;
	return NULL;
}

#define Q35_RSDT_PA     0x7f77c074ULL   /* what fixture_q35_rsdp says */

/* OVMF's RSDP, its XSDT (damaged as told) at the XSDT address, an RSDT of 3 entries. */
static u8 *root_setup(u8 **rsdt_out)
{
	u8 *xsdt = COPY(fixture_q35_xsdt);
	struct synth s;
	u32 len;

	synth_begin(&s, "RSDT", 1, 36);
	for (u32 i = 0; i < 3; i++)
		synth_put(&s, synth_add(&s, NULL, 4), 0x7f770000 + i * 0x100, 4);
	*rsdt_out = synth_end(&s, &len);
	memset(phys, 0, sizeof(phys));
	phys[0] = (struct phys_table){ rd64(fixture_q35_rsdp + 24), xsdt, sizeof(fixture_q35_xsdt) };
	phys[1] = (struct phys_table){ Q35_RSDT_PA, *rsdt_out, len };
	return xsdt;
}

static void root_good_xsdt_is_used(struct ktest *t)
{
	struct acpi_root root;
	u8 *rsdt, *xsdt = root_setup(&rsdt);

	ASSERT_EQ(t, acpi_choose_root(fixture_q35_rsdp, 36, map_phys, NULL, ACPI_CHECKSUM_STRICT,
				      &root), 0);
	EXPECT_TRUE(t, root.is_xsdt);
	EXPECT_EQ(t, root.pa, rd64(fixture_q35_rsdp + 24));
	EXPECT_EQ(t, root.len, sizeof(fixture_q35_xsdt));
	free(xsdt);
	free(rsdt);
}

/* Each way an XSDT can be bad; the RSDT is used instead, with a warning saying why. */
static void root_bad_xsdt_falls_back_to_the_rsdt(struct ktest *t)
{
	static const struct {
		const char *why;
		u32 off, size;
		u64 value;
	} damage[] = {
		{ "has another signature", 0, 4, 0x54445352 /* "RSDT" */ },
		{ "has an impossible length", 4, 4, 20 },
		{ "has an impossible length", 4, 4, ACPI_TABLE_MAX + 1 },
		{ "cannot be read whole", 4, 4, 4096 },     /* longer than the memory there */
		{ "has a bad checksum", 9, 1, 0 },          /* strict only: see below */
	};
	struct acpi_root root;

	for (u32 i = 0; i < ARRAY_SIZE(damage); i++) {
		u8 *rsdt, *xsdt = root_setup(&rsdt);

		memcpy(xsdt + damage[i].off, &damage[i].value, damage[i].size);
		if (damage[i].off != 9)
			fix_checksum(xsdt, sizeof(fixture_q35_xsdt));
		host_log_clear();
		ASSERT_EQ(t, acpi_choose_root(fixture_q35_rsdp, 36, map_phys, NULL,
					      ACPI_CHECKSUM_STRICT, &root), 0);
		EXPECT_FALSE(t, root.is_xsdt);
		EXPECT_EQ(t, root.pa, Q35_RSDT_PA);
		EXPECT_EQ(t, acpi_root_entries(root.table, root.len, false, NULL, 0), 3);
		EXPECT_TRUE(t, host_log_has(damage[i].why));
		EXPECT_TRUE(t, host_log_has("falling back to the RSDT at 0x7f77c074"));
		free(xsdt);
		free(rsdt);
	}
}

/* Not mapped at all; and a bad XSDT checksum under the default policy: used, warned. */
static void root_unreadable_xsdt_and_warned_checksum(struct ktest *t)
{
	struct acpi_root root;
	u8 *rsdt, *xsdt = root_setup(&rsdt);

	phys[0].bytes = NULL;
	host_log_clear();
	ASSERT_EQ(t, acpi_choose_root(fixture_q35_rsdp, 36, map_phys, NULL, ACPI_CHECKSUM_WARN,
				      &root), 0);
	EXPECT_FALSE(t, root.is_xsdt);
	EXPECT_TRUE(t, host_log_has("cannot be read; falling back to the RSDT"));

	phys[0].bytes = xsdt;
	xsdt[9] ^= 1;
	ASSERT_EQ(t, acpi_choose_root(fixture_q35_rsdp, 36, map_phys, NULL, ACPI_CHECKSUM_WARN,
				      &root), 0);
	EXPECT_TRUE(t, root.is_xsdt);
	EXPECT_TRUE(t, host_log_has("Incorrect checksum in table [XSDT]"));

	phys[1].bytes = NULL;                   /* and neither usable */
	host_log_clear();
	EXPECT_EQ(t, acpi_choose_root(fixture_q35_rsdp, 36, map_phys, NULL, ACPI_CHECKSUM_STRICT,
				      &root), -1);
	EXPECT_TRUE(t, host_log_has("RSDT at 0x7f77c074 cannot be read; no ACPI tables"));
	free(xsdt);
	free(rsdt);
}

static struct dmar_info dmar;
static struct ivrs_info ivrs;

static void dmar_units_flags_and_width(struct ktest *t)
{
	struct synth s;
	u32 len;
	u8 *d;

	synth_begin(&s, "DMAR", 1, 48);
	synth_put(&s, 36, 45, 1);               /* 46-bit DMA addresses */
	synth_put(&s, 37, DMAR_INTR_REMAP | DMAR_X2APIC_OPT_OUT, 1);
	synth_dmar_drhd(&s, 0xfbffc000, 0, false);
	synth_dmar_rmrr(&s, 0x70000000, 0x70344fff);
	synth_dmar_drhd(&s, 0xc7ffc000, 0, true);
	d = synth_end(&s, &len);
	ASSERT_EQ(t, acpi_parse_dmar(d, len, &dmar), 0);
	EXPECT_EQ(t, dmar.host_address_width, 45);
	EXPECT_EQ(t, dmar.flags, DMAR_INTR_REMAP | DMAR_X2APIC_OPT_OUT);
	ASSERT_EQ(t, dmar.ndrhd, 2);
	EXPECT_EQ(t, dmar.drhd[0].base, 0xfbffc000);
	EXPECT_FALSE(t, dmar.drhd[0].include_all);
	EXPECT_EQ(t, dmar.drhd[1].base, 0xc7ffc000);
	EXPECT_TRUE(t, dmar.drhd[1].include_all);
	EXPECT_EQ(t, dmar.nrmrr, 1);

	/* A structure of length 2 ends the walk; what came before is kept. */
	put16(d + 48 + 16 + 2, 2);
	fix_checksum(d, len);
	host_log_clear();
	EXPECT_EQ(t, acpi_parse_dmar(d, len, &dmar), 1);
	EXPECT_EQ(t, dmar.ndrhd, 1);
	EXPECT_TRUE(t, host_log_has("ACPI: DMAR: structure at offset 64 has length 2"));
	free(d);
}

/* One IOMMU listed as IVHD types 0x10 and 0x11 (as firmware does) is one IOMMU. */
static void ivrs_counts_iommus_not_ivhd_blocks(struct ktest *t)
{
	struct synth s;
	u32 len;
	u8 *v;

	synth_begin(&s, "IVRS", 2, 48);
	synth_put(&s, 36, 0x00203041, 4);
	synth_ivrs_ivhd(&s, 0x10, 0xfd200000);
	synth_ivrs_ivhd(&s, 0x11, 0xfd200000);
	synth_ivrs_ivhd(&s, 0x10, 0xfd300000);
	synth_ivrs_ivhd(&s, 0x11, 0xfd300000);
	synth_add(&s, (const u8[]){ 0x20, 0, 32, 0 }, 4);      /* an IVMD block ... */
	synth_add(&s, NULL, 28);                                /* ... of 32 bytes: skipped */
	v = synth_end(&s, &len);
	ASSERT_EQ(t, acpi_parse_ivrs(v, len, &ivrs), 0);
	EXPECT_EQ(t, ivrs.nivhd, 4);
	EXPECT_EQ(t, ivrs.niommus, 2);
	EXPECT_EQ(t, ivrs.iommu_base[1], 0xfd300000);
	EXPECT_EQ(t, ivrs.ivinfo, 0x00203041);
	free(v);
}

/*
 * Past MAX_IVHD, an IOMMU listed twice (0x11 and 0x40, as firmware does)
 * is still one IOMMU dropped, not two (found by the ivrs fuzz oracle).
 */
static void ivrs_dropped_iommus_counted_once(struct ktest *t)
{
	struct synth s;
	u32 len;
	u8 *v;

	synth_begin(&s, "IVRS", 2, 48);
	for (u64 i = 0; i < MAX_IVHD + 2; i++) {
		synth_ivrs_ivhd(&s, 0x11, 0xfd000000 + i * 0x80000);
		synth_ivrs_ivhd(&s, 0x40, 0xfd000000 + i * 0x80000);
	}
	v = synth_end(&s, &len);
	ASSERT_EQ(t, acpi_parse_ivrs(v, len, &ivrs), 0);
	EXPECT_EQ(t, ivrs.nivhd, 2 * (MAX_IVHD + 2));
	EXPECT_EQ(t, ivrs.niommus, MAX_IVHD);
	EXPECT_EQ(t, ivrs.niommus_dropped, 2);
	free(v);
}

/* The one fact line, for each thing the registers can say. */
static void iommu_fact_lines(struct ktest *t)
{
	char line[160];

	iommu_describe(&(struct iommu_facts){ IOMMU_DMAR, 2, 0, 0 }, line, sizeof(line));
	EXPECT_STREQ(t, line, "DMAR with 2 DRHD units, translation off (firmware left DMA untranslated)");
	iommu_describe(&(struct iommu_facts){ IOMMU_DMAR, 2, 1, 0 }, line, sizeof(line));
	EXPECT_STREQ(t, line, "DMAR with 2 DRHD units, translation on in 1 (DMA addresses may not "
		     "be physical: see docs/dma.md)");
	iommu_describe(&(struct iommu_facts){ IOMMU_IVRS, 1, 0, 1 }, line, sizeof(line));
	EXPECT_STREQ(t, line, "IVRS with 1 IOMMU, translation off, 1 unreadable (firmware left DMA "
		     "untranslated)");
	iommu_describe(&(struct iommu_facts){ IOMMU_NONE, 0, 0, 0 }, line, sizeof(line));
	EXPECT_STREQ(t, line, "none described (no DMAR or IVRS): DMA addresses are physical addresses");
}

static struct spcr_info spcr;

/* An SPCR of revision 2: interface type, the GAS of the UART, the baud rate code. */
static u8 *spcr_table(u8 type, u8 space, u8 bit_width, u8 access, u64 address, u8 baud, u32 *len)
{
	struct synth s;

	synth_begin(&s, "SPCR", 2, 80);
	synth_put(&s, 36, type, 1);
	synth_put(&s, 40, space, 1);
	synth_put(&s, 41, bit_width, 1);
	synth_put(&s, 43, access, 1);
	synth_put(&s, 44, address, 8);
	synth_put(&s, 58, baud, 1);
	return synth_end(&s, len);
}

static void spcr_com2_and_mmio_uarts(struct ktest *t)
{
	u32 len;
	u8 *p = spcr_table(0x00, 1, 8, 1, 0x2f8, 7, &len);      /* COM2, 115200 */

	ASSERT_EQ(t, acpi_parse_spcr(p, len, &spcr), 0);
	EXPECT_TRUE(t, spcr.usable);
	EXPECT_FALSE(t, spcr.mmio);
	EXPECT_EQ(t, spcr.address, 0x2f8);
	EXPECT_EQ(t, spcr.reg_stride, 1);
	EXPECT_EQ(t, spcr.baud, 115200);
	free(p);

	p = spcr_table(0x12, 0, 32, 3, 0xfe030000, 0, &len);    /* MMIO, dword registers */
	ASSERT_EQ(t, acpi_parse_spcr(p, len, &spcr), 0);
	EXPECT_TRUE(t, spcr.usable);
	EXPECT_TRUE(t, spcr.mmio);
	EXPECT_EQ(t, spcr.reg_stride, 4);
	EXPECT_EQ(t, spcr.access_bytes, 4);
	EXPECT_EQ(t, spcr.baud, 0);                             /* keep firmware's rate */
	free(p);

	p = spcr_table(0x00, 0, 32, 0, 0xfe030000, 6, &len);    /* legacy access size: the width */
	ASSERT_EQ(t, acpi_parse_spcr(p, len, &spcr), 0);
	EXPECT_EQ(t, spcr.reg_stride, 4);
	EXPECT_EQ(t, spcr.baud, 57600);
	free(p);
}

static void spcr_not_a_16550_or_nowhere_is_unusable(struct ktest *t)
{
	u32 len;
	u8 *p = spcr_table(0x03, 0, 32, 3, 0x9000000, 7, &len); /* ARM PL011 */

	host_log_clear();
	ASSERT_EQ(t, acpi_parse_spcr(p, len, &spcr), 0);
	EXPECT_FALSE(t, spcr.usable);
	EXPECT_TRUE(t, host_log_has("interface type 0x3 is not a 16550"));
	free(p);
	p = spcr_table(0x00, 1, 8, 1, 0, 7, &len);              /* port 0 */
	ASSERT_EQ(t, acpi_parse_spcr(p, len, &spcr), 0);
	EXPECT_FALSE(t, spcr.usable);
	free(p);
	p = spcr_table(0x00, 2, 8, 1, 0x2f8, 7, &len);          /* PCI config space */
	ASSERT_EQ(t, acpi_parse_spcr(p, len, &spcr), 0);
	EXPECT_FALSE(t, spcr.usable);
	free(p);
	EXPECT_EQ(t, acpi_parse_spcr(fixture_story_hpet, sizeof(fixture_story_hpet), &spcr), -1);
}

static const struct ktest_case acpi_cases[] = {
	KTEST(spcr_com2_and_mmio_uarts),
	KTEST(spcr_not_a_16550_or_nowhere_is_unusable),
	KTEST(iommu_fact_lines),
	KTEST(dmar_units_flags_and_width),
	KTEST(ivrs_counts_iommus_not_ivhd_blocks),
	KTEST(ivrs_dropped_iommus_counted_once),
	KTEST(big_server_512_x2apic_cpus_on_8_nodes_boot_cpu_last),
	KTEST(boot_cpu_missing_from_the_madt_is_cpu_0),
	KTEST(boot_cpu_past_max_cpus_is_still_cpu_0),
	KTEST(madt_over_the_limits_is_counted_and_kept),
	KTEST(srat_over_the_limits_is_counted_and_kept),
	KTEST(bad_checksum_warns_and_is_used_unless_strict),
	KTEST(root_good_xsdt_is_used),
	KTEST(root_bad_xsdt_falls_back_to_the_rsdt),
	KTEST(root_unreadable_xsdt_and_warned_checksum),
	KTEST(s5_sleep_type_from_the_dsdt),
	KTEST(fixtures_have_good_checksums),
	KTEST(checksum_catches_one_changed_byte),
	KTEST(rsdp_v0_from_seabios_gives_the_rsdt),
	KTEST(rsdp_v2_from_ovmf_gives_the_xsdt),
	KTEST(rsdp_v2_cut_to_20_bytes_gives_the_rsdt),
	KTEST(rsdp_v0_bad_checksum_refused),
	KTEST(rsdp_v2_bad_extended_checksum_refused),
	KTEST(rsdp_v2_bad_v1_checksum_refused),
	KTEST(rsdp_v2_length_past_buffer_refused),
	KTEST(rsdp_v2_without_xsdt_uses_rsdt),
	KTEST(rsdp_short_or_unsigned_refused),
	KTEST(rsdt_lists_seabios_tables),
	KTEST(xsdt_lists_ovmf_tables),
	KTEST(root_entries_bounded_by_max),
	KTEST(root_wrong_kind_or_truncated_lists_nothing),
	KTEST(root_partial_entry_ignored),
	KTEST(madt_story_seabios),
	KTEST(madt_story_q35_ovmf),
	KTEST(madt_single),
	KTEST(madt_entry_length_0_stops_the_walk),
	KTEST(madt_entry_length_1_stops_the_walk),
	KTEST(madt_entry_past_the_end_stops_the_walk),
	KTEST(madt_entry_too_short_for_its_type_skipped),
	KTEST(madt_truncated_or_short_refused),
	KTEST(madt_wrong_signature_refused),
	KTEST(madt_more_cpus_than_max_bounded),
	KTEST(madt_enabled_cpus_after_disabled_placeholders_are_kept),
	KTEST(madt_x2apic_ids_above_255),
	KTEST(madt_x2apic_nmi_and_address_override),
	KTEST(srat_story_seabios),
	KTEST(srat_story_q35_ovmf),
	KTEST(srat_disabled_cpu_ignored),
	KTEST(srat_flags_hotplug_and_nonvolatile),
	KTEST(srat_enabled_zero_length_dropped),
	KTEST(srat_range_past_2_52_rejected),
	KTEST(srat_entry_length_0_stops_the_walk),
	KTEST(srat_entry_past_the_end_stops_the_walk),
	KTEST(srat_memory_entry_too_short_skipped),
	KTEST(srat_truncated_refused),
	KTEST(srat_shortened_table_parses_what_it_holds),
	KTEST(srat_cpu_domain_high_bytes_by_revision),
	KTEST(srat_x2apic_affinity),
	KTEST(slit_story_with_distances),
	KTEST(slit_n_too_big_for_the_table),
	KTEST(slit_bad_distances_refused),
	KTEST(mcfg_q35),
	KTEST(mcfg_partial_entry_ignored),
	KTEST(mcfg_bad_window_ignored),
	KTEST(hpet_seabios_and_ovmf),
	KTEST(hpet_in_io_space_refused),
	KTEST(fadt_seabios_is_acpi_1_0_sized),
	KTEST(fadt_ovmf_q35_has_reset_and_x_fields),
	KTEST(fadt_prefers_x_pm_tmr_blk),
	KTEST(fadt_cut_to_1_0_size),
	KTEST(fadt_shorter_than_1_0_refused),
	KTEST(any_bytes_parse_safely),
	{},
};
KTEST_SUITE(acpi, acpi_cases);
