// SPDX-License-Identifier: MIT
/*
 * cmdline.c - fuzz target: the kernel command line parser (kernel/cmdline.c)
 * against a table with every kind of key.
 *
 * Checked: every variable holds a value its key allows (a choice index in
 * range, a number within bounds, a string NUL-terminated in its buffer),
 * and the line itself is not written. And the oracle, from a second
 * reading of the line (up to its first NUL; words split at space, tab, CR
 * and LF; key up to the first '='): each variable holds the value of the
 * last word for its key that is valid, else its default; a word is valid
 * when its value is one of the choices (exactly), a number (decimal, or
 * hex after "0x" with a digit; a K, M or G suffix for sizes only) without
 * overflow and within bounds, or a string that fits with its NUL; the
 * count returned is the words that are not valid.
 */
#include "cmdline.h"
#include "fuzz.h"

static int mode;
static u64 count, bytes;
static char name[8];
static const char *const modes[] = { "fqs", "count", "batch10k", "rc4" };

static const struct param params[] = {
	{ .key = "rcu.mode", .type = PARAM_CHOICE, .var = &mode, .choices = modes,
	  .nchoices = ARRAY_SIZE(modes), .choice_size = sizeof(modes[0]) },
	{ .key = "storm", .type = PARAM_U64, .var = &count, .min = 1, .max = 1000000 },
	{ .key = "swiotlb.size", .type = PARAM_SIZE, .var = &bytes, .min = 4096, .max = 1ULL << 30 },
	{ .key = "test", .type = PARAM_STR, .var = name, .size = sizeof(name) },
};

/* The value of s[0..len) as the oracle reads a number, or false. */
static bool number(const char *s, size_t len, bool suffix, u64 *out)
{
	unsigned __int128 v = 0, mult = 1;
	size_t i = 0;

	if (suffix && len && strchr("kKmMgG", s[len - 1]) && s[len - 1]) {
		char c = s[len - 1] | 0x20;
		mult = c == 'k' ? 1u << 10 : c == 'm' ? 1u << 20 : 1u << 30;
		len--;
	}
	bool hex = len > 2 && s[0] == '0' && (s[1] | 0x20) == 'x';
	for (i = hex ? 2 : 0; i < len; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
			     hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (unsigned)((c | 0x20) - 'a' + 10) : 99;
		if (d == 99)
			return false;
		v = v * (hex ? 16 : 10) + d;
		if (v > UINT64_MAX)
			return false;
	}
	if (len == (hex ? 2u : 0u) || v * mult > UINT64_MAX)
		return false;
	*out = (u64)(v * mult);
	return true;
}

/* Apply word w[0..len) to the expected values; false if it is not valid. */
static bool expect_word(const char *w, size_t len, int *m, u64 *c, u64 *b, char *n)
{
	const char *eq = memchr(w, '=', len);
	size_t klen = eq ? (size_t)(eq - w) : 0, vlen = eq ? len - klen - 1 : 0;
	u64 v;

	if (!eq)
		return false;
	if (klen == 8 && !memcmp(w, "rcu.mode", 8)) {
		for (int i = 0; i < (int)ARRAY_SIZE(modes); i++)
			if (strlen(modes[i]) == vlen && !memcmp(eq + 1, modes[i], vlen))
				return *m = i, true;
		return false;
	}
	if (klen == 5 && !memcmp(w, "storm", 5))
		return number(eq + 1, vlen, false, &v) && v >= 1 && v <= 1000000 && (*c = v, true);
	if (klen == 12 && !memcmp(w, "swiotlb.size", 12))
		return number(eq + 1, vlen, true, &v) && v >= 4096 && v <= 1ULL << 30 && (*b = v, true);
	if (klen == 4 && !memcmp(w, "test", 4) && vlen + 1 <= sizeof(name)) {
		memcpy(n, eq + 1, vlen);
		n[vlen] = 0;
		return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char *line = malloc(size + 1), *copy = malloc(size + 1);

	fuzz_quiet();
	memcpy(line, data, size);
	line[size] = 0;
	memcpy(copy, line, size + 1);
	mode = 0;
	count = 10;
	bytes = 1 << 20;
	strcpy(name, "none");
	int ignored = cmdline_parse(line, params, ARRAY_SIZE(params));
	FUZZ_CHECK(ignored >= 0);
	FUZZ_CHECK(mode >= 0 && mode < (int)ARRAY_SIZE(modes));
	FUZZ_CHECK(count >= 1 && count <= 1000000);
	FUZZ_CHECK(bytes >= 4096 && bytes <= 1ULL << 30);
	FUZZ_CHECK(memchr(name, 0, sizeof(name)) != NULL);
	FUZZ_CHECK(!memcmp(line, copy, size + 1));

	int want_mode = 0, want_ignored = 0;
	u64 want_count = 10, want_bytes = 1 << 20;
	char want_name[sizeof(name)] = "none";
	for (const char *p = line; *p;) {
		size_t len = 0;
		while (*p && strchr(" \t\r\n", *p))
			p++;
		while (p[len] && !strchr(" \t\r\n", p[len]))
			len++;
		if (len)
			want_ignored += !expect_word(p, len, &want_mode, &want_count, &want_bytes, want_name);
		p += len;
	}
	FUZZ_CHECK(ignored == want_ignored && mode == want_mode);
	FUZZ_CHECK(count == want_count && bytes == want_bytes && !strcmp(name, want_name));
	free(line);
	free(copy);
	return 0;
}
