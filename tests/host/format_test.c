// SPDX-License-Identifier: MIT
/*
 * format_test.c - kernel/format.c on the host: every conversion, flag,
 * width, precision and length modifier format.h documents, C99 truncation
 * (return value, NUL, size 0 and 1), unknown conversions, and kstrlcpy.
 *
 * Calls go through fmt_to(), a wrapper the compiler cannot evaluate at
 * build time, so each result really comes from our vsnprintf. Formats GCC
 * would refuse at -Werror (odd flag mixes, unknown conversions) go through
 * fmt_raw(), which has no format attribute.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "kstring.h"
#include "ktest.h"
#include "host.h"

static int fmt_to(char *dst, size_t size, const char *f, ...) __printf(3, 4);

static int fmt_to(char *dst, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(dst, size, f, ap);
	va_end(ap);
	return n;
}

static int fmt_raw(char *dst, size_t size, const char *f, ...)
{
	va_list ap;
	int n;

	va_start(ap, f);
	n = vsnprintf(dst, size, f, ap);
	va_end(ap);
	return n;
}

/* Format into a roomy buffer; check the text and the returned length. */
#define EXPECT_FMT(t, expected, ...)                                    \
	do {                                                            \
		char b_[256];                                           \
		int n_ = fmt_to(b_, sizeof(b_), __VA_ARGS__);           \
		EXPECT_STREQ(t, b_, expected);                          \
		EXPECT_EQ(t, n_, strlen(expected));                     \
	} while (0)

#define EXPECT_FMT_RAW(t, expected, ...)                                \
	do {                                                            \
		char b_[256];                                           \
		int n_ = fmt_raw(b_, sizeof(b_), __VA_ARGS__);          \
		EXPECT_STREQ(t, b_, expected);                          \
		EXPECT_EQ(t, n_, strlen(expected));                     \
	} while (0)

/* --- conversions ----------------------------------------------------------- */

static void plain_text_copied(struct ktest *t)
{
	EXPECT_FMT(t, "hello, world", "hello, world");
	EXPECT_FMT(t, "", "%s", "");
}

static void d_prints_signed_decimal(struct ktest *t)
{
	EXPECT_FMT(t, "42", "%d", 42);
	EXPECT_FMT(t, "-42", "%d", -42);
	EXPECT_FMT(t, "0", "%d", 0);
	EXPECT_FMT(t, "2147483647", "%d", INT_MAX);
	EXPECT_FMT(t, "-2147483648", "%d", INT_MIN);
}

static void i_is_like_d(struct ktest *t)
{
	EXPECT_FMT(t, "-7", "%i", -7);
	EXPECT_FMT(t, "123", "%i", 123);
}

static void u_prints_unsigned_decimal(struct ktest *t)
{
	EXPECT_FMT(t, "0", "%u", 0u);
	EXPECT_FMT(t, "4294967295", "%u", UINT_MAX);
	EXPECT_FMT(t, "4294967295", "%u", (unsigned)-1);
}

static void x_and_X_print_hex(struct ktest *t)
{
	EXPECT_FMT(t, "deadbeef", "%x", 0xdeadbeefu);
	EXPECT_FMT(t, "DEADBEEF", "%X", 0xdeadbeefu);
	EXPECT_FMT(t, "0", "%x", 0u);
	EXPECT_FMT(t, "ffffffff", "%x", (unsigned)-1);
}

static void o_prints_octal(struct ktest *t)
{
	EXPECT_FMT(t, "10", "%o", 8u);
	EXPECT_FMT(t, "755", "%o", 0755u);
	EXPECT_FMT(t, "0", "%o", 0u);
}

static void c_prints_one_char(struct ktest *t)
{
	EXPECT_FMT(t, "A", "%c", 'A');
	EXPECT_FMT(t, "  A", "%3c", 'A');
	EXPECT_FMT(t, "z    |", "%-5c|", 'z');
}

static void c_of_nul_counts_one_byte(struct ktest *t)
{
	char b[4] = "xyz";
	int n = fmt_to(b, sizeof(b), "%c", '\0');

	EXPECT_EQ(t, n, 1);
	EXPECT_EQ(t, b[0], '\0');
	EXPECT_EQ(t, b[1], '\0');
}

static void s_prints_string(struct ktest *t)
{
	EXPECT_FMT(t, "hi", "%s", "hi");
	EXPECT_FMT(t, "   hi", "%5s", "hi");
	EXPECT_FMT(t, "hi   |", "%-5s|", "hi");
	EXPECT_FMT(t, "toolong", "%3s", "toolong");
}

static void s_precision_cuts(struct ktest *t)
{
	EXPECT_FMT(t, "he", "%.2s", "hello");
	EXPECT_FMT(t, "", "%.0s", "hello");
	EXPECT_FMT(t, "    abc|", "%7.3s|", "abcdef");
	EXPECT_FMT(t, "hello", "%.10s", "hello");
}

/* With a precision, %s must not look for a NUL past that many bytes. */
static void s_precision_reads_no_further(struct ktest *t)
{
	char *unterminated = malloc(3);
	char b[8];

	ASSERT_TRUE(t, unterminated != NULL);
	memcpy(unterminated, "abc", 3);
	EXPECT_EQ(t, fmt_to(b, sizeof(b), "%.3s", unterminated), 3);
	EXPECT_STREQ(t, b, "abc");
	free(unterminated);
}

/* Through fmt_raw: GCC rejects a NULL %s argument it can see. */
static void s_of_null_prints_null(struct ktest *t)
{
	const char *nothing = NULL;

	EXPECT_FMT_RAW(t, "(null)", "%s", nothing);
	EXPECT_FMT_RAW(t, "  (null)", "%8s", nothing);
}

static void p_prints_0x_and_16_digits(struct ktest *t)
{
	EXPECT_FMT(t, "0x0000000000001234", "%p", (void *)0x1234);
	EXPECT_FMT(t, "0xffff800000000000", "%p", (void *)0xffff800000000000ULL);
	EXPECT_FMT(t, "0x0000000000000000", "%p", (void *)NULL);
}

static void p_honours_width(struct ktest *t)
{
	EXPECT_FMT(t, "  0x00000000000000ff", "%20p", (void *)0xff);
	EXPECT_FMT(t, "0x00000000000000ff  |", "%-20p|", (void *)0xff);
}

static void percent_prints_percent(struct ktest *t)
{
	EXPECT_FMT(t, "%", "%%");
	EXPECT_FMT(t, "100%", "100%%");
	EXPECT_FMT(t, "%d", "%%d");
}

static void several_conversions_in_one_format(struct ktest *t)
{
	EXPECT_FMT(t, "x=1, y=-2, s=ok, c=!, 50%", "x=%d, y=%d, s=%s, c=%c, 50%%", 1, -2, "ok",
		   '!');
}

/* --- flags ----------------------------------------------------------------- */

static void minus_pads_on_the_right(struct ktest *t)
{
	EXPECT_FMT(t, "42   |", "%-5d|", 42);
	EXPECT_FMT(t, "-42  |", "%-5d|", -42);
}

static void zero_pads_with_zeros_after_sign(struct ktest *t)
{
	EXPECT_FMT(t, "00042", "%05d", 42);
	EXPECT_FMT(t, "-0042", "%05d", -42);
	EXPECT_FMT(t, "000ff", "%05x", 0xffu);
}

static void plus_shows_sign(struct ktest *t)
{
	EXPECT_FMT(t, "+5", "%+d", 5);
	EXPECT_FMT(t, "-5", "%+d", -5);
	EXPECT_FMT(t, "+0", "%+d", 0);
	EXPECT_FMT(t, "   +3", "%+5d", 3);
	EXPECT_FMT(t, "+0003", "%+05d", 3);
	EXPECT_FMT(t, "+42   |", "%-+6d|", 42);
}

static void space_before_positive(struct ktest *t)
{
	EXPECT_FMT(t, " 5", "% d", 5);
	EXPECT_FMT(t, "-5", "% d", -5);
	EXPECT_FMT(t, " 0003", "% 05d", 3);
}

static void plus_wins_over_space(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "+5", "%+ d", 5);
	EXPECT_FMT_RAW(t, "+5", "% +d", 5);
}

static void minus_wins_over_zero(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "42   |", "%-05d|", 42);
	EXPECT_FMT_RAW(t, "42   |", "%0-5d|", 42);
}

static void hash_adds_hex_prefix(struct ktest *t)
{
	EXPECT_FMT(t, "0xff", "%#x", 0xffu);
	EXPECT_FMT(t, "0XABC", "%#X", 0xabcu);
	EXPECT_FMT(t, "0x0000ff", "%#08x", 0xffu);
	EXPECT_FMT(t, "      0xff", "%#10x", 0xffu);
	EXPECT_FMT(t, "0xff      |", "%#-10x|", 0xffu);
	EXPECT_FMT(t, "0x001f", "%#.4x", 0x1fu);
}

static void hash_adds_octal_zero(struct ktest *t)
{
	EXPECT_FMT(t, "010", "%#o", 8u);
	EXPECT_FMT(t, "  010", "%#5o", 8u);
	EXPECT_FMT(t, "010     |", "%#-8o|", 8u);
	EXPECT_FMT(t, "010", "%#.3o", 8u);
	EXPECT_FMT(t, "00010", "%#.5o", 8u);
}

static void hash_on_zero_adds_nothing(struct ktest *t)
{
	EXPECT_FMT(t, "0", "%#x", 0u);
	EXPECT_FMT(t, "0", "%#o", 0u);
}

static void zero_flag_ignored_for_strings_and_chars(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "   hi", "%05s", "hi");
	EXPECT_FMT_RAW(t, "    c", "%05c", 'c');
}

/* --- width and precision --------------------------------------------------- */

static void width_pads_on_the_left(struct ktest *t)
{
	EXPECT_FMT(t, "   42", "%5d", 42);
	EXPECT_FMT(t, "  -42", "%5d", -42);
}

static void width_smaller_than_text_is_ignored(struct ktest *t)
{
	EXPECT_FMT(t, "12345", "%2d", 12345);
	EXPECT_FMT(t, "-12345", "%1d", -12345);
}

static void star_width_from_argument(struct ktest *t)
{
	EXPECT_FMT(t, "   42|", "%*d|", 5, 42);
	EXPECT_FMT(t, "42|", "%*d|", 0, 42);
	EXPECT_FMT(t, "  ab|", "%*s|", 4, "ab");
}

static void negative_star_width_pads_on_the_right(struct ktest *t)
{
	EXPECT_FMT(t, "42   |", "%*d|", -5, 42);
	EXPECT_FMT(t, "42   |", "%-*d|", -5, 42);
	EXPECT_FMT(t, "42   |", "%-*d|", 5, 42);
}

static void precision_sets_minimum_digits(struct ktest *t)
{
	EXPECT_FMT(t, "005", "%.3d", 5);
	EXPECT_FMT(t, "-005", "%.3d", -5);
	EXPECT_FMT(t, "     005", "%8.3d", 5);
	EXPECT_FMT(t, "005     |", "%-8.3d|", 5);
	EXPECT_FMT(t, "      00ab|", "%10.4x|", 0xabu);
	EXPECT_FMT(t, "12345", "%.2d", 12345);
}

static void precision_overrides_zero_flag(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "     005", "%08.3d", 5);
	EXPECT_FMT_RAW(t, "    -005", "%08.3d", -5);
}

static void star_precision_from_argument(struct ktest *t)
{
	EXPECT_FMT(t, "0007", "%.*d", 4, 7);
	EXPECT_FMT(t, "ab", "%.*s", 2, "abc");
	EXPECT_FMT(t, "   0007", "%*.*d", 7, 4, 7);
}

static void negative_star_precision_means_none(struct ktest *t)
{
	EXPECT_FMT(t, "7", "%.*d", -1, 7);
	EXPECT_FMT(t, "abc", "%.*s", -1, "abc");
	EXPECT_FMT(t, "0", "%.*d", -5, 0);
}

static void zero_with_precision_zero_prints_no_digits(struct ktest *t)
{
	EXPECT_FMT(t, "", "%.0d", 0);
	EXPECT_FMT(t, "     |", "%5.0d|", 0);
	EXPECT_FMT(t, "", "%.0x", 0u);
	EXPECT_FMT(t, "", "%.0u", 0u);
	EXPECT_FMT(t, "+", "%+.0d", 0);
	EXPECT_FMT(t, "1", "%.0d", 1);
}

static void hash_with_precision_zero_on_zero(struct ktest *t)
{
	EXPECT_FMT(t, "0", "%#.0o", 0u);
	EXPECT_FMT(t, "", "%#.0x", 0u);
}

static void large_width_and_precision(struct ktest *t)
{
	char b[256];
	char want[256];

	memset(want, ' ', 197);
	memcpy(want + 197, "abc", 4);
	EXPECT_EQ(t, fmt_to(b, sizeof(b), "%200s", "abc"), 200);
	EXPECT_STREQ(t, b, want);
	memset(want, '0', 119);
	memcpy(want + 119, "9", 2);
	EXPECT_EQ(t, fmt_to(b, sizeof(b), "%.120d", 9), 120);
	EXPECT_STREQ(t, b, want);
}

/* --- length modifiers ------------------------------------------------------ */

static void hh_truncates_to_char(struct ktest *t)
{
	EXPECT_FMT(t, "-56", "%hhd", 200);
	EXPECT_FMT(t, "44", "%hhu", 300);
	EXPECT_FMT(t, "ff", "%hhx", 0x1ff);
	EXPECT_FMT(t, "-128", "%hhd", -128);
}

static void h_truncates_to_short(struct ktest *t)
{
	EXPECT_FMT(t, "-25536", "%hd", 40000);
	EXPECT_FMT(t, "4464", "%hu", 70000);
	EXPECT_FMT(t, "ffff", "%hx", 0xfffff);
}

static void l_takes_long(struct ktest *t)
{
	EXPECT_FMT(t, "-9223372036854775808", "%ld", LONG_MIN);
	EXPECT_FMT(t, "9223372036854775807", "%ld", LONG_MAX);
	EXPECT_FMT(t, "18446744073709551615", "%lu", ULONG_MAX);
	EXPECT_FMT(t, "123456789abc", "%lx", 0x123456789abcUL);
}

static void ll_handles_64_bit_extremes(struct ktest *t)
{
	EXPECT_FMT(t, "-9223372036854775808", "%lld", (long long)INT64_MIN);
	EXPECT_FMT(t, "9223372036854775807", "%lld", (long long)INT64_MAX);
	EXPECT_FMT(t, "18446744073709551615", "%llu", ~0ULL);
	EXPECT_FMT(t, "ffffffffffffffff", "%llx", ~0ULL);
	EXPECT_FMT(t, "FFFFFFFFFFFFFFFF", "%llX", ~0ULL);
	EXPECT_FMT(t, "1777777777777777777777", "%llo", ~0ULL);
	EXPECT_FMT(t, "01777777777777777777777", "%#llo", ~0ULL);
}

static void int64_min_with_flags(struct ktest *t)
{
	EXPECT_FMT(t, "   -9223372036854775808", "%23lld", (long long)INT64_MIN);
	EXPECT_FMT(t, "-0009223372036854775808", "%023lld", (long long)INT64_MIN);
	EXPECT_FMT(t, "-9223372036854775808", "%+lld", (long long)INT64_MIN);
}

static void z_takes_size_t(struct ktest *t)
{
	EXPECT_FMT(t, "18446744073709551615", "%zu", (size_t)SIZE_MAX);
	EXPECT_FMT(t, "-3", "%zd", (long)-3);
	EXPECT_FMT(t, "1000", "%zx", (size_t)0x1000);
}

static void t_takes_ptrdiff_t(struct ktest *t)
{
	EXPECT_FMT(t, "-9", "%td", (ptrdiff_t)-9);
	EXPECT_FMT(t, "9223372036854775807", "%td", (ptrdiff_t)PTRDIFF_MAX);
}

static void j_takes_intmax_t(struct ktest *t)
{
	EXPECT_FMT(t, "-9223372036854775808", "%jd", (intmax_t)INT64_MIN);
	EXPECT_FMT(t, "18446744073709551615", "%ju", (uintmax_t)UINT64_MAX);
}

/* Arguments after a long one are still fetched in the right place. */
static void mixed_lengths_keep_argument_order(struct ktest *t)
{
	EXPECT_FMT(t, "1 2 3 4 5", "%hhd %lld %d %zu %hd", 1, 2LL, 3, (size_t)4, 5);
}

/* --- unknown and unfinished conversions ------------------------------------ */

static void unknown_conversion_printed_as_is(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "%y", "%y");
	EXPECT_FMT_RAW(t, "a%5yb", "a%5yb");
	EXPECT_FMT_RAW(t, "%-08.3ly", "%-08.3ly");
}

static void unknown_conversion_consumes_no_argument(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "%y 7", "%y %d", 7);
}

static void trailing_percent_printed(struct ktest *t)
{
	EXPECT_FMT_RAW(t, "abc%", "abc%");
	EXPECT_FMT_RAW(t, "abc%5", "abc%5");
	EXPECT_FMT_RAW(t, "%-", "%-");
	EXPECT_FMT_RAW(t, "%ll", "%ll");
}

/* --- truncation ------------------------------------------------------------ */

/*
 * Format into a malloc'd buffer of exactly size bytes (ASan sees any write
 * past it); check the kept text and that the full length is returned.
 */
#define EXPECT_TRUNC(t, size, kept, full_len, ...)                      \
	do {                                                            \
		char *b_ = malloc((size) ? (size) : 1);                 \
		ASSERT_TRUE(t, b_ != NULL);                             \
		EXPECT_EQ(t, fmt_to(b_, (size), __VA_ARGS__), full_len); \
		EXPECT_STREQ(t, b_, kept);                              \
		free(b_);                                               \
	} while (0)

static void truncation_returns_full_length(struct ktest *t)
{
	EXPECT_TRUNC(t, 4, "hel", 5, "%s", "hello");
	EXPECT_TRUNC(t, 6, "12345", 7, "%d", 1234567);
	EXPECT_TRUNC(t, 3, "ab", 26, "abcdefghijklmnopqrstuvwxyz");
}

static void truncation_inside_padding(struct ktest *t)
{
	EXPECT_TRUNC(t, 4, "   ", 10, "%10d", 5);
	EXPECT_TRUNC(t, 4, "0x0", 18, "%p", (void *)0x1);
	EXPECT_TRUNC(t, 5, "-000", 10, "%010d", -1);
}

static void exact_fit_keeps_everything(struct ktest *t)
{
	EXPECT_TRUNC(t, 6, "hello", 5, "%s", "hello");
	EXPECT_TRUNC(t, 5, "hell", 5, "%s", "hello");
}

static void truncated_output_is_terminated(struct ktest *t)
{
	char b[8];

	memset(b, 'X', sizeof(b));
	EXPECT_EQ(t, fmt_to(b, 5, "%s", "abcdefgh"), 8);
	EXPECT_EQ(t, b[4], '\0');
	EXPECT_EQ(t, b[5], 'X');
	EXPECT_STREQ(t, b, "abcd");
}

static void size_zero_writes_nothing(struct ktest *t)
{
	char b[4] = { 'X', 'X', 'X', 'X' };

	EXPECT_EQ(t, fmt_to(b, 0, "%s%d", "abc", 42), 5);
	EXPECT_EQ(t, b[0], 'X');
	EXPECT_EQ(t, fmt_to(NULL, 0, "%08x", 1u), 8);
}

static void size_one_gives_empty_string(struct ktest *t)
{
	char b[2] = { 'X', 'X' };

	EXPECT_EQ(t, fmt_to(b, 1, "%d", 12345), 5);
	EXPECT_EQ(t, b[0], '\0');
	EXPECT_EQ(t, b[1], 'X');
}

static void snprintf_matches_vsnprintf(struct ktest *t)
{
	char b[16];
	int (*volatile entry)(char *, size_t, const char *, ...) = snprintf;

	EXPECT_EQ(t, entry(b, sizeof(b), "%s-%03d", "id", 7), 6);
	EXPECT_STREQ(t, b, "id-007");
	EXPECT_EQ(t, entry(b, 4, "%s", "truncated"), 9);
	EXPECT_STREQ(t, b, "tru");
}

/*
 * A '*' width of INT_MIN is a negative width, i.e. '-' and width 2^31;
 * negating it must not be signed overflow. Run in a child, since UBSan
 * aborts the process if it is.
 */
static void format_star_int_min(void)
{
	char b[8];

	fmt_raw(b, sizeof(b), "%*d", INT_MIN, 1);
}

static void star_width_int_min_is_not_undefined(struct ktest *t)
{
	EXPECT_EQ(t, host_run_in_child(format_star_int_min), 0);
}

/* --- kstrlcpy -------------------------------------------------------------- */

/* Copy into a malloc'd buffer of exactly size bytes; check text and return. */
#define EXPECT_LCPY(t, src, size, kept)                                 \
	do {                                                            \
		char *d_ = malloc(size);                                \
		ASSERT_TRUE(t, d_ != NULL);                             \
		EXPECT_EQ(t, kstrlcpy(d_, src, size), strlen(src));     \
		EXPECT_STREQ(t, d_, kept);                              \
		free(d_);                                               \
	} while (0)

static void kstrlcpy_copies_when_it_fits(struct ktest *t)
{
	EXPECT_LCPY(t, "abc", 8, "abc");
	EXPECT_LCPY(t, "abc", 4, "abc");
	EXPECT_LCPY(t, "", 4, "");
}

static void kstrlcpy_truncates(struct ktest *t)
{
	EXPECT_LCPY(t, "abcdef", 4, "abc");
	EXPECT_LCPY(t, "abc", 3, "ab");
}

static void kstrlcpy_size_one_gives_empty(struct ktest *t)
{
	EXPECT_LCPY(t, "abc", 1, "");
}

static void kstrlcpy_return_tells_truncation(struct ktest *t)
{
	char d[4];

	EXPECT_LT(t, kstrlcpy(d, "abc", sizeof(d)), sizeof(d));
	EXPECT_GE(t, kstrlcpy(d, "abcd", sizeof(d)), sizeof(d));
}

/* list_next() over s, the names joined with '|' into out. */
static const char *walk_list(const char *s, char *out, size_t size)
{
	const char *name;
	size_t len, used = 0;

	out[0] = '\0';
	for (const char *cursor = s; list_next(&cursor, &name, &len);)
		used += (size_t)snprintf(out + used, size - used, "%s%.*s", used ? "|" : "",
					 (int)len, name);
	return out;
}

static void list_next_walks_comma_lists(struct ktest *t)
{
	char out[64];

	EXPECT_STREQ(t, walk_list("sched,rcu,vm", out, sizeof(out)), "sched|rcu|vm");
	EXPECT_STREQ(t, walk_list("one", out, sizeof(out)), "one");
	EXPECT_STREQ(t, walk_list(",a,,b,", out, sizeof(out)), "a|b");
	EXPECT_STREQ(t, walk_list("", out, sizeof(out)), "");
	EXPECT_STREQ(t, walk_list(",,,", out, sizeof(out)), "");
}

/* words_add(): blanks between words, a word cut at the end, then full. */
static void words_fill_the_buffer_then_stop(struct ktest *t)
{
	char buf[12];
	struct words w = words_start(buf, sizeof(buf));

	EXPECT_STREQ(t, buf, "");
	EXPECT_TRUE(t, words_add(&w, "rcu", 3));
	EXPECT_TRUE(t, words_add(&w, "vmXX", 2));       /* only len bytes of the word */
	EXPECT_STREQ(t, buf, "rcu vm");
	EXPECT_FALSE(t, words_add(&w, "sched", 5));     /* cut: "rcu vm sche" */
	EXPECT_STREQ(t, buf, "rcu vm sche");
	EXPECT_FALSE(t, words_add(&w, "dma", 3));       /* full: nothing more */
	EXPECT_STREQ(t, buf, "rcu vm sche");
	w = words_start(buf, 0);                        /* no room at all: nothing written */
	EXPECT_FALSE(t, words_add(&w, "x", 1));
}

static const struct ktest_case format_cases[] = {
	KTEST(plain_text_copied),
	KTEST(d_prints_signed_decimal),
	KTEST(i_is_like_d),
	KTEST(u_prints_unsigned_decimal),
	KTEST(x_and_X_print_hex),
	KTEST(o_prints_octal),
	KTEST(c_prints_one_char),
	KTEST(c_of_nul_counts_one_byte),
	KTEST(s_prints_string),
	KTEST(s_precision_cuts),
	KTEST(s_precision_reads_no_further),
	KTEST(s_of_null_prints_null),
	KTEST(p_prints_0x_and_16_digits),
	KTEST(p_honours_width),
	KTEST(percent_prints_percent),
	KTEST(several_conversions_in_one_format),
	KTEST(minus_pads_on_the_right),
	KTEST(zero_pads_with_zeros_after_sign),
	KTEST(plus_shows_sign),
	KTEST(space_before_positive),
	KTEST(plus_wins_over_space),
	KTEST(minus_wins_over_zero),
	KTEST(hash_adds_hex_prefix),
	KTEST(hash_adds_octal_zero),
	KTEST(hash_on_zero_adds_nothing),
	KTEST(zero_flag_ignored_for_strings_and_chars),
	KTEST(width_pads_on_the_left),
	KTEST(width_smaller_than_text_is_ignored),
	KTEST(star_width_from_argument),
	KTEST(negative_star_width_pads_on_the_right),
	KTEST(precision_sets_minimum_digits),
	KTEST(precision_overrides_zero_flag),
	KTEST(star_precision_from_argument),
	KTEST(negative_star_precision_means_none),
	KTEST(zero_with_precision_zero_prints_no_digits),
	KTEST(hash_with_precision_zero_on_zero),
	KTEST(large_width_and_precision),
	KTEST(hh_truncates_to_char),
	KTEST(h_truncates_to_short),
	KTEST(l_takes_long),
	KTEST(ll_handles_64_bit_extremes),
	KTEST(int64_min_with_flags),
	KTEST(z_takes_size_t),
	KTEST(t_takes_ptrdiff_t),
	KTEST(j_takes_intmax_t),
	KTEST(mixed_lengths_keep_argument_order),
	KTEST(unknown_conversion_printed_as_is),
	KTEST(unknown_conversion_consumes_no_argument),
	KTEST(trailing_percent_printed),
	KTEST(truncation_returns_full_length),
	KTEST(truncation_inside_padding),
	KTEST(exact_fit_keeps_everything),
	KTEST(truncated_output_is_terminated),
	KTEST(size_zero_writes_nothing),
	KTEST(size_one_gives_empty_string),
	KTEST(snprintf_matches_vsnprintf),
	KTEST(star_width_int_min_is_not_undefined),
	KTEST(kstrlcpy_copies_when_it_fits),
	KTEST(kstrlcpy_truncates),
	KTEST(kstrlcpy_size_one_gives_empty),
	KTEST(kstrlcpy_return_tells_truncation),
	KTEST(list_next_walks_comma_lists),
	KTEST(words_fill_the_buffer_then_stop),
	{},
};
KTEST_SUITE(format, format_cases);
