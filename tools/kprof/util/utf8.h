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

#endif
