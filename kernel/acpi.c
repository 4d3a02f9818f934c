// SPDX-License-Identifier: MIT
/*
 * acpi.c - find the firmware's ACPI tables, check each one, keep what we use.
 *
 * The path, as on any PC:
 *
 *   RSDP: GRUB's copies (multiboot2 tags: ACPI 2.0, then 1.0); on a BIOS
 *         machine also the first KiB of the EBDA and 0xe0000-0xfffff,
 *         searched on 16-byte boundaries for "RSD PTR "
 *     -> root table (the XSDT if it is good, else the RSDT:
 *        acpi_choose_root()): mapped, checked, its entries listed
 *       -> each table: mapped (header first, then its length), checked,
 *          printed as Linux prints it, kept in tables[]
 *         -> FACP (and the DSDT it points to), APIC, SRAT, SLIT, MCFG, HPET,
 *            DMAR, IVRS, SPCR: the first good one of each parsed into
 *            `acpi` (acpi_parse.c)
 *
 * Invariants:
 *   - nothing is read that was not mapped first: a table is mapped for its
 *     36-byte header, and only if its length is sane (36 to ACPI_TABLE_MAX)
 *     for the rest;
 *   - a table with a bad checksum is warned about in Linux's words
 *     ("ACPI: Incorrect checksum in table [APIC] - 0x12, should be 0x34")
 *     and used, as Linux does; acpi.checksum=strict refuses it instead;
 *     every table refused is printed as "ACPI: <SIG> at 0x...: <what>;
 *     skipped" and counted in acpi.nbad;
 *   - the XSDT is used if it is good, else the RSDT (acpi_choose_root());
 *   - a table with more entries than testbed's arrays hold is used: the
 *     parsers count and report what did not fit (acpi_parse.c);
 *   - ACPI problems are never fatal: with no RSDP at all the kernel says so
 *     in one line and boots on with `acpi` empty.
 *
 * Command line:
 *   acpi.checksum=warn|strict   warn (default): use tables with bad
 *                          checksums, warning; strict: refuse them
 *                          (the old names: on = strict, off = warn)
 *   acpi.dump=SIG,SIG,...  hex-dump these tables ("all": every one; "RSDP"
 *                          works too) as "acpi: dump SIG 0000: 53 52 ..."
 *                          lines, which is how tests/host/acpi_fixtures.c
 *                          was captured.
 */
#include "acpi.h"
#include "cmdline.h"
#include "format.h"
#include "io.h"
#include "kstring.h"
#include "time.h"
#include "x86.h"
#include "unaligned.h"
#include "printk.h"
#include "vm.h"

#define HEADER_LEN      36
#define RSDP_V1_LEN     20
#define EBDA_SEG_PTR    0x40e   /* BIOS data area: real-mode segment of the EBDA */
#define EBDA_SCAN_LEN   1024    /* the RSDP may be in the EBDA's first KiB */
#define BIOS_ROM_BASE   0xe0000 /* ... or in the BIOS read-only area below 1 MiB */
#define BIOS_ROM_END    0x100000
#define LOW_MEM_END     0xa0000 /* the EBDA lies below the VGA hole */

struct acpi_facts acpi;

/* A table that passed its checks: what acpi_find() searches. */
struct acpi_table {
	char sig[4];
	u64 phys;
	u32 len;
	const u8 *virt;         /* mapped: the whole table is readable */
};

/* Room for every root entry plus the root table and the DSDT. */
static struct acpi_table tables[ACPI_MAX_TABLES + 2];
static u32 ntables;

/* acpi.checksum=warn|strict, and the names before warn became the default: on (strict), off (warn) */
static int checksum_arg;
PARAM_CHOICE("acpi.checksum", checksum_arg, "warn", "strict", "on", "off");

static enum acpi_checksum_policy checksum_policy(void)
{
	return checksum_arg == 1 || checksum_arg == 2 ? ACPI_CHECKSUM_STRICT : ACPI_CHECKSUM_WARN;
}

bool acpi_table_usable(const void *t, u32 len)
{
	return acpi_table_checksum_accepted(t, len, checksum_policy());
}

/* Where use_rsdp() found the RSDP, for acpi_choose_root(). */
static const u8 *rsdp_bytes;
static size_t rsdp_len;

/* acpi.dump=SIG,SIG,...: empty (the default) dumps nothing. */
static char dump_list[128];
PARAM_STR("acpi.dump", dump_list);

/* Copy n bytes of an OEM field to a string, stopping at NUL; '?' for unprintables. */
static void printable(char *dst, const u8 *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? (char)src[i] : '?';
	dst[i] = '\0';
}

/* --- acpi.dump ------------------------------------------------------------- */

/* Whether sig is one of the comma-separated names in acpi.dump (or it says all). */
static bool dump_wanted(const char *sig)
{
	const char *p = dump_list;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if ((n == 4 && !memcmp(p, sig, 4)) || (n == 3 && !memcmp(p, "all", 3)))
			return true;
		p += n + (comma != NULL);
	}
	return false;
}

/* "acpi: dump SRAT 0010: 01 00 ..." : 16 bytes per line, offsets in hex. */
static void dump_bytes(const char *sig, const u8 *t, u32 len)
{
	char line[16 * 3 + 1];

	for (u32 off = 0; off < len; off += 16) {
		u32 n = MIN(16u, len - off);
		size_t used = 0;

		for (u32 i = 0; i < n; i++)
			used += snprintf(line + used, sizeof(line) - used, " %02x", t[off + i]);
		pr_info("acpi: dump %.4s %04x:%s\n", sig, off, line);
	}
}

/* --- checking and keeping tables --------------------------------------------- */

/* "ACPI: SRAT 0x00000000BFFE1234 0000F8 (v01 BOCHS  BXPC     00000001 BXPC 00000001)" */
static void print_table(const u8 *t, u64 pa, u32 len)
{
	char sig[5], oem[7], oem_table[9], creator[5];

	printable(sig, t, 4);
	printable(oem, t + 10, 6);
	printable(oem_table, t + 16, 8);
	printable(creator, t + 28, 4);
	pr_info("ACPI: %-4s 0x%016llX %06X (v%02u %-6s %-8s %08X %-4s %08X)\n", sig,
		pa, len, t[8], oem, oem_table, rd32(t + 24), creator,
		rd32(t + 32));
}

/*
 * Map the table at physical address pa: its header, then, if the length
 * there is sane, all of it. Returns the mapping and *len, or NULL (said
 * and counted in acpi.nbad).
 */
static const u8 *map_table(u64 pa, u32 *len)
{
	const u8 *h;
	char sig[5];
	u32 n;

	if (!pa || !(h = memremap(pa, HEADER_LEN))) {
		pr_warn("ACPI: table at 0x%llx cannot be mapped; skipped\n", pa);
		acpi.nbad++;
		return NULL;
	}
	n = rd32(h + 4);
	if (n < HEADER_LEN || n > ACPI_TABLE_MAX) {
		printable(sig, h, 4);
		pr_warn("ACPI: %s at 0x%llx: length %u is not sane; skipped\n", sig, pa, n);
		acpi.nbad++;
		return NULL;
	}
	h = memremap(pa, n);
	if (!h) {
		acpi.nbad++;    /* memremap has said why */
		return NULL;
	}
	*len = n;
	return h;
}

/* Print a checked table's line (and its dump, if asked for) and keep it in tables[]. */
static bool remember_table(const u8 *t, u64 pa, u32 len)
{
	print_table(t, pa, len);
	if (dump_wanted((const char *)t))
		dump_bytes((const char *)t, t, len);
	if (ntables == ARRAY_SIZE(tables))
		return false;   /* cannot happen: there is room for all we read */
	tables[ntables] = (struct acpi_table){ .phys = pa, .len = len, .virt = t };
	memcpy(tables[ntables].sig, t, 4);
	ntables++;
	return true;
}

/*
 * Check a mapped table's checksum (a bad one is warned about; used unless
 * acpi.checksum=strict) and remember it. False (said, counted) if refused.
 */
static bool keep_table(const u8 *t, u64 pa, u32 len)
{
	char sig[5];

	if (acpi_table_usable(t, len))
		return remember_table(t, pa, len);
	printable(sig, t, 4);
	pr_warn("ACPI: %s at 0x%llx: bad checksum; skipped (acpi.checksum=strict)\n", sig, pa);
	if (dump_wanted((const char *)t))
		dump_bytes((const char *)t, t, len);    /* refused ones too: to see why */
	acpi.nbad++;
	return false;
}

/* Map, check and keep the table at pa; the mapping, or NULL if refused. */
static const u8 *load_table(u64 pa, u32 *len)
{
	const u8 *t = map_table(pa, len);

	if (!t || !keep_table(t, pa, *len))
		return NULL;
	return t;
}

/* --- finding the RSDP -------------------------------------------------------- */

/* Try an RSDP candidate of len bytes; on success set acpi.rsdp/root and say so. */
static bool use_rsdp(const u8 *r, size_t len, u64 pa, const char *where)
{
	u32 rlen = RSDP_V1_LEN;
	char oem[7];

	if (acpi_parse_rsdp(r, len, &acpi.root, &acpi.is_xsdt))
		return false;
	if (r[15] >= 2 && len >= HEADER_LEN)
		rlen = rd32(r + 20);    /* checked by acpi_parse_rsdp: <= len */
	acpi.rsdp = pa;
	rsdp_bytes = r;
	rsdp_len = len;
	printable(oem, r + 9, 6);
	pr_info("ACPI: RSDP found in %s\n", where);
	pr_info("ACPI: RSDP 0x%016llX %06X (v%02u %-6s)\n", pa, rlen, r[15],
		oem);
	if (dump_wanted("RSDP"))
		dump_bytes("RSDP", r, rlen);
	return true;
}

/* Search [base, base + size) on 16-byte boundaries, as the spec says (5.2.5.1). */
static bool scan_for_rsdp(u64 base, u64 size, const char *where)
{
	const u8 *p = memremap(base, size);

	if (!p)
		return false;
	for (u64 off = 0; off + RSDP_V1_LEN <= size; off += 16) {
		if (!memcmp(p + off, "RSD PTR ", 8) &&
		    use_rsdp(p + off, size - off, base + off, where))
			return true;
	}
	return false;
}

static bool find_rsdp(const struct boot_info *bi)
{
	const u8 *bda;
	u64 ebda;
	u16 seg;

	if (bi->rsdp_new &&
	    use_rsdp(bi->rsdp_new, bi->rsdp_new_len, virt_to_phys(bi->rsdp_new),
		     "GRUB's copy (multiboot2 ACPI 2.0 tag)"))
		return true;
	if (bi->rsdp_old &&
	    use_rsdp(bi->rsdp_old, bi->rsdp_old_len, virt_to_phys(bi->rsdp_old),
		     "GRUB's copy (multiboot2 ACPI 1.0 tag)"))
		return true;
	if (bi->efi)
		return false;   /* UEFI: the system table has it; GRUB passes it on */
	bda = memremap(EBDA_SEG_PTR, sizeof(seg));
	if (bda) {
		memcpy(&seg, bda, sizeof(seg));
		ebda = (u64)seg << 4;
		if (ebda >= 0x400 && ebda < LOW_MEM_END &&
		    scan_for_rsdp(ebda, MIN((u64)EBDA_SCAN_LEN, LOW_MEM_END - ebda), "the EBDA"))
			return true;
	}
	return scan_for_rsdp(BIOS_ROM_BASE, BIOS_ROM_END - BIOS_ROM_BASE,
			     "the BIOS area 0xe0000-0xfffff");
}

/* --- the root table and what it lists ----------------------------------------- */

/* acpi_choose_root()'s view of physical memory: mapped, cached as RAM. */
static const void *map_for_root(void *ctx, u64 pa, u32 len)
{
	(void)ctx;
	return memremap(pa, len);
}

static void load_root(void)
{
	struct acpi_root r;
	const char *name;
	u64 addr[ACPI_MAX_TABLES];
	u32 len, n;

	if (acpi_choose_root(rsdp_bytes, rsdp_len, map_for_root, NULL, checksum_policy(), &r)) {
		acpi.nbad++;
		return;
	}
	acpi.root = r.pa;
	acpi.is_xsdt = r.is_xsdt;
	name = acpi.is_xsdt ? "XSDT" : "RSDT";
	remember_table(r.table, r.pa, r.len);
	n = acpi_root_entries(r.table, r.len, acpi.is_xsdt, addr, ACPI_MAX_TABLES);
	if (n > ACPI_MAX_TABLES)
		pr_warn("ACPI: %s lists %u tables; only the first %d are read\n", name, n,
			ACPI_MAX_TABLES);
	acpi.ntables = n;
	for (u32 i = 0; i < MIN(n, (u32)ACPI_MAX_TABLES); i++)
		load_table(addr[i], &len);
}

const void *acpi_find(const char *sig, u32 *len)
{
	for (u32 i = 0; i < ntables; i++) {
		if (!memcmp(tables[i].sig, sig, 4)) {
			if (len)
				*len = tables[i].len;
			return tables[i].virt;
		}
	}
	return NULL;
}

void acpi_table_signatures(char *buf, size_t size)
{
	struct words sigs = words_start(buf, size);

	for (u32 i = 0; i < ntables; i++)
		if (acpi_find(tables[i].sig, NULL) == tables[i].virt &&  /* the first of its name */
		    !words_add(&sigs, tables[i].sig, 4))
			break;
}

/* --- the tables we use, and one summary line each ------------------------------- */

static const char *space_name(u8 space_id)
{
	return space_id == ACPI_GAS_IO ? "I/O" : space_id == ACPI_GAS_MEMORY ? "memory" : "space";
}

static void print_fadt(const struct fadt_info *f)
{
	char reset[64] = "no reset register";

	if (f->reset_supported)
		snprintf(reset, sizeof(reset), "reset %s 0x%llx value 0x%x",
			 space_name(f->reset_reg.space_id), f->reset_reg.address, f->reset_value);
	pr_info("ACPI: FADT: SCI IRQ %u, PM timer %s 0x%llx (%s), %s\n", f->sci_irq,
		space_name(f->pm_timer.space_id), f->pm_timer.address,
		f->pm_timer_32bit ? "32-bit" : "24-bit", reset);
}

static void print_madt(const struct madt_info *m)
{
	u32 enabled = 0;

	for (u32 i = 0; i < m->ncpus; i++)
		enabled += m->cpus[i].enabled;
	pr_info("ACPI: MADT: %u CPU%s (%u enabled), %u I/O APIC%s, %u overrides, "
		"LAPIC at 0x%llx\n", m->ncpus, m->ncpus == 1 ? "" : "s", enabled, m->nioapics,
		m->nioapics == 1 ? "" : "s", m->noverrides, m->lapic_address);
}

static void print_srat(const struct srat_info *s)
{
	pr_info("ACPI: SRAT: %u CPU and %u memory affinities\n", s->ncpus, s->nmem);
	for (u32 i = 0; i < s->ncpus; i++)
		pr_debug("ACPI: SRAT: %sAPIC %u -> PXM %u\n", s->cpus[i].x2apic ? "x2" : "",
			 s->cpus[i].apic_id, s->cpus[i].pxm);
	for (u32 i = 0; i < s->nmem; i++)
		pr_info("ACPI: SRAT: PXM %u mem 0x%llx-0x%llx%s%s\n", s->mem[i].pxm,
			s->mem[i].base, s->mem[i].end,
			s->mem[i].hotplug ? " hotplug" : "",
			s->mem[i].nonvolatile ? " non-volatile" : "");
}

static void print_slit(const struct slit_info *s)
{
	char row[MAX_NODES * 4 + 1];

	pr_info("ACPI: SLIT: %u localities\n", s->n);
	for (u32 i = 0; i < s->n; i++) {
		size_t used = 0;

		for (u32 j = 0; j < s->n; j++)
			used += snprintf(row + used, sizeof(row) - used, " %u", s->dist[i][j]);
		pr_info("ACPI: SLIT: %u:%s\n", i, row);
	}
}

static void print_mcfg(const struct mcfg_info *m)
{
	for (u32 i = 0; i < m->n; i++)
		pr_info("ACPI: MCFG: segment %u buses 0x%02x-0x%02x at 0x%llx\n", m->e[i].segment,
			m->e[i].bus_start, m->e[i].bus_end, m->e[i].base);
}

static void print_hpet(const struct hpet_info *h)
{
	pr_info("ACPI: HPET: timer block %u at 0x%llx, minimum tick %u\n", h->number,
		h->address, h->min_tick);
}

static void print_dmar(const struct dmar_info *d)
{
	pr_info("ACPI: DMAR: %u DRHD unit%s, %u reserved memory region%s, DMA width %u bits, "
		"flags 0x%x%s%s\n", d->ndrhd, d->ndrhd == 1 ? "" : "s", d->nrmrr,
		d->nrmrr == 1 ? "" : "s", d->host_address_width + 1, d->flags,
		d->flags & DMAR_INTR_REMAP ? " (interrupt remapping)" : "",
		d->flags & DMAR_X2APIC_OPT_OUT ? " (x2APIC opt-out)" : "");
}

static void print_ivrs(const struct ivrs_info *v)
{
	pr_info("ACPI: IVRS: %u IOMMU%s in %u IVHD blocks, IVinfo 0x%x\n", v->niommus,
		v->niommus == 1 ? "" : "s", v->nivhd, v->ivinfo);
}

/* The DSDT is not in the root table: the FADT points at it. */
static void load_dsdt(void)
{
	u32 len;
	const u8 *t;

	if (!acpi.fadt.dsdt)
		return;
	t = map_table(acpi.fadt.dsdt, &len);
	if (t && memcmp(t, "DSDT", 4)) {
		pr_warn("ACPI: the FADT's DSDT at 0x%llx has another signature; skipped\n",
			acpi.fadt.dsdt);
		acpi.nbad++;
		return;
	}
	if (t)
		keep_table(t, acpi.fadt.dsdt, len);
}

/*
 * Parse every kept table with signature sig, in root-table order, into a
 * scratch copy; the first one that parses without a problem fills *out.
 * A copy with problems (an entry of length 0, one running past the end,
 * ...) is reported and skipped like a bad checksum: a machine that lists
 * two SRATs, one of them broken, still gets its NUMA layout from the good
 * one. Returns true if some copy was clean.
 */
static bool parse_clean(const char *sig, int (*parse)(const void *, size_t, void *),
			void *out, void *scratch, size_t size)
{
	bool found = false;
	u32 nth = 0;

	for (u32 i = 0; i < ntables; i++) {
		if (memcmp(tables[i].sig, sig, 4))
			continue;
		nth++;
		memset(scratch, 0, size);
		int problems = parse(tables[i].virt, tables[i].len, scratch);
		if (problems != 0) {
			pr_warn("ACPI: %.4s #%u is malformed (%d problem%s); skipped\n", sig, nth,
				problems < 0 ? 1 : problems, problems == 1 || problems < 0 ? "" : "s");
			acpi.nbad++;
			continue;
		}
		if (!found)
			memcpy(out, scratch, size);
		found = true;
	}
	return found;
}

/* The parsers take typed pointers; parse_clean() wants one shape for all. */
#define UNTYPED_PARSER(name, type)                                              \
	static int parse_##name##_untyped(const void *t, size_t len, void *out) \
	{                                                                       \
		return acpi_parse_##name(t, len, (type *)out);                  \
	}
UNTYPED_PARSER(fadt, struct fadt_info)
UNTYPED_PARSER(madt, struct madt_info)
UNTYPED_PARSER(srat, struct srat_info)
UNTYPED_PARSER(slit, struct slit_info)
UNTYPED_PARSER(mcfg, struct mcfg_info)
UNTYPED_PARSER(hpet, struct hpet_info)
UNTYPED_PARSER(dmar, struct dmar_info)
UNTYPED_PARSER(ivrs, struct ivrs_info)
UNTYPED_PARSER(spcr, struct spcr_info)

#define PARSE(sig, name)                                                          \
	({                                                                        \
		static __typeof__(acpi.name) scratch_;                            \
		parse_clean(sig, parse_##name##_untyped, &acpi.name, &scratch_,   \
			    sizeof(scratch_));                                    \
	})

static void parse_tables(void)
{
	acpi.has_fadt = PARSE("FACP", fadt);
	if (acpi.has_fadt)
		load_dsdt();
	acpi.has_madt = PARSE("APIC", madt);
	acpi.has_srat = PARSE("SRAT", srat);
	acpi.has_slit = PARSE("SLIT", slit);
	acpi.has_mcfg = PARSE("MCFG", mcfg);
	acpi.has_hpet = PARSE("HPET", hpet);
	acpi.has_dmar = PARSE("DMAR", dmar);
	acpi.has_ivrs = PARSE("IVRS", ivrs);
	acpi.has_spcr = PARSE("SPCR", spcr);

	if (acpi.has_fadt)
		print_fadt(&acpi.fadt);
	if (acpi.has_madt)
		print_madt(&acpi.madt);
	if (acpi.has_srat)
		print_srat(&acpi.srat);
	if (acpi.has_slit)
		print_slit(&acpi.slit);
	if (acpi.has_mcfg)
		print_mcfg(&acpi.mcfg);
	if (acpi.has_hpet)
		print_hpet(&acpi.hpet);
	if (acpi.has_dmar)
		print_dmar(&acpi.dmar);
	if (acpi.has_ivrs)
		print_ivrs(&acpi.ivrs);
	if (acpi.has_spcr)
		pr_info("ACPI: SPCR: interface 0x%x, %s 0x%llx, stride %u, %u baud%s\n",
			acpi.spcr.interface_type, acpi.spcr.mmio ? "MMIO" : "I/O port",
			acpi.spcr.address, acpi.spcr.reg_stride, acpi.spcr.baud,
			acpi.spcr.baud ? "" : " (as firmware set it)");
}

void acpi_init(const struct boot_info *bi)
{
	if (!find_rsdp(bi)) {
		pr_warn("ACPI: no RSDP found; no ACPI tables\n");
		return;
	}
	load_root();
	parse_tables();
	pr_info("ACPI: %u tables listed in the %s, %u skipped\n", acpi.ntables,
		acpi.is_xsdt ? "XSDT" : "RSDT", acpi.nbad);
}

/* --- for the shell: dumps, reset, power off ------------------------------------ */

bool acpi_dump(const char *sig)
{
	u32 len;
	const u8 *t = acpi_find(sig, &len);

	if (!t)
		return false;
	dump_bytes(sig, t, len);
	return true;
}

/* SLP_TYPa for S5 from the DSDT (acpi_dsdt_s5_type()), or -1. */
static int s5_sleep_type(void)
{
	u32 len;
	const u8 *d = acpi_find("DSDT", &len);

	return d ? acpi_dsdt_s5_type(d, len) : -1;
}

void acpi_poweroff(void)
{
	int typ = s5_sleep_type();

	if (!acpi.has_fadt || !acpi.fadt.pm1a_cnt || typ < 0) {
		pr_err("acpi: cannot power off: %s\n", !acpi.has_fadt ? "no FADT" :
		       !acpi.fadt.pm1a_cnt ? "no PM1a control port" : "no \\_S5 in the DSDT");
		return;
	}
	if (acpi.fadt.smi_cmd && acpi.fadt.acpi_enable && !(inw((u16)acpi.fadt.pm1a_cnt) & 1))
		outb((u16)acpi.fadt.smi_cmd, acpi.fadt.acpi_enable);   /* into ACPI mode (SCI_EN) */
	outw((u16)acpi.fadt.pm1a_cnt, (u16)((typ & 7) << 10 | 1 << 13));      /* SLP_TYP, SLP_EN */
	udelay(100000);
	pr_err("acpi: still running after S5\n");
}

void acpi_reboot(void)
{
	const struct acpi_gas *r = &acpi.fadt.reset_reg;

	if (acpi.has_fadt && acpi.fadt.reset_supported && r->address) {
		if (r->space_id == ACPI_GAS_IO)
			outb((u16)r->address, acpi.fadt.reset_value);
		else if (r->space_id == ACPI_GAS_MEMORY) {
			u8 __iomem *p = ioremap(r->address, 1, VM_UC);
			if (p)
				writeb(acpi.fadt.reset_value, p);
		}
		udelay(50000);
	}
	for (int i = 0; i < 100000 && (inb(0x64) & 2); i++)     /* the keyboard controller */
		;
	outb(0x64, 0xfe);                                       /* pulse the reset line */
	udelay(50000);
	pr_err("acpi: reset did not happen\n");
}
