/*
 * cmdline_parse.c - kernel command line from UEFI load options (UCS-2) or
 * from the text of \kprof\cmdline.txt.  Pure code, see cmdline_parse.h.
 */
#include "boot/uefi/cmdline_parse.h"

static int ldr_is_blank(unsigned int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int ldr_is_printable(unsigned int c)
{
	return c >= 0x20 && c <= 0x7e;
}

static unsigned int ldr_lower(unsigned int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Append c to out, counting beyond out_max - 1 without writing. */
static void ldr_put(char *out, size_t out_max, size_t *n, unsigned int c)
{
	if (*n + 1 < out_max)
		out[*n] = (char)c;
	(*n)++;
}

static enum ldr_cmdline_result ldr_finish(char *out, size_t out_max, size_t n,
					  size_t *len)
{
	*len = n;
	if (out_max == 0)
		return n ? LDR_CMDLINE_TOO_LONG : LDR_CMDLINE_EMPTY;
	if (n + 1 > out_max) {
		out[0] = '\0';
		return LDR_CMDLINE_TOO_LONG;
	}
	out[n] = '\0';
	return n ? LDR_CMDLINE_OK : LDR_CMDLINE_EMPTY;
}

enum ldr_cmdline_result ldr_cmdline_from_ucs2(const void *opts, size_t size,
					      char *out, size_t out_max,
					      size_t *len)
{
	const uint8_t *p = opts;
	size_t nchars = size / 2, end, i, a, b, n = 0;

	*len = 0;
	if (out_max)
		out[0] = '\0';
	if (size % 2)
		return LDR_CMDLINE_BINARY;
#define CH(k) ((unsigned int)p[2 * (k)] | (unsigned int)p[2 * (k) + 1] << 8)
	for (end = 0; end < nchars && CH(end) != 0; end++)
		if (!ldr_is_printable(CH(end)) && !ldr_is_blank(CH(end)))
			return LDR_CMDLINE_BINARY;
	for (i = end; i < nchars; i++)
		if (CH(i) != 0)
			return LDR_CMDLINE_BINARY;

	/* First word [a, b): drop it when it names an .efi image. */
	for (a = 0; a < end && ldr_is_blank(CH(a)); a++)
		;
	for (b = a; b < end && !ldr_is_blank(CH(b)); b++)
		;
	if (b - a >= 4 && CH(b - 4) == '.' && ldr_lower(CH(b - 3)) == 'e' &&
	    ldr_lower(CH(b - 2)) == 'f' && ldr_lower(CH(b - 1)) == 'i')
		a = b;
	while (a < end && ldr_is_blank(CH(a)))
		a++;
	while (end > a && ldr_is_blank(CH(end - 1)))
		end--;
	for (i = a; i < end; i++)
		ldr_put(out, out_max, &n, ldr_is_blank(CH(i)) ? ' ' : CH(i));
#undef CH
	return ldr_finish(out, out_max, n, len);
}

enum ldr_cmdline_result ldr_cmdline_from_text(const char *text, size_t size,
					      char *out, size_t out_max,
					      size_t *len)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t pos = 0, n = 0, a, b, i;

	*len = 0;
	if (out_max)
		out[0] = '\0';
	if (size >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf)
		pos = 3;
	while (pos < size) {
		size_t eol = pos;

		while (eol < size && t[eol] != '\n')
			eol++;
		a = pos;
		b = eol;
		pos = eol + 1;
		while (a < b && ldr_is_blank(t[a]))
			a++;
		while (b > a && ldr_is_blank(t[b - 1]))
			b--;
		if (a == b || t[a] == '#')
			continue;
		for (i = a; i < b; i++) {
			if (!ldr_is_printable(t[i]) && t[i] != '\t') {
				*len = i;
				if (out_max)
					out[0] = '\0';
				return LDR_CMDLINE_BINARY;
			}
		}
		if (n)
			ldr_put(out, out_max, &n, ' ');
		for (i = a; i < b; i++)
			ldr_put(out, out_max, &n, t[i] == '\t' ? ' ' : t[i]);
	}
	return ldr_finish(out, out_max, n, len);
}
