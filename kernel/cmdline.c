// SPDX-License-Identifier: MIT
/*
 * cmdline.c - parse "key=value key=value ..." against a table of params.
 *
 * Pure code (no globals written but the params' own variables), so it also
 * runs in the host unit tests (tests/host/cmdline_test.c) under ASan/UBSan.
 *
 * Invariants: a bad token changes no variable; every ignored token produces
 * exactly one "cmdline: ignored" line; nothing is read past the line's NUL.
 */
#include "cmdline.h"
#include "format.h"
#include "kstring.h"
#include "printk.h"

#define TOKEN_MAX 256           /* longest token echoed back in a message */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool parse_u64(const char *s, size_t len, bool allow_suffix, u64 *out, const char **why)
{
	unsigned base = 10;
	u64 value = 0, mult = 1;
	size_t i = 0;

	if (len == 0) {
		*why = "empty value";
		return false;
	}
	if (allow_suffix) {
		switch (s[len - 1]) {
		case 'k': case 'K': mult = 1ULL << 10; len--; break;
		case 'm': case 'M': mult = 1ULL << 20; len--; break;
		case 'g': case 'G': mult = 1ULL << 30; len--; break;
		}
	}
	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len) {
		*why = "not a number";
		return false;
	}
	for (; i < len; i++) {
		unsigned d;
		char c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else {
			*why = "not a number";
			return false;
		}
		if (value > (UINT64_MAX - d) / base) {
			*why = "too large";
			return false;
		}
		value = value * base + d;
	}
	if (value > UINT64_MAX / mult) {
		*why = "too large";
		return false;
	}
	*out = value * mult;
	return true;
}

/* The first '=' in tok[0..len), or NULL. */
static const char *find_eq(const char *tok, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (tok[i] == '=')
			return tok + i;
	return NULL;
}

/* Find the param for key[0..len), or NULL. */
static const struct param *find_param(const char *key, size_t len,
				      const struct param *params, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(params[i].key) == len && !strncmp(params[i].key, key, len))
			return &params[i];
	return NULL;
}

/* The name of choice i: the const char * that starts row i of the table. */
static const char *choice_name(const struct param *p, u32 i)
{
	const char *row = (const char *)p->choices + (size_t)i * p->choice_size;
	const char *name;

	memcpy(&name, row, sizeof(name));
	return name;
}

/* Apply value[0..len) to p; on failure write the reason into why[]. */
static bool apply(const struct param *p, const char *value, size_t len, char *why, size_t whylen)
{
	const char *reason;
	u64 v;

	switch (p->type) {
	case PARAM_CHOICE: {
		size_t used;
		for (u32 i = 0; i < p->nchoices; i++) {
			const char *name = choice_name(p, i);
			if (strlen(name) == len && !strncmp(name, value, len)) {
				*(int *)p->var = (int)i;
				return true;
			}
		}
		used = (size_t)snprintf(why, whylen, "expected one of ");
		for (u32 i = 0; i < p->nchoices && used < whylen; i++)
			used += (size_t)snprintf(why + used, whylen - used, "%s%s",
						 i ? "|" : "", choice_name(p, i));
		return false;
	}
	case PARAM_U64:
	case PARAM_SIZE:
		if (!parse_u64(value, len, p->type == PARAM_SIZE, &v, &reason)) {
			snprintf(why, whylen, "%s", reason);
			return false;
		}
		if (v < p->min || v > p->max) {
			snprintf(why, whylen, "out of range %llu..%llu", p->min, p->max);
			return false;
		}
		*(u64 *)p->var = v;
		return true;
	case PARAM_STR:
		if (len + 1 > p->size) {
			snprintf(why, whylen, "longer than %zu characters", p->size - 1);
			return false;
		}
		memcpy(p->var, value, len);
		((char *)p->var)[len] = '\0';
		return true;
	}
	snprintf(why, whylen, "bad parameter type");
	return false;
}

int cmdline_parse(const char *line, const struct param *params, size_t n)
{
	int ignored = 0;

	while (*line) {
		const char *tok, *eq;
		size_t toklen;
		char why[160];
		const struct param *p;

		while (is_space(*line))
			line++;
		if (!*line)
			break;
		tok = line;
		while (*line && !is_space(*line))
			line++;
		toklen = (size_t)(line - tok);
		eq = find_eq(tok, toklen);

		why[0] = '\0';
		if (!eq) {
			snprintf(why, sizeof(why), "expected key=value");
		} else if (!(p = find_param(tok, (size_t)(eq - tok), params, n))) {
			snprintf(why, sizeof(why), "unknown key");
		} else if (apply(p, eq + 1, toklen - (size_t)(eq - tok) - 1, why, sizeof(why))) {
			continue;
		}
		printk(KERN_WARNING "cmdline: ignored %.*s: %s\n",
		       (int)MIN(toklen, (size_t)TOKEN_MAX), tok, why);
		ignored++;
	}
	return ignored;
}
