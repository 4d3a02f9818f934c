// SPDX-License-Identifier: MIT
/*
 * dsdt_s5.c - fuzz target: the byte scan for \_S5 in a DSDT that poweroff
 * relies on (acpi_dsdt_s5_type(), kernel/acpi_parse.c).
 *
 * What the scan accepts, exactly: the first place i >= 36 (past the
 * header) where "_S5_" and 0x12 (PackageOp) start, with at least 9 bytes
 * from i on; after them a PkgLength of 1 + (its lead byte >> 6) bytes and
 * one NumElements byte; then, at j, BytePrefix 0x0a and a value (j + 1
 * inside the table), or ZeroOp 0x00 / OneOp 0x01. Nothing else is
 * decoded: a first match whose element is anything else (a WordPrefix,
 * a name) gives -1, as does no match.
 *
 * The oracle, a second scan of the bytes written apart: if a type is
 * reported, such a first match exists and the byte at its element (or
 * after its BytePrefix) is that type; if -1 is reported, the first match
 * (if any) has no such element.
 */
#include "acpi.h"
#include "fuzz.h"

/* The type the bytes spell out at the first "_S5_" 0x12 past the header, or -1. */
static int s5_in_bytes(const u8 *d, size_t len)
{
	static const u8 pattern[5] = { '_', 'S', '5', '_', 0x12 };

	for (size_t i = 36; i + 9 <= len; i++) {
		if (memcmp(d + i, pattern, sizeof(pattern)))
			continue;
		size_t element = i + 5 + 1 + (d[i + 5] >> 6) + 1;
		if (element < len && d[element] == 0x0a)
			return element + 1 < len ? d[element + 1] : -1;
		return element < len && d[element] <= 0x01 ? d[element] : -1;
	}
	return -1;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	fuzz_quiet();
	FUZZ_CHECK(acpi_dsdt_s5_type(data, size) == s5_in_bytes(data, size));
	return 0;
}
