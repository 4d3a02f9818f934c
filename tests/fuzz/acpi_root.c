// SPDX-License-Identifier: MIT
/*
 * acpi_root.c - fuzz target: the RSDP and the root table it points to
 * (kernel/acpi_parse.c). The input is an RSDP, then an RSDT or XSDT.
 * A root may list more tables than the kernel reads: it says how many, and
 * writes only the first ACPI_MAX_TABLES.
 */
#include "acpi.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u64 root, entries[ACPI_MAX_TABLES + 1];
	bool is_xsdt;
	size_t rsdp = size < 36 ? size : 36;

	fuzz_quiet();
	acpi_parse_rsdp(data, rsdp, &root, &is_xsdt);
	for (int xsdt = 0; xsdt < 2; xsdt++) {
		entries[ACPI_MAX_TABLES] = 0x5a5a5a5a;
		u32 n = acpi_root_entries(data + rsdp, size - rsdp, xsdt, entries, ACPI_MAX_TABLES);
		FUZZ_CHECK(entries[ACPI_MAX_TABLES] == 0x5a5a5a5a);    /* nothing past max */
		FUZZ_CHECK(n <= size / 4);
	}
	acpi_checksum_ok(data, size);
	return 0;
}
