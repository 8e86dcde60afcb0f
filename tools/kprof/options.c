/*
 * options.c - every command's options, parsed with getopt_long (kprof.h).
 *
 * The options may come before or after the log (getopt_long permutes
 * them), values as "--kernel ELF" or "--kernel=ELF", "-o FILE" or
 * "-oFILE".  Long options are written out in full (getopt_long would take
 * "--summary" for "--summary-json" where there is no --summary).  Each
 * command accepts only its own options and the common ones; anything else
 * is refused with its name and the list the command does take, exit
 * status 2.
 */
#include "tools/kprof/kprof.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

enum { OPT_STRICT = 256, OPT_QUIET, OPT_SUMMARY_JSON, OPT_JSON, OPT_KERNEL, OPT_SUMMARY, OPT_FORCE_KERNEL, OPT_LTTNG, OPT_FORMAT, OPT_WITH_SUMMARY };

/* Every option, with the command flag that admits it (0: every command);
 * -o has no long form. */
static const struct {
	struct option opt;
	unsigned need;
	const char *help;
} all_options[] = {
	{ { "json", no_argument, NULL, OPT_JSON }, KP_OPT_JSON, "--json" },
	{ { NULL, required_argument, NULL, 'o' }, KP_OPT_OUTPUT, "-o FILE" },
	{ { "kernel", required_argument, NULL, OPT_KERNEL }, KP_OPT_KERNEL, "--kernel ELF" },
	{ { "force-kernel", no_argument, NULL, OPT_FORCE_KERNEL }, KP_OPT_KERNEL, "--force-kernel" },
	{ { "summary", no_argument, NULL, OPT_SUMMARY }, KP_OPT_SUMMARY, "--summary" },
	{ { "with-summary", no_argument, NULL, OPT_WITH_SUMMARY }, KP_OPT_SUMMARY, "--with-summary" },
	{ { "lttng", no_argument, NULL, OPT_LTTNG }, KP_OPT_LTTNG, "--lttng" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, KP_OPT_FORMAT, "--format proto|json" },
	{ { "strict", no_argument, NULL, OPT_STRICT }, 0, "--strict" },
	{ { "quiet", no_argument, NULL, OPT_QUIET }, 0, "--quiet" },
	{ { "summary-json", required_argument, NULL, OPT_SUMMARY_JSON }, 0, "--summary-json FILE" },
};
#define NOPTIONS (sizeof(all_options) / sizeof(all_options[0]))

/* "kprof: <command> <fmt with what>", what the command takes, its usage. */
static int refuse(const struct kp_command *cmd, const char *fmt, const char *what)
{
	fprintf(stderr, "kprof: %s ", cmd->name);
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nkprof: %s takes:", cmd->name);
	for (size_t i = 0; i < NOPTIONS; i++)
		if (!all_options[i].need || (cmd->opts & all_options[i].need))
			fprintf(stderr, " %s", all_options[i].help);
	fprintf(stderr, "\nusage: kprof %s\n", cmd->usage);
	return 2;
}

/* The option as it was written ("--kernel" of "--kernel=x"). */
static const char *as_written(const char *arg, char *buf, size_t size)
{
	size_t n = strcspn(arg, "=");
	snprintf(buf, size, "%.*s", (int)n, arg);
	return buf;
}

/* An option the command does not take; when it is the start of one it
 * does take, say that options are written in full. */
static int unknown(const struct kp_command *cmd, const char *written, const struct option *longopts)
{
	for (size_t i = 0; i < NOPTIONS; i++) /* another command's option */
		if (all_options[i].opt.name && !strncmp(written, "--", 2) && !strcmp(all_options[i].opt.name, written + 2))
			return refuse(cmd, "does not take the option '%s'", written);
	for (const struct option *o = longopts; o->name; o++)
		if (!strncmp(written, "--", 2) && written[2] && !strncmp(o->name, written + 2, strlen(written + 2)))
			return refuse(cmd, "does not take the option '%s' (options are written in full)", written);
	return refuse(cmd, "does not take the option '%s'", written);
}

/* What getopt_long refused (it returned c, ':' or '?'), said plainly. */
static int bad_option(const struct kp_command *cmd, char **argv, int c, const struct option *longopts)
{
	const char *name = NULL;
	char buf[64];

	if (optopt > 0 && optopt < 256) { /* a short option: -o, or -x */
		snprintf(buf, sizeof(buf), "-%c", optopt);
		return refuse(cmd, c == ':' ? "needs a value after '%s'" : "does not take the option '%s'", buf);
	}
	as_written(argv[optind - 1], buf, sizeof(buf));
	for (const struct option *o = longopts; optopt && o->name; o++)
		if (o->val == optopt)
			name = o->name;
	if (!name || strncmp(buf, "--", 2) || strcmp(buf + 2, name))
		return unknown(cmd, buf, longopts);
	return refuse(cmd, c == ':' ? "needs a value after '%s'" : "takes no value after '%s'", buf);
}

/* Was the long option just returned written out in full?  It is the
 * element before optind, or the one before its value when that came
 * separately. */
static bool written_in_full(char **argv, const struct option *lo, char *buf, size_t size)
{
	const char *arg = argv[optind - (optarg && optarg == argv[optind - 1] ? 2 : 1)];

	as_written(arg, buf, size);
	return !strncmp(buf, "--", 2) && !strcmp(buf + 2, lo->name);
}

int kp_options_parse(const struct kp_command *cmd, int argc, char **argv, struct kp_options *o)
{
	struct option longopts[NOPTIONS + 1];
	size_t n = 0;
	char optstring[8] = ":", name[64];
	int c, li;

	*o = (struct kp_options){ 0 };
	for (size_t i = 0; i < NOPTIONS; i++)
		if (all_options[i].opt.name && (!all_options[i].need || (cmd->opts & all_options[i].need)))
			longopts[n++] = all_options[i].opt;
	longopts[n] = (struct option){ 0 };
	if (cmd->opts & KP_OPT_OUTPUT)
		strcat(optstring, "o:");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, optstring, longopts, &li)) != -1) {
		if (c >= 256 && !written_in_full(argv, &longopts[li], name, sizeof(name)))
			return unknown(cmd, name, longopts);
		switch (c) {
		case 'o': o->output = optarg; break;
		case OPT_KERNEL: o->kernel = optarg; break;
		case OPT_FORCE_KERNEL: o->force_kernel = true; break;
		case OPT_SUMMARY_JSON: o->summary_json = optarg; break;
		case OPT_JSON: o->json = true; break;
		case OPT_SUMMARY: o->summary = true; break;
		case OPT_WITH_SUMMARY: o->with_summary = true; break;
		case OPT_LTTNG: o->lttng = true; break;
		case OPT_FORMAT: o->format = optarg; break;
		case OPT_STRICT: o->strict = true; break;
		case OPT_QUIET: o->quiet = true; break;
		case ':': /* a value missing */
		case '?': /* an unknown option, or a value given to one that takes none */
			return bad_option(cmd, argv, c, longopts);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (o->input)
			return refuse(cmd, "takes one log, not also '%s'", argv[i]);
		o->input = argv[i];
	}
	if (!o->input)
		return refuse(cmd, "needs a log%s", "");
	if (cmd->needs_output && !o->output)
		return refuse(cmd, "needs -o%s", "");
	return 0;
}
