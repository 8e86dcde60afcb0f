/*
 * output.h - the tool's commands and what they share: options, decoding a
 * record to text or JSON, the closing summary.
 */
#ifndef KPROF_TOOL_OUTPUT_H
#define KPROF_TOOL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/kprof/log.h"
#include "tools/kprof/records.h"

struct kp_options {
	const char *input;        /* the serial log                              */
	const char *output;       /* -o: file or directory                       */
	const char *kernel;       /* --kernel ELF (report)                       */
	const char *summary_json; /* --summary-json FILE                         */
	bool json;                /* decode --json                               */
	bool strict;              /* any loss or damage is a failure             */
	bool quiet;               /* no summary on stderr                        */
	bool summary;             /* report --summary: the short form            */
};

/* Commands: return the process exit status. */
int kp_cmd_decode(struct kp_log *log, const struct kp_options *o);
int kp_cmd_check(struct kp_log *log, const struct kp_options *o);
int kp_cmd_etl(struct kp_log *log, const struct kp_options *o);
int kp_cmd_ctf(struct kp_log *log, const struct kp_options *o);
int kp_cmd_report(struct kp_log *log, const struct kp_options *o);     /* report.c    */
int kp_cmd_flamegraph(struct kp_log *log, const struct kp_options *o); /* svg_flame.c */
int kp_cmd_timeline(struct kp_log *log, const struct kp_options *o);   /* svg_timeline.c */
int kp_cmd_perfetto(struct kp_log *log, const struct kp_options *o);   /* perfetto.c  */

/* One record as a text line or a JSON object (no newline). */
void kp_print_record_text(FILE *f, const struct kp_log *log, const struct kp_record *r);
void kp_print_record_json(FILE *f, const struct kp_log *log, const struct kp_record *r);

/* Seconds since the trace started, as "+S.NNNNNNNNN" (or raw ticks when
 * there is no run header). */
void kp_format_time(char *buf, size_t size, const struct kp_log *log, uint64_t ts);

/* Count what the log holds (walks every record once). */
void kp_totals(struct kp_log *log, struct kp_totals *t, uint64_t *per_cpu);
/* The closing summary on stderr (and as JSON when asked); returns the exit
 * status: 0, or 1 under --strict when anything was lost or damaged. */
int kp_summary(struct kp_log *log, const struct kp_options *o, const char *what_was_written);

#endif
