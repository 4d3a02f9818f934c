// SPDX-License-Identifier: MIT
/*
 * mb2_test.c - kernel/mb2.c on the host: a complete multiboot2 info built
 * byte by byte is read back field by field, then broken infos (short
 * headers, bad tag sizes, tags past the end, unterminated strings, bad
 * entry sizes, unusable framebuffers, no end tag) must be parsed as far as
 * is safe, warned about and counted. Each info is parsed from a malloc'd
 * buffer of exactly `avail` bytes, so ASan reports any read past it.
 */
#include <stdlib.h>
#include <string.h>

#include "kstring.h"
#include "ktest.h"
#include "mb2.h"
#include "host.h"

/* --- building infos -------------------------------------------------------- */

struct builder {
	u8 bytes[4096];
	u32 len;                /* bytes used so far: header + tags */
};

static void put32(struct builder *b, u32 off, u32 v)
{
	memcpy(b->bytes + off, &v, 4);
}

static void put64(struct builder *b, u32 off, u64 v)
{
	memcpy(b->bytes + off, &v, 8);
}

static void begin(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->len = 8;
}

/*
 * Add a tag header claiming `size` bytes and reserve `room` bytes for it at
 * the next 8-byte boundary; returns the tag's offset.
 */
static u32 tag_claiming(struct builder *b, u32 type, u32 size, u32 room)
{
	u32 off = ALIGN_UP(b->len, 8u);

	put32(b, off, type);
	put32(b, off + 4, size);
	b->len = off + room;
	return off;
}

static u32 tag(struct builder *b, u32 type, u32 size)
{
	return tag_claiming(b, type, size, size);
}

static u32 end_tag(struct builder *b)
{
	return tag(b, MB2_TAG_END, 8);
}

/* Set total_size to what was built (padded to 8, as GRUB does). */
static void finish(struct builder *b)
{
	b->len = ALIGN_UP(b->len, 8u);
	put32(b, 0, b->len);
}

static u32 string_tag(struct builder *b, u32 type, const char *s)
{
	u32 len = (u32)strlen(s) + 1;
	u32 off = tag(b, type, 8 + len);

	memcpy(b->bytes + off + 8, s, len);
	return off;
}

static u32 meminfo_tag(struct builder *b, u32 lower, u32 upper)
{
	u32 off = tag(b, MB2_TAG_BASIC_MEMINFO, 16);

	put32(b, off + 8, lower);
	put32(b, off + 12, upper);
	return off;
}

static const struct mb2_mmap_entry good_mmap[3] = {
	{ 0x0, 0x9fc00, 1, 0 },
	{ 0x9fc00, 0x400, 2, 0 },
	{ 0x100000, 0x7ee0000, 1, 0 },
};

/* A memory-map tag of n entries esize apart; extra bytes per entry hold 0xee. */
static u32 mmap_tag(struct builder *b, u32 esize, const struct mb2_mmap_entry *e, u32 n)
{
	u32 off = tag(b, MB2_TAG_MMAP, 16 + n * esize);

	put32(b, off + 8, esize);
	put32(b, off + 12, 0);
	for (u32 i = 0; i < n; i++) {
		u8 *slot = b->bytes + off + 16 + i * esize;

		memset(slot, 0xee, esize);
		memcpy(slot, &e[i], MIN(esize, (u32)sizeof(e[i])));
	}
	return off;
}

struct fb_desc {
	u64 addr;
	u32 pitch, width, height;
	u8 bpp, type;
};

static const struct fb_desc good_fb = { 0xfd000000, 4096, 1024, 768, 32, MB2_FB_RGB };

/* A framebuffer tag of `size` bytes; RGB colour fields when there is room. */
static u32 fb_tag(struct builder *b, u32 size, const struct fb_desc *fb)
{
	static const u8 colors[6] = { 16, 8, 8, 8, 0, 8 };
	u32 off = tag(b, MB2_TAG_FRAMEBUFFER, size);

	if (size >= 16)
		put64(b, off + 8, fb->addr);
	if (size >= 28) {
		put32(b, off + 16, fb->pitch);
		put32(b, off + 20, fb->width);
		put32(b, off + 24, fb->height);
	}
	if (size >= 30) {
		b->bytes[off + 28] = fb->bpp;
		b->bytes[off + 29] = fb->type;
	}
	if (size >= 38)
		memcpy(b->bytes + off + 32, colors, sizeof(colors));
	return off;
}

/* An RSDP copy of len bytes: "RSD PTR " then a counting pattern. */
static u32 rsdp_tag(struct builder *b, u32 type, u32 len)
{
	u32 off = tag(b, type, 8 + len);

	for (u32 i = 0; i < len; i++)
		b->bytes[off + 8 + i] = (u8)i;
	memcpy(b->bytes + off + 8, "RSD PTR ", 8);
	return off;
}

static u32 efi64_tag(struct builder *b, u64 table)
{
	u32 off = tag(b, MB2_TAG_EFI64, 16);

	put64(b, off + 8, table);
	return off;
}

/* n EFI descriptors of dsize bytes: type i+7 (conventional, ...), 16 pages each. */
static u32 efi_mmap_tag(struct builder *b, u32 dsize, u32 n)
{
	u32 off = tag(b, MB2_TAG_EFI_MMAP, 16 + n * dsize);

	put32(b, off + 8, dsize);
	put32(b, off + 12, 1);
	for (u32 i = 0; i < n; i++) {
		u32 d = off + 16 + i * dsize;

		put32(b, d, 7 + i);
		put64(b, d + 8, 0x100000 * (i + 1));
		put64(b, d + 24, 16);
	}
	return off;
}

static u32 module_tag(struct builder *b, u32 start, u32 end, const char *cmdline)
{
	u32 len = (u32)strlen(cmdline) + 1;
	u32 off = tag(b, MB2_TAG_MODULE, 16 + len);

	put32(b, off + 8, start);
	put32(b, off + 12, end);
	memcpy(b->bytes + off + 16, cmdline, len);
	return off;
}

static u32 load_base_tag(struct builder *b, u32 addr)
{
	u32 off = tag(b, MB2_TAG_LOAD_BASE_ADDR, 12);

	put32(b, off + 8, addr);
	return off;
}

/* --- parsing --------------------------------------------------------------- */

static u8 *info;                /* the last parsed copy; bi's pointers point into it */
static struct boot_info bi;

/*
 * Copy the built bytes into a malloc'd buffer of exactly avail bytes (the
 * rest, if avail is larger, filled with 0xee) and parse it.
 */
static int parse_built(const struct builder *b, size_t avail)
{
	free(info);
	info = malloc(avail ? avail : 1);
	memset(info, 0xee, avail);
	memcpy(info, b->bytes, MIN(avail, (size_t)b->len));
	memset(&bi, 0xa5, sizeof(bi));
	host_log_clear();
	return mb2_parse(info, avail, &bi);
}

static int parse_whole(const struct builder *b)
{
	return parse_built(b, b->len);
}

/* --- a good info ----------------------------------------------------------- */

struct good {
	u32 cmdline, loader, meminfo, mmap, fb, rsdp_old, rsdp_new, efi64, efi_mmap, module,
	    load_base, end;
};

static void build_good(struct builder *b, struct good *g)
{
	begin(b);
	g->cmdline = string_tag(b, MB2_TAG_CMDLINE, "console=serial test=all");
	g->loader = string_tag(b, MB2_TAG_LOADER_NAME, "GRUB 2.06");
	g->meminfo = meminfo_tag(b, 639, 130048);
	g->mmap = mmap_tag(b, 24, good_mmap, 3);
	g->fb = fb_tag(b, 38, &good_fb);
	g->rsdp_old = rsdp_tag(b, MB2_TAG_ACPI_OLD, 20);
	g->rsdp_new = rsdp_tag(b, MB2_TAG_ACPI_NEW, 36);
	g->efi64 = efi64_tag(b, 0x7fe8e018);
	g->efi_mmap = efi_mmap_tag(b, 48, 2);
	g->module = module_tag(b, 0x300000, 0x340000, "initrd.img");
	g->load_base = load_base_tag(b, 0x200000);
	g->end = end_tag(b);
	finish(b);
}

static void good_info_parses_cleanly(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.nproblems, 0);
	EXPECT_EQ(t, bi.ntags, 12);
	EXPECT_EQ(t, bi.total_size, b.len);
	EXPECT_EQ(t, g.end + 8, b.len);
	EXPECT_STREQ(t, host_log(), "");
}

static void good_info_strings(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "console=serial test=all");
	EXPECT_EQ(t, bi.cmdline, info + g.cmdline + 8);
	EXPECT_STREQ(t, bi.loader_name, "GRUB 2.06");
	EXPECT_EQ(t, bi.loader_name, info + g.loader + 8);
}

static void good_info_meminfo(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_TRUE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.mem_lower_kb, 639);
	EXPECT_EQ(t, bi.mem_upper_kb, 130048);
}

static void good_info_mmap(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.mmap, info + g.mmap + 16);
	EXPECT_EQ(t, bi.mmap_entry_size, 24);
	EXPECT_EQ(t, bi.mmap_count, 3);
}

static void good_info_mmap_entries(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	ASSERT_EQ(t, bi.mmap_count, 3);
	for (u32 i = 0; i < 3; i++) {
		struct mb2_mmap_entry e = mb2_mmap_entry(&bi, i);

		EXPECT_EQ(t, e.base, good_mmap[i].base);
		EXPECT_EQ(t, e.length, good_mmap[i].length);
		EXPECT_EQ(t, e.type, good_mmap[i].type);
		EXPECT_EQ(t, e.reserved, 0);
	}
}

static void good_info_framebuffer(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_TRUE(t, bi.has_fb);
	EXPECT_EQ(t, bi.fb.addr, 0xfd000000);
	EXPECT_EQ(t, bi.fb.pitch, 4096);
	EXPECT_EQ(t, bi.fb.width, 1024);
	EXPECT_EQ(t, bi.fb.height, 768);
	EXPECT_EQ(t, bi.fb.bpp, 32);
	EXPECT_EQ(t, bi.fb.type, MB2_FB_RGB);
	EXPECT_EQ(t, bi.fb.red_pos, 16);
	EXPECT_EQ(t, bi.fb.red_size, 8);
	EXPECT_EQ(t, bi.fb.green_pos, 8);
	EXPECT_EQ(t, bi.fb.green_size, 8);
	EXPECT_EQ(t, bi.fb.blue_pos, 0);
	EXPECT_EQ(t, bi.fb.blue_size, 8);
}

static void good_info_acpi_rsdps(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.rsdp_old, info + g.rsdp_old + 8);
	EXPECT_EQ(t, bi.rsdp_old_len, 20);
	EXPECT_EQ(t, bi.rsdp_new, info + g.rsdp_new + 8);
	EXPECT_EQ(t, bi.rsdp_new_len, 36);
	EXPECT_EQ(t, memcmp(bi.rsdp_new, "RSD PTR ", 8), 0);
}

static void good_info_efi(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_TRUE(t, bi.efi);
	EXPECT_EQ(t, bi.efi_system_table, 0x7fe8e018);
	EXPECT_EQ(t, bi.efi_mmap, info + g.efi_mmap + 16);
	EXPECT_EQ(t, bi.efi_desc_size, 48);
	EXPECT_EQ(t, bi.efi_desc_version, 1);
	EXPECT_EQ(t, bi.efi_count, 2);
}

static void good_info_module(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	ASSERT_EQ(t, bi.nmodules, 1);
	EXPECT_EQ(t, bi.modules[0].start, 0x300000);
	EXPECT_EQ(t, bi.modules[0].end, 0x340000);
	EXPECT_STREQ(t, bi.modules[0].cmdline, "initrd.img");
	EXPECT_EQ(t, bi.modules[0].cmdline, info + g.module + 16);
}

static void good_info_load_base(struct ktest *t)
{
	struct builder b;
	struct good g;

	build_good(&b, &g);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_TRUE(t, bi.has_load_base);
	EXPECT_EQ(t, bi.load_base, 0x200000);
}

/* Only the end tag: every field at its "absent" value. */
static void empty_info_gives_defaults(struct ktest *t)
{
	struct builder b;

	begin(&b);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "");
	EXPECT_STREQ(t, bi.loader_name, "");
	EXPECT_FALSE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.mmap, NULL);
	EXPECT_EQ(t, bi.mmap_count, 0);
	EXPECT_EQ(t, bi.efi_mmap, NULL);
	EXPECT_EQ(t, bi.efi_count, 0);
	EXPECT_FALSE(t, bi.has_fb);
	EXPECT_EQ(t, bi.rsdp_old, NULL);
	EXPECT_EQ(t, bi.rsdp_new, NULL);
	EXPECT_FALSE(t, bi.efi);
	EXPECT_FALSE(t, bi.has_load_base);
	EXPECT_EQ(t, bi.nmodules, 0);
	EXPECT_EQ(t, bi.ntags, 1);
	EXPECT_EQ(t, bi.total_size, 16);
	EXPECT_EQ(t, bi.nproblems, 0);
}

/* --- broken headers -------------------------------------------------------- */

/* A rejected info leaves *bi empty, whatever it held before. */
static bool boot_info_is_empty(void)
{
	return !strcmp(bi.cmdline, "") && !strcmp(bi.loader_name, "") && !bi.has_meminfo &&
	       !bi.mem_lower_kb && !bi.mem_upper_kb && !bi.mmap && !bi.mmap_entry_size &&
	       !bi.mmap_count && !bi.efi_mmap && !bi.efi_desc_size && !bi.efi_desc_version &&
	       !bi.efi_count && !bi.has_fb && !bi.fb.addr && !bi.fb.width && !bi.rsdp_old &&
	       !bi.rsdp_old_len && !bi.rsdp_new && !bi.rsdp_new_len && !bi.efi &&
	       !bi.efi_system_table && !bi.has_load_base && !bi.load_base && !bi.nmodules &&
	       !bi.total_size && !bi.ntags && !bi.nproblems;
}

static void avail_below_16_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	end_tag(&b);
	finish(&b);
	EXPECT_EQ(t, parse_built(&b, 15), -1);
	EXPECT_TRUE(t, boot_info_is_empty());
	EXPECT_TRUE(t, host_log_has("mb2: only 15 bytes of boot information"));
	EXPECT_EQ(t, parse_built(&b, 0), -1);
	EXPECT_TRUE(t, boot_info_is_empty());
}

static void total_size_below_16_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	end_tag(&b);
	finish(&b);
	put32(&b, 0, 8);
	EXPECT_EQ(t, parse_whole(&b), -1);
	EXPECT_TRUE(t, boot_info_is_empty());
	EXPECT_TRUE(t, host_log_has("mb2: total_size 8 is too small"));
	put32(&b, 0, 0);
	EXPECT_EQ(t, parse_whole(&b), -1);
	EXPECT_TRUE(t, boot_info_is_empty());
}

static void total_size_past_avail_parses_what_is_there(struct ktest *t)
{
	struct builder b;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	meminfo_tag(&b, 1, 2);
	end_tag(&b);
	finish(&b);
	put32(&b, 0, b.len + 64);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_TRUE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.nproblems, 1);
	EXPECT_EQ(t, bi.total_size, b.len);
	EXPECT_TRUE(t, host_log_has("but only"));
}

/* Cut right after the meminfo tag: earlier tags kept, the end tag missed. */
static void info_cut_short_keeps_earlier_tags(struct ktest *t)
{
	struct builder b;
	u32 cut;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	meminfo_tag(&b, 1, 2);
	cut = b.len;
	string_tag(&b, MB2_TAG_LOADER_NAME, "GRUB");
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_built(&b, cut), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_TRUE(t, bi.has_meminfo);
	EXPECT_STREQ(t, bi.loader_name, "");
	EXPECT_EQ(t, bi.nproblems, 2);
	EXPECT_TRUE(t, host_log_has("no end tag"));
}

/* No end tag, and 0xee garbage after total_size: the walk stops at total_size. */
static void bytes_past_total_size_not_walked(struct ktest *t)
{
	struct builder b;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	finish(&b);
	ASSERT_EQ(t, parse_built(&b, b.len + 40), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_EQ(t, bi.ntags, 1);
	EXPECT_EQ(t, bi.nproblems, 1);
	EXPECT_EQ(t, bi.total_size, b.len);
	EXPECT_FALSE(t, host_log_has("runs past"));
}

static void reserved_header_field_ignored(struct ktest *t)
{
	struct builder b;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	end_tag(&b);
	finish(&b);
	put32(&b, 4, 0xffffffff);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_EQ(t, bi.nproblems, 0);
}

/* --- broken tag structure -------------------------------------------------- */

/* cmdline, then a tag of the given claimed size, then a loader name and the end. */
static void build_with_bad_size(struct builder *b, u32 size)
{
	begin(b);
	string_tag(b, MB2_TAG_CMDLINE, "quiet");
	tag_claiming(b, MB2_TAG_BASIC_MEMINFO, size, 16);
	string_tag(b, MB2_TAG_LOADER_NAME, "GRUB");
	end_tag(b);
	finish(b);
}

static void tag_size_zero_stops_walk(struct ktest *t)
{
	struct builder b;

	build_with_bad_size(&b, 0);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_FALSE(t, bi.has_meminfo);
	EXPECT_STREQ(t, bi.loader_name, "");
	EXPECT_EQ(t, bi.ntags, 2);
	EXPECT_EQ(t, bi.nproblems, 2);
	EXPECT_TRUE(t, host_log_has("mb2: tag type 4 at offset 24 (size 0): size below 8; stopping here\n"));
	EXPECT_TRUE(t, host_log_has("no end tag"));
}

static void tag_size_below_8_stops_walk(struct ktest *t)
{
	struct builder b;

	build_with_bad_size(&b, 7);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_FALSE(t, bi.has_meminfo);
	EXPECT_STREQ(t, bi.loader_name, "");
	EXPECT_EQ(t, bi.nproblems, 2);
	EXPECT_TRUE(t, host_log_has("(size 7): size below 8; stopping here"));
}

static void tag_past_end_stops_walk(struct ktest *t)
{
	struct builder b;

	build_with_bad_size(&b, 200);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_FALSE(t, bi.has_meminfo);
	EXPECT_STREQ(t, bi.loader_name, "");
	EXPECT_EQ(t, bi.ntags, 2);
	EXPECT_EQ(t, bi.nproblems, 2);
	EXPECT_EQ(t, bi.total_size, 24);
	EXPECT_TRUE(t, host_log_has("(size 200): runs past the end of the info; stopping here"));
}

static void huge_tag_size_stops_walk(struct ktest *t)
{
	struct builder b;

	build_with_bad_size(&b, 0xffffffff);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_FALSE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.nproblems, 2);
	EXPECT_TRUE(t, host_log_has("(size 4294967295): runs past the end"));
}

static void huge_total_size_clamped_to_avail(struct ktest *t)
{
	struct builder b;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	end_tag(&b);
	finish(&b);
	put32(&b, 0, 0xffffffff);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_EQ(t, bi.nproblems, 1);
	EXPECT_EQ(t, bi.total_size, b.len);
}

static void missing_end_tag_warns(struct ktest *t)
{
	struct builder b;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	meminfo_tag(&b, 1, 2);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_TRUE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.nproblems, 1);
	EXPECT_EQ(t, bi.ntags, 2);
	EXPECT_TRUE(t, host_log_has("mb2: no end tag found within"));
}

static void end_tag_size_16_warned(struct ktest *t)
{
	struct builder b;
	u32 end;

	begin(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "quiet");
	end = tag(&b, MB2_TAG_END, 16);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "quiet");
	EXPECT_EQ(t, bi.nproblems, 1);
	EXPECT_EQ(t, bi.ntags, 2);
	EXPECT_EQ(t, bi.total_size, end + 8);
	EXPECT_TRUE(t, host_log_has("(size 16): end tag should have size 8"));
	EXPECT_FALSE(t, host_log_has("no end tag"));
}

static void tags_after_end_tag_ignored(struct ktest *t)
{
	struct builder b;
	u32 end;

	begin(&b);
	end = end_tag(&b);
	string_tag(&b, MB2_TAG_CMDLINE, "late");
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, bi.cmdline, "");
	EXPECT_EQ(t, bi.ntags, 1);
	EXPECT_EQ(t, bi.total_size, end + 8);
	EXPECT_EQ(t, bi.nproblems, 0);
}

static void unknown_tag_skipped_silently(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, 999, 20);
	meminfo_tag(&b, 1, 2);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_TRUE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.mem_upper_kb, 2);
	EXPECT_EQ(t, bi.ntags, 3);
	EXPECT_EQ(t, bi.nproblems, 0);
	EXPECT_STREQ(t, host_log(), "");
}

/* --- malformed known tags: skipped, the walk goes on ----------------------- */

/*
 * Finish an info whose first tag the caller built with a meminfo tag and
 * the end tag; true if it parses with exactly one problem, a skipped tag,
 * and the walk went on to the meminfo.
 */
static bool skipped_with_one_problem(struct builder *b)
{
	meminfo_tag(b, 1, 2);
	end_tag(b);
	finish(b);
	if (parse_whole(b) != 0)
		return false;
	return bi.nproblems == 1 && bi.has_meminfo && host_log_has("malformed; skipped");
}

static void unterminated_cmdline_skipped(struct ktest *t)
{
	struct builder b;
	u32 off;

	begin(&b);
	off = tag(&b, MB2_TAG_CMDLINE, 11);
	memcpy(b.bytes + off + 8, "abc", 3);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_STREQ(t, bi.cmdline, "");
}

static void cmdline_without_payload_skipped(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, MB2_TAG_CMDLINE, 8);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_STREQ(t, bi.cmdline, "");
}

static void unterminated_loader_name_skipped(struct ktest *t)
{
	struct builder b;
	u32 off;

	begin(&b);
	off = tag(&b, MB2_TAG_LOADER_NAME, 12);
	memcpy(b.bytes + off + 8, "GRUB", 4);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_STREQ(t, bi.loader_name, "");
}

static void meminfo_too_short_skipped(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, MB2_TAG_BASIC_MEMINFO, 12);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_FALSE(t, bi.has_meminfo);
	EXPECT_EQ(t, bi.nproblems, 1);
}

static void mmap_entry_size_20_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	mmap_tag(&b, 20, good_mmap, 3);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.mmap, NULL);
	EXPECT_EQ(t, bi.mmap_count, 0);
}

static void mmap_entry_size_28_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	mmap_tag(&b, 28, good_mmap, 3);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.mmap, NULL);
	EXPECT_EQ(t, bi.mmap_count, 0);
}

static void mmap_too_short_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, MB2_TAG_MMAP, 12);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.mmap_count, 0);
}

static void mmap_partial_trailing_entry_rounds_down(struct ktest *t)
{
	struct builder b;
	u32 off;

	begin(&b);
	off = mmap_tag(&b, 24, good_mmap, 3);
	put32(&b, off + 4, 16 + 2 * 24 + 10);
	b.len = off + 16 + 2 * 24 + 10;
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.nproblems, 0);
	EXPECT_EQ(t, bi.mmap_count, 2);
	EXPECT_EQ(t, mb2_mmap_entry(&bi, 1).base, good_mmap[1].base);
}

static void mmap_with_no_entries(struct ktest *t)
{
	struct builder b;

	begin(&b);
	mmap_tag(&b, 24, good_mmap, 0);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.nproblems, 0);
	EXPECT_EQ(t, bi.mmap_count, 0);
}

/* Entries 32 bytes apart (a newer entry format): the extra bytes are skipped. */
static void mmap_larger_entries_stride(struct ktest *t)
{
	struct builder b;

	begin(&b);
	mmap_tag(&b, 32, good_mmap, 3);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	ASSERT_EQ(t, bi.mmap_count, 3);
	EXPECT_EQ(t, bi.mmap_entry_size, 32);
	for (u32 i = 0; i < 3; i++) {
		struct mb2_mmap_entry e = mb2_mmap_entry(&bi, i);

		EXPECT_EQ(t, e.base, good_mmap[i].base);
		EXPECT_EQ(t, e.length, good_mmap[i].length);
		EXPECT_EQ(t, e.type, good_mmap[i].type);
	}
}

static void framebuffer_too_short_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	fb_tag(&b, 28, &good_fb);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_FALSE(t, bi.has_fb);
}

static void rgb_framebuffer_without_colors_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	fb_tag(&b, 34, &good_fb);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_FALSE(t, bi.has_fb);
}

/* One framebuffer tag with fb changed by the caller; true if accepted. */
static bool fb_accepted(const struct fb_desc *fb, u32 size)
{
	struct builder b;

	begin(&b);
	fb_tag(&b, size, fb);
	end_tag(&b);
	finish(&b);
	return parse_whole(&b) == 0 && bi.has_fb && bi.nproblems == 0;
}

static void framebuffer_zero_width_rejected(struct ktest *t)
{
	struct fb_desc fb = good_fb;

	fb.width = 0;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
	EXPECT_EQ(t, bi.nproblems, 1);
}

static void framebuffer_zero_height_rejected(struct ktest *t)
{
	struct fb_desc fb = good_fb;

	fb.height = 0;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
}

static void framebuffer_zero_address_rejected(struct ktest *t)
{
	struct fb_desc fb = good_fb;

	fb.addr = 0;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
}

static void framebuffer_pitch_too_small_rejected(struct ktest *t)
{
	struct fb_desc fb = good_fb;

	fb.pitch = 4095;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
	fb.pitch = 4096;
	EXPECT_TRUE(t, fb_accepted(&fb, 38));
}

static void framebuffer_bpp_out_of_range_rejected(struct ktest *t)
{
	struct fb_desc fb = good_fb;

	fb.bpp = 0;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
	fb.bpp = 7;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
	fb.bpp = 33;
	EXPECT_FALSE(t, fb_accepted(&fb, 38));
	fb.bpp = 8;
	EXPECT_TRUE(t, fb_accepted(&fb, 38));
}

static void ega_text_framebuffer_accepted(struct ktest *t)
{
	struct fb_desc fb = { 0xb8000, 160, 80, 25, 16, MB2_FB_EGA_TEXT };

	EXPECT_TRUE(t, fb_accepted(&fb, 32));
	EXPECT_EQ(t, bi.fb.type, MB2_FB_EGA_TEXT);
	EXPECT_EQ(t, bi.fb.width, 80);
	EXPECT_EQ(t, bi.fb.height, 25);
}

static void ega_text_pitch_too_small_rejected(struct ktest *t)
{
	struct fb_desc fb = { 0xb8000, 159, 80, 25, 16, MB2_FB_EGA_TEXT };

	EXPECT_FALSE(t, fb_accepted(&fb, 32));
}

/* 2^31 columns need 2^32 bytes a line: width * 2 must not wrap to 0. */
static void ega_text_huge_width_rejected(struct ktest *t)
{
	struct fb_desc fb = { 0xb8000, 0, 0x80000000, 25, 16, MB2_FB_EGA_TEXT };

	EXPECT_FALSE(t, fb_accepted(&fb, 32));
}

/* A malformed second framebuffer tag is skipped: the first one stands. */
static void bad_framebuffer_keeps_earlier_good_one(struct ktest *t)
{
	struct fb_desc bad = good_fb;
	struct builder b;

	bad.width = 0;
	bad.addr = 0xe0000000;
	begin(&b);
	fb_tag(&b, 38, &good_fb);
	fb_tag(&b, 38, &bad);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.nproblems, 1);
	EXPECT_TRUE(t, bi.has_fb);
	EXPECT_EQ(t, bi.fb.addr, good_fb.addr);
	EXPECT_EQ(t, bi.fb.width, good_fb.width);
}

static void acpi_old_too_short_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	rsdp_tag(&b, MB2_TAG_ACPI_OLD, 19);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.rsdp_old, NULL);
}

static void acpi_new_too_short_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	rsdp_tag(&b, MB2_TAG_ACPI_NEW, 35);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.rsdp_new, NULL);
}

static void efi32_system_table(struct ktest *t)
{
	struct builder b;
	u32 off;

	begin(&b);
	off = tag(&b, MB2_TAG_EFI32, 12);
	put32(&b, off + 8, 0x7f000000);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_TRUE(t, bi.efi);
	EXPECT_EQ(t, bi.efi_system_table, 0x7f000000);
}

static void efi64_too_short_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, MB2_TAG_EFI64, 12);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_FALSE(t, bi.efi);
}

static void efi_mmap_small_descriptor_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	efi_mmap_tag(&b, 32, 2);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.efi_count, 0);
	EXPECT_EQ(t, bi.efi_mmap, NULL);
}

static void efi_mmap_unaligned_descriptor_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	efi_mmap_tag(&b, 44, 2);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.efi_count, 0);
}

static void module_end_before_start_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	module_tag(&b, 0x400000, 0x300000, "backwards");
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.nmodules, 0);
}

static void module_without_string_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, MB2_TAG_MODULE, 16);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_EQ(t, bi.nmodules, 0);
}

static void modules_beyond_max_dropped(struct ktest *t)
{
	struct builder b;

	begin(&b);
	for (u32 i = 0; i < MB2_MAX_MODULES + 3; i++)
		module_tag(&b, i * 0x1000, i * 0x1000 + 0x800, "m");
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_EQ(t, bi.nmodules, MB2_MAX_MODULES);
	EXPECT_EQ(t, bi.modules[MB2_MAX_MODULES - 1].start, (MB2_MAX_MODULES - 1) * 0x1000);
}

static void load_base_too_short_rejected(struct ktest *t)
{
	struct builder b;

	begin(&b);
	tag(&b, MB2_TAG_LOAD_BASE_ADDR, 8);
	EXPECT_TRUE(t, skipped_with_one_problem(&b));
	EXPECT_FALSE(t, bi.has_load_base);
}

static void malformed_tag_warning_names_it(struct ktest *t)
{
	struct builder b;

	begin(&b);
	mmap_tag(&b, 20, good_mmap, 1);
	end_tag(&b);
	finish(&b);
	ASSERT_EQ(t, parse_whole(&b), 0);
	EXPECT_STREQ(t, host_log(), "mb2: tag type 6 at offset 8 (size 36): malformed; skipped\n");
}

static const struct ktest_case mb2_cases[] = {
	KTEST(good_info_parses_cleanly),
	KTEST(good_info_strings),
	KTEST(good_info_meminfo),
	KTEST(good_info_mmap),
	KTEST(good_info_mmap_entries),
	KTEST(good_info_framebuffer),
	KTEST(good_info_acpi_rsdps),
	KTEST(good_info_efi),
	KTEST(good_info_module),
	KTEST(good_info_load_base),
	KTEST(empty_info_gives_defaults),
	KTEST(avail_below_16_rejected),
	KTEST(total_size_below_16_rejected),
	KTEST(total_size_past_avail_parses_what_is_there),
	KTEST(info_cut_short_keeps_earlier_tags),
	KTEST(bytes_past_total_size_not_walked),
	KTEST(reserved_header_field_ignored),
	KTEST(tag_size_zero_stops_walk),
	KTEST(tag_size_below_8_stops_walk),
	KTEST(tag_past_end_stops_walk),
	KTEST(huge_tag_size_stops_walk),
	KTEST(huge_total_size_clamped_to_avail),
	KTEST(missing_end_tag_warns),
	KTEST(end_tag_size_16_warned),
	KTEST(tags_after_end_tag_ignored),
	KTEST(unknown_tag_skipped_silently),
	KTEST(unterminated_cmdline_skipped),
	KTEST(cmdline_without_payload_skipped),
	KTEST(unterminated_loader_name_skipped),
	KTEST(meminfo_too_short_skipped),
	KTEST(mmap_entry_size_20_rejected),
	KTEST(mmap_entry_size_28_rejected),
	KTEST(mmap_too_short_rejected),
	KTEST(mmap_partial_trailing_entry_rounds_down),
	KTEST(mmap_with_no_entries),
	KTEST(mmap_larger_entries_stride),
	KTEST(framebuffer_too_short_rejected),
	KTEST(rgb_framebuffer_without_colors_rejected),
	KTEST(framebuffer_zero_width_rejected),
	KTEST(framebuffer_zero_height_rejected),
	KTEST(framebuffer_zero_address_rejected),
	KTEST(framebuffer_pitch_too_small_rejected),
	KTEST(framebuffer_bpp_out_of_range_rejected),
	KTEST(ega_text_framebuffer_accepted),
	KTEST(ega_text_pitch_too_small_rejected),
	KTEST(ega_text_huge_width_rejected),
	KTEST(bad_framebuffer_keeps_earlier_good_one),
	KTEST(acpi_old_too_short_rejected),
	KTEST(acpi_new_too_short_rejected),
	KTEST(efi32_system_table),
	KTEST(efi64_too_short_rejected),
	KTEST(efi_mmap_small_descriptor_rejected),
	KTEST(efi_mmap_unaligned_descriptor_rejected),
	KTEST(module_end_before_start_rejected),
	KTEST(module_without_string_rejected),
	KTEST(modules_beyond_max_dropped),
	KTEST(load_base_too_short_rejected),
	KTEST(malformed_tag_warning_names_it),
	{},
};
KTEST_SUITE(mb2, mb2_cases);
