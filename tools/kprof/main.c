/*
 * main.c - the kprof host tool: read a serial log from a kprof run and
 * turn it into text, JSON, ETL or CTF.
 *
 *   kprof decode [--json] [-o FILE] LOG    one line per record
 *   kprof etl LOG -o FILE.etl              Windows ETL file
 *   kprof ctf LOG -o DIR                   CTF 1.8 trace for babeltrace2
 *   kprof check LOG                        only the summary
 *   kprof report LOG --kernel ELF [--summary]  the report people read
 *   kprof flamegraph LOG --kernel ELF -o F.svg   flame graph of the stacks
 *   kprof timeline LOG -o F.svg            per-CPU timeline
 *   kprof perfetto LOG -o F.json           Chrome JSON trace for Perfetto
 *
 * Common options: --strict (any loss or damage is exit status 1),
 * --summary-json FILE, --quiet.  Exit status: 0 ok, 1 --strict failure,
 * 2 bad usage, 3 input or output error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/output.h"

struct command {
	const char *name;
	int (*run)(struct kp_log *log, const struct kp_options *o);
	bool needs_output;
	const char *usage;
};

static const struct command commands[] = {
	{ "decode", kp_cmd_decode, false, "decode [--json] [-o FILE] LOG" },
	{ "etl", kp_cmd_etl, true, "etl LOG -o FILE.etl" },
	{ "ctf", kp_cmd_ctf, true, "ctf LOG -o DIR" },
	{ "check", kp_cmd_check, false, "check LOG" },
	{ "report", kp_cmd_report, false, "report LOG --kernel ELF [--summary] [-o FILE]" },
	{ "flamegraph", kp_cmd_flamegraph, true, "flamegraph LOG --kernel ELF -o FILE.svg" },
	{ "timeline", kp_cmd_timeline, true, "timeline LOG [--kernel ELF] -o FILE.svg" },
	{ "perfetto", kp_cmd_perfetto, true, "perfetto LOG [--kernel ELF] -o FILE.json" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int usage(const char *why)
{
	if (why)
		fprintf(stderr, "kprof: %s\n", why);
	fprintf(stderr, "usage:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(stderr, "  kprof %s\n", commands[i].usage);
	fprintf(stderr, "options for every command: --strict  --summary-json FILE  --quiet\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct kp_options o = { 0 };
	const struct command *cmd = NULL;

	if (argc < 2)
		return usage(NULL);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(NULL), 0;
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name))
			cmd = &commands[i];
	if (!cmd) {
		char why[160];
		snprintf(why, sizeof(why), "unknown command '%s'", argv[1]);
		return usage(why);
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json"))
			o.json = true;
		else if (!strcmp(a, "--strict"))
			o.strict = true;
		else if (!strcmp(a, "--quiet"))
			o.quiet = true;
		else if (!strcmp(a, "--summary") && cmd->run == kp_cmd_report)
			o.summary = true;
		else if ((!strcmp(a, "-o") || !strcmp(a, "--summary-json") || !strcmp(a, "--kernel")) && i + 1 < argc) {
			const char *v = argv[++i];
			if (!strcmp(a, "-o"))
				o.output = v;
			else if (!strcmp(a, "--kernel"))
				o.kernel = v;
			else
				o.summary_json = v;
		} else if (a[0] == '-' && a[1]) {
			char why[160];
			snprintf(why, sizeof(why), "unknown option '%s' (or it needs a value)", a);
			return usage(why);
		} else if (!o.input) {
			o.input = a;
		} else {
			return usage("more than one log given");
		}
	}
	if (!o.input)
		return usage("no log given");
	if (cmd->needs_output && !o.output) {
		char why[160];
		snprintf(why, sizeof(why), "%s needs -o", cmd->name);
		return usage(why);
	}
	struct kp_log log;
	if (kp_log_read(o.input, &log)) {
		fprintf(stderr, "kprof: cannot read %s: %s\n", o.input, strerror(errno));
		return 3;
	}
	int rc = cmd->run(&log, &o);
	kp_log_free(&log);
	return rc;
}
