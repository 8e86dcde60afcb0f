/*
 * format.h - text for people, the same everywhere: percentages, cycles as
 * milliseconds or microseconds, lines wrapped to a width, names cut to a
 * width.  The report, the pictures and the Perfetto trace all format
 * these through here, so one number reads the same in each.
 */
#ifndef KPROF_TOOL_FORMAT_H
#define KPROF_TOOL_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Columns the report's lines keep within. */
#define KP_TEXT_WIDTH 100

/* part / whole as a percentage with `decimals` decimals ("12.3%"),
 * rounded to the nearest (printf's rounding of the double); "-" when
 * whole is 0.  Returns buf. */
const char *kp_pct(char *buf, size_t size, uint64_t part, uint64_t whole, int decimals);

/* TSC cycles at hz as milliseconds or microseconds with three decimals
 * ("12.345"), rounded down, exact for any 64-bit count; "?" when hz is 0
 * (no run header).  Returns buf. */
const char *kp_ms_text(char *buf, size_t size, uint64_t cycles, uint64_t hz);
const char *kp_us_text(char *buf, size_t size, uint64_t cycles, uint64_t hz);

/* The one word-wrapper.  Writes lead (padded to lead_cols columns), then
 * the parts of text joined by sep, and a newline.  With sep " " the parts
 * are the words of text (split at spaces); with any other sep (", ") they
 * are split at tabs.  A part that would pass KP_TEXT_WIDTH (counting the
 * separator's end it will need after it when more parts follow) starts a
 * new line at column indent instead, and the separator's visible end (the
 * "," of ", ") stays at the end of the line before. */
void kp_wrap(FILE *f, const char *lead, int lead_cols, int indent, const char *sep, const char *text);
/* The same with text from a printf format. */
void kp_wrapf(FILE *f, const char *lead, int lead_cols, int indent, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* s cut to at most room columns: as it is when it fits, else its start
 * and the ellipsis ("..." or ".."), room columns in all.  Returns buf. */
const char *kp_cut(char *buf, size_t size, const char *s, size_t room, const char *ellipsis);

#endif
