/* SPDX-License-Identifier: MIT */
/*
 * memmap.h - the machine's physical memory map, as the firmware reported it.
 *
 * Built from the multiboot2 memory-map tag (E820 types), else from the EFI
 * memory map (converted to E820 types), else from the basic lower/upper
 * memory sizes. Ranges are [base, end): end is exclusive.
 */
#ifndef MEMMAP_H
#define MEMMAP_H

#include "mb2.h"
#include "param.h"
#include "types.h"

enum e820_type {
	E820_USABLE = 1,
	E820_RESERVED = 2,
	E820_ACPI = 3,          /* ACPI tables: reclaimable once parsed */
	E820_NVS = 4,           /* ACPI non-volatile storage: never touch */
	E820_UNUSABLE = 5,      /* bad memory */
	E820_DISABLED = 6,
	E820_PMEM = 7,          /* persistent memory */
};

struct memmap_entry {
	u64 base, end;
	u32 type;
};

struct memmap {
	struct memmap_entry e[MMAP_MAX];
	u32 n;
	const char *source;     /* "e820", "efi" or "meminfo" */
};

/* Fill map from the boot information, as given; returns the number of entries. */
u32 memmap_from_boot(const struct boot_info *bi, struct memmap *map);

/*
 * Make the map safe to use, as Linux's e820 sanitizer does: sorted by
 * address; no overlaps, the stricter type winning where entries overlap
 * (usable < persistent < ACPI data < ACPI NVS < reserved and unknown types,
 * 0 among them < unusable); usable memory shrunk to whole pages and every
 * other type, persistent memory too, grown to whole pages; nothing past
 * 2^52 (the architectural limit); no empty ranges; neighbours of one type
 * merged. What stays true, whatever the input (the fuzz target's oracle):
 * a usable byte of the result was usable as given and no entry of another
 * type covered it, and a byte any other entry covered stays in a range at
 * least as strict. Returns true if anything changed, and then says what
 * in one line.
 */
bool memmap_sanitize(struct memmap *map);

/* E820 name for a type: "usable", "reserved", "ACPI data", ... */
const char *e820_type_name(u32 type);

/* Memory the CPU may cache and the direct map covers (usable, ACPI, NVS, pmem). */
bool e820_is_ram(u32 type);

/* Print the map like Linux: "BIOS-e820: [mem 0x...-0x...] usable". */
void memmap_print(const struct memmap *map);

/* The same lines with another label: "sanitized: [mem ...] usable". */
void memmap_print_as(const struct memmap *map, const char *label);

/* Sum of the usable ranges, in bytes. */
u64 memmap_usable_bytes(const struct memmap *map);

/* This boot's map, sanitized (kernel/main.c fills it from the boot information). */
extern struct memmap boot_memmap;

#endif
