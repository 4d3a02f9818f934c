// SPDX-License-Identifier: MIT
/*
 * memmap_test.c - kernel/memmap.c on the host: the memory map built from
 * a struct boot_info (E820 entries first, else the EFI map with its types
 * converted, else basic meminfo, else nothing), bad ranges dropped with a
 * warning, the MMAP_MAX bound, type names, RAM types, usable bytes and the
 * printed form. The E820 and EFI arrays live in malloc'd buffers of
 * exactly their size, so ASan sees any read past them.
 */
#include <stdlib.h>
#include <string.h>

#include "kstring.h"
#include "ktest.h"
#include "memmap.h"
#include "host.h"

static struct boot_info bi;
static struct memmap map;
static u8 *e820_mem, *efi_mem;

/* Start from a boot_info with no memory information at all. */
static void reset(void)
{
	free(e820_mem);
	free(efi_mem);
	e820_mem = efi_mem = NULL;
	bi = (struct boot_info){ .cmdline = "", .loader_name = "" };
	memset(&map, 0xa5, sizeof(map));
	host_log_clear();
}

static void set_e820(const struct mb2_mmap_entry *e, u32 n)
{
	size_t bytes = n * sizeof(*e);

	free(e820_mem);
	e820_mem = malloc(bytes ? bytes : 1);
	memcpy(e820_mem, e, bytes);
	bi.mmap = e820_mem;
	bi.mmap_entry_size = sizeof(*e);
	bi.mmap_count = n;
}

struct efi_desc {
	u32 type;
	u64 phys, pages;
};

/* EFI descriptors dsize bytes apart; unused bytes (virt, attribute, padding) are 0xee. */
static void set_efi(const struct efi_desc *d, u32 n, u32 dsize)
{
	size_t bytes = (size_t)n * dsize;

	free(efi_mem);
	efi_mem = malloc(bytes ? bytes : 1);
	memset(efi_mem, 0xee, bytes);
	for (u32 i = 0; i < n; i++) {
		u8 *p = efi_mem + (size_t)i * dsize;

		memcpy(p, &d[i].type, 4);
		memcpy(p + 8, &d[i].phys, 8);
		memcpy(p + 24, &d[i].pages, 8);
	}
	bi.efi_mmap = efi_mem;
	bi.efi_desc_size = dsize;
	bi.efi_desc_version = 1;
	bi.efi_count = n;
}

static void set_meminfo(u32 lower_kb, u32 upper_kb)
{
	bi.has_meminfo = true;
	bi.mem_lower_kb = lower_kb;
	bi.mem_upper_kb = upper_kb;
}

/* Entry i of the map is [base, end) of type. */
#define EXPECT_RANGE(t, i, base_, end_, type_)                          \
	do {                                                            \
		EXPECT_EQ(t, map.e[i].base, base_);                     \
		EXPECT_EQ(t, map.e[i].end, end_);                       \
		EXPECT_EQ(t, map.e[i].type, type_);                     \
	} while (0)

static const struct mb2_mmap_entry qemu_e820[] = {
	{ 0x0, 0x9fc00, E820_USABLE, 0 },
	{ 0x9fc00, 0x400, E820_RESERVED, 0 },
	{ 0xf0000, 0x10000, E820_RESERVED, 0 },
	{ 0x100000, 0x7ee0000, E820_USABLE, 0 },
	{ 0x7fe0000, 0x20000, E820_RESERVED, 0 },
};

/* --- from E820 entries ----------------------------------------------------- */

static void e820_entries_copied(struct ktest *t)
{
	reset();
	set_e820(qemu_e820, 5);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 5);
	EXPECT_EQ(t, map.n, 5);
	EXPECT_STREQ(t, map.source, "e820");
	EXPECT_RANGE(t, 0, 0x0, 0x9fc00, E820_USABLE);
	EXPECT_RANGE(t, 1, 0x9fc00, 0xa0000, E820_RESERVED);
	EXPECT_RANGE(t, 3, 0x100000, 0x7fe0000, E820_USABLE);
	EXPECT_RANGE(t, 4, 0x7fe0000, 0x8000000, E820_RESERVED);
	EXPECT_STREQ(t, host_log(), "");
}

static void e820_types_passed_through(struct ktest *t)
{
	static const struct mb2_mmap_entry e[] = {
		{ 0x1000, 0x1000, E820_ACPI, 0 }, { 0x2000, 0x1000, E820_NVS, 0 },
		{ 0x3000, 0x1000, E820_UNUSABLE, 0 }, { 0x4000, 0x1000, E820_PMEM, 0 },
		{ 0x5000, 0x1000, 12, 0 },
	};

	reset();
	set_e820(e, 5);
	ASSERT_EQ(t, memmap_from_boot(&bi, &map), 5);
	for (u32 i = 0; i < 5; i++)
		EXPECT_EQ(t, map.e[i].type, e[i].type);
}

static void e820_zero_length_dropped(struct ktest *t)
{
	static const struct mb2_mmap_entry e[] = {
		{ 0x0, 0x1000, E820_USABLE, 0 },
		{ 0x5000, 0, E820_USABLE, 0 },
		{ 0x9000, 0x1000, E820_RESERVED, 0 },
	};

	reset();
	set_e820(e, 3);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_RANGE(t, 0, 0x0, 0x1000, E820_USABLE);
	EXPECT_RANGE(t, 1, 0x9000, 0xa000, E820_RESERVED);
}

static void e820_wrapping_range_dropped_with_warning(struct ktest *t)
{
	static const struct mb2_mmap_entry e[] = {
		{ 0x0, 0x1000, E820_USABLE, 0 },
		{ 0xfffffffffffff000ULL, 0x2000, E820_RESERVED, 0 },
		{ 0x100000, 0x1000, E820_USABLE, 0 },
	};

	reset();
	set_e820(e, 3);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_RANGE(t, 1, 0x100000, 0x101000, E820_USABLE);
	EXPECT_STREQ(t, host_log(),
		     "memmap: range at 0xfffffffffffff000 of 0x2000 bytes wraps past 2^64; dropped\n");
}

static void e820_range_up_to_last_byte_kept(struct ktest *t)
{
	static const struct mb2_mmap_entry e[] = {
		{ 0xfffffffffffff000ULL, 0xfff, E820_RESERVED, 0 },
	};

	reset();
	set_e820(e, 1);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 1);
	EXPECT_RANGE(t, 0, 0xfffffffffffff000ULL, UINT64_MAX, E820_RESERVED);
}

static void e820_preferred_over_efi_and_meminfo(struct ktest *t)
{
	static const struct efi_desc d[] = { { 7, 0x200000, 16 } };

	reset();
	set_e820(qemu_e820, 5);
	set_efi(d, 1, 48);
	set_meminfo(639, 1024);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 5);
	EXPECT_STREQ(t, map.source, "e820");
}

static void more_than_max_entries_bounded(struct ktest *t)
{
	enum { N = MMAP_MAX + 44 };
	struct mb2_mmap_entry *e = malloc(N * sizeof(*e));

	ASSERT_TRUE(t, e != NULL);
	for (u32 i = 0; i < N; i++)
		e[i] = (struct mb2_mmap_entry){ (u64)i << 20, 1 << 20, E820_USABLE, 0 };
	reset();
	set_e820(e, N);
	free(e);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), MMAP_MAX);
	EXPECT_RANGE(t, MMAP_MAX - 1, (u64)(MMAP_MAX - 1) << 20, (u64)MMAP_MAX << 20, E820_USABLE);
	EXPECT_EQ(t, host_log_count("memmap: more than 256 ranges; "), 44);
	EXPECT_TRUE(t, host_log_has("0x10000000+0x100000 dropped\n"));
}

/*
 * Past MMAP_MAX a reserved range still gets in, in place of the last
 * usable one: dropped, it would leave the usable range around it usable
 * (found by the mb2 fuzz oracle).
 */
static void reserved_range_past_max_entries_kept(struct ktest *t)
{
	enum { N = MMAP_MAX + 1 };
	struct mb2_mmap_entry *e = malloc(N * sizeof(*e));

	ASSERT_TRUE(t, e != NULL);
	for (u32 i = 0; i < MMAP_MAX; i++)
		e[i] = (struct mb2_mmap_entry){ (u64)i << 20, 1 << 20, E820_USABLE, 0 };
	e[MMAP_MAX] = (struct mb2_mmap_entry){ 0x10000, 0x1000, E820_RESERVED, 0 };
	reset();
	set_e820(e, N);
	free(e);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), MMAP_MAX);
	EXPECT_RANGE(t, MMAP_MAX - 1, 0x10000, 0x11000, E820_RESERVED);
	EXPECT_RANGE(t, MMAP_MAX - 2, (u64)(MMAP_MAX - 2) << 20, (u64)(MMAP_MAX - 1) << 20,
		     E820_USABLE);
	EXPECT_TRUE(t, host_log_has("memmap: more than 256 ranges; usable 0xff00000+0x100000 "
				    "dropped to keep reserved 0x10000+0x1000\n"));
}

static void map_rebuilt_from_scratch(struct ktest *t)
{
	reset();
	set_e820(qemu_e820, 5);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 5);
	set_e820(qemu_e820, 2);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_EQ(t, map.n, 2);
}

/* --- from the EFI memory map ----------------------------------------------- */

static void efi_used_without_e820(struct ktest *t)
{
	static const struct efi_desc d[] = {
		{ 7, 0x100000, 256 },
		{ 0, 0x200000, 1 },
	};

	reset();
	set_efi(d, 2, 48);
	set_meminfo(639, 1024);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_STREQ(t, map.source, "efi");
	EXPECT_RANGE(t, 0, 0x100000, 0x200000, E820_USABLE);
	EXPECT_RANGE(t, 1, 0x200000, 0x201000, E820_RESERVED);
	EXPECT_STREQ(t, host_log(), "");
}

static void efi_types_converted(struct ktest *t)
{
	static const struct { u32 efi, e820; } conv[] = {
		{ 0, E820_RESERVED },           /* reserved */
		{ 1, E820_USABLE },             /* loader code */
		{ 2, E820_USABLE },             /* loader data */
		{ 3, E820_USABLE },             /* boot services code */
		{ 4, E820_USABLE },             /* boot services data */
		{ 5, E820_RESERVED },           /* runtime services code */
		{ 6, E820_RESERVED },           /* runtime services data */
		{ 7, E820_USABLE },             /* conventional */
		{ 8, E820_UNUSABLE },           /* unusable */
		{ 9, E820_ACPI },               /* ACPI reclaim */
		{ 10, E820_NVS },               /* ACPI NVS */
		{ 11, E820_RESERVED },          /* MMIO */
		{ 12, E820_RESERVED },          /* MMIO port space */
		{ 13, E820_RESERVED },          /* PAL code */
		{ 14, E820_PMEM },              /* persistent */
		{ 15, E820_RESERVED },          /* unaccepted (newer spec) */
		{ 0x70000000, E820_RESERVED },  /* OEM */
		{ 0x80000000, E820_RESERVED },  /* OS vendor */
	};
	enum { N = ARRAY_SIZE(conv) };
	struct efi_desc d[N];

	for (u32 i = 0; i < N; i++)
		d[i] = (struct efi_desc){ conv[i].efi, (u64)i << 12, 1 };
	reset();
	set_efi(d, N, 48);
	ASSERT_EQ(t, memmap_from_boot(&bi, &map), N);
	for (u32 i = 0; i < N; i++) {
		if (map.e[i].type != conv[i].e820)
			ktest_log(t, "EFI type 0x%x", conv[i].efi);
		EXPECT_EQ(t, map.e[i].type, conv[i].e820);
	}
}

static void efi_pages_become_bytes(struct ktest *t)
{
	static const struct efi_desc d[] = {
		{ 7, 0x100000, 1 },
		{ 7, 0x40000000, 0x40000 },
	};

	reset();
	set_efi(d, 2, 48);
	ASSERT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_RANGE(t, 0, 0x100000, 0x101000, E820_USABLE);
	EXPECT_RANGE(t, 1, 0x40000000, 0x80000000, E820_USABLE);
}

/* The spec's 40-byte descriptor, packed with no padding, is walked right too. */
static void efi_descriptor_size_40(struct ktest *t)
{
	static const struct efi_desc d[] = {
		{ 7, 0x100000, 2 },
		{ 9, 0x300000, 3 },
		{ 10, 0x400000, 4 },
	};

	reset();
	set_efi(d, 3, 40);
	ASSERT_EQ(t, memmap_from_boot(&bi, &map), 3);
	EXPECT_RANGE(t, 0, 0x100000, 0x102000, E820_USABLE);
	EXPECT_RANGE(t, 1, 0x300000, 0x303000, E820_ACPI);
	EXPECT_RANGE(t, 2, 0x400000, 0x404000, E820_NVS);
}

static void efi_zero_pages_dropped(struct ktest *t)
{
	static const struct efi_desc d[] = {
		{ 7, 0x100000, 0 },
		{ 7, 0x200000, 1 },
	};

	reset();
	set_efi(d, 2, 48);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 1);
	EXPECT_RANGE(t, 0, 0x200000, 0x201000, E820_USABLE);
}

static void efi_absurd_page_count_dropped(struct ktest *t)
{
	static const struct efi_desc d[] = {
		{ 7, 0x100000, 1 },
		{ 7, 0x0, 1ULL << 52 },
		{ 7, 0x0, UINT64_MAX },
	};

	reset();
	set_efi(d, 3, 48);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 1);
	EXPECT_RANGE(t, 0, 0x100000, 0x101000, E820_USABLE);
	EXPECT_TRUE(t, host_log_has("memmap: EFI descriptor 1 has 4503599627370496 pages; dropped\n"));
	EXPECT_TRUE(t, host_log_has("memmap: EFI descriptor 2 has 18446744073709551615 pages; dropped\n"));
	EXPECT_EQ(t, host_log_count("\n"), 2);
}

/* The largest page count whose byte size fits in 64 bits is accepted. */
static void efi_largest_page_count_kept(struct ktest *t)
{
	static const struct efi_desc d[] = { { 0, 0x0, UINT64_MAX >> 12 } };

	reset();
	set_efi(d, 1, 48);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 1);
	EXPECT_RANGE(t, 0, 0x0, 0xfffffffffffff000ULL, E820_RESERVED);
}

static void efi_wrapping_range_dropped_with_warning(struct ktest *t)
{
	static const struct efi_desc d[] = { { 11, 0xfffffffffff00000ULL, 0x1000 } };

	reset();
	set_efi(d, 1, 48);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 0);
	EXPECT_TRUE(t, host_log_has("wraps past 2^64; dropped"));
}

/* --- from basic meminfo, or nothing ---------------------------------------- */

static void meminfo_gives_two_ranges(struct ktest *t)
{
	reset();
	set_meminfo(639, 130048);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_STREQ(t, map.source, "meminfo");
	EXPECT_RANGE(t, 0, 0x0, 0x9fc00, E820_USABLE);
	EXPECT_RANGE(t, 1, 0x100000, 0x100000 + (130048ULL << 10), E820_USABLE);
}

static void meminfo_zero_lower_dropped(struct ktest *t)
{
	reset();
	set_meminfo(0, 1024);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 1);
	EXPECT_RANGE(t, 0, 0x100000, 0x200000, E820_USABLE);
}

static void meminfo_upper_max_does_not_overflow(struct ktest *t)
{
	reset();
	set_meminfo(640, UINT32_MAX);
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 2);
	EXPECT_RANGE(t, 1, 0x100000, 0x100000 + ((u64)UINT32_MAX << 10), E820_USABLE);
}

static void nothing_gives_empty_map(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, memmap_from_boot(&bi, &map), 0);
	EXPECT_EQ(t, map.n, 0);
	EXPECT_STREQ(t, map.source, "none");
	EXPECT_STREQ(t, host_log(), "memmap: the boot loader gave no memory information\n");
}

/* --- types, sums, printing ------------------------------------------------- */

static void e820_type_names(struct ktest *t)
{
	EXPECT_STREQ(t, e820_type_name(E820_USABLE), "usable");
	EXPECT_STREQ(t, e820_type_name(E820_RESERVED), "reserved");
	EXPECT_STREQ(t, e820_type_name(E820_ACPI), "ACPI data");
	EXPECT_STREQ(t, e820_type_name(E820_NVS), "ACPI NVS");
	EXPECT_STREQ(t, e820_type_name(E820_UNUSABLE), "unusable");
	EXPECT_STREQ(t, e820_type_name(E820_DISABLED), "disabled");
	EXPECT_STREQ(t, e820_type_name(E820_PMEM), "persistent (type 7)");
}

static void unknown_e820_types_named_unknown(struct ktest *t)
{
	EXPECT_STREQ(t, e820_type_name(0), "type unknown");
	EXPECT_STREQ(t, e820_type_name(8), "type unknown");
	EXPECT_STREQ(t, e820_type_name(12), "type unknown");
	EXPECT_STREQ(t, e820_type_name(UINT32_MAX), "type unknown");
}

static void e820_ram_types(struct ktest *t)
{
	EXPECT_TRUE(t, e820_is_ram(E820_USABLE));
	EXPECT_TRUE(t, e820_is_ram(E820_ACPI));
	EXPECT_TRUE(t, e820_is_ram(E820_NVS));
	EXPECT_TRUE(t, e820_is_ram(E820_PMEM));
	EXPECT_FALSE(t, e820_is_ram(E820_RESERVED));
	EXPECT_FALSE(t, e820_is_ram(E820_UNUSABLE));
	EXPECT_FALSE(t, e820_is_ram(E820_DISABLED));
	EXPECT_FALSE(t, e820_is_ram(0));
	EXPECT_FALSE(t, e820_is_ram(8));
}

static void usable_bytes_counts_only_usable(struct ktest *t)
{
	static const struct mb2_mmap_entry e[] = {
		{ 0x0, 0x9fc00, E820_USABLE, 0 },
		{ 0x9fc00, 0x400, E820_RESERVED, 0 },
		{ 0xe0000, 0x1000, E820_ACPI, 0 },
		{ 0x100000, 0x7ee0000, E820_USABLE, 0 },
		{ 0x8000000, 0x1000, E820_NVS, 0 },
	};

	reset();
	set_e820(e, 5);
	ASSERT_EQ(t, memmap_from_boot(&bi, &map), 5);
	EXPECT_EQ(t, memmap_usable_bytes(&map), 0x9fc00 + 0x7ee0000);
}

static void usable_bytes_of_empty_map_is_zero(struct ktest *t)
{
	reset();
	memmap_from_boot(&bi, &map);
	EXPECT_EQ(t, memmap_usable_bytes(&map), 0);
}

static void print_lists_ranges_like_linux(struct ktest *t)
{
	reset();
	set_e820(qemu_e820, 2);
	ASSERT_EQ(t, memmap_from_boot(&bi, &map), 2);
	memmap_print(&map);
	EXPECT_STREQ(t, host_log(),
		     "memmap: 2 ranges from the e820 map\n"
		     "BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n"
		     "BIOS-e820: [mem 0x000000000009fc00-0x000000000009ffff] reserved\n");
}

static const struct ktest_case memmap_cases[] = {
	KTEST(e820_entries_copied),
	KTEST(e820_types_passed_through),
	KTEST(e820_zero_length_dropped),
	KTEST(e820_wrapping_range_dropped_with_warning),
	KTEST(e820_range_up_to_last_byte_kept),
	KTEST(e820_preferred_over_efi_and_meminfo),
	KTEST(more_than_max_entries_bounded),
	KTEST(reserved_range_past_max_entries_kept),
	KTEST(map_rebuilt_from_scratch),
	KTEST(efi_used_without_e820),
	KTEST(efi_types_converted),
	KTEST(efi_pages_become_bytes),
	KTEST(efi_descriptor_size_40),
	KTEST(efi_zero_pages_dropped),
	KTEST(efi_absurd_page_count_dropped),
	KTEST(efi_largest_page_count_kept),
	KTEST(efi_wrapping_range_dropped_with_warning),
	KTEST(meminfo_gives_two_ranges),
	KTEST(meminfo_zero_lower_dropped),
	KTEST(meminfo_upper_max_does_not_overflow),
	KTEST(nothing_gives_empty_map),
	KTEST(e820_type_names),
	KTEST(unknown_e820_types_named_unknown),
	KTEST(e820_ram_types),
	KTEST(usable_bytes_counts_only_usable),
	KTEST(usable_bytes_of_empty_map_is_zero),
	KTEST(print_lists_ranges_like_linux),
	{},
};
KTEST_SUITE(memmap, memmap_cases);
