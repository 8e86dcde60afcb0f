/*
 * main.c - the kprof host tool: read a serial log from a kprof run and
 * turn it into text, JSON, ETL, CTF, a report, pictures or a Perfetto
 * trace.  This file is the command table, the dispatch, and the common run
 * of the commands that write the run's model to a file; kprof.h says where
 * each command lives.
 *
 *   kprof decode [--json] [-o FILE] LOG    one line per record
 *   kprof etl LOG [--kernel ELF] -o FILE.etl   Windows ETL file (+ the kernel's PDB)
 *   kprof ctf [--lttng] LOG -o DIR         CTF 1.8 trace for babeltrace2
 *                                          (--lttng: LTTng's kernel events)
 *   kprof check LOG                        only the summary
 *   kprof report LOG --kernel ELF [--summary]  the report people read
 *     (-o FILE --with-summary: the report to FILE, its summary to stdout)
 *   kprof flamegraph LOG --kernel ELF -o F.svg   flame graph of the stacks
 *   kprof timeline LOG -o F.svg            per-CPU timeline
 *   kprof perfetto LOG -o F.perfetto-trace  Perfetto's protobuf trace (or
 *                                          Chrome JSON: -o F.json)
 *   kprof assert RULES LOG...              rules on the trace, for CI
 *   kprof compare A B                      two runs or sets of runs, with
 *                                          95% intervals
 *
 * Common options: --strict (any loss or damage is exit status 1),
 * --summary-json FILE, --quiet.  Exit status: 0 ok, 1 --strict failure,
 * 2 bad usage, 3 input or output error.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/kprof/assert/rules.h"
#include "tools/kprof/compare/compare.h"
#include "tools/kprof/kprof.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/progress/progress.h"
#include "tools/kprof/elf/build_id.h"
#include "tools/kprof/elf/symbols.h"
#include "tools/kprof/util/outfile.h"

enum { OUT = KP_OPT_OUTPUT, KERNEL = KP_OPT_KERNEL };

static const struct kp_command commands[] = {
	{ "decode", kp_cmd_decode, KP_OPT_JSON | OUT, false, "decode [--json] [-o FILE] LOG" },
	{ "etl", kp_cmd_etl, KERNEL | OUT, true, "etl LOG [--kernel ELF] -o FILE.etl" },
	{ "ctf", kp_cmd_ctf, KP_OPT_LTTNG | OUT, true, "ctf [--lttng] LOG -o DIR" },
	{ "check", kp_cmd_check, 0, false, "check LOG" },
	{ "report", kp_cmd_report, KERNEL | KP_OPT_SUMMARY | OUT, false,
	  "report LOG --kernel ELF [--summary] [-o FILE [--with-summary]]" },
	{ "flamegraph", kp_cmd_flamegraph, KERNEL | OUT, true, "flamegraph LOG --kernel ELF -o FILE.svg" },
	{ "timeline", kp_cmd_timeline, KERNEL | OUT, true, "timeline LOG [--kernel ELF] -o FILE.svg" },
	{ "perfetto", kp_cmd_perfetto, KERNEL | KP_OPT_FORMAT | OUT, true,
	  "perfetto LOG [--kernel ELF] [--format proto|json] -o FILE.perfetto-trace|FILE.json" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Commands over several logs, which read their own arguments. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} multi_commands[] = {
	{ "assert", kp_cmd_assert, "assert RULES LOG... [--kernel ELF] [--junit FILE]" },
	{ "compare", kp_cmd_compare, "compare A B [--kernel ELF] [--json FILE] [--flame FILE.svg] [--fail-if-worse PCT] [--by FIELD=A,B]" },
};
#define NMULTI (sizeof(multi_commands) / sizeof(multi_commands[0]))

int kp_write_model(struct kp_log *log, const struct kp_options *o, unsigned keep, const struct kp_run_sink *sink,
		   const char *(*lacks)(const struct kp_model *m), kp_model_writer *write)
{
	struct kp_symbols *syms = NULL;
	struct kp_model m;
	const char *why;
	FILE *f;
	int rc = 3;

	kp_model_build_with(&m, log, keep, sink);
	if (!kp_model_need_clock(&m, o->input))
		goto out;
	if ((why = lacks(&m))) {
		fprintf(stderr, "kprof: %s: %s\n", o->input, why);
		goto out;
	}
	if (!kp_symbols_for(o->kernel, &syms))
		goto out;
	if ((f = kp_out_open(o->output))) {
		write(f, log, &m, syms);
		rc = kp_out_close(f, o->output);
	}
out:
	if (syms)
		kp_symbols_close(syms);
	kp_model_free(&m);
	return rc ? rc : kp_summary(log, o, o->output);
}

static int usage(const char *why, const char *what)
{
	if (why)
		fprintf(stderr, "kprof: %s '%s'\n", why, what);
	fprintf(stderr, "usage:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "  kprof %s\n", commands[i].usage);
	for (size_t i = 0; i < NMULTI; i++)
		fprintf(stderr, "  kprof %s\n", multi_commands[i].usage);
	fprintf(stderr, "options for every command but assert and compare: --strict  --summary-json FILE  --quiet\n");
	return 2;
}

/* An output that is the log itself (the same file, by any name) would
 * replace it: refused before anything is read or written. */
static int refuse_input_as_output(const struct kp_options *o)
{
	const char *outs[] = { o->output, o->summary_json };
	struct stat in, out;

	if (stat(o->input, &in))
		return 0; /* reading it says why */
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]); i++)
		if (outs[i] && !stat(outs[i], &out) && out.st_dev == in.st_dev && out.st_ino == in.st_ino) {
			fprintf(stderr, "kprof: %s %s is the log being read (%s): give another output file\n",
				i ? "--summary-json" : "-o", outs[i], o->input);
			return 2;
		}
	return 0;
}

int main(int argc, char **argv)
{
	const struct kp_command *cmd = NULL;
	struct kp_options o;

	if (argc < 2)
		return usage(NULL, NULL);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(NULL, NULL), 0;
	for (size_t i = 0; i < NMULTI; i++)
		if (!strcmp(argv[1], multi_commands[i].name))
			return multi_commands[i].run(argc - 1, argv + 1);
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd)
		return usage("unknown command", argv[1]);
	int rc = kp_options_parse(cmd, argc - 1, argv + 1, &o);
	if (rc)
		return rc;
	if ((rc = refuse_input_as_output(&o)))
		return rc;
	struct kp_log log;
	if (kp_log_read(o.input, &log)) {
		char why[160];
		fprintf(stderr, "kprof: cannot read %s: %s\n", o.input, kp_log_read_error(errno, why, sizeof(why)));
		return 3;
	}
	kp_build_id_expect(log.have_header ? log.build_id : NULL, o.force_kernel);
	kp_progress_start(cmd->name, kp_log_records(&log), log.size, o.quiet);
	rc = cmd->run(&log, &o);
	kp_progress_end();
	kp_log_free(&log);
	return rc;
}
