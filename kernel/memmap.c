// SPDX-License-Identifier: MIT
/*
 * memmap.c - turn the boot loader's memory information into one list of
 * [base, end) ranges with E820 types, and print it.
 *
 * Three sources, best first: the multiboot2 memory map (E820 entries as the
 * BIOS or GRUB's EFI code gave them), the EFI memory map (types converted
 * the way Linux does after ExitBootServices: boot-services and loader memory
 * become usable), and the basic "lower/upper KiB" sizes. memmap_sanitize()
 * then turns whatever the firmware said into sorted, disjoint, page-aligned
 * ranges: see the comment above it. Entries of zero
 * length are dropped; an entry whose end does not fit in 64 bits is dropped
 * with a warning. Past MMAP_MAX entries usable ones give way: a new usable
 * entry is dropped, a new entry of another type takes the last usable
 * entry's place (memory lost, never memory the firmware kept handed out).
 */
#include "memmap.h"
#include "kstring.h"
#include "param.h"
#include "printk.h"

/* UEFI memory types (UEFI spec, EFI_MEMORY_TYPE). */
enum {
	EFI_RESERVED = 0, EFI_LOADER_CODE, EFI_LOADER_DATA, EFI_BS_CODE, EFI_BS_DATA,
	EFI_RT_CODE, EFI_RT_DATA, EFI_CONVENTIONAL, EFI_UNUSABLE, EFI_ACPI_RECLAIM,
	EFI_ACPI_NVS, EFI_MMIO, EFI_MMIO_PORT, EFI_PAL_CODE, EFI_PERSISTENT,
};

const char *e820_type_name(u32 type)
{
	switch (type) {
	case E820_USABLE: return "usable";
	case E820_RESERVED: return "reserved";
	case E820_ACPI: return "ACPI data";
	case E820_NVS: return "ACPI NVS";
	case E820_UNUSABLE: return "unusable";
	case E820_DISABLED: return "disabled";
	case E820_PMEM: return "persistent (type 7)";
	default: return "type unknown";
	}
}

bool e820_is_ram(u32 type)
{
	return type == E820_USABLE || type == E820_ACPI || type == E820_NVS || type == E820_PMEM;
}

static u32 efi_to_e820(u32 efi_type)
{
	switch (efi_type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BS_CODE:
	case EFI_BS_DATA:
	case EFI_CONVENTIONAL:
		return E820_USABLE;
	case EFI_ACPI_RECLAIM:
		return E820_ACPI;
	case EFI_ACPI_NVS:
		return E820_NVS;
	case EFI_UNUSABLE:
		return E820_UNUSABLE;
	case EFI_PERSISTENT:
		return E820_PMEM;
	default:
		return E820_RESERVED;
	}
}

static void add(struct memmap *map, u64 base, u64 len, u32 type)
{
	if (len == 0)
		return;
	if (base + len < base) {
		pr_warn("memmap: range at 0x%llx of 0x%llx bytes wraps past 2^64; dropped\n",
			base, len);
		return;
	}
	if (map->n == MMAP_MAX && type != E820_USABLE) {
		/*
		 * No room. Dropping usable memory only loses it, but a dropped
		 * reserved range leaves any usable entry around it usable: it
		 * takes the last usable entry's place, if there is one.
		 */
		u32 victim = MMAP_MAX;
		for (u32 i = 0; i < MMAP_MAX; i++)
			if (map->e[i].type == E820_USABLE)
				victim = i;
		if (victim < MMAP_MAX) {
			pr_warn("memmap: more than %u ranges; usable 0x%llx+0x%llx dropped to keep "
				"%s 0x%llx+0x%llx\n", MMAP_MAX, map->e[victim].base,
				map->e[victim].end - map->e[victim].base, e820_type_name(type), base, len);
			memmove(&map->e[victim], &map->e[victim + 1],
				(MMAP_MAX - 1 - victim) * sizeof(map->e[0]));
			map->n--;
		}
	}
	if (map->n == MMAP_MAX) {
		pr_warn("memmap: more than %u ranges; 0x%llx+0x%llx dropped\n", MMAP_MAX,
			base, len);
		return;
	}
	map->e[map->n++] = (struct memmap_entry){ base, base + len, type };
}

u32 memmap_from_boot(const struct boot_info *bi, struct memmap *map)
{
	map->n = 0;
	if (bi->mmap_count) {
		map->source = "e820";
		for (u32 i = 0; i < bi->mmap_count; i++) {
			struct mb2_mmap_entry e = mb2_mmap_entry(bi, i);
			add(map, e.base, e.length, e.type);
		}
	} else if (bi->efi_count) {
		map->source = "efi";
		for (u32 i = 0; i < bi->efi_count; i++) {
			const u8 *d = bi->efi_mmap + (u64)i * bi->efi_desc_size;
			u32 type;
			u64 phys, pages;
			memcpy(&type, d, 4);
			memcpy(&phys, d + 8, 8);
			memcpy(&pages, d + 24, 8);
			if (pages > (UINT64_MAX >> 12)) {
				pr_warn("memmap: EFI descriptor %u has %llu pages; dropped\n", i,
					pages);
				continue;
			}
			add(map, phys, pages << 12, efi_to_e820(type));
		}
	} else if (bi->has_meminfo) {
		map->source = "meminfo";
		add(map, 0, (u64)bi->mem_lower_kb << 10, E820_USABLE);
		add(map, 1 << 20, (u64)bi->mem_upper_kb << 10, E820_USABLE);
	} else {
		map->source = "none";
		pr_err("memmap: the boot loader gave no memory information\n");
	}
	return map->n;
}

void memmap_print_as(const struct memmap *map, const char *label)
{
	for (u32 i = 0; i < map->n; i++)
		pr_info("%s: [mem 0x%016llx-0x%016llx] %s\n", label, map->e[i].base,
			map->e[i].end - 1, e820_type_name(map->e[i].type));
}

void memmap_print(const struct memmap *map)
{
	pr_info("memmap: %u ranges from the %s map\n", map->n, map->source);
	memmap_print_as(map, "BIOS-e820");
}

u64 memmap_usable_bytes(const struct memmap *map)
{
	u64 sum = 0;

	for (u32 i = 0; i < map->n; i++)
		if (map->e[i].type == E820_USABLE)
			sum += map->e[i].end - map->e[i].base;
	return sum;
}

/* How strict a type is when two entries claim the same bytes. */
static int strictness(u32 type)
{
	switch (type) {
	case E820_USABLE: return 1;
	case E820_PMEM: return 2;
	case E820_ACPI: return 3;
	case E820_NVS: return 4;
	case E820_UNUSABLE: return 6;
	default: return 5;     /* reserved, disabled and types we do not know */
	}
}

static void sort_u64(u64 *v, u32 n)
{
	for (u32 i = 1; i < n; i++) {           /* insertion sort: n is small */
		u64 x = v[i];
		u32 j = i;
		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

/*
 * Page-align one entry in place: usable memory shrinks inward, every other
 * type grows outward (a page that is partly reserved, ACPI or persistent
 * memory is never usable). The entry lies below PHYS_ADDR_MAX, a page
 * boundary, so neither end can wrap.
 */
static void align_entry(struct memmap_entry *e)
{
	if (e->type == E820_USABLE) {
		e->base = ALIGN_UP(e->base, 4096UL);
		e->end = ALIGN_DOWN(e->end, 4096UL);
	} else {
		e->base = ALIGN_DOWN(e->base, 4096UL);
		e->end = ALIGN_UP(e->end, 4096UL);
	}
}

/*
 * The method: cut the address space at every entry's base and end; each
 * piece between two cuts gets the strictest type of the entries covering
 * it (or none); then pieces of one type that touch are merged. n entries
 * can make up to 2n - 1 pieces: if the result has no room for one, a
 * usable piece is dropped (memory lost, never memory made up) and any
 * other is joined to the last range with the stricter of the two types
 * (its bytes stay out of the allocator, if less precisely typed).
 */
bool memmap_sanitize(struct memmap *map)
{
	static struct memmap_entry in[MMAP_MAX];
	static u64 cut[2 * MMAP_MAX];
	u32 n = 0, ncut = 0, clipped = 0, dropped = 0, joined = 0;

	for (u32 i = 0; i < map->n; i++) {
		struct memmap_entry e = map->e[i];
		if (e.base >= e.end)
			continue;       /* empty, or an end that wrapped: says nothing */
		if (e.end > PHYS_ADDR_MAX) {
			clipped++;
			if (e.base >= PHYS_ADDR_MAX)
				continue;
			e.end = PHYS_ADDR_MAX;
		}
		align_entry(&e);
		if (e.base >= e.end)
			continue;
		in[n++] = e;
		cut[ncut++] = e.base;
		cut[ncut++] = e.end;
	}
	if (clipped)
		pr_warn("memmap: %u ranges reach past 2^52, beyond any x86-64 address; clipped\n",
			clipped);
	sort_u64(cut, ncut);

	struct memmap out = { .n = 0, .source = map->source };
	for (u32 c = 0; c + 1 < ncut; c++) {
		u64 lo = cut[c], hi = cut[c + 1];
		bool covered = false;
		u32 type = 0;           /* 0 is a type too: an unknown one */

		if (lo == hi)
			continue;
		for (u32 i = 0; i < n; i++)
			if (in[i].base <= lo && hi <= in[i].end &&
			    (!covered || strictness(in[i].type) > strictness(type))) {
				type = in[i].type;
				covered = true;
			}
		if (!covered)
			continue;       /* a hole between entries */
		struct memmap_entry *last = out.n ? &out.e[out.n - 1] : NULL;
		if (last && last->end == lo && last->type == type) {
			last->end = hi;
		} else if (out.n < MMAP_MAX) {
			out.e[out.n++] = (struct memmap_entry){ lo, hi, type };
		} else if (type == E820_USABLE) {
			dropped++;
		} else {
			joined++;
			if (strictness(type) > strictness(last->type))
				last->type = type;
			last->end = hi;
		}
	}

	if (dropped || joined)
		pr_warn("memmap: more than %u ranges after sanitizing: %u usable dropped, %u others "
			"joined to the range before them\n", MMAP_MAX, dropped, joined);

	bool changed = out.n != map->n;
	for (u32 i = 0; !changed && i < out.n; i++)
		changed = out.e[i].base != map->e[i].base || out.e[i].end != map->e[i].end ||
			  out.e[i].type != map->e[i].type;
	if (changed)
		pr_info("memmap: sanitized: %u ranges as given, %u after sorting, resolving overlaps "
			"and aligning to pages\n", map->n, out.n);
	*map = out;
	return changed;
}
