// SPDX-License-Identifier: MIT
/*
 * cmdline.c - fuzz target: the kernel command line parser (kernel/cmdline.c)
 * against a table with every kind of key.
 *
 * Checked: every variable holds a value its key allows (a choice index in
 * range, a number within bounds, a string NUL-terminated in its buffer),
 * and the line itself is not written.
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
	free(line);
	free(copy);
	return 0;
}
