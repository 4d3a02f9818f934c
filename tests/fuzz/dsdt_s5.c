// SPDX-License-Identifier: MIT
/*
 * dsdt_s5.c - fuzz target: the byte scan for \_S5 in a DSDT that poweroff
 * relies on (acpi_dsdt_s5_type(), kernel/acpi_parse.c).
 */
#include "acpi.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	int type = acpi_dsdt_s5_type(data, size);

	FUZZ_CHECK(type >= -1 && type <= 255);
	return 0;
}
