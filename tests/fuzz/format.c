// SPDX-License-Identifier: MIT
/*
 * format.c - fuzz target: the kernel's printf engine (kernel/format.c),
 * checked against the C library's on every conversion both define alike.
 *
 * Each input is a run of conversions "%<flags>*.*<length><conversion>" with
 * width, precision and value taken from the input, between bits of literal
 * text, written into a buffer of a size from the input. Both engines must
 * return the same length and write the same bytes, NUL-terminated. Left
 * out: what C leaves undefined (# with d, i, u, c, s; 0 with c, s; a
 * precision with c; length modifiers with c and s; + and space with
 * unsigned conversions) and %p (the kernel's prints 16 digits).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>

#include "format.h"
#include "fuzz.h"

typedef int (*vsnprintf_fn)(char *, size_t, const char *, va_list);

static int libc_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	static vsnprintf_fn libc;
	va_list ap;

	if (!libc)
		libc = (vsnprintf_fn)dlsym(RTLD_NEXT, "vsnprintf");
	va_start(ap, fmt);
	int n = libc(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

#define BOTH(call_args)                                                  \
	do {                                                             \
		n1 = snprintf call_args;                                 \
		swap();                                                  \
		n2 = libc_snprintf call_args;                            \
		swap();                                                  \
	} while (0)

static char a[80], b[80];
static char *out = a;

static void swap(void)
{
	out = out == a ? b : a;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static const char convs[] = "diuxXocs";
	static const char *const lengths[] = { "", "hh", "h", "l", "ll", "z" };
	struct fuzz_input in = { data, size, 0 };

	fuzz_quiet();
	while (fuzz_more(&in)) {
		char fmt[64], text[8] = { 0 }, str[48];
		size_t bufsize = fuzz_take(&in, 1) % sizeof(a);
		char conv = convs[fuzz_take(&in, 1) % (sizeof(convs) - 1)];
		const char *len = lengths[fuzz_take(&in, 1) % ARRAY_SIZE(lengths)];
		unsigned flags = (unsigned)fuzz_take(&in, 1);
		int width = (int)(s8)fuzz_take(&in, 1) % 50, prec = (int)(s8)fuzz_take(&in, 1) % 50;
		u64 v = fuzz_take(&in, 8);
		bool is_signed = conv == 'd' || conv == 'i', is_text = conv == 'c' || conv == 's';

		for (size_t i = 0; i < sizeof(text) - 1; i++)
			text[i] = (char)(' ' + fuzz_take(&in, 1) % 95);
		text[fuzz_take(&in, 1) % sizeof(text)] = 0;
		if (strchr(text, '%'))
			continue;
		if (is_text)
			len = "";
		char *f = fmt + sprintf(fmt, "%s%%", text);
		if (flags & 1) *f++ = '-';
		if ((flags & 2) && !is_text) *f++ = '0';
		if ((flags & 4) && is_signed) *f++ = '+';
		if ((flags & 8) && is_signed) *f++ = ' ';
		if ((flags & 16) && !is_signed && !is_text && conv != 'u') *f++ = '#';
		sprintf(f, conv == 'c' ? "*%s%c|" : "*.*%s%c|", len, conv);

		int n1, n2;
		memset(a, 'A', sizeof(a));
		memset(b, 'A', sizeof(b));
		if (conv == 's') {
			/* With a precision, exactly that many bytes and no NUL: nothing may be read past. */
			size_t n = prec >= 0 ? (size_t)prec : fuzz_take(&in, 1) % 40;
			char *s = prec >= 0 ? malloc(n ? n : 1) : str;
			for (size_t i = 0; i < n; i++)
				s[i] = (char)(' ' + fuzz_take(&in, 1) % 95);
			if (prec < 0)
				s[n] = 0;
			BOTH((out, bufsize, fmt, width, prec, s));
			if (s != str)
				free(s);
		} else if (conv == 'c') {
			BOTH((out, bufsize, fmt, width, (int)(v & 0x7f) | 0x20));
		} else if (!strcmp(len, "l") || !strcmp(len, "z")) {
			BOTH((out, bufsize, fmt, width, prec, (long)v));
		} else if (!strcmp(len, "ll")) {
			BOTH((out, bufsize, fmt, width, prec, (long long)v));
		} else {
			BOTH((out, bufsize, fmt, width, prec, (int)v));
		}
		if (n1 != n2 || (bufsize && memcmp(a, b, bufsize))) {
			fprintf(stderr, "format \"%s\" (size %zu): kernel %d \"%.*s\", libc %d \"%.*s\"\n",
				fmt, bufsize, n1, (int)bufsize, a, n2, (int)bufsize, b);
			abort();
		}
		FUZZ_CHECK(!bufsize || memchr(a, 0, bufsize));
		FUZZ_CHECK(a[bufsize] == 'A');          /* nothing past the buffer */
	}
	return 0;
}
