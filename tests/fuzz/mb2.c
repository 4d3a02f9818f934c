// SPDX-License-Identifier: MIT
/*
 * mb2.c - fuzz target: the multiboot2 information GRUB hands the kernel,
 * then the memory map built from it and sanitized (kernel/mb2.c,
 * kernel/memmap.c).
 *
 * The oracle: the harness walks the tags itself (from byte 8, each at the
 * previous one's size rounded up to 8, while a whole 8-byte tag header
 * fits in min(total_size, bytes given); a size below 8 or past that end,
 * or the end tag, stops the walk) and says what boot_info must hold:
 *   - parsed (0) exactly when 16 bytes are given and total_size >= 16;
 *     refused, every string is "" and nothing else is set;
 *   - ntags counts the tag headers read, total_size where the walk ended;
 *   - for each kind, the last well-formed tag wins (modules: the first
 *     MB2_MAX_MODULES): cmdline and loader name point at their tag's
 *     payload and end in a NUL inside it, or are "" outside the input;
 *     a module's start and end are its bytes @8, @12 (end >= start) and
 *     its string @16 ends inside it; meminfo @8, @12; the memory map and
 *     the EFI map point at @16 of their tag, entry size @8 (a multiple of
 *     8, at least 24 / 40), count the whole entries the tag holds, and
 *     each entry read back equals its bytes; RSDP copies point at @8 with
 *     the tag's payload length (>= 20 / >= 36); the EFI system table is
 *     the u32 @8 (type 11) or u64 @8 (type 12); the load base the u32 @8;
 *     a framebuffer only from a tag that describes a sane one;
 *   - nproblems counts malformed known tags, a stop before the end tag,
 *     an end tag of size other than 8, a missing end tag and a total_size
 *     past the bytes given;
 *   - the memory map built from it satisfies memmap_oracle.h against the
 *     entries in the bytes (e820 first, then EFI descriptors, then
 *     meminfo's two ranges; an EFI descriptor of more than 2^52 pages
 *     says nothing, as memmap_from_boot() drops it); past MMAP_MAX
 *     entries usable ones must give way to the others, and only when
 *     more than MMAP_MAX are not usable may some of those be lost.
 */
#include "fuzz.h"
#include "mb2.h"
#include "memmap_oracle.h"

static u8 info[MB2_INFO_MAX] __aligned(8);

static u64 le(const u8 *p, unsigned n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* What the oracle expects, as offsets of tags in info (0: none). */
struct want {
	u32 cmdline, loader, meminfo, mmap, efi_mmap, fb, efi, rsdp_old, rsdp_new, load_base;
	u32 module[MB2_MAX_MODULES], nmodules;
	u32 ntags, total, problems;
};

static bool string_in(const u8 *p, u32 len)
{
	return len && memchr(p, 0, len);
}

static bool fb_sane(const u8 *t, u32 size)
{
	if (size < 32 || (t[29] == MB2_FB_RGB && size < 38))
		return false;
	u64 pitch = le(t + 16, 4), width = le(t + 20, 4), bpp = t[28];
	if (!le(t + 8, 8) || !width || !le(t + 24, 4))
		return false;
	if (t[29] == MB2_FB_EGA_TEXT)
		return pitch >= width * 2;
	return bpp >= 8 && bpp <= 32 && pitch * 8 >= width * bpp;
}

/* Is the tag at off well formed for its type? Records it in w if it is. */
static bool take_tag(struct want *w, u32 type, u32 off, u32 size)
{
	const u8 *t = info + off;

	switch (type) {
	case MB2_TAG_CMDLINE:
	case MB2_TAG_LOADER_NAME:
		if (!string_in(t + 8, size - 8))
			return false;
		*(type == MB2_TAG_CMDLINE ? &w->cmdline : &w->loader) = off;
		return true;
	case MB2_TAG_MODULE:
		if (size < 17 || !string_in(t + 16, size - 16) || le(t + 12, 4) < le(t + 8, 4))
			return false;
		if (w->nmodules < MB2_MAX_MODULES)
			w->module[w->nmodules++] = off;
		return true;
	case MB2_TAG_BASIC_MEMINFO:
		return size >= 16 && (w->meminfo = off);
	case MB2_TAG_MMAP:
		return size >= 16 && le(t + 8, 4) >= 24 && le(t + 8, 4) % 8 == 0 && (w->mmap = off);
	case MB2_TAG_EFI_MMAP:
		return size >= 16 && le(t + 8, 4) >= 40 && le(t + 8, 4) % 8 == 0 &&
		       (w->efi_mmap = off);
	case MB2_TAG_FRAMEBUFFER:
		return fb_sane(t, size) && (w->fb = off);
	case MB2_TAG_EFI32:
		return size >= 12 && (w->efi = off);
	case MB2_TAG_EFI64:
		return size >= 16 && (w->efi = off);
	case MB2_TAG_ACPI_OLD:
		return size >= 28 && (w->rsdp_old = off);
	case MB2_TAG_ACPI_NEW:
		return size >= 44 && (w->rsdp_new = off);
	case MB2_TAG_LOAD_BASE_ADDR:
		return size >= 12 && (w->load_base = off);
	default:
		return true;
	}
}

/* The oracle's own walk of info[0..n). false: the header is unusable. */
static bool walk(struct want *w, size_t n)
{
	u64 total = n >= 16 ? le(info, 4) : 0;
	u32 off = 8;
	bool ended = false;

	if (total < 16)
		return false;
	if (total > n) {
		w->problems++;
		total = n;
	}
	while (off + 8 <= total) {
		u32 type = (u32)le(info + off, 4), size = (u32)le(info + off + 4, 4);
		w->ntags++;
		if (size < 8 || size > total - off) {
			w->problems++;
			break;
		}
		if (type == MB2_TAG_END) {
			w->problems += size != 8;
			ended = true;
			off += 8;
			break;
		}
		w->problems += !take_tag(w, type, off, size);
		off += (size + 7) & ~7u;
	}
	w->problems += !ended;
	w->total = (u32)MIN((u64)off, total);
	return true;
}

static void check_string(const char *s, u32 off, size_t n)
{
	if (!off) {
		FUZZ_CHECK(s && !*s && ((const u8 *)s < info || (const u8 *)s >= info + n));
		return;
	}
	FUZZ_CHECK((const u8 *)s == info + off + 8);
	FUZZ_CHECK(memchr(s, 0, le(info + off + 4, 4) - 8));
}

static void check_info(const struct boot_info *bi, const struct want *w, size_t n)
{
	FUZZ_CHECK(bi->ntags == w->ntags && bi->total_size == w->total);
	FUZZ_CHECK(bi->nproblems == w->problems);
	check_string(bi->cmdline, w->cmdline, n);
	check_string(bi->loader_name, w->loader, n);
	FUZZ_CHECK(bi->nmodules == w->nmodules);
	for (u32 i = 0; i < w->nmodules; i++) {
		const u8 *t = info + w->module[i];
		FUZZ_CHECK(bi->modules[i].start == le(t + 8, 4) && bi->modules[i].end == le(t + 12, 4));
		FUZZ_CHECK((const u8 *)bi->modules[i].cmdline == t + 16);
	}
	FUZZ_CHECK(bi->has_meminfo == !!w->meminfo);
	if (w->meminfo)
		FUZZ_CHECK(bi->mem_lower_kb == le(info + w->meminfo + 8, 4) &&
			   bi->mem_upper_kb == le(info + w->meminfo + 12, 4));
	if (w->mmap) {
		const u8 *t = info + w->mmap;
		u32 esize = (u32)le(t + 8, 4), size = (u32)le(t + 4, 4);
		FUZZ_CHECK(bi->mmap == t + 16 && bi->mmap_entry_size == esize);
		FUZZ_CHECK(bi->mmap_count == (size - 16) / esize);
		for (u32 i = 0; i < bi->mmap_count; i++) {
			struct mb2_mmap_entry e = mb2_mmap_entry(bi, i);
			const u8 *p = t + 16 + i * esize;
			FUZZ_CHECK(e.base == le(p, 8) && e.length == le(p + 8, 8) && e.type == le(p + 16, 4));
		}
	} else {
		FUZZ_CHECK(!bi->mmap && !bi->mmap_count);
	}
	if (w->efi_mmap) {
		const u8 *t = info + w->efi_mmap;
		FUZZ_CHECK(bi->efi_mmap == t + 16 && bi->efi_desc_size == le(t + 8, 4));
		FUZZ_CHECK(bi->efi_desc_version == le(t + 12, 4));
		FUZZ_CHECK(bi->efi_count == (le(t + 4, 4) - 16) / le(t + 8, 4));
	} else {
		FUZZ_CHECK(!bi->efi_mmap && !bi->efi_count);
	}
	FUZZ_CHECK(bi->has_fb == !!w->fb);
	if (w->fb)
		FUZZ_CHECK(bi->fb.addr == le(info + w->fb + 8, 8) && bi->fb.pitch == le(info + w->fb + 16, 4) &&
			   bi->fb.width == le(info + w->fb + 20, 4) && bi->fb.bpp == info[w->fb + 28]);
	FUZZ_CHECK(bi->efi == !!w->efi);
	if (w->efi)
		FUZZ_CHECK(bi->efi_system_table == le(info + w->efi + 8, info[w->efi] == 11 ? 4 : 8));
	FUZZ_CHECK(bi->rsdp_old == (w->rsdp_old ? info + w->rsdp_old + 8 : NULL));
	FUZZ_CHECK(!w->rsdp_old || bi->rsdp_old_len == le(info + w->rsdp_old + 4, 4) - 8);
	FUZZ_CHECK(bi->rsdp_new == (w->rsdp_new ? info + w->rsdp_new + 8 : NULL));
	FUZZ_CHECK(!w->rsdp_new || bi->rsdp_new_len == le(info + w->rsdp_new + 4, 4) - 8);
	FUZZ_CHECK(bi->has_load_base == !!w->load_base);
	FUZZ_CHECK(!w->load_base || bi->load_base == le(info + w->load_base + 8, 4));
}

/* EFI memory types to E820 (UEFI spec, EFI_MEMORY_TYPE), as the kernel must map them. */
static u32 efi_type(u32 t)
{
	return t == 1 || t == 2 || t == 3 || t == 4 || t == 7 ? E820_USABLE : t == 9 ? E820_ACPI :
	       t == 10 ? E820_NVS : t == 8 ? E820_UNUSABLE : t == 14 ? E820_PMEM : E820_RESERVED;
}

/* The entries the bytes give, in memmap terms, as memmap_from_boot() must read them. */
static u32 given_entries(const struct want *w, struct memmap_entry *g)
{
	u32 n = 0;

	if (w->mmap && le(info + w->mmap + 4, 4) - 16 >= le(info + w->mmap + 8, 4)) {
		const u8 *t = info + w->mmap;
		u32 esize = (u32)le(t + 8, 4), count = (u32)(le(t + 4, 4) - 16) / esize;
		for (u32 i = 0; i < count; i++) {
			const u8 *p = t + 16 + i * esize;
			g[n++] = (struct memmap_entry){ le(p, 8), le(p, 8) + le(p + 8, 8), (u32)le(p + 16, 4) };
		}
	} else if (w->efi_mmap && le(info + w->efi_mmap + 4, 4) - 16 >= le(info + w->efi_mmap + 8, 4)) {
		const u8 *t = info + w->efi_mmap;
		u32 dsize = (u32)le(t + 8, 4), count = (u32)(le(t + 4, 4) - 16) / dsize;
		for (u32 i = 0; i < count; i++) {
			const u8 *p = t + 16 + i * dsize;
			u64 pages = le(p + 24, 8);
			if (pages >> 52)
				continue;
			g[n++] = (struct memmap_entry){ le(p + 8, 8), le(p + 8, 8) + (pages << 12),
							efi_type((u32)le(p, 4)) };
		}
	} else if (w->meminfo) {
		g[n++] = (struct memmap_entry){ 0, le(info + w->meminfo + 8, 4) << 10, E820_USABLE };
		g[n++] = (struct memmap_entry){ 1 << 20, (1 << 20) + (le(info + w->meminfo + 12, 4) << 10),
						E820_USABLE };
	}
	return n;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct boot_info bi;
	static struct memmap map;
	static struct memmap_entry given[MB2_INFO_MAX / 24];
	struct want w = { 0 };
	size_t n = size < sizeof(info) ? size : sizeof(info);

	fuzz_quiet();
	memcpy(info, data, n);                  /* the kernel parses an 8-aligned copy too */
	int ret = mb2_parse(info, n, &bi);
	FUZZ_CHECK((ret == 0) == walk(&w, n));
	if (ret) {
		FUZZ_CHECK(!*bi.cmdline && !*bi.loader_name && !bi.mmap_count && !bi.ntags);
		return 0;
	}
	check_info(&bi, &w, n);
	memmap_from_boot(&bi, &map);
	FUZZ_CHECK(map.n <= MMAP_MAX);
	memmap_sanitize(&map);
	u32 ngiven = given_entries(&w, given), others = 0;
	for (u32 i = 0; i < ngiven; i++)
		others += given[i].type != E820_USABLE && given[i].base < given[i].end;
	memmap_oracle(given, ngiven, &map, others <= MMAP_MAX);
	return 0;
}
