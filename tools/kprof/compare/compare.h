/*
 * compare.h - `kprof compare A B`: two runs, or two sets of runs, figure
 * by figure, with the difference and its 95% interval, marked significant
 * only when the interval excludes zero.
 *
 *   sides.c     what A and B are: a log, a run's folder, or a set's folder
 *               of run folders (make run REPEAT=N: build/runs/NAME/1..N)
 *   collect.c   each run's figures (from the report's model and code,
 *               metrics/metrics.h) with their variance within the run
 *   stats.c     the intervals: Welch's t over runs, normal within runs
 *   compare.c   the command: the rows, the text, --fail-if-worse
 *   json.c      --json FILE
 *   diffflame.c --flame FILE.svg: the differential flame graph
 */
#ifndef KPROF_TOOL_COMPARE_H
#define KPROF_TOOL_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/kprof/metrics/metrics.h"

/* What a figure is, and so how it is shown and how its variance within a
 * run is estimated (collect.c). */
enum kp_cmp_kind {
	KP_CMP_HOT,        /* a function's share of the profile periods          */
	KP_CMP_CONTENTION, /* a lock's contended share of its traced acquisitions */
	KP_CMP_WAIT,       /* a lock's mean wait (s), of the traced waits         */
	KP_CMP_HOLD,       /* a lock's mean hold (s), of the traced acquisitions  */
	KP_CMP_LATENCY,    /* a thread's mean scheduling latency (s)              */
	KP_CMP_CPU,        /* a thread's share of the CPUs' traced time           */
	KP_CMP_KINDS,
};

/* One run's value of a figure and its variance estimated within the run
 * (NAN when the run cannot say: one event). */
struct kp_cmp_obs {
	bool have;
	double value, var;
};

struct kp_cmp_metric {
	char name[200];               /* "hot locks_worker", "lock hot2 wait"    */
	enum kp_cmp_kind kind;
	struct kp_cmp_obs *obs[2];    /* per run of A, of B                      */
};

struct kp_cmp_table {
	struct kp_cmp_metric *m;
	size_t n, cap;
	size_t runs[2];               /* runs of A, of B                         */
};

/* A share is 0 in a run without it (a function never sampled); a mean has
 * no value there. */
bool kp_cmp_zero_if_absent(enum kp_cmp_kind k);
/* Shares are shown as percentages, means as times. */
bool kp_cmp_is_share(enum kp_cmp_kind k);
const char *kp_cmp_kind_name(enum kp_cmp_kind k);

/* Every figure of one run (side 0: A, 1: B; run: its index) into t. */
void kp_cmp_collect(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r);
void kp_cmp_table_free(struct kp_cmp_table *t);

/* ---- intervals (stats.c) ---- */

struct kp_interval {
	double a, b, diff, lo, hi;    /* A, B (means over runs), B - A, 95%      */
	double df;                    /* Welch's degrees of freedom, inf: normal */
};
double kp_t_cdf(double t, double df);
double kp_t_quantile(double p, double df);
/* Welch's t interval of mean(b) - mean(a); false with fewer than two
 * values on a side. */
bool kp_welch(const double *a, size_t na, const double *b, size_t nb, struct kp_interval *out);
/* The normal interval of b - a from variances within each run; false when
 * one is not known. */
bool kp_normal_diff(double a, double var_a, double b, double var_b, struct kp_interval *out);

/* ---- a compared figure (compare.c) ---- */

struct kp_cmp_row {
	const struct kp_cmp_metric *metric;
	bool ok;                      /* an interval could be made               */
	struct kp_interval iv;
	bool significant;             /* ok and the interval excludes 0          */
	double change_pct;            /* (B - A) / |A| * 100; inf when A is 0    */
	size_t na, nb;                /* values on each side                     */
	const char *why;              /* !ok: why not                            */
};

/* The sides, for the outputs. */
struct kp_cmp_side {
	const char *path;
	char **logs;                  /* the run logs                            */
	size_t n;
};

/* What A and B are (sides.c): a log, a run's folder (serial.log in it) or
 * a set's folder (run folders in it, each with its serial.log).  0, or 3
 * with a message. */
int kp_cmp_side_read(const char *path, struct kp_cmp_side *s);
void kp_cmp_side_free(struct kp_cmp_side *s);

/* The method of the intervals, said once. */
const char *kp_cmp_method(const struct kp_cmp_table *t, enum kp_cmp_kind k);

/* --json FILE (json.c): 0 or 3. */
int kp_cmp_json(const char *path, const struct kp_cmp_side *side, const struct kp_cmp_table *t,
		const struct kp_cmp_row *rows, size_t n, double fail_pct);

/* --flame FILE.svg (diffflame.c): the stacks of every run of A and of B,
 * drawn with B's widths and coloured by the change of each frame's share.
 * 0, or 3 with a message. */
int kp_cmp_flame(const char *path, struct kp_runlog *const *a, size_t na, struct kp_runlog *const *b, size_t nb,
		 const char *kernel);

int kp_cmd_compare(int argc, char **argv);

#endif
