/*
 * json.c - JSON strings (json.h).  Runs of bytes that need no escape are
 * written with one fwrite(), so long plain strings cost little: the
 * Perfetto trace of a long run writes hundreds of thousands of them.
 */
#include "tools/kprof/util/json.h"

#include <stdint.h>

#include "tools/kprof/util/utf8.h"

int kp_json_chars(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0; /* p[run..i) is waiting to be copied */

	fputc('"', f);
	while (i < n && p[i]) {
		unsigned char c = p[i];
		uint32_t cp;
		unsigned len = 1;

		if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
			i++;
			continue;
		}
		if (c >= 0x80) {
			size_t left = n - i;
			for (size_t k = 1; k < 4 && k < left; k++)
				if (!p[i + k]) {
					left = k; /* the string ends at the NUL */
					break;
				}
			len = kp_utf8_decode(p + i, left, &cp);
			if (len) {
				i += len;
				continue;
			}
			len = 1;
		}
		fwrite(p + run, 1, i - run, f);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else
			fprintf(f, "\\u%04x", c);
		i += len;
		run = i;
	}
	fwrite(p + run, 1, i - run, f);
	return fputc('"', f) == EOF ? EOF : 0;
}

int kp_json_string(FILE *f, const char *s)
{
	return kp_json_chars(f, s, SIZE_MAX);
}
