/*
 * junit.c - `kprof assert --junit FILE`: the outcomes as JUnit XML, the
 * form CI systems (Jenkins, GitLab, GitHub's test reporters) read:
 *
 *   <testsuites name tests failures errors time>
 *     <testsuite name=LOG tests failures errors skipped time timestamp>
 *       <testcase classname="kprof.assert" name="RULES:LINE: rule" time>
 *         <failure message="measured ..." type="FAIL">details</failure>
 *         or <error message="why" type="ERROR">why</error>
 *       </testcase>
 *       <system-out>every rule's line</system-out>
 *
 * A passing testcase holds nothing.  Text goes through kp_xml_text, so a
 * lock or thread name with <, & or quotes stays well-formed.
 */
#include "tools/kprof/assert/rules.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/util/outfile.h"

static void attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	kp_xml_text(f, value);
	fputc('"', f);
}

static void testcase(FILE *f, const char *rules_path, const struct kp_rule *r, const struct kp_outcome *o,
		     double seconds)
{
	char msg[1024];

	fputs("    <testcase", f);
	attr(f, "classname", "kprof.assert");
	fputs(" name=\"", f); /* FILE:LINE: rule */
	kp_xml_text(f, rules_path);
	fprintf(f, ":%u: ", r->line);
	kp_xml_text(f, r->text);
	fputc('"', f);
	fprintf(f, " time=\"%.6f\"", seconds);
	if (o->verdict == KP_PASS) {
		fputs("/>\n", f);
		return;
	}
	if (o->verdict == KP_FAIL)
		snprintf(msg, sizeof(msg), "measured %s; the rule wants %s %s", o->measured, kp_op_text(r->op),
			 r->bound_text);
	else
		snprintf(msg, sizeof(msg), "cannot be evaluated: %s", o->why);
	fprintf(f, ">\n      <%s", o->verdict == KP_FAIL ? "failure" : "error");
	attr(f, "message", msg);
	attr(f, "type", o->verdict == KP_FAIL ? "FAIL" : "ERROR");
	fputc('>', f);
	kp_xml_text(f, msg);
	fprintf(f, "</%s>\n    </testcase>\n", o->verdict == KP_FAIL ? "failure" : "error");
}

int kp_junit_write(const char *path, const char *rules_path, const struct kp_rule *rules, size_t nrules,
		   const struct kp_assert_log *logs, size_t nlogs)
{
	size_t fails = 0, errors = 0;
	double total = 0;
	char stamp[32];
	time_t t = time(NULL);
	FILE *f = kp_out_open(path);

	if (!f)
		return 3;
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", gmtime(&t));
	for (size_t i = 0; i < nlogs; i++) {
		total += logs[i].seconds;
		for (size_t r = 0; r < nrules; r++) {
			fails += logs[i].outcomes[r].verdict == KP_FAIL;
			errors += logs[i].outcomes[r].verdict == KP_ERROR;
		}
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
	attr(f, "name", "kprof assert");
	fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" time=\"%.6f\">\n", nrules * nlogs, fails, errors,
		total);
	for (size_t i = 0; i < nlogs; i++) {
		size_t lf = 0, le = 0;
		for (size_t r = 0; r < nrules; r++) {
			lf += logs[i].outcomes[r].verdict == KP_FAIL;
			le += logs[i].outcomes[r].verdict == KP_ERROR;
		}
		fputs("  <testsuite", f);
		attr(f, "name", logs[i].path);
		fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\" time=\"%.6f\"", nrules, lf, le,
			logs[i].seconds);
		attr(f, "timestamp", stamp);
		fputs(">\n", f);
		for (size_t r = 0; r < nrules; r++)
			testcase(f, rules_path, &rules[r], &logs[i].outcomes[r], nrules ? logs[i].seconds / nrules : 0);
		fputs("    <system-out>", f);
		for (size_t r = 0; r < nrules; r++) {
			const struct kp_outcome *o = &logs[i].outcomes[r];
			fprintf(f, "%s ", o->verdict == KP_PASS ? "PASS" : o->verdict == KP_FAIL ? "FAIL" : "ERROR");
			kp_xml_text(f, rules_path);
			fprintf(f, ":%u: ", rules[r].line);
			kp_xml_text(f, rules[r].text);
			fputs(": ", f);
			kp_xml_text(f, o->verdict == KP_ERROR ? o->why : o->measured);
			fputc('\n', f);
		}
		fputs("</system-out>\n  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	return kp_out_close(f, path);
}
