/*
 * json.h - the one JSON string writer: `decode --json`, the summary's
 * --summary-json and the Perfetto trace all write their strings here.
 */
#ifndef KPROF_TOOL_JSON_H
#define KPROF_TOOL_JSON_H

#include <stddef.h>
#include <stdio.h>

/* The text s (up to its NUL, and at most n bytes) as a JSON string,
 * quotes included.  The output is always valid UTF-8 JSON, whatever s
 * holds:
 *   - " and \ are escaped with a backslash;
 *   - control characters (below 0x20) and DEL (0x7F) become \u00XX;
 *   - well-formed UTF-8 sequences are copied as they are;
 *   - any other byte from 0x80 (a Latin-1 name, a cut sequence) becomes
 *     \u00XX: the byte read as the Latin-1 character it would be.
 * Returns what fputs() would on error (EOF), else 0. */
int kp_json_chars(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string. */
int kp_json_string(FILE *f, const char *s);

#endif
