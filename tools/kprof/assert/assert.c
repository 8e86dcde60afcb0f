/*
 * assert.c - `kprof assert RULES LOG... [--kernel ELF] [--junit FILE]`:
 * every rule of the rule file (parse.c) on every log, one line each with
 * what was measured and PASS, FAIL or ERROR (eval.c), then a count.
 *
 * Exit status: 0 when every rule passed on every log; 1 when one failed;
 * 2 when one could not be evaluated (named on its line and in the count)
 * or the rule file is malformed or the command misused; 3 when a log,
 * the kernel or the JUnit file could not be read or written, or the
 * outcomes could not be written to stdout.  A log that
 * cannot be read is an error of all its rules, and the others are still
 * evaluated.
 */
#include "tools/kprof/assert/rules.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/kprof/metrics/metrics.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/utf8.h"

#define USAGE "assert RULES LOG... [--kernel ELF] [--force-kernel] [--junit FILE] [--quiet]"

static const char *const verdict_name[] = { "PASS", "FAIL", "ERROR" };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(const char *fmt, const char *what)
{
	fprintf(stderr, "kprof: assert ");
	fprintf(stderr, fmt, what);
	fprintf(stderr, "\nusage: kprof %s\n", USAGE);
	return 2;
}

/* Every rule on one log; outcomes[] one per rule. */
static void assert_log(struct kp_assert_log *l, const struct kp_rule *rules, size_t n, const char *kernel, bool force)
{
	struct kp_runlog run;
	double t0 = now();

	l->outcomes = kp_xcalloc(n, sizeof(*l->outcomes));
	l->loaded = kp_run_load(&run, l->path, kernel, force) == 0;
	for (size_t i = 0; i < n; i++) {
		if (l->loaded)
			kp_rule_eval(&rules[i], &run, &l->outcomes[i]);
		else
			l->outcomes[i] = (struct kp_outcome){ .verdict = KP_ERROR };
		if (!l->loaded)
			snprintf(l->outcomes[i].why, sizeof(l->outcomes[i].why), "the log %s could not be read%s", l->path,
				 kernel ? " (or --kernel is not its kernel)" : "");
	}
	if (l->loaded)
		kp_run_free(&run);
	l->seconds = now() - t0;
}

static void print_log(const struct kp_assert_log *l, const char *rules_path, const struct kp_rule *rules, size_t n,
		      bool several)
{
	char path[1024], text[4 * sizeof(rules->text)], what[4 * sizeof(l->outcomes->why)];

	if (several)
		printf("%s:\n", kp_printable(path, sizeof(path), l->path));
	kp_printable(path, sizeof(path), rules_path);
	for (size_t i = 0; i < n; i++) { /* the rule's bytes, and names from it or the log, never raw */
		const struct kp_outcome *o = &l->outcomes[i];
		printf("%-5s  %s:%u  %s: %s\n", verdict_name[o->verdict], path, rules[i].line,
		       kp_printable(text, sizeof(text), rules[i].text),
		       kp_printable(what, sizeof(what), o->verdict == KP_ERROR ? o->why : o->measured));
	}
}

int kp_cmd_assert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' }, { "force-kernel", no_argument, NULL, 'f' },
		{ "junit", required_argument, NULL, 'j' }, { "quiet", no_argument, NULL, 'q' }, { NULL, 0, NULL, 0 },
	};
	const char *kernel = NULL, *junit = NULL;
	bool force = false, quiet = false;
	size_t nrules, nlogs, counts[3] = { 0 };
	struct kp_rule *rules;
	bool unread = false; /* a log (or its kernel) could not be read: status 3 */
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = optarg; break;
		case 'f': force = true; break;
		case 'j': junit = optarg; break;
		case 'q': quiet = true; break;
		case ':': return usage("needs a value after '%s'", argv[optind - 1]);
		default: return usage("does not take the option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return usage("needs a rule file and at least one log%s", "");
	if ((rc = kp_rules_read(argv[optind], &rules, &nrules)))
		return rc;
	nlogs = (size_t)(argc - optind - 1);
	struct kp_assert_log *logs = kp_xcalloc(nlogs, sizeof(*logs));
	for (size_t i = 0; i < nlogs; i++) {
		logs[i].path = argv[optind + 1 + i];
		assert_log(&logs[i], rules, nrules, kernel, force);
		print_log(&logs[i], argv[optind], rules, nrules, nlogs > 1);
		unread |= !logs[i].loaded;
		for (size_t k = 0; k < nrules; k++)
			counts[logs[i].outcomes[k].verdict]++;
	}
	rc = unread ? 3 : counts[KP_ERROR] ? 2 : counts[KP_FAIL] ? 1 : 0;
	if (fflush(stdout) || ferror(stdout)) { /* the lines before the count, on a terminal too; /dev/full */
		fprintf(stderr, "kprof: assert: cannot write the outcomes to stdout: %s\n",
			strerror(errno ? errno : EIO));
		rc = 3;
	}
	if (!quiet) {
		fprintf(stderr, "kprof assert: %zu rule%s on %zu log%s: %zu passed, %zu failed, %zu could not be evaluated",
			nrules, nrules == 1 ? "" : "s", nlogs, nlogs == 1 ? "" : "s", counts[KP_PASS], counts[KP_FAIL],
			counts[KP_ERROR]);
		for (size_t r = 0, k = 0; r < nrules; r++) { /* each rule once, whatever the logs */
			bool err = false;
			for (size_t i = 0; i < nlogs; i++)
				err |= logs[i].outcomes[r].verdict == KP_ERROR;
			if (err && k++ < 8)
				fprintf(stderr, "%s%s:%u", k == 1 ? " (" : ", ", argv[optind], rules[r].line);
		}
		fprintf(stderr, "%s; exit status %d\n", counts[KP_ERROR] ? ")" : "", rc);
	}
	if (junit && kp_junit_write(junit, argv[optind], rules, nrules, logs, nlogs))
		rc = 3;
	for (size_t i = 0; i < nlogs; i++)
		free(logs[i].outcomes);
	free(logs);
	free(rules);
	return rc;
}
