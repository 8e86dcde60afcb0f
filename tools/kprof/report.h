/*
 * report.h - `kprof report`: the sections of the human-readable report.
 *
 * report.c writes the header, hot spots, profile objects, threads and
 * CPUs; report_locks.c writes the locks and resources sections.  Each
 * section function writes a titled block to f and reads the log's
 * records itself (the log's cursors are not shared between sections).
 */
#ifndef KPROF_TOOL_REPORT_H
#define KPROF_TOOL_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/log.h"
#include "tools/kprof/symbols.h"

/* Keep lines within this many columns. */
#define KP_REPORT_WIDTH 100

/* Sections written by report_locks.c. */
void kp_report_locks(FILE *f, struct kp_log *log, const struct kp_symbols *syms);
void kp_report_resources(FILE *f, struct kp_log *log, const struct kp_symbols *syms);

/* Shared helpers (report.c). */

/* A section title: a blank line, "== title ==", underlined to the width. */
void kp_report_section(FILE *f, const char *title);

/* TSC cycles as microseconds using the run header's TSC rate; "?" when the
 * rate is unknown.  Writes "12.345" style text to buf; returns buf. */
const char *kp_report_us(const struct kp_log *log, uint64_t cycles, char *buf, size_t size);

#endif
