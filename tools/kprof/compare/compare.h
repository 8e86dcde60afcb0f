/*
 * compare.h - `kprof compare A B`: two runs, or two sets of runs, figure
 * by figure, with the difference and its 95% interval, marked significant
 * only when the interval excludes zero.
 *
 *   sides.c     what A and B are: a log, a run's folder, or a set's folder
 *               of run folders (make run REPEAT=N: build/runs/NAME/1..N)
 *   collect.c   each run's figures (from the report's model and code,
 *               metrics/metrics.h) with their variance within the run
 *   user.c      the figures of the workload's own events: each type's
 *               events per second, its instants' numeric fields and its
 *               spans' slices (mean and median), split by an enum field
 *   stats.c     the intervals: Welch's t over runs, paired t over the
 *               same runs, normal within runs
 *   compare.c   the command: options, the rows, --fail-if-worse
 *   text.c      the text: sections, methods, values in their units
 *   json.c      --json FILE
 *   diffflame.c --flame FILE.svg: the differential flame graph
 */
#ifndef KPROF_TOOL_COMPARE_H
#define KPROF_TOOL_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "include/kprof/user_event.h"
#include "tools/kprof/metrics/metrics.h"
#include "tools/kprof/util/hash.h"

/* What a figure is, and so how it is shown and how its variance within a
 * run is estimated (collect.c). */
enum kp_cmp_kind {
	KP_CMP_HOT,        /* a function's share of the profile periods          */
	KP_CMP_CONTENTION, /* a lock's contended share of its traced acquisitions */
	KP_CMP_CONTENTION_EST, /* ... estimated over all its acquisitions      */
	KP_CMP_WAIT,       /* a lock's mean wait (s), of the traced waits         */
	KP_CMP_HOLD,       /* a lock's mean hold (s), of the traced acquisitions  */
	KP_CMP_LATENCY,    /* a thread's mean scheduling latency (s)              */
	KP_CMP_CPU,        /* a thread's share of the CPUs' traced time           */
	KP_CMP_NOISE,      /* scenario=noise: a CPU's share of its scanned time   */
	                   /* in gaps, per pass                                    */
	KP_CMP_TIMER_MEAN, /* scenario=noise: a CPU's mean timer lateness (s)     */
	KP_CMP_EV_RATE,    /* a user event type's events (spans: slices) per s    */
	KP_CMP_EV_MEAN,    /* an instant's numeric field: its mean                */
	KP_CMP_EV_MEDIAN,  /* ... its median (no variance within a run)           */
	KP_CMP_SPAN_MEAN,  /* a span type's slices: their mean length (s)         */
	KP_CMP_SPAN_MEDIAN, /* ... their median length (s)                        */
	KP_CMP_KINDS,
};

/* How a kind's values read: a share, seconds, per second, or the field's
 * own unit (a number). */
enum kp_cmp_unit { KP_CMP_SHARE, KP_CMP_SECONDS, KP_CMP_PER_S, KP_CMP_VALUE };

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

/* --by FIELD=A,B: A's events whose enum field FIELD has the value A
 * against B's whose FIELD is B (A and B may be the same runs); only user
 * event figures are compared then. */
struct kp_cmp_by {
	const char *field;            /* NULL: not given                         */
	char value[2][KPROF_EVENT_VALUE_NAME + 1]; /* A's, B's                  */
};

struct kp_cmp_table {
	struct kp_cmp_metric *m;
	size_t n, cap;
	struct kp_index by_name;      /* m[] by (kind, name)                     */
	size_t runs[2];               /* runs of A, of B                         */
	bool paired;                  /* A and B are the same runs (--by)        */
	struct kp_cmp_by by;
	bool *raw[2];                 /* per run: user events it could not read  */
	                              /* (type missing or damaged): a user       */
	                              /* figure it lacks is unknown, not 0       */
	bool by_seen[2];              /* --by: a side had FIELD with its value   */
	char **notes;                 /* what could not be compared, and why     */
	size_t nnotes, notes_cap;
};

/* A share is 0 in a run without it (a function never sampled, an event
 * never written); a mean has no value there. */
bool kp_cmp_zero_if_absent(enum kp_cmp_kind k);
enum kp_cmp_unit kp_cmp_unit(enum kp_cmp_kind k);
bool kp_cmp_is_share(enum kp_cmp_kind k);
bool kp_cmp_is_user(enum kp_cmp_kind k);
const char *kp_cmp_kind_name(enum kp_cmp_kind k);

/* Every figure of one run (side 0: A, 1: B; run: its index) into t
 * (t->runs, t->by and t->raw set first). */
void kp_cmp_collect(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r);
void kp_cmp_table_free(struct kp_cmp_table *t);

/* The figure of this name and kind in t, made if new (collect.c). */
struct kp_cmp_metric *kp_cmp_metric(struct kp_cmp_table *t, enum kp_cmp_kind k, const char *name);
/* One run's value of it, with its variance within the run. */
void kp_cmp_put(struct kp_cmp_table *t, int side, size_t run, enum kp_cmp_kind k, const char *name, double v,
		double var);
/* A note for the text and the JSON. */
void kp_cmp_note(struct kp_cmp_table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The user event figures of one run (user.c); notes for its events that
 * could not be read. */
void kp_cmp_collect_user(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r);

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
/* The paired t interval of the mean of b[i] - a[i] (the same runs on both
 * sides); false with fewer than two pairs. */
bool kp_paired(const double *a, const double *b, size_t n, struct kp_interval *out);
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
	bool constant;                /* !ok: every value of A one number, and   */
	                              /* every value of B: B - A is exact        */
	bool clipped;                 /* a share's limits cut to -100%..+100%    */
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
/* A set's runs that are not runs of its scenario left out of s and runs
 * (freed), each with a note in t; a single log that holds no run refused.
 * 0, or 3 with a message (a set left with fewer than two runs). */
int kp_cmp_side_keep(struct kp_cmp_table *t, int side, struct kp_cmp_side *s, struct kp_runlog **runs);

/* The method of the intervals, said once (text.c). */
const char *kp_cmp_method(const struct kp_cmp_table *t, enum kp_cmp_kind k);
/* The rows as text, by kind (text.c). */
void kp_cmp_print_rows(FILE *f, const struct kp_cmp_table *t, const struct kp_cmp_row *rows, size_t n);

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
