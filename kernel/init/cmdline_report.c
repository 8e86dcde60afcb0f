/*
 * cmdline_report.c - how the parser and the rules tell the user what is
 * wrong: one problem is one line, and a list of what is accepted (keys,
 * an enum's names) goes on after it over as many lines as it needs.
 *
 * Invariants: no line handed to the callback is longer than
 * CMDLINE_LINE_MAX bytes (a longer message is cut and ends in "...");
 * a list line holds whole items and is at most CMDLINE_WRAP wide unless
 * one item alone is wider; every item of a list is on exactly one line.
 * Pure like the parser: no allocation, output only through the callback.
 */
#include "kernel/init/cmdline.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

#include <stdarg.h>

/* The start of each further line of a list, under its problem's line. */
#define CMDLINE_MORE_INDENT "cmdline:   "

/* fmt into line[CMDLINE_LINE_MAX + 1]; a message too long for it ends in
 * "..." (it is cut, never silently).  Returns its length. */
static size_t format_line(char *line, const char *fmt, va_list ap)
{
	int n = kvsnprintf(line, CMDLINE_LINE_MAX + 1, fmt, ap);
	if (n < 0) {
		line[0] = '\0';
		return 0;
	}
	if ((size_t)n > CMDLINE_LINE_MAX) {
		memcpy(line + CMDLINE_LINE_MAX - 3, "...", 4);
		return CMDLINE_LINE_MAX;
	}
	return (size_t)n;
}

void cmdline_vreport(cmdline_error_fn err, void *ctx, const char *fmt, va_list ap)
{
	char line[CMDLINE_LINE_MAX + 1];
	format_line(line, fmt, ap);
	if (err)
		err(ctx, line, CMDLINE_PROBLEM);
}

void cmdline_report(cmdline_error_fn err, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cmdline_vreport(err, ctx, fmt, ap);
	va_end(ap);
}

/* Append s (n bytes) to line[*len], cut with "..." at CMDLINE_LINE_MAX. */
static void append(char *line, size_t *len, const char *s, size_t n)
{
	if (*len + n > CMDLINE_LINE_MAX) {
		n = CMDLINE_LINE_MAX - *len;
		memcpy(line + *len, s, n);
		*len = CMDLINE_LINE_MAX;
		memcpy(line + CMDLINE_LINE_MAX - 3, "...", 3);
	} else {
		memcpy(line + *len, s, n);
		*len += n;
	}
	line[*len] = '\0';
}

void cmdline_report_list(cmdline_error_fn err, void *ctx, cmdline_item_fn item, const void *src, const char *fmt,
			 ...)
{
	char line[CMDLINE_LINE_MAX + 1];
	const size_t indent = sizeof(CMDLINE_MORE_INDENT) - 1;
	enum cmdline_line kind = CMDLINE_PROBLEM;
	bool empty = true; /* no item on this line yet */
	va_list ap;

	va_start(ap, fmt);
	size_t len = format_line(line, fmt, ap);
	va_end(ap);
	for (size_t i = 0;; i++) {
		const char *name = item(src, i);
		if (!name)
			break;
		size_t n = strlen(name);
		bool last = !item(src, i + 1);
		/* This item, its separator before it and the comma that would
		 * follow it if the list went on after it on this line. */
		size_t want = len + (empty && kind == CMDLINE_PROBLEM ? 1 : empty ? 0 : 2) + n + (last ? 0 : 1);
		if (want > CMDLINE_WRAP && !(empty && kind == CMDLINE_MORE)) {
			if (!empty)
				append(line, &len, ",", 1);
			if (err)
				err(ctx, line, kind);
			kind = CMDLINE_MORE;
			empty = true;
			len = 0;
			line[0] = '\0';
			append(line, &len, CMDLINE_MORE_INDENT, indent);
		}
		if (!empty)
			append(line, &len, ", ", 2);
		else if (kind == CMDLINE_PROBLEM)
			append(line, &len, " ", 1);
		append(line, &len, name, n);
		empty = false;
	}
	if (err)
		err(ctx, line, kind);
}
