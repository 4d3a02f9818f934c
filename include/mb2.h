/* SPDX-License-Identifier: MIT */
/*
 * mb2.h - the multiboot2 boot information GRUB hands the kernel.
 *
 * The information is a list of tags after an 8-byte header:
 *
 *   +0  u32 total_size   +4 u32 reserved
 *   +8  tag: u32 type, u32 size, payload...   (each tag 8-byte aligned)
 *       ...
 *       end tag: type 0, size 8
 *
 * mb2_parse() checks the structure (total size, alignment, every tag inside
 * the info, each known tag big enough for its payload), skips unknown tags,
 * reports problems with "mb2:" warnings, and fills a struct boot_info whose
 * pointers point into the same buffer. It reads nothing outside
 * info[0..avail), whatever the bytes say.
 */
#ifndef MB2_H
#define MB2_H

#include "types.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289     /* in EAX when GRUB jumps to us */

enum mb2_tag_type {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_LOADER_NAME = 2,
	MB2_TAG_MODULE = 3,
	MB2_TAG_BASIC_MEMINFO = 4,
	MB2_TAG_BOOTDEV = 5,
	MB2_TAG_MMAP = 6,
	MB2_TAG_VBE = 7,
	MB2_TAG_FRAMEBUFFER = 8,
	MB2_TAG_ELF_SECTIONS = 9,
	MB2_TAG_APM = 10,
	MB2_TAG_EFI32 = 11,
	MB2_TAG_EFI64 = 12,
	MB2_TAG_SMBIOS = 13,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
	MB2_TAG_NETWORK = 16,
	MB2_TAG_EFI_MMAP = 17,
	MB2_TAG_EFI_BS = 18,
	MB2_TAG_EFI32_IH = 19,
	MB2_TAG_EFI64_IH = 20,
	MB2_TAG_LOAD_BASE_ADDR = 21,
};

/* One entry of the memory-map tag (E820 types: 1 usable, 2 reserved, ...). */
struct mb2_mmap_entry {
	u64 base;
	u64 length;
	u32 type;
	u32 reserved;
};

enum mb2_fb_type { MB2_FB_INDEXED = 0, MB2_FB_RGB = 1, MB2_FB_EGA_TEXT = 2 };

struct mb2_framebuffer {
	u64 addr;               /* physical */
	u32 pitch;              /* bytes per line */
	u32 width, height;      /* pixels, or characters for EGA text */
	u8 bpp;
	u8 type;                /* enum mb2_fb_type */
	u8 red_pos, red_size;   /* MB2_FB_RGB only: bit position and width */
	u8 green_pos, green_size;
	u8 blue_pos, blue_size;
};

#define MB2_MAX_MODULES 16

struct mb2_module {
	u32 start, end;         /* physical, end exclusive */
	const char *cmdline;
};

struct boot_info {
	const char *cmdline;            /* "" when GRUB gave none */
	const char *loader_name;        /* "" when absent */

	bool has_meminfo;               /* basic meminfo: KiB below 1 MiB / above 1 MiB */
	u32 mem_lower_kb, mem_upper_kb;

	const u8 *mmap;                 /* E820-style entries, mmap_entry_size apart */
	u32 mmap_entry_size, mmap_count;

	const u8 *efi_mmap;             /* EFI memory descriptors, efi_desc_size apart */
	u32 efi_desc_size, efi_desc_version, efi_count;

	bool has_fb;
	struct mb2_framebuffer fb;

	const u8 *rsdp_old;             /* ACPI 1.0 RSDP copy (20 bytes) */
	u32 rsdp_old_len;
	const u8 *rsdp_new;             /* ACPI 2.0+ RSDP copy (36+ bytes) */
	u32 rsdp_new_len;

	bool efi;                       /* booted through UEFI (EFI system table tag seen) */
	u64 efi_system_table;

	bool has_load_base;
	u64 load_base;                  /* physical address the image was loaded at */

	struct mb2_module modules[MB2_MAX_MODULES];
	u32 nmodules;

	u64 info_phys;                  /* where GRUB left it: set by the kernel, not the parser */
	u32 total_size;                 /* bytes of info actually parsed */
	u32 ntags;                      /* tags seen, end tag included */
	u32 nproblems;                  /* warnings printed */
};

/*
 * Parse the info at buf[0..avail). Returns 0 with *bi filled (problems are
 * warned about and counted in bi->nproblems), or -1 if the header itself is
 * unusable, in which case *bi is empty (every string "").
 */
int mb2_parse(const void *buf, size_t avail, struct boot_info *bi);

extern struct boot_info boot_info;      /* this boot's (kernel/main.c) */

/*
 * The kernel's C entry (kernel/main.c), called from boot/boot.asm on the
 * boot stack with GRUB's EAX (MB2_BOOTLOADER_MAGIC) and the information's
 * physical address.
 */
void kernel_main(u64 magic, u64 info_phys);

/* Entry i of the memory-map tag (0 <= i < bi->mmap_count). */
struct mb2_mmap_entry mb2_mmap_entry(const struct boot_info *bi, u32 i);

#endif
