/*
 * utf8.h - recognising well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF).  The JSON and XML writers and the
 * ETL file's UTF-16 names all ask here, so a byte is either part of a
 * character everywhere or nowhere.
 */
#ifndef KPROF_TOOL_UTF8_H
#define KPROF_TOOL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The length (1..4) of the well-formed UTF-8 sequence that starts at p,
 * within n bytes, with its code point in *cp; 0 when p does not start one
 * (a stray continuation byte, a cut or overlong sequence, a Latin-1
 * byte, ...).  n must be at least 1. */
unsigned kp_utf8_decode(const unsigned char *p, size_t n, uint32_t *cp);

/* The one helper for strings from a log that reach a terminal or a text
 * report (the run header's command line and build id): s with every
 * control character (C0, DEL, C1 as U+0080..U+009F) and every byte that is
 * not well-formed UTF-8 written as \xNN, so no escape sequence of the
 * log's reaches the terminal; cut to fit size bytes.  Returns buf. */
const char *kp_printable(char *buf, size_t size, const char *s);

#endif
