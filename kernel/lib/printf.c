/*
 * printf.c - kvsnprintf(): C99 formatting for the kernel, without floats.
 *
 * One pass over the format; output goes through out_char(), which counts
 * every character but stores only while there is room, so the return value
 * is the untruncated length as C99 requires and buf is always terminated
 * (when size > 0).  Unit-tested against the host C library's snprintf.
 */
#include "kernel/lib/printf.h"

#include <stdbool.h>
#include <stdint.h>

struct out {
	char *buf;   /* destination                       */
	size_t size; /* bytes available including the NUL */
	size_t len;  /* characters produced so far        */
};

struct spec {
	bool left, plus, space, alt, zero; /* flags                      */
	int width;                         /* -1 when not given          */
	int prec;                          /* -1 when not given          */
};

static void out_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void out_repeat(struct out *o, char c, int n)
{
	while (n-- > 0)
		out_char(o, c);
}

static void out_string(struct out *o, const struct spec *sp, const char *s)
{
	int n = 0;

	if (!s)
		s = "(null)";
	while (s[n] && (sp->prec < 0 || n < sp->prec))
		n++;
	if (!sp->left)
		out_repeat(o, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		out_char(o, s[i]);
	if (sp->left)
		out_repeat(o, ' ', sp->width - n);
}

/* Integer conversion: sign or prefix, zero/space padding, precision. */
static void out_number(struct out *o, const struct spec *sp, uint64_t v, bool negative, unsigned base,
		       bool upper, const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int nd = 0;

	while (v) {
		tmp[nd++] = digits[v % base];
		v /= base;
	}
	/* Precision 0 with value 0 prints no digits (C99 7.19.6.1). */
	if (nd == 0 && sp->prec != 0)
		tmp[nd++] = '0';

	int zeros = sp->prec > nd ? sp->prec - nd : 0;
	/* '#' with octal: force a leading zero, via precision. */
	if (base == 8 && sp->alt && zeros == 0 && (nd == 0 || tmp[nd - 1] != '0'))
		zeros = 1;

	char sign = negative ? '-' : sp->plus ? '+' : sp->space ? ' ' : 0;
	int plen = 0;
	while (prefix && prefix[plen])
		plen++;

	int total = nd + zeros + (sign ? 1 : 0) + plen;
	int pad = sp->width > total ? sp->width - total : 0;
	bool zero_pad = sp->zero && !sp->left && sp->prec < 0;

	if (!sp->left && !zero_pad)
		out_repeat(o, ' ', pad);
	if (sign)
		out_char(o, sign);
	for (int i = 0; i < plen; i++)
		out_char(o, prefix[i]);
	if (zero_pad)
		out_repeat(o, '0', pad);
	out_repeat(o, '0', zeros);
	while (nd)
		out_char(o, tmp[--nd]);
	if (sp->left)
		out_repeat(o, ' ', pad);
}

enum length { LEN_INT, LEN_CHAR, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE, LEN_PTRDIFF, LEN_MAX };

static uint64_t fetch_unsigned(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR: return (unsigned char)va_arg(*ap, unsigned int);
	case LEN_SHORT: return (unsigned short)va_arg(*ap, unsigned int);
	case LEN_LONG: return va_arg(*ap, unsigned long);
	case LEN_LLONG: return va_arg(*ap, unsigned long long);
	case LEN_SIZE: return va_arg(*ap, size_t);
	case LEN_PTRDIFF: return (uint64_t)va_arg(*ap, ptrdiff_t);
	case LEN_MAX: return va_arg(*ap, uintmax_t);
	default: return va_arg(*ap, unsigned int);
	}
}

static int64_t fetch_signed(va_list *ap, enum length len)
{
	switch (len) {
	case LEN_CHAR: return (signed char)va_arg(*ap, int);
	case LEN_SHORT: return (short)va_arg(*ap, int);
	case LEN_LONG: return va_arg(*ap, long);
	case LEN_LLONG: return va_arg(*ap, long long);
	case LEN_SIZE: return (int64_t)va_arg(*ap, size_t);
	case LEN_PTRDIFF: return va_arg(*ap, ptrdiff_t);
	case LEN_MAX: return va_arg(*ap, intmax_t);
	default: return va_arg(*ap, int);
	}
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){ .width = -1, .prec = -1 };
	for (;; f++) {
		if (*f == '-') sp->left = true;
		else if (*f == '+') sp->plus = true;
		else if (*f == ' ') sp->space = true;
		else if (*f == '#') sp->alt = true;
		else if (*f == '0') sp->zero = true;
		else break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = -sp->width;
		}
		f++;
	} else {
		while (*f >= '0' && *f <= '9') {
			sp->width = (sp->width < 0 ? 0 : sp->width * 10) + (*f++ - '0');
		}
	}
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			if (sp->prec < 0)
				sp->prec = -1;
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp->prec = sp->prec * 10 + (*f++ - '0');
		}
	}
	return f;
}

static const char *parse_length(const char *f, enum length *len)
{
	*len = LEN_INT;
	switch (*f) {
	case 'h':
		f++;
		*len = LEN_SHORT;
		if (*f == 'h') {
			f++;
			*len = LEN_CHAR;
		}
		break;
	case 'l':
		f++;
		*len = LEN_LONG;
		if (*f == 'l') {
			f++;
			*len = LEN_LLONG;
		}
		break;
	case 'z': f++; *len = LEN_SIZE; break;
	case 't': f++; *len = LEN_PTRDIFF; break;
	case 'j': f++; *len = LEN_MAX; break;
	}
	return f;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	va_list ap;

	va_copy(ap, ap_in);
	for (const char *f = fmt; *f; f++) {
		struct spec sp;
		enum length len;

		if (*f != '%') {
			out_char(&o, *f);
			continue;
		}
		f = parse_spec(f + 1, &sp, &ap);
		f = parse_length(f, &len);
		switch (*f) {
		case 'd':
		case 'i': {
			int64_t v = fetch_signed(&ap, len);
			uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			out_number(&o, &sp, mag, v < 0, 10, false, 0);
			break;
		}
		case 'u':
		case 'o':
			sp.plus = sp.space = false; /* signs apply to signed conversions only */
			out_number(&o, &sp, fetch_unsigned(&ap, len), false, *f == 'u' ? 10 : 8, false, 0);
			break;
		case 'x':
		case 'X': {
			uint64_t v = fetch_unsigned(&ap, len);
			const char *pfx = sp.alt && v ? (*f == 'x' ? "0x" : "0X") : 0;
			sp.plus = sp.space = false;
			out_number(&o, &sp, v, false, 16, *f == 'X', pfx);
			break;
		}
		case 'p': {
			uintptr_t v = (uintptr_t)va_arg(ap, void *);
			sp.plus = sp.space = false;
			if (!v) {
				sp.prec = -1;
				out_string(&o, &sp, "(nil)");
			} else {
				out_number(&o, &sp, v, false, 16, false, "0x");
			}
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			if (!sp.left)
				out_repeat(&o, ' ', sp.width - 1);
			out_char(&o, c);
			if (sp.left)
				out_repeat(&o, ' ', sp.width - 1);
			break;
		}
		case 's':
			out_string(&o, &sp, va_arg(ap, const char *));
			break;
		case '%':
			out_char(&o, '%');
			break;
		case '\0':
			f--; /* lone '%' at the end: stop */
			break;
		default:
			/* Unknown conversion: print it verbatim so the bug shows. */
			out_char(&o, '%');
			out_char(&o, *f);
			break;
		}
	}
	va_end(ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
