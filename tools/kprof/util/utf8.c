/*
 * utf8.c - the UTF-8 decoder (utf8.h).
 *
 *   lead byte   length  code points         first continuation byte
 *   00..7F      1       U+0000..U+007F      -
 *   C2..DF      2       U+0080..U+07FF      80..BF
 *   E0          3       U+0800..U+0FFF      A0..BF (no overlong form)
 *   E1..EC,EE..EF 3     ...                 80..BF
 *   ED          3       U+D000..U+D7FF      80..9F (no surrogates)
 *   F0          4       U+10000..           90..BF (no overlong form)
 *   F1..F3      4       ...                 80..BF
 *   F4          4       ..U+10FFFF          80..8F
 * Every other continuation byte is 80..BF; C0, C1 and F5..FF never occur.
 */
#include "tools/kprof/util/utf8.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

unsigned kp_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned len;
	unsigned char lo = 0x80, hi = 0xBF; /* range of the first continuation byte */
	uint32_t c = p[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2;
		c &= 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		lo = c == 0xE0 ? 0xA0 : 0x80;
		hi = c == 0xED ? 0x9F : 0xBF;
		c &= 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		lo = c == 0xF0 ? 0x90 : 0x80;
		hi = c == 0xF4 ? 0x8F : 0xBF;
		c &= 0x07;
	} else {
		return 0;
	}
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (unsigned i = 1; i < len; i++) {
		if (i > 1 && (p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	*cp = c;
	return len;
}

const char *kp_printable(char *buf, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), at = 0;

	if (!size)
		return buf;
	while (n) {
		uint32_t cp;
		unsigned len = kp_utf8_decode(p, n, &cp);
		bool ok = len && cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0);
		size_t need = ok ? len : 4;
		if (at + need >= size)
			break;
		if (ok)
			memcpy(buf + at, p, len);
		else
			snprintf(buf + at, 5, "\\x%02x", *p);
		at += need;
		p += ok ? len : 1;
		n -= ok ? len : 1;
	}
	buf[at] = '\0';
	return buf;
}
