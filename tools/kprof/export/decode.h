/*
 * decode.h - one record as a line of text or a JSON object, as `kprof
 * decode` writes them (the fuzz target prints records through these too).
 */
#ifndef KPROF_TOOL_DECODE_H
#define KPROF_TOOL_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"

/* One record as a text line or a JSON object (no newline). */
void kp_print_record_text(FILE *f, const struct kp_log *log, const struct kp_record *r);
void kp_print_record_json(FILE *f, const struct kp_log *log, const struct kp_record *r);

/* Seconds since the trace started, as "+S.NNNNNNNNN" (or raw ticks when
 * there is no run header). */
void kp_format_time(char *buf, size_t size, const struct kp_log *log, uint64_t ts);

#endif
