// SPDX-License-Identifier: MIT
/*
 * acpi_tables.c - one source for nine fuzz targets: the MADT, SRAT, SLIT,
 * MCFG, HPET, FADT, DMAR, IVRS and SPCR parsers (kernel/acpi_parse.c), each
 * fed whole tables, header included. Built once per table with
 * -DTABLE=<name>.
 *
 * The oracle: the harness walks the bytes itself (byte by byte, little
 * endian, never calling the parser) and says what each reported value must
 * be. For every table:
 *   - usable (the parser returns >= 0) exactly when the header holds: the
 *     signature, a length from the table's minimum to the bytes given
 *     (checksums are not the parsers' business: acpi.h);
 *   - a parser that refuses the table reports nothing (zero counts).
 * Per table, when usable:
 *   MADT  the entries from byte 44 while a whole (type, length >= 2) entry
 *         fits; entries of a known type shorter than its minimum (8, 12,
 *         10, 6, 12, 16, 12 for types 0, 1, 2, 4, 5, 9, 10) are skipped.
 *         CPUs (types 0, 9) reported are a subsequence of the CPU entries,
 *         in table order, fields as their bytes; kept + dropped = all of
 *         them; min(enabled, MAX_CPUS) enabled ones are kept (an enabled
 *         CPU pushes out a disabled one), the rest of the enabled counted
 *         as dropped_enabled. I/O APICs, overrides and NMIs (types 4 and
 *         10 together) are the first MAX_* entries of their kind, exactly,
 *         the rest counted. lapic_address is the last type-5 entry's, else
 *         the header's u32 @36; flags the u32 @40. The problem count is the
 *         short entries, plus one if the walk stopped early.
 *   SRAT  the same walk from byte 48 (minimum lengths 16, 40, 24). CPUs are
 *         the first MAX_CPUS enabled type 0 and 2 entries, exactly (type
 *         0's domain is 8 bits before revision 2, 32 from it); memory is
 *         the first MAX_MEM_AFFINITY enabled, non-empty type 1 entries
 *         lying below 2^52, exactly (domain 8 bits before revision 2).
 *   SLIT  usable exactly when 1 <= N <= MAX_NODES, N*N bytes follow @44,
 *         each diagonal byte is 10 and every other above 10; then the
 *         distances are those bytes.
 *   MCFG  the first MAX_MCFG 16-byte entries from @44 with a base below
 *         2^52 and first bus <= last bus, exactly, fields as their bytes.
 *   HPET  usable exactly when the GAS @40 is memory space at a non-zero
 *         address below 2^52; then address, number @52, min tick @53.
 *   FADT  every field from its offset when the table is long enough for
 *         it: SCI @46, SMI_CMD @48, ACPI_ENABLE @52, PM1a_CNT @64 (or
 *         X_PM1a_CNT @172 when that is 0 and X is an I/O port <= 0xffff),
 *         the PM timer X_PM_TMR_BLK @208 when its address is set, else the
 *         32-bit I/O port @76; flags @112; RESET_REG @116 and its value @128;
 *         DSDT X_DSDT @140 when non-zero, else @40.
 *   DMAR  width @36, flags @37; structures (u16 type, u16 length >= 4)
 *         from @48 while they fit: units are the first MAX_DRHD DRHDs of 16
 *         bytes or more, fields as their bytes, the rest counted; RMRRs
 *         counted.
 *   IVRS  IVinfo @36; blocks as DMAR's from @48: IVHDs (types 0x10, 0x11,
 *         0x40, 24 bytes or more) counted; the IOMMUs are the first
 *         MAX_IVHD distinct base addresses in order of first appearance,
 *         and dropped = the distinct ones past them.
 *   SPCR  interface @36, GAS @40, GSI @54, baud code @58 as their bytes;
 *         usable exactly when the interface is a 16550 (0x00, 0x01, 0x12)
 *         at a non-zero address below 2^52 in memory space or an I/O port
 *         <= 0xfff8.
 */
#include "acpi.h"
#include "fuzz.h"

#define MADT 1
#define SRAT 2
#define SLIT 3
#define MCFG 4
#define HPET 5
#define FADT 6
#define DMAR 7
#define IVRS 8
#define SPCR 9

static u64 le(const u8 *p, unsigned n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* The table's own length if the header holds (signature, min <= length <= size), else 0. */
static inline u32 header_ok(const u8 *t, size_t size, const char *sig, u32 min)
{
	if (size < 36 || memcmp(t, sig, 4))
		return 0;
	u64 tlen = le(t + 4, 4);
	return tlen >= min && tlen <= size ? (u32)tlen : 0;
}

/*
 * An entry list of (u8 type, u8 length) entries, as the oracle walks it:
 * calls fn on each whole entry; returns the problems (short entries, and 1
 * if the walk stopped before the end).
 */
typedef void (*entry_fn)(const u8 *e, u8 elen, void *ctx);
#if TABLE == MADT || TABLE == SRAT
static int walk8(const u8 *t, u32 off, u32 tlen, const u8 min[256], entry_fn fn, void *ctx)
{
	int problems = 0;

	while (off < tlen) {
		if (off + 2 > tlen || t[off + 1] < 2 || off + t[off + 1] > tlen)
			return problems + 1;
		u8 type = t[off], elen = t[off + 1];
		if (min[type] && elen < min[type])
			problems++;
		else if (min[type])
			fn(t + off, elen, ctx);
		off += elen;
	}
	return problems;
}
#endif

#if TABLE == DMAR || TABLE == IVRS
/* The same for (u16 type, u16 length >= 4) structures (DMAR, IVRS). */
static int walk16(const u8 *t, u32 off, u32 tlen, entry_fn fn, void *ctx)
{
	while (off < tlen) {
		if (off + 4 > tlen)
			return 1;
		u32 elen = (u32)le(t + off + 2, 2);
		if (elen < 4 || off + elen > tlen)
			return 1;
		fn(t + off, (u8)(elen > 255 ? 255 : elen), ctx);
		off += elen;
	}
	return 0;
}
#endif

#if TABLE == MADT
struct madt_oracle {
	const struct madt_info *m;
	u32 cpus, enabled, kept;        /* CPU entries seen, enabled ones, matched in m->cpus */
	u32 ioapics, overrides, nmis;
	u64 lapic;
};

static void madt_oracle_entry(const u8 *e, u8 elen, void *ctx)
{
	struct madt_oracle *o = ctx;
	const struct madt_info *m = o->m;

	switch (e[0]) {
	case 0: case 9: {
		bool x2 = e[0] == 9;
		u32 id = x2 ? (u32)le(e + 4, 4) : e[3], uid = x2 ? (u32)le(e + 12, 4) : e[2];
		u32 flags = (u32)le(e + (x2 ? 8 : 4), 4);
		const struct madt_cpu *c = o->kept < m->ncpus ? &m->cpus[o->kept] : NULL;
		o->cpus++;
		o->enabled += flags & 1;
		if (c && c->apic_id == id && c->acpi_uid == uid && c->enabled == (flags & 1) &&
		    c->online_capable == !!(flags & 2) && c->x2apic == x2)
			o->kept++;
		break;
	}
	case 1:
		if (o->ioapics < MAX_IOAPICS) {
			const struct madt_ioapic *a = &m->ioapics[o->ioapics];
			FUZZ_CHECK(o->ioapics < m->nioapics);
			FUZZ_CHECK(a->id == e[2] && a->address == le(e + 4, 4) &&
				   a->gsi_base == le(e + 8, 4));
		}
		o->ioapics++;
		break;
	case 2:
		if (o->overrides < MAX_IRQ_OVERRIDES) {
			const struct madt_override *v = &m->overrides[o->overrides];
			FUZZ_CHECK(o->overrides < m->noverrides);
			FUZZ_CHECK(v->bus == e[2] && v->source_irq == e[3] && v->gsi == le(e + 4, 4) &&
				   v->flags == le(e + 8, 2));
		}
		o->overrides++;
		break;
	case 4: case 10:
		if (o->nmis < MAX_LAPIC_NMIS) {
			const struct madt_nmi *n = &m->nmis[o->nmis];
			bool x2 = e[0] == 10;
			FUZZ_CHECK(o->nmis < m->nnmis);
			FUZZ_CHECK(n->acpi_uid == (x2 ? le(e + 4, 4) : e[2]));
			FUZZ_CHECK(n->lint == e[x2 ? 8 : 5] && n->flags == le(e + (x2 ? 2 : 3), 2));
		}
		o->nmis++;
		break;
	case 5:
		o->lapic = le(e + 4, 8);
		break;
	}
	(void)elen;
}

static void check(const u8 *t, size_t size)
{
	static struct madt_info m;
	static const u8 min[256] = { [0] = 8, [1] = 12, [2] = 10, [4] = 6, [5] = 12, [9] = 16,
				     [10] = 12 };
	u32 tlen = header_ok(t, size, "APIC", 44);
	int problems = acpi_parse_madt(t, size, &m);

	FUZZ_CHECK((problems >= 0) == (tlen != 0));
	if (!tlen) {
		FUZZ_CHECK(!m.ncpus && !m.nioapics && !m.noverrides && !m.nnmis);
		return;
	}
	struct madt_oracle o = { .m = &m, .lapic = le(t + 36, 4) };
	FUZZ_CHECK(problems == walk8(t, 44, tlen, min, madt_oracle_entry, &o));
	FUZZ_CHECK(m.lapic_address == o.lapic && m.flags == le(t + 40, 4));
	FUZZ_CHECK(o.kept == m.ncpus);          /* every CPU kept is an entry, in order */
	FUZZ_CHECK(m.ncpus + m.ncpus_dropped == o.cpus);
	u32 enabled_kept = 0;
	for (u32 i = 0; i < m.ncpus; i++)
		enabled_kept += m.cpus[i].enabled;
	FUZZ_CHECK(enabled_kept == MIN(o.enabled, (u32)MAX_CPUS));
	FUZZ_CHECK(m.ncpus_dropped_enabled == o.enabled - enabled_kept);
	FUZZ_CHECK(m.nioapics == MIN(o.ioapics, (u32)MAX_IOAPICS));
	FUZZ_CHECK(m.nioapics + m.nioapics_dropped == o.ioapics);
	FUZZ_CHECK(m.noverrides == MIN(o.overrides, (u32)MAX_IRQ_OVERRIDES));
	FUZZ_CHECK(m.noverrides + m.noverrides_dropped == o.overrides);
	FUZZ_CHECK(m.nnmis == MIN(o.nmis, (u32)MAX_LAPIC_NMIS));
	FUZZ_CHECK(m.nnmis + m.nnmis_dropped == o.nmis);
}

#elif TABLE == SRAT
struct srat_oracle {
	const struct srat_info *s;
	u8 revision;
	u32 cpus, mem;                  /* enabled CPU entries, enabled usable memory entries */
};

static void srat_oracle_entry(const u8 *e, u8 elen, void *ctx)
{
	struct srat_oracle *o = ctx;
	const struct srat_info *s = o->s;

	if (e[0] == 0 || e[0] == 2) {
		bool x2 = e[0] == 2;
		if (!(le(e + (x2 ? 12 : 4), 4) & 1))
			return;
		u32 id = x2 ? (u32)le(e + 8, 4) : e[3];
		u32 pxm = x2 ? (u32)le(e + 4, 4) : e[2] | (o->revision >= 2 ? (u32)le(e + 9, 3) << 8 : 0);
		if (o->cpus < MAX_CPUS) {
			FUZZ_CHECK(o->cpus < s->ncpus);
			const struct srat_cpu *c = &s->cpus[o->cpus];
			FUZZ_CHECK(c->apic_id == id && c->pxm == pxm && c->x2apic == x2);
		}
		o->cpus++;
	} else if (e[0] == 1) {
		u64 base = le(e + 8, 8), len = le(e + 16, 8);
		u32 flags = (u32)le(e + 28, 4), pxm = (u32)le(e + 2, 4);
		if (!(flags & 1) || !len || base >= PHYS_ADDR_MAX || len > PHYS_ADDR_MAX - base)
			return;
		if (o->mem < MAX_MEM_AFFINITY) {
			FUZZ_CHECK(o->mem < s->nmem);
			const struct srat_mem *r = &s->mem[o->mem];
			FUZZ_CHECK(r->base == base && r->end == base + len);
			FUZZ_CHECK(r->pxm == (o->revision < 2 ? pxm & 0xff : pxm));
			FUZZ_CHECK(r->hotplug == !!(flags & 2) && r->nonvolatile == !!(flags & 4));
		}
		o->mem++;
	}
	(void)elen;
}

static void check(const u8 *t, size_t size)
{
	static struct srat_info s;
	static const u8 min[256] = { [0] = 16, [1] = 40, [2] = 24 };
	u32 tlen = header_ok(t, size, "SRAT", 48);
	int problems = acpi_parse_srat(t, size, &s);

	FUZZ_CHECK((problems >= 0) == (tlen != 0));
	if (!tlen) {
		FUZZ_CHECK(!s.ncpus && !s.nmem);
		return;
	}
	struct srat_oracle o = { .s = &s, .revision = t[8] };
	walk8(t, 48, tlen, min, srat_oracle_entry, &o);
	FUZZ_CHECK(s.ncpus == MIN(o.cpus, (u32)MAX_CPUS) && s.ncpus + s.ncpus_dropped == o.cpus);
	FUZZ_CHECK(s.nmem == MIN(o.mem, (u32)MAX_MEM_AFFINITY) && s.nmem + s.nmem_dropped == o.mem);
}

#elif TABLE == SLIT
static void check(const u8 *t, size_t size)
{
	static struct slit_info s;
	u32 tlen = header_ok(t, size, "SLIT", 44);
	u64 n = tlen ? le(t + 36, 8) : 0;
	bool sane = n >= 1 && n <= MAX_NODES && 44 + n * n <= tlen;

	for (u64 i = 0; sane && i < n; i++)
		for (u64 j = 0; j < n; j++) {
			u8 d = t[44 + i * n + j];
			sane &= i == j ? d == 10 : d > 10;
		}
	FUZZ_CHECK((acpi_parse_slit(t, size, &s) >= 0) == sane);
	FUZZ_CHECK(s.n == (sane ? n : 0));
	for (u32 i = 0; i < s.n; i++)
		for (u32 j = 0; j < s.n; j++)
			FUZZ_CHECK(s.dist[i][j] == t[44 + i * n + j]);
}

#elif TABLE == MCFG
static void check(const u8 *t, size_t size)
{
	static struct mcfg_info m;
	u32 tlen = header_ok(t, size, "MCFG", 44), good = 0;

	FUZZ_CHECK((acpi_parse_mcfg(t, size, &m) >= 0) == (tlen != 0));
	for (u32 off = 44; tlen && off + 16 <= tlen; off += 16) {
		const u8 *e = t + off;
		if (le(e, 8) >= PHYS_ADDR_MAX || e[11] < e[10])
			continue;
		if (good < MAX_MCFG) {
			FUZZ_CHECK(good < m.n);
			FUZZ_CHECK(m.e[good].base == le(e, 8) && m.e[good].segment == le(e + 8, 2) &&
				   m.e[good].bus_start == e[10] && m.e[good].bus_end == e[11]);
		}
		good++;
	}
	FUZZ_CHECK(m.n == MIN(good, (u32)MAX_MCFG));
}

#elif TABLE == HPET
static void check(const u8 *t, size_t size)
{
	static struct hpet_info h;
	u32 tlen = header_ok(t, size, "HPET", 56);
	u64 base = tlen ? le(t + 44, 8) : 0;
	bool usable = tlen && t[40] == ACPI_GAS_MEMORY && base && base < PHYS_ADDR_MAX;

	FUZZ_CHECK((acpi_parse_hpet(t, size, &h) == 0) == usable);
	FUZZ_CHECK(h.address == (usable ? base : 0));
	FUZZ_CHECK(h.number == (usable ? t[52] : 0) && h.min_tick == (usable ? le(t + 53, 2) : 0));
}

#elif TABLE == FADT
static bool gas_is(const struct acpi_gas *g, const u8 *p)
{
	return g->space_id == p[0] && g->bit_width == p[1] && g->bit_offset == p[2] &&
	       g->access_size == p[3] && g->address == le(p + 4, 8);
}

static void check(const u8 *t, size_t size)
{
	static struct fadt_info f;
	u32 tlen = header_ok(t, size, "FACP", 116);

	FUZZ_CHECK((acpi_parse_fadt(t, size, &f) == 0) == (tlen != 0));
	if (!tlen) {
		FUZZ_CHECK(!f.sci_irq && !f.pm1a_cnt && !f.dsdt && !f.pm_timer.address);
		return;
	}
	u32 flags = (u32)le(t + 112, 4), pm1a = (u32)le(t + 64, 4);
	FUZZ_CHECK(f.sci_irq == le(t + 46, 2) && f.smi_cmd == le(t + 48, 4));
	FUZZ_CHECK(f.acpi_enable == t[52]);
	if (!pm1a && tlen >= 184 && t[172] == ACPI_GAS_IO && le(t + 176, 8) <= 0xffff)
		pm1a = (u32)le(t + 176, 8);
	FUZZ_CHECK(f.pm1a_cnt == pm1a);
	if (tlen >= 220 && le(t + 212, 8))
		FUZZ_CHECK(gas_is(&f.pm_timer, t + 208));
	else
		FUZZ_CHECK(f.pm_timer.space_id == ACPI_GAS_IO && f.pm_timer.address == le(t + 76, 4) &&
			   f.pm_timer.bit_width == 32);
	FUZZ_CHECK(f.pm_timer_32bit == !!(flags & (1u << 8)));
	if (tlen >= 129) {
		FUZZ_CHECK(gas_is(&f.reset_reg, t + 116) && f.reset_value == t[128]);
		FUZZ_CHECK(f.reset_supported == !!(flags & (1u << 10)));
	} else {
		FUZZ_CHECK(!f.reset_supported && !f.reset_reg.address && !f.reset_value);
	}
	FUZZ_CHECK(f.dsdt == (tlen >= 148 && le(t + 140, 8) ? le(t + 140, 8) : le(t + 40, 4)));
}

#elif TABLE == DMAR
struct dmar_oracle {
	const struct dmar_info *d;
	u32 drhd, rmrr;
};

static void dmar_oracle_entry(const u8 *e, u8 elen, void *ctx)
{
	struct dmar_oracle *o = ctx;
	u32 type = (u32)le(e, 2);

	if (type == 1)
		o->rmrr++;
	if (type != 0 || elen < 16)
		return;
	if (o->drhd < MAX_DRHD) {
		const struct dmar_drhd *u = &o->d->drhd[o->drhd];
		FUZZ_CHECK(o->drhd < o->d->ndrhd);
		FUZZ_CHECK(u->base == le(e + 8, 8) && u->segment == le(e + 6, 2) &&
			   u->include_all == (e[4] & 1));
	}
	o->drhd++;
}

static void check(const u8 *t, size_t size)
{
	static struct dmar_info d;
	u32 tlen = header_ok(t, size, "DMAR", 48);
	int problems = acpi_parse_dmar(t, size, &d);

	FUZZ_CHECK((problems >= 0) == (tlen != 0));
	if (!tlen) {
		FUZZ_CHECK(!d.ndrhd && !d.nrmrr);
		return;
	}
	struct dmar_oracle o = { .d = &d };
	FUZZ_CHECK(problems == walk16(t, 48, tlen, dmar_oracle_entry, &o));
	FUZZ_CHECK(d.host_address_width == t[36] && d.flags == t[37]);
	FUZZ_CHECK(d.ndrhd == MIN(o.drhd, (u32)MAX_DRHD) && d.ndrhd + d.ndrhd_dropped == o.drhd);
	FUZZ_CHECK(d.nrmrr == o.rmrr);
}

#elif TABLE == IVRS
struct ivrs_oracle {
	u64 *base;                      /* distinct IVHD bases, in order of first appearance */
	u32 nbase, nivhd;
};

static void ivrs_oracle_entry(const u8 *e, u8 elen, void *ctx)
{
	struct ivrs_oracle *o = ctx;

	if ((e[0] != 0x10 && e[0] != 0x11 && e[0] != 0x40) || elen < 24)
		return;
	u64 base = le(e + 8, 8);
	o->nivhd++;
	for (u32 i = 0; i < o->nbase; i++)
		if (o->base[i] == base)
			return;
	o->base[o->nbase++] = base;     /* room for size / 24 of them */
}

static void check(const u8 *t, size_t size)
{
	static struct ivrs_info v;
	u32 tlen = header_ok(t, size, "IVRS", 48);
	int problems = acpi_parse_ivrs(t, size, &v);

	FUZZ_CHECK((problems >= 0) == (tlen != 0));
	if (!tlen) {
		FUZZ_CHECK(!v.niommus && !v.nivhd);
		return;
	}
	struct ivrs_oracle o = { .base = malloc((size / 24 + 1) * sizeof(u64)) };
	FUZZ_CHECK(problems == walk16(t, 48, tlen, ivrs_oracle_entry, &o));
	FUZZ_CHECK(v.ivinfo == le(t + 36, 4) && v.nivhd == o.nivhd);
	FUZZ_CHECK(v.niommus == MIN(o.nbase, (u32)MAX_IVHD));
	for (u32 i = 0; i < v.niommus; i++)
		FUZZ_CHECK(v.iommu_base[i] == o.base[i]);
	FUZZ_CHECK(v.niommus + v.niommus_dropped == o.nbase);
	free(o.base);
}

#elif TABLE == SPCR
static void check(const u8 *t, size_t size)
{
	static struct spcr_info s;
	static const u32 bauds[8] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };
	u32 tlen = header_ok(t, size, "SPCR", 80);

	FUZZ_CHECK((acpi_parse_spcr(t, size, &s) == 0) == (tlen != 0));
	if (!tlen) {
		FUZZ_CHECK(!s.usable && !s.address);
		return;
	}
	u8 type = t[36], space = t[40], width = t[41], access = t[43];
	u64 address = le(t + 44, 8);
	u8 stride = space == ACPI_GAS_IO ? 1 : access >= 1 && access <= 3 ? 1 << (access - 1) :
		    width == 32 ? 4 : width == 16 ? 2 : 1;
	FUZZ_CHECK(s.interface_type == type && s.address == address && s.gsi == le(t + 54, 4));
	FUZZ_CHECK(s.mmio == (space == ACPI_GAS_MEMORY) && s.reg_stride == stride);
	FUZZ_CHECK(s.access_bytes == (s.mmio ? stride : 1));
	FUZZ_CHECK(s.baud == (t[58] < 8 ? bauds[t[58]] : 0));
	bool usable = (type == 0x00 || type == 0x01 || type == 0x12) && address &&
		      ((space == ACPI_GAS_IO && address <= 0xfff8) ||
		       (space == ACPI_GAS_MEMORY && address < PHYS_ADDR_MAX));
	FUZZ_CHECK(s.usable == usable);
}

#else
#error "build with -DTABLE=MADT (or SRAT, SLIT, MCFG, HPET, FADT, DMAR, IVRS, SPCR)"
#endif

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	fuzz_quiet();
	check(data, size);
	return 0;
}
