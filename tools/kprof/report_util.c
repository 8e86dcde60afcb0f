/*
 * report_util.c - what the sections of `kprof report` share: section
 * titles, allocation, cycles as time, percentages, wrapping, names of
 * values and sources, each CPU's span of records, and which groups the run
 * traced.
 */
#include "tools/kprof/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/exit_status.h"
#include "tools/kprof/fields.h"
#include "tools/kprof/output.h"
#include "tools/kprof/report_internal.h"

/* ------------------------------------------------------------ helpers */

void kp_report_section(FILE *f, const char *title)
{
	int n = fprintf(f, "\n== %s ", title) - 1;
	for (; n < KP_REPORT_WIDTH; n++)
		fputc('=', f);
	fputs("\n\n", f);
}

/* value * scale / hz with three decimals, e.g. "12.345"; "?" without a
 * TSC rate. */
static const char *scaled(const struct kp_log *log, uint64_t cycles, uint64_t scale, char *buf, size_t size)
{
	uint64_t hz = log->have_header ? log->header.tsc_hz : 0;
	if (!hz) {
		snprintf(buf, size, "?");
		return buf;
	}
	unsigned __int128 milli = (unsigned __int128)cycles * scale * 1000u / hz;
	snprintf(buf, size, "%" PRIu64 ".%03u", (uint64_t)(milli / 1000u), (unsigned)(milli % 1000u));
	return buf;
}

const char *kp_report_us(const struct kp_log *log, uint64_t cycles, char *buf, size_t size)
{
	return scaled(log, cycles, 1000000u, buf, size);
}

const char *kp_rp_ms(const struct kp_log *log, uint64_t cycles, char *buf, size_t size)
{
	return scaled(log, cycles, 1000u, buf, size);
}

/* part / whole as "12.34%" (two decimals, rounded down). */
const char *kp_rp_pct(uint64_t part, uint64_t whole, char *buf, size_t size)
{
	uint64_t bp = whole ? (uint64_t)((unsigned __int128)part * 10000u / whole) : 0;
	snprintf(buf, size, "%" PRIu64 ".%02u%%", bp / 100u, (unsigned)(bp % 100u));
	return buf;
}

/* Text after a label of `indent` columns, kp_rp_wrapped at spaces to the width. */
void kp_rp_wrapped(FILE *f, const char *label, int indent, const char *text)
{
	int col = fprintf(f, "%-*s", indent, label);
	const char *p = text;

	while (*p) {
		const char *sp = strchr(p, ' ');
		int len = sp ? (int)(sp - p) : (int)strlen(p);
		if (col > indent && col + 1 + len > KP_REPORT_WIDTH)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		else if (col > indent)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", len, p);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* The name of a field's value in an event's description, or NULL. */
const char *kp_rp_value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v)
{
	const struct kp_event *e = kp_event_find(hook, version);
	for (unsigned i = 0; e && i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, field))
			return kp_field_value_name(&e->fields[i], v);
	return NULL;
}

const char *kp_rp_source_name(unsigned source, char *buf, size_t size)
{
	const char *n = kprofile_source_name(source);
	if (n)
		return n;
	snprintf(buf, size, "source %u", source);
	return buf;
}

/* A function name cut to `room` columns ("..." at the end when cut). */
void kp_rp_name_cut(FILE *f, const char *name, int room)
{
	int len = (int)strlen(name);
	if (len <= room || room < 4)
		fprintf(f, "%s", name);
	else
		fprintf(f, "%.*s...", room - 3, name);
}

void kp_rp_spans(struct kp_log *log, struct span *s)
{
	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		s[i] = (struct span){ 0 };
		kp_cursor_init(&c, log, i);
		while (kp_cursor_next(&c, &r)) {
			uint64_t ts = r.h.TimeStamp;
			if (!s[i].any || ts < s[i].first)
				s[i].first = ts;
			if (!s[i].any || ts > s[i].last)
				s[i].last = ts;
			s[i].any = true;
		}
	}
}

bool kp_rp_group_on(const struct kp_log *log, uint32_t mask)
{
	PERFINFO_GROUPMASK g;
	if (!log->have_header)
		return true;
	memcpy(g.Masks, log->header.group_masks, sizeof(g.Masks));
	return perfinfo_is_group_on(&g, mask);
}
