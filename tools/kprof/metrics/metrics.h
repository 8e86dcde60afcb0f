/*
 * metrics.h - the figures `kprof assert` checks and `kprof compare`
 * compares, taken from the very model and report code `kprof report`
 * prints them with (model/model.h, report/report.h), so the three can
 * never tell different stories about one log.
 *
 *   run.c     one run loaded for measuring: its log, model, the kernel's
 *             symbols (optional) and the report's view of them; the
 *             run's losses
 *   names.c   locks, threads and functions found by the names the report
 *             prints them with, and the near matches of a name that is
 *             not there (near.c: edit distance and substrings)
 *   events.c  the workload's own events: a type, or its events with one
 *             value of an enumeration field, and a numeric field's values
 */
#ifndef KPROF_TOOL_METRICS_H
#define KPROF_TOOL_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/kprof/model/model.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/elf/symbols.h"
#include "tools/kprof/report/report.h"

/* One run. */
struct kp_runlog {
	const char *path;             /* its log                                   */
	struct kp_log log;
	struct kp_model m;
	struct kp_symbols *syms;      /* NULL without --kernel                     */
	struct kp_report rp;          /* the report's view: log, model, symbols    */
	struct kp_totals totals;
	struct kp_lock_rec *locks;    /* the report's SpinLock records, by lock    */
	size_t nlocks;                /* (report/locks/lock_stats.c)                     */
	struct kp_hot_row *hot;       /* the report's ProfileTime rows             */
	size_t nhot;
	struct kp_hot_row hot_all;    /* their totals (with outside any function)  */
};

/* Read the log at path, build its model and open kernel's symbols (NULL:
 * none; checked against the log's build unless force).  0, or 3 after a
 * message on stderr naming what could not be read (*r is then zeroed, its
 * path NULL: nothing to free). */
int kp_run_load(struct kp_runlog *r, const char *path, const char *kernel, bool force);
void kp_run_free(struct kp_runlog *r);

/* Records lost in all (the kernel's drops, those not in a trace file and
 * those lost on the link: the report's LOST lines); false, with why, when
 * some CPU's end frame (its count) never came. */
bool kp_run_lost(const struct kp_runlog *r, uint64_t *lost, char *why, size_t size);

/* ---- names (names.c) ---- */

/* Up to this many near matches are named. */
#define KP_NEAR_MAX 5

/* Names close to `want` among `names[0..n)`: those within an edit
 * distance of a third of its length (at least 2), or containing it, or
 * contained in it, ignoring case; closest first.  "a", "b", "c" into buf
 * (empty when none); returns buf. */
const char *kp_near_names(const char *want, const char *const *names, size_t n, char *buf, size_t size);

/* A lock as the report names it: the KprofObjectName name, or its address
 * ("0xffffffff80261100", any case, leading zeros or not).  *recs gets the
 * lock's records (copied, malloc'd; several locks of one name together),
 * *n their number; false when no traced lock has that name, with the near
 * matches in near. */
bool kp_run_lock(const struct kp_runlog *r, const char *name, struct kp_lock_rec **recs, size_t *n, char *near,
		 size_t size);
/* The name the report gives the lock at addr: its object name, else the
 * address; returns buf. */
const char *kp_run_lock_name(const struct kp_runlog *r, uint64_t addr, char *buf, size_t size);

/* The threads of a name (as the report's tables print it: "ping",
 * "thread 12", "Idle") or, by_id, the thread `id`: into out (room for
 * m.nthreads), how many; 0 with the near matches in near. */
size_t kp_run_threads(const struct kp_runlog *r, const char *name, bool by_id, uint32_t id,
		      const struct kp_model_thread **out, char *near, size_t size);

/* A function of the kernel's symbols by name: the ProfileTime row of each
 * function of that name summed into *row (zero when it was never
 * sampled); false when the symbols have no such function, with the near
 * matches in near. */
bool kp_run_function(const struct kp_runlog *r, const char *name, struct kp_hot_row *row, char *near, size_t size);

/* ---- the workload's own events (events.c) ---- */

struct kp_user_type;
struct kp_field;

/* The enumeration field a type's events are split by: the one called by,
 * else its first (a span's Phase is not one of the type's own); -1 none. */
int kp_user_split_field(const struct kp_user_type *t, const char *by);
/* The value called name among f's value names, or -1. */
int64_t kp_field_value_named(const struct kp_field *f, const char *name);

/* Events by name: "TYPE", or "TYPE [FIELD=value]" for those whose
 * enumeration field FIELD has that value (as compare names them). */
struct kp_event_sel {
	const struct kp_user_type *type;
	int split;                    /* the field's index; -1: every event       */
	uint64_t value;
};
/* false with why (the near names of a type not there, the values of a
 * field) when the log has no such events' type. */
bool kp_run_event_sel(const struct kp_runlog *r, const char *name, struct kp_event_sel *sel, char *why, size_t size);
/* The selected events (every phase). */
uint64_t kp_run_event_count(const struct kp_runlog *r, const struct kp_event_sel *sel);
/* The values of the numeric field called field of the selected events,
 * in *v (malloc'd); their number, 0 with why. */
size_t kp_run_event_values(const struct kp_runlog *r, const struct kp_event_sel *sel, const char *field, double **v,
			   char *why, size_t size);
/* The lengths in cycles of the slices of a span type (sel->type), paired
 * as the report pairs them: per CPU an End closes the latest open Begin
 * of its type; with sel's value, the slices whose Begin has it.  *v
 * malloc'd (also when 0 are returned); *backwards: the Ends before their
 * Begin (damaged: no slice). */
size_t kp_run_span_lengths(const struct kp_runlog *r, const struct kp_event_sel *sel, uint64_t **v,
			   uint64_t *backwards);

#endif
