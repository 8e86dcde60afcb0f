/*
 * rules.h - `kprof assert RULES LOG...`: rules on a trace, for CI.
 *
 *   parse.c   the rule file: one rule a line, `#` comments, blank lines;
 *             a malformed rule is an error at its line and column
 *   eval.c    a rule measured on one run (metrics/metrics.h: the figures
 *             the report prints), and PASS, FAIL or ERROR (cannot be
 *             evaluated, with why)
 *   junit.c   the outcomes as JUnit XML (--junit FILE)
 *   assert.c  the command: options, every rule on every log, the lines
 *             and the exit status
 *
 * A rule is a subject, a measure, a comparison and a bound:
 *
 *   lost == 0                              a metric of the run
 *   lock "hot2" wait p99 < 50us            a lock, by name or address
 *   lock "hot2" contended est < 5%         its contended share estimated
 *                                          over all acquisitions (contended
 *                                          traced: of the traced ones)
 *   thread "ping" latency max < 2ms        a thread, by name (or id)
 *   samples "ke_stall_execution_processor" < 40%   a function's samples
 *   event "my_op" count >= 1000            an event type of the workload
 *   event "my_op [Mode=read]" field "Bytes" p99 < 4096
 *                                          a numeric field of its events
 *                                          (with [FIELD=value]: those events)
 *   span "my_op" p99.9 < 5ms               the lengths of a span type's
 *                                          slices (with [FIELD=value]: of
 *                                          those whose Begin has it)
 *   cpu busy > 50%                         all CPUs, or `cpu 1 busy`
 *   noise max < 20us                       scenario=noise: its gaps (all
 *                                          CPUs and passes, or `noise 1`)
 *   timer latency p99 < 50us               its timer pass (the worst CPU)
 *
 * Wherever a measure is a percentile, any pNN or pNN.N is one (p50, p90,
 * p99.9): the nearest rank, as the report's p99.
 */
#ifndef KPROF_TOOL_RULES_H
#define KPROF_TOOL_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum kp_subject {
	KP_SUBJ_METRIC, KP_SUBJ_LOCK, KP_SUBJ_THREAD, KP_SUBJ_SAMPLES, KP_SUBJ_EVENT, KP_SUBJ_CPU, KP_SUBJ_FIELD,
	KP_SUBJ_SPAN, KP_SUBJ_NOISE, KP_SUBJ_TIMER
};

/* What a figure is: a count, a time, a share; a measure admits a set. */
enum { KP_KIND_COUNT = 1, KP_KIND_TIME = 2, KP_KIND_SHARE = 4 };

enum kp_op { KP_OP_LT, KP_OP_LE, KP_OP_GT, KP_OP_GE, KP_OP_EQ, KP_OP_NE };

/* A measure a subject has: "wait p99", its kinds, and which figure. */
struct kp_measure_def {
	const char *name;
	unsigned kinds;               /* KP_KIND_*                                 */
	int id;                       /* eval.c's figure                          */
};

struct kp_rule {
	unsigned line;                /* in the rule file, from 1                  */
	char text[1024];              /* the rule as written, without comment      */
	enum kp_subject subject;
	char name[128];               /* lock, thread, function or event name      */
	char field[128];              /* KP_SUBJ_FIELD: the event field's name     */
	bool by_id;                   /* thread 12 / cpu 1                         */
	uint32_t id;
	const struct kp_measure_def *measure;
	uint32_t pct_num, pct_scale;  /* a percentile measure's: pct_num /      */
	                              /* pct_scale percent (p99.9: 999, 10)     */
	enum kp_op op;
	double bound;                 /* seconds for a time, percent for a share   */
	unsigned kind;                /* the bound's kind: KP_KIND_*                */
	char bound_text[280];         /* "50us" as written                         */
	char measure_text[128];       /* "wait p99.9" as written                   */
};

/* The measures of a subject, ended by a NULL name. */
const struct kp_measure_def *kp_rule_measures(enum kp_subject s);
const char *kp_op_text(enum kp_op op);

/* Read the rule file at path into *rules (malloc'd), *n of them.  0, 2
 * after "PATH:LINE:COL: what is wrong, what is accepted" on stderr for a
 * malformed rule (every one in the file is reported), or 3 when the file
 * cannot be read. */
int kp_rules_read(const char *path, struct kp_rule **rules, size_t *n);

/* ---- evaluation (eval.c) ---- */

enum kp_verdict { KP_PASS, KP_FAIL, KP_ERROR };

struct kp_outcome {
	enum kp_verdict verdict;
	char measured[300];           /* "1.465 ms (3804580 cycles)"               */
	char why[600];                /* ERROR: why it cannot be evaluated         */
};

struct kp_runlog;
void kp_rule_eval(const struct kp_rule *rule, const struct kp_runlog *run, struct kp_outcome *out);

/* ---- JUnit XML (junit.c) ---- */

struct kp_assert_log {
	const char *path;
	bool loaded;                  /* false: the log could not be read          */
	struct kp_outcome *outcomes;  /* one per rule                              */
	double seconds;               /* to load and evaluate                      */
};
/* testsuites > a testsuite per log > a testcase per rule, with a failure
 * (measured value and bound) or an error (why) element.  0 or 3. */
int kp_junit_write(const char *path, const char *rules_path, const struct kp_rule *rules, size_t nrules,
		   const struct kp_assert_log *logs, size_t nlogs);

/* The command (assert.c). */
int kp_cmd_assert(int argc, char **argv);

#endif
