/*
 * format.c - percentages, times, wrapping and cutting (format.h).
 */
#include "tools/kprof/util/format.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

const char *kp_pct(char *buf, size_t size, uint64_t part, uint64_t whole, int decimals)
{
	if (!whole)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f%%", decimals, 100.0 * (double)part / (double)whole);
	return buf;
}

/* cycles * scale / hz with three decimals, rounded down. */
static const char *scaled(char *buf, size_t size, uint64_t cycles, uint64_t hz, uint64_t scale)
{
	if (!hz) {
		snprintf(buf, size, "?");
		return buf;
	}
	unsigned __int128 milli = (unsigned __int128)cycles * scale * 1000u / hz;
	snprintf(buf, size, "%" PRIu64 ".%03u", (uint64_t)(milli / 1000u), (unsigned)(milli % 1000u));
	return buf;
}

const char *kp_ms_text(char *buf, size_t size, uint64_t cycles, uint64_t hz)
{
	return scaled(buf, size, cycles, hz, 1000u);
}

const char *kp_us_text(char *buf, size_t size, uint64_t cycles, uint64_t hz)
{
	return scaled(buf, size, cycles, hz, 1000000u);
}

/* The next part of text from *p: its start and length; false at the end. */
static bool next_part(const char **p, char split, const char **start, size_t *len)
{
	if (split == ' ')
		while (**p == ' ')
			(*p)++;
	if (!**p)
		return false;
	const char *end = strchr(*p, split);
	*start = *p;
	*len = end ? (size_t)(end - *p) : strlen(*p);
	*p += *len;
	if (split != ' ' && **p == split)
		(*p)++;
	return true;
}

void kp_wrap(FILE *f, const char *lead, int lead_cols, int indent, const char *sep, const char *text)
{
	char split = strcmp(sep, " ") ? '\t' : ' ';
	size_t seplen = strlen(sep), tail = seplen; /* tail: sep without its trailing blanks */
	const char *p = text, *part;
	bool line_start = true;
	size_t len;
	int col;

	while (tail && sep[tail - 1] == ' ')
		tail--;
	col = fprintf(f, "%-*s", lead_cols, lead);
	while (next_part(&p, split, &part, &len)) {
		const char *q = p, *next;
		size_t nextlen;
		bool more = next_part(&q, split, &next, &nextlen);
		if (!line_start && (size_t)col + seplen + len + (more ? tail : 0) > KP_TEXT_WIDTH) {
			fprintf(f, "%.*s\n%*s", (int)tail, sep, indent, "");
			col = indent;
		} else if (!line_start) {
			col += fprintf(f, "%s", sep);
		}
		col += fprintf(f, "%.*s", (int)len, part);
		line_start = false;
	}
	fputc('\n', f);
}

void kp_wrapf(FILE *f, const char *lead, int lead_cols, int indent, const char *sep, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kp_wrap(f, lead, lead_cols, indent, sep, buf);
}

const char *kp_cut(char *buf, size_t size, const char *s, size_t room, const char *ellipsis)
{
	size_t len = strlen(s), ell = strlen(ellipsis);

	if (len <= room || room < ell)
		snprintf(buf, size, "%s", s);
	else
		snprintf(buf, size, "%.*s%s", (int)(room - ell), s, ellipsis);
	return buf;
}
