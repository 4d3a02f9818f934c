// SPDX-License-Identifier: MIT
/*
 * mb2.c - fuzz target: the multiboot2 information GRUB hands the kernel,
 * then the memory map built from it and sanitized (kernel/mb2.c,
 * kernel/memmap.c).
 */
#include "fuzz.h"
#include "mb2.h"
#include "memmap.h"

static u8 info[MB2_INFO_MAX] __aligned(8);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct boot_info bi;
	static struct memmap map;
	size_t n = size < sizeof(info) ? size : sizeof(info);

	fuzz_quiet();
	memcpy(info, data, n);                  /* the kernel parses an 8-aligned copy too */
	if (mb2_parse(info, n, &bi) == 0) {
		FUZZ_CHECK(bi.total_size <= n);
		FUZZ_CHECK(bi.nmodules <= MB2_MAX_MODULES);
		FUZZ_CHECK(bi.cmdline && bi.loader_name);
		for (u32 i = 0; i < bi.mmap_count; i++)
			mb2_mmap_entry(&bi, i);
	}
	memmap_from_boot(&bi, &map);
	FUZZ_CHECK(map.n <= MMAP_MAX);
	memmap_sanitize(&map);
	for (u32 i = 0; i < map.n; i++) {
		FUZZ_CHECK(map.e[i].base < map.e[i].end);
		FUZZ_CHECK(i == 0 || map.e[i - 1].end <= map.e[i].base);
	}
	return 0;
}
