// SPDX-License-Identifier: MIT
/*
 * cmdline_test.c - kernel/cmdline.c on the host: parse_u64 (bases,
 * suffixes, overflow, junk) and cmdline_parse over a local table of one
 * param of each type: values applied, defaults kept, and every bad token
 * counted, harmless, and reported on exactly one "cmdline: ignored" line.
 */
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "kstring.h"
#include "ktest.h"
#include "host.h"

/* --- parse_u64 ------------------------------------------------------------- */

/* Parse s (its strlen) from a malloc'd copy without a NUL, so ASan sees overreads. */
static bool parse(const char *s, bool suffix, u64 *out, const char **why)
{
	size_t len = strlen(s);
	char *copy = malloc(len ? len : 1);
	bool ok;

	memcpy(copy, s, len);
	ok = parse_u64(copy, len, suffix, out, why);
	free(copy);
	return ok;
}

#define EXPECT_PARSES(t, s, suffix, want)                               \
	do {                                                            \
		u64 v_ = 0xdead;                                        \
		const char *why_ = NULL;                                \
		EXPECT_TRUE(t, parse(s, suffix, &v_, &why_));           \
		EXPECT_EQ(t, v_, want);                                 \
	} while (0)

/* Fails with reason why, and leaves the output alone. */
#define EXPECT_REJECTS(t, s, suffix, reason)                            \
	do {                                                            \
		u64 v_ = 77;                                            \
		const char *why_ = NULL;                                \
		EXPECT_FALSE(t, parse(s, suffix, &v_, &why_));          \
		EXPECT_STREQ(t, why_, reason);                          \
		EXPECT_EQ(t, v_, 77);                                   \
	} while (0)

static void u64_decimal(struct ktest *t)
{
	EXPECT_PARSES(t, "0", false, 0);
	EXPECT_PARSES(t, "12345", false, 12345);
	EXPECT_PARSES(t, "007", false, 7);
	EXPECT_PARSES(t, "18446744073709551615", false, UINT64_MAX);
}

static void u64_hex(struct ktest *t)
{
	EXPECT_PARSES(t, "0x1f", false, 0x1f);
	EXPECT_PARSES(t, "0XFF", false, 0xff);
	EXPECT_PARSES(t, "0xDeadBeef", false, 0xdeadbeef);
	EXPECT_PARSES(t, "0x0", false, 0);
	EXPECT_PARSES(t, "0xffffffffffffffff", false, UINT64_MAX);
}

static void u64_reads_only_len_bytes(struct ktest *t)
{
	u64 v = 0;
	const char *why = NULL;

	EXPECT_TRUE(t, parse_u64("123abc", 3, false, &v, &why));
	EXPECT_EQ(t, v, 123);
	EXPECT_TRUE(t, parse_u64("4Kjunk", 2, true, &v, &why));
	EXPECT_EQ(t, v, 4096);
}

static void u64_suffixes_when_allowed(struct ktest *t)
{
	EXPECT_PARSES(t, "4K", true, 4096);
	EXPECT_PARSES(t, "2M", true, 2ULL << 20);
	EXPECT_PARSES(t, "3G", true, 3ULL << 30);
	EXPECT_PARSES(t, "0x10K", true, 16 << 10);
	EXPECT_PARSES(t, "0K", true, 0);
	EXPECT_PARSES(t, "4096", true, 4096);
}

static void u64_lower_case_suffixes(struct ktest *t)
{
	EXPECT_PARSES(t, "4k", true, 4096);
	EXPECT_PARSES(t, "2m", true, 2ULL << 20);
	EXPECT_PARSES(t, "1g", true, 1ULL << 30);
}

static void u64_suffix_rejected_when_not_allowed(struct ktest *t)
{
	EXPECT_REJECTS(t, "4K", false, "not a number");
	EXPECT_REJECTS(t, "2m", false, "not a number");
	EXPECT_REJECTS(t, "1G", false, "not a number");
}

static void u64_other_suffixes_rejected(struct ktest *t)
{
	EXPECT_REJECTS(t, "4T", true, "not a number");
	EXPECT_REJECTS(t, "4KB", true, "not a number");
	EXPECT_REJECTS(t, "4KK", true, "not a number");
}

static void u64_overflow_by_digits(struct ktest *t)
{
	EXPECT_REJECTS(t, "18446744073709551616", false, "too large");
	EXPECT_REJECTS(t, "99999999999999999999", false, "too large");
	EXPECT_REJECTS(t, "0x10000000000000000", false, "too large");
}

static void u64_overflow_by_suffix(struct ktest *t)
{
	EXPECT_PARSES(t, "17179869183G", true, UINT64_MAX - (1ULL << 30) + 1);
	EXPECT_REJECTS(t, "17179869184G", true, "too large");
	EXPECT_REJECTS(t, "0x40000000000000K", true, "too large");
	EXPECT_REJECTS(t, "18446744073709551615K", true, "too large");
}

static void u64_empty_rejected(struct ktest *t)
{
	EXPECT_REJECTS(t, "", false, "empty value");
	EXPECT_REJECTS(t, "", true, "empty value");
}

static void u64_bare_0x_rejected(struct ktest *t)
{
	EXPECT_REJECTS(t, "0x", false, "not a number");
	EXPECT_REJECTS(t, "0x", true, "not a number");
	EXPECT_REJECTS(t, "0xK", true, "not a number");
}

static void u64_bare_suffix_rejected(struct ktest *t)
{
	EXPECT_REJECTS(t, "K", true, "not a number");
	EXPECT_REJECTS(t, "g", true, "not a number");
}

static void u64_junk_rejected(struct ktest *t)
{
	EXPECT_REJECTS(t, "12a", false, "not a number");
	EXPECT_REJECTS(t, "-1", false, "not a number");
	EXPECT_REJECTS(t, "+1", false, "not a number");
	EXPECT_REJECTS(t, " 1", false, "not a number");
	EXPECT_REJECTS(t, "1.5", false, "not a number");
	EXPECT_REJECTS(t, "0xg", false, "not a number");
	EXPECT_REJECTS(t, "abc", false, "not a number");
	EXPECT_REJECTS(t, "0x1 ", false, "not a number");
}

/* --- cmdline_parse --------------------------------------------------------- */

static int mode;
static u64 count;
static u64 mem;
static char name[8];

static const char *const mode_choices[] = { "a", "b", "c" };

static const struct param test_params[] = {
	{ .key = "mode", .type = PARAM_CHOICE, .var = &mode, .choices = mode_choices,
	  .nchoices = ARRAY_SIZE(mode_choices), .choice_size = sizeof(mode_choices[0]) },
	{ .key = "count", .type = PARAM_U64, .var = &count, .min = 1, .max = 100 },
	{ .key = "mem", .type = PARAM_SIZE, .var = &mem, .min = 4096, .max = 1ULL << 30 },
	{ .key = "name", .type = PARAM_STR, .var = name, .size = sizeof(name) },
};

#define DEFAULT_MODE 1
#define DEFAULT_COUNT 10
#define DEFAULT_MEM (64ULL << 20)
#define DEFAULT_NAME "dflt"

static void reset(void)
{
	mode = DEFAULT_MODE;
	count = DEFAULT_COUNT;
	mem = DEFAULT_MEM;
	memcpy(name, DEFAULT_NAME, sizeof(DEFAULT_NAME));
	host_log_clear();
}

/* Parse a malloc'd copy of line (ASan sees overreads); check it is not modified. */
static int parse_line(const char *line)
{
	size_t len = strlen(line) + 1;
	char *copy = malloc(len);
	int ignored;

	memcpy(copy, line, len);
	ignored = cmdline_parse(copy, test_params, ARRAY_SIZE(test_params));
	if (memcmp(copy, line, len))
		ignored = -1000;
	free(copy);
	return ignored;
}

static bool all_defaults(void)
{
	return mode == DEFAULT_MODE && count == DEFAULT_COUNT && mem == DEFAULT_MEM &&
	       !strcmp(name, DEFAULT_NAME);
}

/* The token is ignored: nothing changes, one line says why. */
#define EXPECT_IGNORED(t, line, message)                                \
	do {                                                            \
		reset();                                                \
		EXPECT_EQ(t, parse_line(line), 1);                      \
		EXPECT_TRUE(t, all_defaults());                         \
		EXPECT_STREQ(t, host_log(), message "\n");              \
	} while (0)

static void empty_line_keeps_defaults(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line(""), 0);
	EXPECT_TRUE(t, all_defaults());
	EXPECT_STREQ(t, host_log(), "");
}

static void blank_line_keeps_defaults(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("  \t \r\n "), 0);
	EXPECT_TRUE(t, all_defaults());
	EXPECT_STREQ(t, host_log(), "");
}

static void unrelated_absent_keys_keep_defaults(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("count=5"), 0);
	EXPECT_EQ(t, count, 5);
	EXPECT_EQ(t, mode, DEFAULT_MODE);
	EXPECT_EQ(t, mem, DEFAULT_MEM);
	EXPECT_STREQ(t, name, DEFAULT_NAME);
}

static void valid_values_applied(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("mode=c count=42 mem=16M name=hello"), 0);
	EXPECT_EQ(t, mode, 2);
	EXPECT_EQ(t, count, 42);
	EXPECT_EQ(t, mem, 16ULL << 20);
	EXPECT_STREQ(t, name, "hello");
	EXPECT_STREQ(t, host_log(), "");
}

static void choice_index_is_stored(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("mode=a"), 0);
	EXPECT_EQ(t, mode, 0);
	EXPECT_EQ(t, parse_line("mode=c"), 0);
	EXPECT_EQ(t, mode, 2);
}

static void u64_bounds_inclusive(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("count=1"), 0);
	EXPECT_EQ(t, count, 1);
	EXPECT_EQ(t, parse_line("count=100"), 0);
	EXPECT_EQ(t, count, 100);
	EXPECT_EQ(t, parse_line("count=0x20"), 0);
	EXPECT_EQ(t, count, 32);
}

static void size_bounds_and_suffixes(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("mem=4K"), 0);
	EXPECT_EQ(t, mem, 4096);
	EXPECT_EQ(t, parse_line("mem=1G"), 0);
	EXPECT_EQ(t, mem, 1ULL << 30);
	EXPECT_EQ(t, parse_line("mem=8192"), 0);
	EXPECT_EQ(t, mem, 8192);
}

static void string_fills_buffer_exactly(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("name=abcdefg"), 0);
	EXPECT_STREQ(t, name, "abcdefg");
}

static void string_may_be_empty(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("name="), 0);
	EXPECT_STREQ(t, name, "");
}

static void value_may_contain_equals(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("name=a=b"), 0);
	EXPECT_STREQ(t, name, "a=b");
}

static void last_one_wins(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("mode=a count=5 mode=c count=6"), 0);
	EXPECT_EQ(t, mode, 2);
	EXPECT_EQ(t, count, 6);
}

static void last_good_value_wins(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("count=5 count=abc count=0"), 2);
	EXPECT_EQ(t, count, 5);
}

static void unknown_key_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "colour=red", "cmdline: ignored colour=red: unknown key");
}

static void key_must_match_whole(struct ktest *t)
{
	EXPECT_IGNORED(t, "mod=a", "cmdline: ignored mod=a: unknown key");
	EXPECT_IGNORED(t, "modes=a", "cmdline: ignored modes=a: unknown key");
	EXPECT_IGNORED(t, "MODE=a", "cmdline: ignored MODE=a: unknown key");
}

static void empty_key_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "=a", "cmdline: ignored =a: unknown key");
}

static void missing_equals_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "verbose", "cmdline: ignored verbose: expected key=value");
	EXPECT_IGNORED(t, "mode", "cmdline: ignored mode: expected key=value");
}

static void bad_choice_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "mode=d", "cmdline: ignored mode=d: expected one of a|b|c");
	EXPECT_IGNORED(t, "mode=ab", "cmdline: ignored mode=ab: expected one of a|b|c");
	EXPECT_IGNORED(t, "mode=", "cmdline: ignored mode=: expected one of a|b|c");
}

static void non_number_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "count=ten", "cmdline: ignored count=ten: not a number");
	EXPECT_IGNORED(t, "count=1K", "cmdline: ignored count=1K: not a number");
	EXPECT_IGNORED(t, "mem=16X", "cmdline: ignored mem=16X: not a number");
}

static void empty_number_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "count=", "cmdline: ignored count=: empty value");
	EXPECT_IGNORED(t, "mem=", "cmdline: ignored mem=: empty value");
}

static void too_large_number_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "mem=99999999999999999999",
		       "cmdline: ignored mem=99999999999999999999: too large");
	EXPECT_IGNORED(t, "mem=17179869184G", "cmdline: ignored mem=17179869184G: too large");
}

static void out_of_range_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "count=0", "cmdline: ignored count=0: out of range 1..100");
	EXPECT_IGNORED(t, "count=101", "cmdline: ignored count=101: out of range 1..100");
	EXPECT_IGNORED(t, "mem=2K", "cmdline: ignored mem=2K: out of range 4096..1073741824");
	EXPECT_IGNORED(t, "mem=2G", "cmdline: ignored mem=2G: out of range 4096..1073741824");
}

static void too_long_string_ignored(struct ktest *t)
{
	EXPECT_IGNORED(t, "name=abcdefgh",
		       "cmdline: ignored name=abcdefgh: longer than 7 characters");
}

static void every_bad_token_counted(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("a b=1 mode=z count=2 name=waytoolong"), 4);
	EXPECT_EQ(t, count, 2);
	EXPECT_EQ(t, mode, DEFAULT_MODE);
	EXPECT_STREQ(t, name, DEFAULT_NAME);
	EXPECT_EQ(t, host_log_count("cmdline: ignored "), 4);
	EXPECT_EQ(t, host_log_count("\n"), 4);
	EXPECT_TRUE(t, host_log_has("cmdline: ignored a: expected key=value\n"));
	EXPECT_TRUE(t, host_log_has("cmdline: ignored b=1: unknown key\n"));
	EXPECT_TRUE(t, host_log_has("cmdline: ignored mode=z: expected one of a|b|c\n"));
	EXPECT_TRUE(t, host_log_has("cmdline: ignored name=waytoolong: longer than 7 characters\n"));
}

static void spaces_and_tabs_separate_tokens(struct ktest *t)
{
	reset();
	EXPECT_EQ(t, parse_line("   mode=a\t\tcount=3  \t mem=8K\n\rname=x   "), 0);
	EXPECT_EQ(t, mode, 0);
	EXPECT_EQ(t, count, 3);
	EXPECT_EQ(t, mem, 8192);
	EXPECT_STREQ(t, name, "x");
	EXPECT_STREQ(t, host_log(), "");
}

static void bad_token_between_tabs_reported_alone(struct ktest *t)
{
	EXPECT_IGNORED(t, "\tbogus\t", "cmdline: ignored bogus: expected key=value");
}

/* A 300-character token is echoed cut to 256 characters. */
static void long_token_echo_truncated(struct ktest *t)
{
	char token[301], want[512];

	memset(token, 'k', 299);
	token[299] = '1';
	token[300] = '\0';
	token[150] = '=';
	strcpy(want, "cmdline: ignored ");
	memcpy(want + strlen(want), token, 256);
	strcpy(want + strlen("cmdline: ignored ") + 256, ": unknown key\n");
	reset();
	EXPECT_EQ(t, parse_line(token), 1);
	EXPECT_TRUE(t, all_defaults());
	EXPECT_STREQ(t, host_log(), want);
	EXPECT_EQ(t, strlen(host_log()), strlen("cmdline: ignored : unknown key\n") + 256);
}

static void long_value_for_string_rejected(struct ktest *t)
{
	char line[400];

	memcpy(line, "name=", 5);
	memset(line + 5, 'v', 300);
	line[305] = '\0';
	reset();
	EXPECT_EQ(t, parse_line(line), 1);
	EXPECT_STREQ(t, name, DEFAULT_NAME);
	EXPECT_TRUE(t, host_log_has(": longer than 7 characters\n"));
	EXPECT_EQ(t, host_log_count("\n"), 1);
}

static void no_params_ignores_everything(struct ktest *t)
{
	host_log_clear();
	EXPECT_EQ(t, cmdline_parse("a=1 b=2", test_params, 0), 2);
	EXPECT_EQ(t, host_log_count("unknown key\n"), 2);
}

/*
 * The two examples in cmdline.h's opening comment, written the same way:
 * the macros put them in the params section, where the kernel's parser
 * finds every key.
 */
static int console_mode;        /* 0 = both (the default), 1 = serial, 2 = fb */
PARAM_CHOICE("console", console_mode, "both", "serial", "fb");

struct example_mode {
	const char *name;
	int batch;
};
static const struct example_mode example_modes[] = { { "slow", 10 }, { "fast", 10000 } };
static int example_mode_arg = 1;
PARAM_ENUM("example.mode", example_mode_arg, example_modes);

static void header_examples_land_in_the_params_section(struct ktest *t)
{
	size_t n = (size_t)(__stop_params - __start_params);

	host_log_clear();
	EXPECT_EQ(t, cmdline_parse("console=fb example.mode=slow", __start_params, n), 0);
	EXPECT_EQ(t, console_mode, 2);
	EXPECT_EQ(t, example_modes[example_mode_arg].batch, 10);
	EXPECT_EQ(t, cmdline_parse("example.mode=medium", __start_params, n), 1);
	EXPECT_TRUE(t, host_log_has("cmdline: ignored example.mode=medium: expected one of slow|fast\n"));
	EXPECT_EQ(t, example_mode_arg, 0);
}

static const struct ktest_case cmdline_cases[] = {
	KTEST(u64_decimal),
	KTEST(u64_hex),
	KTEST(u64_reads_only_len_bytes),
	KTEST(u64_suffixes_when_allowed),
	KTEST(u64_lower_case_suffixes),
	KTEST(u64_suffix_rejected_when_not_allowed),
	KTEST(u64_other_suffixes_rejected),
	KTEST(u64_overflow_by_digits),
	KTEST(u64_overflow_by_suffix),
	KTEST(u64_empty_rejected),
	KTEST(u64_bare_0x_rejected),
	KTEST(u64_bare_suffix_rejected),
	KTEST(u64_junk_rejected),
	KTEST(empty_line_keeps_defaults),
	KTEST(blank_line_keeps_defaults),
	KTEST(unrelated_absent_keys_keep_defaults),
	KTEST(valid_values_applied),
	KTEST(choice_index_is_stored),
	KTEST(u64_bounds_inclusive),
	KTEST(size_bounds_and_suffixes),
	KTEST(string_fills_buffer_exactly),
	KTEST(string_may_be_empty),
	KTEST(value_may_contain_equals),
	KTEST(last_one_wins),
	KTEST(last_good_value_wins),
	KTEST(unknown_key_ignored),
	KTEST(key_must_match_whole),
	KTEST(empty_key_ignored),
	KTEST(missing_equals_ignored),
	KTEST(bad_choice_ignored),
	KTEST(non_number_ignored),
	KTEST(empty_number_ignored),
	KTEST(too_large_number_ignored),
	KTEST(out_of_range_ignored),
	KTEST(too_long_string_ignored),
	KTEST(every_bad_token_counted),
	KTEST(spaces_and_tabs_separate_tokens),
	KTEST(bad_token_between_tabs_reported_alone),
	KTEST(long_token_echo_truncated),
	KTEST(long_value_for_string_rejected),
	KTEST(no_params_ignores_everything),
	KTEST(header_examples_land_in_the_params_section),
	{},
};
KTEST_SUITE(cmdline, cmdline_cases);
