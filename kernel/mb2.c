// SPDX-License-Identifier: MIT
/*
 * mb2.c - walk and check the multiboot2 boot information.
 *
 * Pure code: it reads only the buffer it is given and writes only *bi, so
 * the host unit tests (tests/host/mb2_test.c) feed it hand-built and broken
 * infos under ASan and UBSan.
 *
 * What is checked, in order:
 *   1. the header: at least 16 bytes (header + end tag), total_size no
 *      larger than what we have (else we parse only what we have, warning);
 *   2. each tag: 8-byte aligned (by construction: we advance by
 *      ALIGN_UP(size, 8)), size >= 8, and entirely inside total_size; a tag
 *      that breaks this ends the walk, since nothing after it can be found;
 *   3. each known tag: big enough for its payload, strings NUL-terminated
 *      inside the tag, entry sizes sane; a bad one is skipped with a warning;
 *   4. the end tag is present.
 * Fields are copied out with memcpy: the info promises 8-byte alignment for
 * tags but nothing for fields inside them.
 */
#include "mb2.h"
#include "kstring.h"
#include "unaligned.h"
#include "printk.h"

static const char empty[] = "";

static void problem(struct boot_info *bi, const char *what, u32 type, u32 offset, u32 size)
{
	bi->nproblems++;
	printk(KERN_WARNING "mb2: tag type %u at offset %u (size %u): %s\n", type, offset, size, what);
}

/* A string payload must hold its NUL inside the tag. */
static const char *tag_string(const u8 *payload, u32 len)
{
	if (len == 0 || !memchr(payload, '\0', len))
		return NULL;
	return (const char *)payload;
}

static bool parse_framebuffer(const u8 *t, u32 size, struct mb2_framebuffer *fb)
{
	if (size < 32)
		return false;
	*fb = (struct mb2_framebuffer){
		.addr = rd64(t + 8),
		.pitch = rd32(t + 16),
		.width = rd32(t + 20),
		.height = rd32(t + 24),
		.bpp = t[28],
		.type = t[29],
	};
	if (fb->type == MB2_FB_RGB) {
		if (size < 38)
			return false;
		fb->red_pos = t[32];
		fb->red_size = t[33];
		fb->green_pos = t[34];
		fb->green_size = t[35];
		fb->blue_pos = t[36];
		fb->blue_size = t[37];
	}
	if (!fb->addr || !fb->width || !fb->height)
		return false;
	if (fb->type == MB2_FB_EGA_TEXT)
		return fb->pitch >= (u64)fb->width * 2;
	return fb->bpp >= 8 && fb->bpp <= 32 &&
	       (u64)fb->pitch * 8 >= (u64)fb->width * fb->bpp;
}

/* Take in one tag already known to lie inside the info; false = malformed. */
static bool parse_tag(struct boot_info *bi, u32 type, const u8 *t, u32 size)
{
	const u8 *payload = t + 8;
	u32 len = size - 8;
	const char *s;

	switch (type) {
	case MB2_TAG_CMDLINE:
	case MB2_TAG_LOADER_NAME:
		if (!(s = tag_string(payload, len)))
			return false;
		if (type == MB2_TAG_CMDLINE)
			bi->cmdline = s;
		else
			bi->loader_name = s;
		return true;
	case MB2_TAG_MODULE: {
		if (size < 17 || !(s = tag_string(t + 16, size - 16)))
			return false;
		u32 start = rd32(t + 8), end = rd32(t + 12);
		if (end < start)
			return false;
		if (bi->nmodules < MB2_MAX_MODULES)
			bi->modules[bi->nmodules++] = (struct mb2_module){ start, end, s };
		return true;
	}
	case MB2_TAG_BASIC_MEMINFO:
		if (size < 16)
			return false;
		bi->has_meminfo = true;
		bi->mem_lower_kb = rd32(t + 8);
		bi->mem_upper_kb = rd32(t + 12);
		return true;
	case MB2_TAG_MMAP: {
		if (size < 16)
			return false;
		u32 esize = rd32(t + 8);
		if (esize < sizeof(struct mb2_mmap_entry) || esize % 8)
			return false;
		bi->mmap = t + 16;
		bi->mmap_entry_size = esize;
		bi->mmap_count = (size - 16) / esize;
		return true;
	}
	case MB2_TAG_FRAMEBUFFER: {
		struct mb2_framebuffer fb;
		if (!parse_framebuffer(t, size, &fb))
			return false;       /* an earlier good one stays */
		bi->fb = fb;
		bi->has_fb = true;
		return true;
	}
	case MB2_TAG_EFI32:
		if (size < 12)
			return false;
		bi->efi = true;
		bi->efi_system_table = rd32(t + 8);
		return true;
	case MB2_TAG_EFI64:
		if (size < 16)
			return false;
		bi->efi = true;
		bi->efi_system_table = rd64(t + 8);
		return true;
	case MB2_TAG_ACPI_OLD:
		if (len < 20)
			return false;
		bi->rsdp_old = payload;
		bi->rsdp_old_len = len;
		return true;
	case MB2_TAG_ACPI_NEW:
		if (len < 36)
			return false;
		bi->rsdp_new = payload;
		bi->rsdp_new_len = len;
		return true;
	case MB2_TAG_EFI_MMAP: {
		if (size < 16)
			return false;
		u32 dsize = rd32(t + 8);
		if (dsize < 40 || dsize % 8)    /* EFI_MEMORY_DESCRIPTOR is 40 bytes */
			return false;
		bi->efi_mmap = t + 16;
		bi->efi_desc_size = dsize;
		bi->efi_desc_version = rd32(t + 12);
		bi->efi_count = (size - 16) / dsize;
		return true;
	}
	case MB2_TAG_LOAD_BASE_ADDR:
		if (size < 12)
			return false;
		bi->has_load_base = true;
		bi->load_base = rd32(t + 8);
		return true;
	default:
		/* Known tags we have no use for, and unknown ones: skip. */
		return true;
	}
}

int mb2_parse(const void *buf, size_t avail, struct boot_info *bi)
{
	const u8 *info = buf;
	u32 total, off;
	bool ended = false;

	*bi = (struct boot_info){ .cmdline = empty, .loader_name = empty };
	if (avail < 16) {
		printk(KERN_ERR "mb2: only %zu bytes of boot information; ignoring it\n", avail);
		return -1;
	}
	total = rd32(info);
	if (total < 16) {
		printk(KERN_ERR "mb2: total_size %u is too small; ignoring the boot information\n",
		       total);
		return -1;
	}
	if (total > avail) {
		printk(KERN_WARNING "mb2: total_size %u but only %zu bytes available; "
		       "tags past that are lost\n", total, avail);
		bi->nproblems++;
		total = (u32)avail;
	}

	for (off = 8; off + 8 <= total; ) {
		u32 type = rd32(info + off), size = rd32(info + off + 4);

		bi->ntags++;
		if (size < 8) {
			problem(bi, "size below 8; stopping here", type, off, size);
			break;
		}
		if (size > total - off) {
			problem(bi, "runs past the end of the info; stopping here", type, off, size);
			break;
		}
		if (type == MB2_TAG_END) {
			if (size != 8)
				problem(bi, "end tag should have size 8", type, off, size);
			ended = true;
			off += 8;
			break;
		}
		if (!parse_tag(bi, type, info + off, size))
			problem(bi, "malformed; skipped", type, off, size);
		off += ALIGN_UP(size, 8u);
	}
	if (!ended) {
		bi->nproblems++;
		printk(KERN_WARNING "mb2: no end tag found within %u bytes\n", total);
	}
	bi->total_size = MIN(off, total);
	return 0;
}

struct mb2_mmap_entry mb2_mmap_entry(const struct boot_info *bi, u32 i)
{
	struct mb2_mmap_entry e;

	memcpy(&e, bi->mmap + (u64)i * bi->mmap_entry_size, sizeof(e));
	return e;
}
