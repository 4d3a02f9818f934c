// SPDX-License-Identifier: MIT
/*
 * acpi_root.c - fuzz target: the RSDP and the root table it points to
 * (kernel/acpi_parse.c). The input is an RSDP (its first 36 bytes), then
 * an RSDT or XSDT; physical addresses are offsets into the whole input.
 *
 * The oracle, from the bytes alone:
 *   - acpi_parse_rsdp() succeeds exactly when the signature is "RSD PTR ",
 *     the first 20 bytes sum to 0 and, for revision >= 2 with 36 bytes
 *     given, the length @20 lies in [36, bytes given] and that many bytes
 *     sum to 0; and either address is non-zero. The root is the XSDT @24
 *     (revision >= 2, below 2^52) when set, else the RSDT @16.
 *   - acpi_root_entries(), read as an RSDT and as an XSDT: none unless the
 *     signature matches and the length @4 lies in [36, bytes given]; then
 *     there are (length - 36) / 4 (or 8) entries, and each one written is
 *     the 4 (or 8) bytes at 36 + i * size, in order; nothing past max.
 *   - acpi_choose_root(), strict and warning about checksums: it picks a
 *     table only if the RSDP is good; the table it picks is the RSDP's
 *     XSDT or RSDT, lies inside the input, has the right signature and a
 *     length in [36, ACPI_TABLE_MAX] (a good checksum if strict); and when
 *     the XSDT is good, it is the one picked.
 */
#include "acpi.h"
#include "fuzz.h"

static const u8 *input;
static size_t input_size;

static u64 le(const u8 *p, unsigned n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static bool sums_to_zero(const u8 *p, size_t n)
{
	u8 sum = 0;

	while (n--)
		sum = (u8)(sum + *p++);
	return sum == 0;
}

static const void *map(void *ctx, u64 pa, u32 len)
{
	(void)ctx;
	return pa <= input_size && len <= input_size - pa ? input + pa : NULL;
}

/* Is the table at pa one acpi_choose_root() may pick as sig? */
static bool root_good(u64 pa, const char *sig, bool strict)
{
	if (!pa || pa > input_size || input_size - pa < 36 || memcmp(input + pa, sig, 4))
		return false;
	u64 len = le(input + pa + 4, 4);
	return len >= 36 && len <= ACPI_TABLE_MAX && len <= input_size - pa &&
	       (!strict || sums_to_zero(input + pa, len));
}

static void check_rsdp(const u8 *r, size_t n)
{
	u64 root = 0, want_rsdt = n >= 20 ? le(r + 16, 4) : 0, want_xsdt = 0;
	bool is_xsdt = false, good = n >= 20 && !memcmp(r, "RSD PTR ", 8) && sums_to_zero(r, 20);

	if (good && r[15] >= 2 && n >= 36) {
		u64 len = le(r + 20, 4);
		good = len >= 36 && len <= n && sums_to_zero(r, len);
		want_xsdt = le(r + 24, 8) < PHYS_ADDR_MAX ? le(r + 24, 8) : 0;
	}
	good &= want_rsdt || want_xsdt;
	FUZZ_CHECK((acpi_parse_rsdp(r, n, &root, &is_xsdt) == 0) == good);
	if (good)
		FUZZ_CHECK(is_xsdt == !!want_xsdt && root == (want_xsdt ? want_xsdt : want_rsdt));

	for (int strict = 0; strict < 2; strict++) {
		struct acpi_root out;
		int ret = acpi_choose_root(r, n, map, NULL, strict ? ACPI_CHECKSUM_STRICT :
							      ACPI_CHECKSUM_WARN, &out);
		FUZZ_CHECK(ret == 0 || ret == -1);
		if (!good) {
			FUZZ_CHECK(ret);
			continue;
		}
		bool xsdt_good = want_xsdt && root_good(want_xsdt, "XSDT", strict);
		FUZZ_CHECK(ret == 0 ||
			   (!xsdt_good && !root_good(want_rsdt, "RSDT", strict)));
		if (ret)
			continue;
		FUZZ_CHECK(out.is_xsdt == xsdt_good);
		FUZZ_CHECK(out.pa == (xsdt_good ? want_xsdt : want_rsdt));
		FUZZ_CHECK(root_good(out.pa, out.is_xsdt ? "XSDT" : "RSDT", strict));
		FUZZ_CHECK(out.table == input + out.pa && out.len == le(out.table + 4, 4));
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u64 entries[ACPI_MAX_TABLES + 1];
	size_t rsdp = size < 36 ? size : 36;
	const u8 *t = data + rsdp;
	size_t n = size - rsdp;

	fuzz_quiet();
	input = data;
	input_size = size;
	check_rsdp(data, rsdp);
	for (int xsdt = 0; xsdt < 2; xsdt++) {
		u32 esize = xsdt ? 8 : 4;
		u64 len = n >= 36 ? le(t + 4, 4) : 0;
		bool good = n >= 36 && !memcmp(t, xsdt ? "XSDT" : "RSDT", 4) && len >= 36 && len <= n;

		entries[ACPI_MAX_TABLES] = 0x5a5a5a5a;
		u32 count = acpi_root_entries(t, n, xsdt, entries, ACPI_MAX_TABLES);
		FUZZ_CHECK(entries[ACPI_MAX_TABLES] == 0x5a5a5a5a);    /* nothing past max */
		FUZZ_CHECK(count == (good ? (len - 36) / esize : 0));
		for (u32 i = 0; i < count && i < ACPI_MAX_TABLES; i++)
			FUZZ_CHECK(entries[i] == le(t + 36 + i * esize, esize));
	}
	return 0;
}
