// SPDX-License-Identifier: MIT
/*
 * acpi_parse.c - read the ACPI tables testbed uses, from their bytes alone.
 *
 * Pure code: every function takes one table's bytes and its length and fills
 * a struct; nothing here maps memory, touches hardware or keeps state, so
 * the host unit tests (tests/host/acpi_test.c) feed it QEMU's real tables
 * and damaged copies of them under ASan and UBSan.
 *
 * A table is a 36-byte header (signature, length, revision, checksum, OEM
 * names) and a body; the bodies of MADT and SRAT are lists of entries, each
 * starting with a type byte and a length byte:
 *
 *   +0   header ("APIC", length, ...)
 *   +36  fixed fields of the table
 *   +44  entry: u8 type, u8 length, payload...   (MADT; SRAT starts at +48)
 *        entry ...                               up to header.length
 *
 * Invariants, for any bytes at all:
 *   - nothing is read outside table[0..len), nor past the header's length:
 *     the header length must lie in [minimum for the table, len];
 *   - an entry list is walked only while a whole entry header fits; an
 *     entry shorter than 2 bytes or running past the table ends the walk
 *     (nothing after it can be found), an entry too short for its type is
 *     skipped; so every step advances and the walk ends;
 *   - fields are copied out with memcpy (ACPI promises no alignment);
 *   - every problem is warned about as "ACPI: <table>: <what>" and counted;
 *     the parsers return that count, or -1 when nothing could be used.
 *   - an entry past one of param.h's limits (MAX_CPUS, MAX_IOAPICS, ...)
 *     is not a problem: it is counted, and reported in one line per kind
 *     ("ACPI: MADT: 6 of 1030 CPU entries dropped (MAX_CPUS 1024), 2 of
 *     them enabled"); the rest of the table is used.
 * Checksums are not checked by the parsers: acpi_table_checksum_accepted()
 * is separate, because by default a bad one only gets a warning, as in
 * Linux (acpi.checksum=strict refuses the table).
 *
 * Layouts: ACPI specification 6.5, sections 5.2.5 (RSDP), 5.2.6 (header),
 * 5.2.7-8 (RSDT, XSDT), 5.2.9 (FADT), 5.2.12 (MADT), 5.2.16 (SRAT),
 * 5.2.17 (SLIT); PCI Firmware spec 3.x (MCFG); IA-PC HPET spec 1.0a (HPET);
 * Intel VT-d spec 3.x, chapter 8 (DMAR); AMD IOMMU spec 48882, 5.2 (IVRS);
 * Microsoft's Serial Port Console Redirection Table specification (SPCR).
 */
#include "acpi.h"
#include "kstring.h"
#include "unaligned.h"
#include "format.h"
#include "printk.h"

#define HEADER_LEN      36              /* sizeof(struct acpi_header) */

/* Sizes, and where each table's fixed fields end and its entries begin. */
#define RSDP_V1_LEN     20              /* what the ACPI 1.0 checksum covers */
#define RSDP_V2_LEN     36              /* + length, XSDT address, extended checksum */
#define MADT_ENTRIES    44              /* after LAPIC address (36) and flags (40) */
#define SRAT_ENTRIES    48              /* after 4 reserved bytes and 8 more */
#define SLIT_MATRIX     44              /* after the u64 locality count at 36 */
#define MCFG_ENTRIES    44              /* after 8 reserved bytes at 36 */
#define MCFG_ENTRY_LEN  16
#define HPET_LEN        56
#define FADT_V1_LEN     116             /* ACPI 1.0: up to and including Flags */

/* --- reading fields -------------------------------------------------------- */

static struct acpi_gas rd_gas(const u8 *p)
{
	struct acpi_gas g;

	memcpy(&g, p, sizeof(g));
	return g;
}

/* True if a field of size bytes at off lies inside a table of tlen bytes. */
static bool fits(u32 tlen, u32 off, u32 size)
{
	return off <= tlen && size <= tlen - off;
}

bool acpi_checksum_ok(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	while (len--)
		sum += *b++;
	return sum == 0;
}

bool acpi_table_checksum_accepted(const void *t, u32 len, enum acpi_checksum_policy policy)
{
	const u8 *b = t;
	u8 sum = 0;

	for (u32 i = 0; i < len; i++)
		sum += b[i];
	if (sum == 0)
		return true;
	/* ACPICA's words (tbprint.c): the byte it has, the byte that would sum to 0. */
	pr_warn("ACPI: Incorrect checksum in table [%.4s] - 0x%02X, should be 0x%02X%s\n",
		(const char *)b, len > 9 ? b[9] : 0, len > 9 ? (u8)(b[9] - sum) : 0,
		policy == ACPI_CHECKSUM_STRICT ? "; refused (acpi.checksum=strict)" :
						 "; used anyway, as Linux does");
	return policy != ACPI_CHECKSUM_STRICT;
}

/* "ACPI: MADT: 6 of 1030 CPU entries dropped (MAX_CPUS 1024)": one line per kind. */
static void report_dropped(const char *table, const char *what, u32 dropped, u32 kept,
			   const char *limit, u32 max, const char *more)
{
	if (dropped)
		pr_warn("ACPI: %s: %u of %u %s dropped (%s %u)%s; the rest is used\n", table,
			dropped, dropped + kept, what, limit, max, more);
}

/*
 * Check the header of a table given as len bytes: the signature is sig and
 * the length lies in [min, len]. Returns the table's own length, or 0
 * (warned about) if the table cannot be parsed. name is how warnings call
 * the table ("MADT" for signature "APIC").
 */
static u32 table_len(const u8 *t, size_t len, const char *sig, u32 min, const char *name)
{
	u32 tlen;

	if (len < HEADER_LEN) {
		pr_warn("ACPI: %s: only %zu bytes, less than a table header\n", name, len);
		return 0;
	}
	if (memcmp(t, sig, 4)) {
		pr_warn("ACPI: %s: signature is not \"%s\"\n", name, sig);
		return 0;
	}
	tlen = rd32(t + 4);
	if (tlen < min) {
		pr_warn("ACPI: %s: length %u is less than the %u bytes it needs\n", name, tlen,
			min);
		return 0;
	}
	if (tlen > len) {
		pr_warn("ACPI: %s: length %u but only %zu bytes given\n", name, tlen, len);
		return 0;
	}
	return tlen;
}

/* --- RSDP and the root table ------------------------------------------------ */

/* The ACPI 2.0 part: the length field and the extended checksum. */
static bool rsdp_v2_ok(const u8 *r, size_t len)
{
	u32 rlen = rd32(r + 20);

	if (rlen < RSDP_V2_LEN || rlen > len) {
		pr_warn("ACPI: RSDP: length %u is not in [%d, %zu]\n", rlen, RSDP_V2_LEN, len);
		return false;
	}
	if (!acpi_checksum_ok(r, rlen)) {
		pr_warn("ACPI: RSDP: bad extended checksum\n");
		return false;
	}
	return true;
}

int acpi_parse_rsdp(const void *rsdp, size_t len, u64 *root, bool *is_xsdt)
{
	const u8 *r = rsdp;
	u64 rsdt, xsdt = 0;

	if (len < RSDP_V1_LEN || memcmp(r, "RSD PTR ", 8)) {
		pr_warn("ACPI: RSDP: no \"RSD PTR \" signature in %zu bytes\n", len);
		return -1;
	}
	if (!acpi_checksum_ok(r, RSDP_V1_LEN)) {
		pr_warn("ACPI: RSDP: bad checksum\n");
		return -1;
	}
	rsdt = rd32(r + 16);
	/*
	 * Revision 2 added the length, the XSDT address and the extended
	 * checksum. A 20-byte copy (GRUB's ACPI 1.0 tag) has only the first part.
	 */
	if (r[15] >= 2 && len >= RSDP_V2_LEN) {
		if (!rsdp_v2_ok(r, len))
			return -1;
		xsdt = rd64(r + 24);
	}
	if (xsdt >= PHYS_ADDR_MAX) {
		pr_warn("ACPI: RSDP: XSDT address 0x%llx is impossible; using the RSDT\n", xsdt);
		xsdt = 0;
	}
	if (!xsdt && !rsdt) {
		pr_warn("ACPI: RSDP: neither an RSDT nor an XSDT address\n");
		return -1;
	}
	*is_xsdt = xsdt != 0;
	*root = xsdt ? xsdt : rsdt;
	return 0;
}

/*
 * Map a root table candidate whole and check it: signature, a length from
 * 36 to ACPI_TABLE_MAX, the checksum per policy. NULL (and *why) if bad.
 */
static const u8 *map_root(u64 pa, const char *sig, acpi_map_fn map, void *ctx,
			  enum acpi_checksum_policy policy, u32 *len, const char **why)
{
	const u8 *h = pa ? map(ctx, pa, HEADER_LEN) : NULL;
	u32 n;

	*why = NULL;
	if (!h) {
		*why = "cannot be read";
		return NULL;
	}
	if (memcmp(h, sig, 4)) {
		*why = "has another signature";
		return NULL;
	}
	n = rd32(h + 4);
	if (n < HEADER_LEN || n > ACPI_TABLE_MAX) {
		*why = "has an impossible length";
		return NULL;
	}
	h = map(ctx, pa, n);
	if (!h) {
		*why = "cannot be read whole";
		return NULL;
	}
	if (!acpi_table_checksum_accepted(h, n, policy)) {
		*why = "has a bad checksum";
		return NULL;
	}
	*len = n;
	return h;
}

int acpi_choose_root(const void *rsdp, size_t len, acpi_map_fn map, void *ctx,
		     enum acpi_checksum_policy policy, struct acpi_root *out)
{
	const u8 *r = rsdp;
	const char *why;
	u64 root, rsdt;
	bool is_xsdt;

	memset(out, 0, sizeof(*out));
	if (acpi_parse_rsdp(rsdp, len, &root, &is_xsdt))
		return -1;
	rsdt = rd32(r + 16);
	if (is_xsdt) {
		out->table = map_root(root, "XSDT", map, ctx, policy, &out->len, &why);
		if (out->table) {
			out->pa = root;
			out->is_xsdt = true;
			return 0;
		}
		/*
		 * Linux (ACPICA tbutils.c, acpi_tb_parse_root_table()) gives up
		 * here unless booted with acpi=rsdt; testbed tries the RSDT,
		 * which every ACPI 2.0+ firmware still provides.
		 */
		pr_warn("ACPI: XSDT at 0x%llx %s; falling back to the RSDT at 0x%llx\n", root,
			why, rsdt);
	}
	if (!rsdt) {
		pr_warn("ACPI: no usable root table (no RSDT address)\n");
		return -1;
	}
	out->table = map_root(rsdt, "RSDT", map, ctx, policy, &out->len, &why);
	if (!out->table) {
		pr_warn("ACPI: RSDT at 0x%llx %s; no ACPI tables\n", rsdt, why);
		return -1;
	}
	out->pa = rsdt;
	return 0;
}

u32 acpi_root_entries(const void *root, size_t len, bool is_xsdt, u64 *out, u32 max)
{
	const u8 *t = root;
	const char *sig = is_xsdt ? "XSDT" : "RSDT";
	u32 esize = is_xsdt ? 8 : 4;
	u32 tlen = table_len(t, len, sig, HEADER_LEN, sig);
	u32 n;

	if (!tlen)
		return 0;
	n = (tlen - HEADER_LEN) / esize;
	if ((tlen - HEADER_LEN) % esize)
		pr_warn("ACPI: %s: %u bytes after the last whole entry ignored\n",
			sig, (tlen - HEADER_LEN) % esize);
	for (u32 i = 0; i < n && i < max; i++) {
		const u8 *e = t + HEADER_LEN + i * esize;

		out[i] = is_xsdt ? rd64(e) : rd32(e);
	}
	return n;
}

/* --- walking entry lists (MADT, SRAT) ---------------------------------------- */

/* How to walk one table's entry list. */
struct walk {
	const char *name;                       /* for warnings: "MADT" */
	u8 (*min_len)(u8 type);                 /* 0: a type we skip */
	void (*fn)(const u8 *e, void *out, int *problems);
	void *out;
};

/*
 * Call w->fn for each entry of the list at t[start..tlen). Stops at an entry
 * whose length is below 2 or runs past the end; skips (without calling fn)
 * an entry shorter than min_len(type). Returns the problems found.
 */
static int walk_entries(const u8 *t, u32 start, u32 tlen, const struct walk *w)
{
	int problems = 0;
	u32 off = start;

	while (off < tlen) {
		if (tlen - off < 2) {
			pr_warn("ACPI: %s: a stray byte at offset %u\n", w->name, off);
			return problems + 1;
		}
		u8 type = t[off], elen = t[off + 1];
		if (elen < 2) {
			pr_warn("ACPI: %s: entry type %u at offset %u has length %u; "
				"stopping here\n", w->name, type, off, elen);
			return problems + 1;
		}
		if (elen > tlen - off) {
			pr_warn("ACPI: %s: entry type %u at offset %u (length %u) runs past "
				"the end (%u); stopping here\n", w->name, type, off, elen, tlen);
			return problems + 1;
		}
		u8 need = w->min_len(type);
		if (need && elen < need) {
			pr_warn("ACPI: %s: entry type %u at offset %u has length %u, "
				"less than %u; skipped\n", w->name, type, off, elen, need);
			problems++;
		} else if (need) {
			w->fn(t + off, w->out, &problems);
		}
		off += elen;
	}
	return problems;
}

/* --- MADT ---------------------------------------------------------------- */

enum {
	MADT_LAPIC = 0,
	MADT_IOAPIC = 1,
	MADT_OVERRIDE = 2,
	MADT_LAPIC_NMI = 4,
	MADT_LAPIC_ADDR = 5,
	MADT_X2APIC = 9,
	MADT_X2APIC_NMI = 10,
};

#define MADT_ENABLED            (1u << 0)
#define MADT_ONLINE_CAPABLE     (1u << 1)

static u8 madt_min_len(u8 type)
{
	switch (type) {
	case MADT_LAPIC:        return 8;
	case MADT_IOAPIC:       return 12;
	case MADT_OVERRIDE:     return 10;
	case MADT_LAPIC_NMI:    return 6;
	case MADT_LAPIC_ADDR:   return 12;
	case MADT_X2APIC:       return 16;
	case MADT_X2APIC_NMI:   return 12;
	default:                return 0;
	}
}

/*
 * Keep CPUs in table order. When the array is full, an enabled CPU still
 * gets in by pushing out the last entry that is not enabled: QEMU lists
 * every possible CPU, so on a machine with APIC IDs above 255 the real
 * CPUs come after hundreds of disabled placeholders.
 */
static void madt_add_cpu(struct madt_info *m, u32 apic_id, u32 uid, u32 flags, bool x2apic)
{
	if (m->ncpus == MAX_CPUS) {
		int victim = -1;

		m->ncpus_dropped++;
		if (!(flags & MADT_ENABLED))
			return;
		for (int i = MAX_CPUS - 1; i >= 0 && victim < 0; i--)
			if (!m->cpus[i].enabled)
				victim = i;
		if (victim < 0) {
			m->ncpus_dropped_enabled++;
			return;
		}
		memmove(&m->cpus[victim], &m->cpus[victim + 1],
			(MAX_CPUS - 1 - (u32)victim) * sizeof(m->cpus[0]));
		m->ncpus--;
	}
	m->cpus[m->ncpus++] = (struct madt_cpu){
		.apic_id = apic_id,
		.acpi_uid = uid,
		.enabled = flags & MADT_ENABLED,
		.online_capable = flags & MADT_ONLINE_CAPABLE,
		.x2apic = x2apic,
	};
}

static void madt_add_nmi(struct madt_info *m, u32 uid, u8 lint, u16 flags)
{
	if (m->nnmis == ARRAY_SIZE(m->nmis)) {
		m->nnmis_dropped++;
		return;
	}
	m->nmis[m->nnmis++] = (struct madt_nmi){ .acpi_uid = uid, .lint = lint, .flags = flags };
}

/* Offsets inside each entry: ACPI 6.5, sections 5.2.12.2 (type 0) to 5.2.12.13 (type 10). */
static void madt_entry(const u8 *e, void *out, int *problems)
{
	(void)problems;         /* a full array is counted, not a problem */
	struct madt_info *m = out;

	switch (e[0]) {
	case MADT_LAPIC:        /* uid u8 @2, APIC id u8 @3, flags u32 @4 */
		madt_add_cpu(m, e[3], e[2], rd32(e + 4), false);
		break;
	case MADT_X2APIC:       /* x2APIC id u32 @4, flags u32 @8, uid u32 @12 */
		madt_add_cpu(m, rd32(e + 4), rd32(e + 12), rd32(e + 8), true);
		break;
	case MADT_IOAPIC:       /* id u8 @2, address u32 @4, GSI base u32 @8 */
		if (m->nioapics == MAX_IOAPICS) {
			m->nioapics_dropped++;
			break;
		}
		m->ioapics[m->nioapics++] = (struct madt_ioapic){
			.id = e[2], .address = rd32(e + 4), .gsi_base = rd32(e + 8),
		};
		break;
	case MADT_OVERRIDE:     /* bus u8 @2, source u8 @3, GSI u32 @4, flags u16 @8 */
		if (m->noverrides == MAX_IRQ_OVERRIDES) {
			m->noverrides_dropped++;
			break;
		}
		m->overrides[m->noverrides++] = (struct madt_override){
			.bus = e[2], .source_irq = e[3], .gsi = rd32(e + 4), .flags = rd16(e + 8),
		};
		break;
	case MADT_LAPIC_NMI:    /* uid u8 @2, flags u16 @3, LINT u8 @5 */
		madt_add_nmi(m, e[2], e[5], rd16(e + 3));
		break;
	case MADT_X2APIC_NMI:   /* flags u16 @2, uid u32 @4, LINT u8 @8 */
		madt_add_nmi(m, rd32(e + 4), e[8], rd16(e + 2));
		break;
	case MADT_LAPIC_ADDR:   /* reserved u16 @2, address u64 @4 */
		m->lapic_address = rd64(e + 4);
		break;
	}
}

int acpi_parse_madt(const void *table, size_t len, struct madt_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "APIC", MADT_ENTRIES, "MADT");
	struct walk w = { "MADT", madt_min_len, madt_entry, out };
	int problems;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	out->lapic_address = rd32(t + 36);
	out->flags = rd32(t + 40);
	problems = walk_entries(t, MADT_ENTRIES, tlen, &w);
	if (out->ncpus_dropped) {
		char more[48];

		snprintf(more, sizeof(more), ", %u of them enabled", out->ncpus_dropped_enabled);
		report_dropped("MADT", "CPU entries", out->ncpus_dropped, out->ncpus, "MAX_CPUS",
			       MAX_CPUS, more);
	}
	report_dropped("MADT", "I/O APIC entries", out->nioapics_dropped, out->nioapics,
		       "MAX_IOAPICS", MAX_IOAPICS, "");
	report_dropped("MADT", "interrupt overrides", out->noverrides_dropped, out->noverrides,
		       "MAX_IRQ_OVERRIDES", MAX_IRQ_OVERRIDES, "");
	report_dropped("MADT", "local APIC NMI entries", out->nnmis_dropped, out->nnmis,
		       "MAX_LAPIC_NMIS", MAX_LAPIC_NMIS, "");
	return problems;
}

/* --- SRAT ---------------------------------------------------------------- */

enum { SRAT_CPU = 0, SRAT_MEM = 1, SRAT_X2APIC = 2 };

#define SRAT_ENABLED            (1u << 0)
#define SRAT_MEM_HOTPLUG        (1u << 1)
#define SRAT_MEM_NONVOLATILE    (1u << 2)

/* What a SRAT entry callback needs besides the result: the table revision. */
struct srat_walk {
	struct srat_info *s;
	u8 revision;
};

static u8 srat_min_len(u8 type)
{
	switch (type) {
	case SRAT_CPU:          return 16;
	case SRAT_MEM:          return 40;
	case SRAT_X2APIC:       return 24;
	default:                return 0;
	}
}

static void srat_add_cpu(struct srat_info *s, u32 apic_id, u32 pxm, bool x2apic)
{
	if (s->ncpus == MAX_CPUS) {
		s->ncpus_dropped++;
		return;
	}
	s->cpus[s->ncpus++] = (struct srat_cpu){ .apic_id = apic_id, .pxm = pxm, .x2apic = x2apic };
}

/* Memory affinity: domain u32 @2, base u64 @8, length u64 @16, flags u32 @28. */
static void srat_add_mem(struct srat_walk *sw, const u8 *e, int *problems)
{
	struct srat_info *s = sw->s;
	u32 flags = rd32(e + 28), pxm = rd32(e + 2);
	u64 base = rd64(e + 8), size = rd64(e + 16);

	/* QEMU pads the table with disabled, empty entries: not memory at all. */
	if (!(flags & SRAT_ENABLED) || size == 0)
		return;
	if (sw->revision < 2)
		pxm &= 0xff;    /* ACPI 2.0 (revision 1): an 8-bit domain */
	if (base >= PHYS_ADDR_MAX || size > PHYS_ADDR_MAX - base) {
		pr_warn("ACPI: SRAT: memory 0x%llx+0x%llx (PXM %u) goes past 2^52; "
			"ignored\n", base, size, pxm);
		++*problems;
		return;
	}
	if (s->nmem == MAX_MEM_AFFINITY) {
		s->nmem_dropped++;
		return;
	}
	s->mem[s->nmem++] = (struct srat_mem){
		.base = base,
		.end = base + size,
		.pxm = pxm,
		.hotplug = flags & SRAT_MEM_HOTPLUG,
		.nonvolatile = flags & SRAT_MEM_NONVOLATILE,
	};
}

static void srat_entry(const u8 *e, void *out, int *problems)
{
	struct srat_walk *sw = out;
	u32 pxm;

	switch (e[0]) {
	case SRAT_CPU:
		/* domain bits 0-7 @2, APIC id @3, flags u32 @4, domain bits 8-31 @9..11 */
		if (!(rd32(e + 4) & SRAT_ENABLED))
			break;
		pxm = e[2];
		if (sw->revision >= 2)  /* reserved in ACPI 2.0 (revision 1) */
			pxm |= (u32)e[9] << 8 | (u32)e[10] << 16 | (u32)e[11] << 24;
		srat_add_cpu(sw->s, e[3], pxm, false);
		break;
	case SRAT_X2APIC:
		/* domain u32 @4, x2APIC id u32 @8, flags u32 @12 */
		if (rd32(e + 12) & SRAT_ENABLED)
			srat_add_cpu(sw->s, rd32(e + 8), rd32(e + 4), true);
		break;
	case SRAT_MEM:
		srat_add_mem(sw, e, problems);
		break;
	}
}

int acpi_parse_srat(const void *table, size_t len, struct srat_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "SRAT", SRAT_ENTRIES, "SRAT");
	struct srat_walk sw = { out, 0 };
	struct walk w = { "SRAT", srat_min_len, srat_entry, &sw };
	int problems;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	sw.revision = t[8];
	problems = walk_entries(t, SRAT_ENTRIES, tlen, &w);
	report_dropped("SRAT", "enabled CPU affinities", out->ncpus_dropped, out->ncpus,
		       "MAX_CPUS", MAX_CPUS, "");
	report_dropped("SRAT", "memory ranges", out->nmem_dropped, out->nmem,
		       "MAX_MEM_AFFINITY", MAX_MEM_AFFINITY, "");
	return problems;
}

/* --- SLIT ---------------------------------------------------------------- */

#define SLIT_LOCAL      10      /* a locality's distance to itself */

int acpi_parse_slit(const void *table, size_t len, struct slit_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "SLIT", SLIT_MATRIX, "SLIT");
	u64 n;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	n = rd64(t + 36);
	if (n == 0 || n > MAX_NODES) {
		pr_warn("ACPI: SLIT: %llu localities; expected 1 to %d\n", n, MAX_NODES);
		return -1;
	}
	if (n * n > tlen - SLIT_MATRIX) {
		pr_warn("ACPI: SLIT: %llu localities need %llu bytes; the table has %u\n",
			n, (n * n), tlen - SLIT_MATRIX);
		return -1;
	}
	/* As Linux does: a matrix whose own distances are not 10, or whose
	 * remote ones are not above 10, says nothing we can trust. */
	for (u32 i = 0; i < n; i++) {
		for (u32 j = 0; j < n; j++) {
			u8 d = t[SLIT_MATRIX + i * n + j];

			if (i == j ? d != SLIT_LOCAL : d <= SLIT_LOCAL) {
				pr_warn("ACPI: SLIT: distance %u from %u to %u is invalid\n",
					d, i, j);
				return -1;
			}
			out->dist[i][j] = d;
		}
	}
	out->n = (u32)n;
	return 0;
}

/* --- MCFG ---------------------------------------------------------------- */

/* Entry: base u64 @0, segment u16 @8, first bus @10, last bus @11, reserved u32 @12. */
int acpi_parse_mcfg(const void *table, size_t len, struct mcfg_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "MCFG", MCFG_ENTRIES, "MCFG");
	int problems = 0;
	u32 off;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	if ((tlen - MCFG_ENTRIES) % MCFG_ENTRY_LEN) {
		pr_warn("ACPI: MCFG: %u bytes after the last whole entry ignored\n",
			(tlen - MCFG_ENTRIES) % MCFG_ENTRY_LEN);
		problems++;
	}
	for (off = MCFG_ENTRIES; fits(tlen, off, MCFG_ENTRY_LEN); off += MCFG_ENTRY_LEN) {
		struct mcfg_entry e = {
			.base = rd64(t + off), .segment = rd16(t + off + 8),
			.bus_start = t[off + 10], .bus_end = t[off + 11],
		};

		if (e.base >= PHYS_ADDR_MAX || e.bus_end < e.bus_start) {
			pr_warn("ACPI: MCFG: window at 0x%llx, buses %u-%u is invalid; "
				"ignored\n", e.base, e.bus_start, e.bus_end);
			problems++;
			continue;
		}
		if (out->n == MAX_MCFG) {
			pr_warn("ACPI: MCFG: more than %d windows; ignored\n", MAX_MCFG);
			problems++;
			break;
		}
		out->e[out->n++] = e;
	}
	return problems;
}

/* --- HPET ---------------------------------------------------------------- */

/* Block id u32 @36, base address GAS @40, number u8 @52, minimum tick u16 @53. */
int acpi_parse_hpet(const void *table, size_t len, struct hpet_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "HPET", HPET_LEN, "HPET");
	struct acpi_gas base;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	base = rd_gas(t + 40);
	if (base.space_id != ACPI_GAS_MEMORY || !base.address || base.address >= PHYS_ADDR_MAX) {
		pr_warn("ACPI: HPET: base 0x%llx in address space %u is unusable\n",
			base.address, base.space_id);
		return -1;
	}
	out->address = base.address;
	out->number = t[52];
	out->min_tick = rd16(t + 53);
	return 0;
}

/* --- FADT ---------------------------------------------------------------- */

/*
 * The FADT grew with each ACPI version and says which by its length:
 *   116 bytes (ACPI 1.0): 32-bit DSDT, I/O port blocks, Flags @112;
 *   + RESET_REG GAS @116, RESET_VALUE @128 (ACPI 2.0, 129 bytes and up);
 *   + X_DSDT u64 @140, X_PM1a_CNT_BLK GAS @172, X_PM_TMR_BLK GAS @208.
 * A field is read only if the table holds it.
 */
#define FADT_DSDT               40
#define FADT_SCI_INT            46
#define FADT_SMI_CMD            48
#define FADT_ACPI_ENABLE        52
#define FADT_PM1A_CNT_BLK       64
#define FADT_PM_TMR_BLK         76
#define FADT_FLAGS              112
#define FADT_RESET_REG          116
#define FADT_RESET_VALUE        128
#define FADT_X_DSDT             140
#define FADT_X_PM1A_CNT_BLK     172
#define FADT_X_PM_TMR_BLK       208

#define FADT_TMR_VAL_EXT        (1u << 8)
#define FADT_RESET_REG_SUP      (1u << 10)

#define GAS_SIZE                sizeof(struct acpi_gas)
#define GAS_ACCESS_DWORD        3

/* The PM timer: X_PM_TMR_BLK when there is one, else the 32-bit I/O port. */
static struct acpi_gas fadt_pm_timer(const u8 *t, u32 tlen)
{
	struct acpi_gas g = { 0 };

	if (fits(tlen, FADT_X_PM_TMR_BLK, GAS_SIZE))
		g = rd_gas(t + FADT_X_PM_TMR_BLK);
	if (g.address)
		return g;
	return (struct acpi_gas){
		.space_id = ACPI_GAS_IO,
		.bit_width = 32,
		.access_size = GAS_ACCESS_DWORD,
		.address = rd32(t + FADT_PM_TMR_BLK),
	};
}

int acpi_parse_fadt(const void *table, size_t len, struct fadt_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "FACP", FADT_V1_LEN, "FADT");
	u32 flags;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	flags = rd32(t + FADT_FLAGS);
	out->sci_irq = rd16(t + FADT_SCI_INT);
	out->smi_cmd = rd32(t + FADT_SMI_CMD);
	out->acpi_enable = t[FADT_ACPI_ENABLE];
	out->pm1a_cnt = rd32(t + FADT_PM1A_CNT_BLK);
	out->pm_timer = fadt_pm_timer(t, tlen);
	out->pm_timer_32bit = flags & FADT_TMR_VAL_EXT;
	out->dsdt = rd32(t + FADT_DSDT);

	if (fits(tlen, FADT_RESET_VALUE, 1)) {
		out->reset_reg = rd_gas(t + FADT_RESET_REG);
		out->reset_value = t[FADT_RESET_VALUE];
		out->reset_supported = flags & FADT_RESET_REG_SUP;
	}
	if (fits(tlen, FADT_X_DSDT, 8) && rd64(t + FADT_X_DSDT))
		out->dsdt = rd64(t + FADT_X_DSDT);
	if (!out->pm1a_cnt && fits(tlen, FADT_X_PM1A_CNT_BLK, GAS_SIZE)) {
		struct acpi_gas g = rd_gas(t + FADT_X_PM1A_CNT_BLK);

		if (g.space_id == ACPI_GAS_IO && g.address <= 0xffff)
			out->pm1a_cnt = (u32)g.address;
	}
	return 0;
}

/* --- DMAR and IVRS ------------------------------------------------------- */

#define DMAR_STRUCTS            48
#define DMAR_DRHD               0
#define DMAR_RMRR               1
#define DMAR_DRHD_LEN           16
#define IVRS_BLOCKS             48
#define IVHD_MIN_LEN            24      /* type 0x10's header; 0x11 and 0x40 have 40 */

/*
 * Walk a list of (type, length) structures whose length is a u16 at +2:
 * the DMAR's and the IVRS's. Calls fn for each whole structure of at least
 * min_len bytes; stops, warning, at a length below 4 or past the end.
 */
static int walk_u16_structs(const u8 *t, u32 start, u32 tlen, const char *name,
			    void (*fn)(const u8 *e, u16 elen, void *out), void *out)
{
	int problems = 0;

	for (u32 off = start; off < tlen;) {
		if (tlen - off < 4) {
			pr_warn("ACPI: %s: %u stray bytes at offset %u\n", name, tlen - off, off);
			return problems + 1;
		}
		u16 elen = rd16(t + off + 2);
		if (elen < 4 || elen > tlen - off) {
			pr_warn("ACPI: %s: structure at offset %u has length %u; stopping here\n",
				name, off, elen);
			return problems + 1;
		}
		fn(t + off, elen, out);
		off += elen;
	}
	return problems;
}

static void dmar_struct(const u8 *e, u16 elen, void *out)
{
	struct dmar_info *d = out;

	switch (rd16(e)) {
	case DMAR_DRHD:
		if (elen < DMAR_DRHD_LEN)
			return;
		if (d->ndrhd == MAX_DRHD) {
			d->ndrhd_dropped++;
			return;
		}
		d->drhd[d->ndrhd++] = (struct dmar_drhd){
			.base = rd64(e + 8), .segment = rd16(e + 6), .include_all = e[4] & 1,
		};
		break;
	case DMAR_RMRR:
		d->nrmrr++;
		break;
	}
}

int acpi_parse_dmar(const void *table, size_t len, struct dmar_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "DMAR", DMAR_STRUCTS, "DMAR");
	int problems;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	out->host_address_width = t[36];
	out->flags = t[37];
	problems = walk_u16_structs(t, DMAR_STRUCTS, tlen, "DMAR", dmar_struct, out);
	report_dropped("DMAR", "DRHD units", out->ndrhd_dropped, out->ndrhd, "MAX_DRHD",
		       MAX_DRHD, "");
	return problems;
}

/* What an IVRS block callback needs: the result, and the blocks to look back on. */
struct ivrs_walk {
	struct ivrs_info *v;
	const u8 *first;        /* the first block: those before the current one are whole */
};

static bool is_ivhd(const u8 *e, u16 elen)
{
	return (e[0] == 0x10 || e[0] == 0x11 || e[0] == 0x40) && elen >= IVHD_MIN_LEN;
}

/*
 * Did an IVHD block before e describe the IOMMU at base? Past MAX_IVHD
 * this is how a dropped IOMMU, listed once per IVHD type, is counted once.
 */
static bool ivhd_seen_before(const u8 *first, const u8 *e, u64 base)
{
	for (const u8 *b = first; b < e; b += rd16(b + 2))
		if (is_ivhd(b, rd16(b + 2)) && rd64(b + 8) == base)
			return true;
	return false;
}

static void ivrs_block(const u8 *e, u16 elen, void *out)
{
	struct ivrs_walk *w = out;
	struct ivrs_info *v = w->v;
	u64 base;

	if (!is_ivhd(e, elen))
		return;         /* IVMD blocks (0x20-0x22) and unknown types */
	v->nivhd++;
	base = rd64(e + 8);
	for (u32 i = 0; i < v->niommus; i++)
		if (v->iommu_base[i] == base)
			return;
	if (v->niommus == MAX_IVHD) {
		if (!ivhd_seen_before(w->first, e, base))
			v->niommus_dropped++;
		return;
	}
	v->iommu_base[v->niommus++] = base;
}

int acpi_parse_ivrs(const void *table, size_t len, struct ivrs_info *out)
{
	const u8 *t = table;
	u32 tlen = table_len(t, len, "IVRS", IVRS_BLOCKS, "IVRS");
	int problems;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	out->ivinfo = rd32(t + 36);
	problems = walk_u16_structs(t, IVRS_BLOCKS, tlen, "IVRS", ivrs_block,
				    &(struct ivrs_walk){ out, t + IVRS_BLOCKS });
	report_dropped("IVRS", "IOMMUs", out->niommus_dropped, out->niommus, "MAX_IVHD",
		       MAX_IVHD, "");
	return problems;
}

/* --- SPCR ---------------------------------------------------------------- */

#define SPCR_LEN                80
#define SPCR_BASE               40
#define SPCR_GSI                54
#define SPCR_BAUD               58

/*
 * The register stride of a 16550 in memory space: what the GAS's access
 * size says (1 byte, 2, 4: Linux's spcr.c makes them "mmio", "mmio16",
 * "mmio32"), else its bit width; I/O ports are 1 apart.
 */
static u8 spcr_stride(const struct acpi_gas *g)
{
	if (g->space_id == ACPI_GAS_IO)
		return 1;
	if (g->access_size >= 1 && g->access_size <= 3)
		return (u8)(1u << (g->access_size - 1));
	return g->bit_width == 32 ? 4 : g->bit_width == 16 ? 2 : 1;
}

int acpi_parse_spcr(const void *table, size_t len, struct spcr_info *out)
{
	static const u32 bauds[8] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };
	const u8 *t = table;
	u32 tlen = table_len(t, len, "SPCR", SPCR_LEN, "SPCR");
	struct acpi_gas g;
	u8 code;

	memset(out, 0, sizeof(*out));
	if (!tlen)
		return -1;
	g = rd_gas(t + SPCR_BASE);
	code = t[SPCR_BAUD];
	out->interface_type = t[36];
	out->mmio = g.space_id == ACPI_GAS_MEMORY;
	out->address = g.address;
	out->reg_stride = spcr_stride(&g);
	out->access_bytes = out->mmio ? out->reg_stride : 1;
	out->baud = code < ARRAY_SIZE(bauds) ? bauds[code] : 0;
	out->gsi = rd32(t + SPCR_GSI);
	if (code && !out->baud)
		pr_warn("ACPI: SPCR: baud rate code %u unknown; keeping the UART's rate\n", code);
	if (out->interface_type != SPCR_16550 && out->interface_type != SPCR_16450 &&
	    out->interface_type != SPCR_16550_GAS) {
		pr_warn("ACPI: SPCR: interface type 0x%x is not a 16550; not used\n",
			out->interface_type);
		return 0;
	}
	if ((g.space_id != ACPI_GAS_IO && g.space_id != ACPI_GAS_MEMORY) || !g.address ||
	    (g.space_id == ACPI_GAS_IO && g.address > 0xfff8) || g.address >= PHYS_ADDR_MAX) {
		pr_warn("ACPI: SPCR: UART at 0x%llx in address space %u is unusable\n", g.address,
			g.space_id);
		return 0;
	}
	out->usable = true;
	return 0;
}

int acpi_dsdt_s5_type(const void *dsdt, size_t len)
{
	const u8 *d = dsdt;

	for (size_t i = HEADER_LEN; i + 8 < len; i++) {
		if (memcmp(d + i, "_S5_", 4) || d[i + 4] != 0x12)
			continue;
		size_t j = i + 5;
		j += (d[j] >> 6) + 1;           /* PkgLength: 1 + the count in its top bits */
		j++;                            /* NumElements */
		if (j >= len)
			return -1;
		if (d[j] == 0x0a && j + 1 < len)
			return d[j + 1];
		if (d[j] == 0x00 || d[j] == 0x01)
			return d[j];
		return -1;
	}
	return -1;
}
