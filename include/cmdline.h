/* SPDX-License-Identifier: MIT */
/*
 * cmdline.h - the kernel command line: "key=value" tokens, space separated.
 *
 * Each subsystem declares the keys it owns where its variable lives:
 *
 *	static int console_mode;        // 0 = both (the default), 1 = serial, 2 = fb
 *	PARAM_CHOICE("console", console_mode, "both", "serial", "fb");
 *
 * A choice among the rows of a table (an enum's table, whose rows start
 * with their name) is a PARAM_ENUM, so the names are written once:
 *
 *	static int rcu_mode_arg = RCU_MODE_FQS;
 *	PARAM_ENUM("rcu.mode", rcu_mode_arg, rcu_modes);
 *
 * The declarations land in the "params" section (linker.ld gathers them
 * between __start_params and __stop_params), so the parser needs no list of
 * its own. A variable's initial value is the default; a token whose key is
 * unknown or whose value does not parse is reported as
 *	cmdline: ignored <token>: <why>
 * and changes nothing. When a key repeats, the last good value wins.
 *
 * The line is GRUB's (multiboot2 tag) followed by QEMU's fw_cfg file
 * opt/testbed/cmdline, so one ISO serves every test boot.
 */
#ifndef CMDLINE_H
#define CMDLINE_H

#include "param.h"
#include "types.h"

enum param_type {
	PARAM_CHOICE,           /* one of a list of words (or table rows): int var = index */
	PARAM_U64,              /* decimal or 0x hex number in [min, max]: u64 var */
	PARAM_SIZE,             /* like U64, with an optional K, M or G suffix (x1024^n) */
	PARAM_STR,              /* any text without spaces: char var[size] */
};

struct param {
	const char *key;
	enum param_type type;
	void *var;
	const void *choices;            /* PARAM_CHOICE: nchoices rows of choice_size bytes, */
	u32 nchoices, choice_size;      /* each starting with its name, a const char * */
	u64 min, max;                   /* PARAM_U64, PARAM_SIZE */
	size_t size;                    /* PARAM_STR: buffer size including the NUL */
} __aligned(8);

#define PARAM_SECTION __used __section("params") __aligned(8)

/* key is written as a C string: PARAM_CHOICE("numa", numa_off, "on", "off"). */
#define PARAM_CHOICE(key_, var_, ...)                                               \
	static const char *const var_##_choices[] = { __VA_ARGS__ };                \
	PARAM_ROWS_(key_, var_, var_##_choices)
/* table_ is an array of structs whose first member is const char *name. */
#define PARAM_ENUM(key_, var_, table_)                                              \
	BUILD_BUG_ON(offsetof(__typeof__((table_)[0]), name) != 0);                 \
	PARAM_ROWS_(key_, var_, table_)
#define PARAM_ROWS_(key_, var_, rows_)                                              \
	BUILD_BUG_ON(!__builtin_types_compatible_p(__typeof__(var_), int));         \
	static const struct param var_##_param PARAM_SECTION = {                    \
		.key = key_, .type = PARAM_CHOICE, .var = &var_, .choices = (rows_),      \
		.nchoices = ARRAY_SIZE(rows_), .choice_size = sizeof((rows_)[0]) }
#define PARAM_U64(key_, var_, min_, max_)                                           \
	static const struct param var_##_param PARAM_SECTION = {                    \
		.key = key_, .type = PARAM_U64, .var = &var_, .min = min_, .max = max_ }
#define PARAM_SIZE(key_, var_, min_, max_)                                          \
	static const struct param var_##_param PARAM_SECTION = {                    \
		.key = key_, .type = PARAM_SIZE, .var = &var_, .min = min_, .max = max_ }
#define PARAM_STR(key_, var_)                                                       \
	static const struct param var_##_param PARAM_SECTION = {                    \
		.key = key_, .type = PARAM_STR, .var = var_, .size = sizeof(var_) }

/*
 * Apply every token of line to the matching param of params[0..n). The line
 * is not modified. Returns the number of tokens ignored.
 */
int cmdline_parse(const char *line, const struct param *params, size_t n);

/*
 * Parse a number: decimal, or hex with 0x; with allow_suffix, a trailing
 * K, M or G multiplies by 2^10, 2^20, 2^30. On failure returns false and
 * sets *why to a short reason ("not a number", "too large").
 */
bool parse_u64(const char *s, size_t len, bool allow_suffix, u64 *out, const char **why);

/* The kernel's parameters, from the params section. */
extern const struct param __start_params[], __stop_params[];

/* This boot's whole command line, GRUB's and fw_cfg's joined (kernel/main.c). */
extern char kernel_cmdline[CMDLINE_MAX];

#endif
