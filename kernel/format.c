// SPDX-License-Identifier: MIT
/*
 * format.c - vsnprintf: the formatting half of printk.
 *
 * The idea: walk the format string once; copy plain characters; for each
 * conversion, parse flags, width, precision and length into a struct spec,
 * render the argument into a small scratch buffer (numbers are built from
 * the right), then emit it padded as the spec asks.
 *
 * Invariant: out() never writes past buf[size - 1], and the final NUL is
 * always placed when size > 0, so a truncated message is still a string.
 */
#include "format.h"
#include "kstring.h"

struct spec {
	bool left;              /* '-': pad on the right */
	bool zero;              /* '0': pad numbers with zeros */
	bool plus;              /* '+': sign on positive numbers */
	bool space;             /* ' ': space on positive numbers */
	bool alt;               /* '#': 0x / 0 prefix */
	int width;              /* minimum field width, 0 = none */
	int precision;          /* -1 = none */
	int length;             /* 'H' hh, 'h', 0, 'l', 'L' ll, 'z', 't', 'j' */
};

struct outbuf {
	char *buf;
	size_t size;
	size_t len;             /* characters the full output has so far */
};

static void out(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_repeat(struct outbuf *o, char c, int n)
{
	while (n-- > 0)
		out(o, c);
}

/* Emit prefix (sign, 0x) and body with the padding the spec asks for. */
static void out_field(struct outbuf *o, const struct spec *s, const char *prefix,
		      const char *body, int body_len, int min_digits)
{
	int prefix_len = (int)strlen(prefix);
	int zeros = min_digits > body_len ? min_digits - body_len : 0;
	int total = prefix_len + zeros + body_len;
	int pad = s->width > total ? s->width - total : 0;

	if (!s->left && !s->zero)
		out_repeat(o, ' ', pad);
	for (int i = 0; i < prefix_len; i++)
		out(o, prefix[i]);
	if (!s->left && s->zero)
		out_repeat(o, '0', pad);
	out_repeat(o, '0', zeros);
	for (int i = 0; i < body_len; i++)
		out(o, body[i]);
	if (s->left)
		out_repeat(o, ' ', pad);
}

static void out_number(struct outbuf *o, struct spec *s, u64 value, bool negative,
		       unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];           /* 2^64 in octal has 22 digits */
	int n = sizeof(tmp);
	const char *prefix = "";

	do {
		tmp[--n] = digits[value % base];
		value /= base;
	} while (value);
	/* C: a zero value with precision 0 prints no digits. */
	if (s->precision == 0 && n == (int)sizeof(tmp) - 1 && tmp[n] == '0')
		n = sizeof(tmp);

	if (negative)
		prefix = "-";
	else if (s->plus)
		prefix = "+";
	else if (s->space)
		prefix = " ";
	if (s->alt && base == 16 && n < (int)sizeof(tmp) && !(n == (int)sizeof(tmp) - 1 && tmp[n] == '0'))
		prefix = upper ? "0X" : "0x";
	if (s->alt && base == 8 && (n == (int)sizeof(tmp) || tmp[n] != '0'))
		tmp[--n] = '0';
	if (s->precision >= 0)
		s->zero = false;        /* C: precision overrides the 0 flag */
	out_field(o, s, prefix, tmp + n, (int)sizeof(tmp) - n, s->precision);
}

/* Fetch an integer argument of the spec's length, sign-extended or not. */
static u64 fetch_arg(va_list *ap, int length, bool is_signed, bool *negative)
{
	s64 sv;
	u64 uv;

	*negative = false;
	if (is_signed) {
		switch (length) {
		case 'H': sv = (signed char)va_arg(*ap, int); break;
		case 'h': sv = (short)va_arg(*ap, int); break;
		case 'l': sv = va_arg(*ap, long); break;
		case 'L': sv = va_arg(*ap, long long); break;
		case 'z': sv = va_arg(*ap, long); break;    /* ssize_t */
		case 't': sv = va_arg(*ap, ptrdiff_t); break;
		case 'j': sv = va_arg(*ap, intmax_t); break;
		default:  sv = va_arg(*ap, int); break;
		}
		if (sv < 0) {
			*negative = true;
			return (u64)0 - (u64)sv;    /* well defined even for INT64_MIN */
		}
		return (u64)sv;
	}
	switch (length) {
	case 'H': uv = (unsigned char)va_arg(*ap, unsigned); break;
	case 'h': uv = (unsigned short)va_arg(*ap, unsigned); break;
	case 'l': uv = va_arg(*ap, unsigned long); break;
	case 'L': uv = va_arg(*ap, unsigned long long); break;
	case 'z': uv = va_arg(*ap, size_t); break;
	case 't': uv = (u64)va_arg(*ap, ptrdiff_t); break;
	case 'j': uv = va_arg(*ap, uintmax_t); break;
	default:  uv = va_arg(*ap, unsigned); break;
	}
	return uv;
}

/* Parse "%[flags][width][.precision][length]" after the '%'; returns the conversion char. */
static const char *parse_spec(const char *f, struct spec *s, va_list *ap)
{
	*s = (struct spec){ .precision = -1 };
	for (;; f++) {
		if (*f == '-') s->left = true;
		else if (*f == '0') s->zero = true;
		else if (*f == '+') s->plus = true;
		else if (*f == ' ') s->space = true;
		else if (*f == '#') s->alt = true;
		else break;
	}
	if (*f == '*') {
		int w = va_arg(*ap, int);
		if (w < 0) {
			s->left = true;
			w = w < -100000 ? 100000 : -w;  /* -INT_MIN would overflow */
		}
		s->width = w > 100000 ? 100000 : w;
		f++;
	} else {
		while (*f >= '0' && *f <= '9' && s->width < 100000)
			s->width = s->width * 10 + (*f++ - '0');
	}
	if (*f == '.') {
		f++;
		s->precision = 0;
		if (*f == '*') {
			int p = va_arg(*ap, int);
			s->precision = p < 0 ? -1 : p > 100000 ? 100000 : p;
			f++;
		} else {
			while (*f >= '0' && *f <= '9' && s->precision < 100000)
				s->precision = s->precision * 10 + (*f++ - '0');
		}
	}
	if (f[0] == 'h' && f[1] == 'h') { s->length = 'H'; f += 2; }
	else if (f[0] == 'l' && f[1] == 'l') { s->length = 'L'; f += 2; }
	else if (*f == 'h' || *f == 'l' || *f == 'z' || *f == 't' || *f == 'j') s->length = *f++;
	if (s->left)
		s->zero = false;
	return f;
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct outbuf o = { buf, size, 0 };
	va_list ap;

	va_copy(ap, ap_in);
	while (*fmt) {
		const char *start = fmt;
		struct spec s;
		bool neg;
		u64 v;

		if (*fmt != '%') {
			out(&o, *fmt++);
			continue;
		}
		fmt = parse_spec(fmt + 1, &s, &ap);
		switch (*fmt) {
		case 'd':
		case 'i':
			v = fetch_arg(&ap, s.length, true, &neg);
			out_number(&o, &s, v, neg, 10, false);
			break;
		case 'u':
			s.plus = s.space = false;       /* C: signs are for signed conversions */
			out_number(&o, &s, fetch_arg(&ap, s.length, false, &neg), false, 10, false);
			break;
		case 'x':
		case 'X':
			s.plus = s.space = false;
			out_number(&o, &s, fetch_arg(&ap, s.length, false, &neg), false, 16, *fmt == 'X');
			break;
		case 'o':
			s.plus = s.space = false;
			out_number(&o, &s, fetch_arg(&ap, s.length, false, &neg), false, 8, false);
			break;
		case 'p': {
			struct spec ps = s;
			ps.alt = false;
			ps.zero = false;
			ps.precision = 16;
			v = (u64)(uintptr_t)va_arg(ap, void *);
			/* Always "0x" + 16 digits, so columns line up. */
			char tmp[19];
			static const char hex[] = "0123456789abcdef";
			tmp[0] = '0';
			tmp[1] = 'x';
			for (int i = 0; i < 16; i++)
				tmp[2 + i] = hex[(v >> (60 - 4 * i)) & 0xf];
			tmp[18] = 0;
			out_field(&o, &ps, "", tmp, 18, 0);
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			s.zero = false;
			out_field(&o, &s, "", &c, 1, 0);
			break;
		}
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			size_t n = s.precision >= 0 ? strnlen(str, (size_t)s.precision) : strlen(str);
			s.zero = false;
			out_field(&o, &s, "", str, (int)n, 0);
			break;
		}
		case '%':
			out(&o, '%');
			break;
		default:
			/* Unknown or truncated conversion: print it as written. */
			while (start < fmt)
				out(&o, *start++);
			if (*fmt)
				out(&o, *fmt);
			else
				fmt--;
			break;
		}
		fmt++;
	}
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	va_end(ap);
	return o.len > 0x7fffffff ? 0x7fffffff : (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

size_t kstrlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);
	size_t n = len < size - 1 ? len : size - 1;

	memcpy(dst, src, n);
	dst[n] = '\0';
	return len;
}

bool words_add(struct words *w, const char *word, size_t len)
{
	if (w->used >= w->size)
		return false;
	w->used += snprintf(w->buf + w->used, w->size - w->used, "%s%.*s", w->used ? " " : "",
			    (int)len, word);
	return w->used < w->size;
}

bool list_next(const char **cursor, const char **item, size_t *len)
{
	const char *p = *cursor;

	while (*p == ',')
		p++;
	if (!*p)
		return false;
	*item = p;
	while (*p && *p != ',')
		p++;
	*len = (size_t)(p - *item);
	*cursor = p;
	return true;
}
