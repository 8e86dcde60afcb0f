/*
 * kprof.h - what the tool's commands share: their options, the command
 * table entry, each command's entry point (in the folder of its role) and
 * the closing summary every command ends with.
 *
 *   read/      the log: frames, records, field table, kernel symbols
 *   model/     one model of the run, built once from the records:
 *              schedule (who ran where, when), threads, samples, waits,
 *              spin locks, resources
 *   export/    decode (text, JSON), ETL, CTF, Perfetto JSON
 *   report/    `kprof report`
 *   pictures/  the flame graph and the timeline (SVG)
 *   metrics/   the report's figures by name, for assert/ (`kprof assert`:
 *              rules for CI) and compare/ (`kprof compare`: runs against
 *              runs with intervals)
 *   util/      allocation, sorting, UTF-8, JSON strings, text formats,
 *              output files
 *   progress/  the progress line of long conversions (on a terminal)
 */
#ifndef KPROF_TOOL_KPROF_H
#define KPROF_TOOL_KPROF_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/kprof/read/log.h"

struct kp_options {
	const char *input;        /* the serial log                              */
	const char *output;       /* -o: file or directory                       */
	const char *kernel;       /* --kernel ELF                                */
	const char *summary_json; /* --summary-json FILE                         */
	bool json;                /* decode --json                               */
	bool strict;              /* any loss or damage is a failure             */
	bool quiet;               /* no summary on stderr                        */
	bool summary;             /* report --summary: the short form            */
	bool with_summary;        /* report --with-summary: the whole report to  */
	                          /* -o and the short form to stdout, one pass   */
	bool force_kernel;        /* --force-kernel: another build's ELF, warned */
	bool lttng;               /* ctf --lttng: LTTng's kernel conventions     */
	const char *format;       /* perfetto --format: proto or json            */
};

/* Options a command takes besides the common ones (--strict, --quiet,
 * --summary-json FILE). */
enum {
	KP_OPT_JSON = 1u << 0,    /* --json                                      */
	KP_OPT_OUTPUT = 1u << 1,  /* -o FILE                                     */
	KP_OPT_KERNEL = 1u << 2,  /* --kernel ELF                                */
	KP_OPT_SUMMARY = 1u << 3, /* --summary                                   */
	KP_OPT_LTTNG = 1u << 4,   /* --lttng                                     */
	KP_OPT_FORMAT = 1u << 5,  /* --format proto|json                         */
};

struct kp_command {
	const char *name;
	int (*run)(struct kp_log *log, const struct kp_options *o);
	unsigned opts;            /* KP_OPT_*                                    */
	bool needs_output;        /* -o is required                              */
	const char *usage;        /* "decode [--json] [-o FILE] LOG"             */
};

/* Parse a command's arguments (argv[0] is the command's name) with
 * getopt_long into *o.  0, or 2 after saying on stderr what is wrong: an
 * option the command does not take (named, with the ones it does), a
 * missing value, no log or two, no -o where it is needed. */
int kp_options_parse(const struct kp_command *cmd, int argc, char **argv, struct kp_options *o);

/* Commands: each returns the process exit status. */
int kp_cmd_decode(struct kp_log *log, const struct kp_options *o);     /* export/decode.c    */
int kp_cmd_check(struct kp_log *log, const struct kp_options *o);      /* export/decode.c    */
int kp_cmd_etl(struct kp_log *log, const struct kp_options *o);        /* export/etl/etl.c   */
int kp_cmd_ctf(struct kp_log *log, const struct kp_options *o);        /* export/ctf/ctf.c   */
int kp_cmd_perfetto(struct kp_log *log, const struct kp_options *o);   /* export/perfetto/perfetto.c */
int kp_cmd_report(struct kp_log *log, const struct kp_options *o);     /* report/report.c    */
int kp_cmd_flamegraph(struct kp_log *log, const struct kp_options *o); /* pictures/flame/flame.c   */
int kp_cmd_timeline(struct kp_log *log, const struct kp_options *o);   /* pictures/timeline/timeline.c */

/* The run of a command that writes the run's model into -o's file
 * (main.c): build the model, keeping what `keep` says (KP_KEEP_*,
 * model.h: what the writer reads of the runs, waits and readies), the runs
 * also handed to `sink` as they are made (NULL: none); refuse, with exit status 3, a log without
 * the TSC rate or one that `lacks` (a message saying what is missing, or
 * NULL when the log has what the output needs); open --kernel's symbols
 * when given; write(); close the file; end with the summary. */
struct kp_model;
struct kp_symbols;
typedef void kp_model_writer(FILE *f, const struct kp_log *log, const struct kp_model *m,
			     const struct kp_symbols *syms);
struct kp_run_sink;
int kp_write_model(struct kp_log *log, const struct kp_options *o, unsigned keep, const struct kp_run_sink *sink,
		   const char *(*lacks)(const struct kp_model *m), kp_model_writer *write);

/* The closing summary on stderr (and as JSON with --summary-json);
 * returns the exit status: 0, 3 when the JSON file cannot be written, or
 * 1 under --strict when anything was lost or damaged. */
int kp_summary(struct kp_log *log, const struct kp_options *o, const char *what_was_written);

#endif
