/*
 * report.h - what the files of `kprof report` share.
 *
 * report.c runs the command and puts the sections together (and the
 * --summary form); each section is a function writing a titled block from
 * the run's model (model/model.h, built once) and, where it needs them,
 * the log and the kernel's symbols.  Lines stay within KP_TEXT_WIDTH
 * columns and every order is total (ties broken by address or id), so the
 * same log and kernel always give the same bytes: tests/tools/test_report
 * compares them with golden files.
 */
#ifndef KPROF_TOOL_REPORT_H
#define KPROF_TOOL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/model/model.h"
#include "tools/kprof/report/quantiles.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/elf/symbols.h"
#include "tools/kprof/util/format.h"

#define TOP_FUNCTIONS    20 /* hot spots, all CPUs                       */
#define TOP_PER_CPU      5  /* hot spots, each CPU                       */
#define TOP_SUMMARY      5  /* --summary: functions and threads          */
#define TOP_BUCKET_FUNCS 20 /* functions listed per profile object       */

struct kp_report_cache;

/* What every section reads.  cache: what the sections that read the log
 * themselves (locks, resources, hot spots, the clock's seen interval) read
 * from, gathered before any of them is written (kp_report_gather), so that
 * the whole report and its summary read the log once for it. */
struct kp_report {
	struct kp_log *log;
	const struct kp_model *m;
	const struct kp_symbols *syms;
	struct kp_report_cache *cache;
};

/* ---- sections, in report order ---- */

/* header.c: the run, the trace, losses and damaged frames, the CPUs'
 * frames (t and per_cpu from kp_totals). */
void kp_report_header(FILE *f, const struct kp_report *r, const char *input, const char *kernel,
		      const struct kp_totals *t, const uint64_t *per_cpu);
/* clock.c: the clock tick and profile interval of the run, and the
 * interval seen between samples ("clock" in the header). */
void kp_report_clock(FILE *f, const struct kp_report *r);
/* header.c: the trace line and the losses, for --summary. */
void kp_report_header_short(FILE *f, const struct kp_report *r, const struct kp_totals *t);
void kp_report_hot_spots(FILE *f, const struct kp_report *r);       /* hot.c       */
void kp_report_hot_summary(FILE *f, const struct kp_report *r);     /* hot.c       */
void kp_report_profile_objects(FILE *f, const struct kp_report *r); /* objects.c   */
void kp_report_locks(FILE *f, const struct kp_report *r);           /* locks.c     */
void kp_report_resources(FILE *f, const struct kp_report *r);       /* resources.c */
void kp_report_threads(FILE *f, const struct kp_report *r);         /* threads.c   */
void kp_report_busiest(FILE *f, const struct kp_report *r);         /* threads.c   */
void kp_report_cpus(FILE *f, const struct kp_report *r);            /* cpus.c      */
void kp_report_user_events(FILE *f, const struct kp_report *r);     /* user_events.c */
void kp_report_user_events_summary(FILE *f, const struct kp_report *r);
void kp_report_noise(FILE *f, const struct kp_report *r);           /* noise/noise.c */
/* cpus.c: "stalled   cpu 0 67.2%, ..." for the header and --summary
 * (nothing without KprofClockLate records). */
void kp_report_stalled_line(FILE *f, const struct kp_report *r);
void kp_report_latency(FILE *f, const struct kp_report *r);         /* latency.c   */
void kp_report_blocked(FILE *f, const struct kp_report *r);         /* latency.c   */

/* threads.c: "name", "(no name)", "thread 12" or, for thread 0 without a
 * record (and when idle_name), "Idle"; bytes outside printable ASCII as
 * '?'.  Returns buf. */
const char *kp_report_thread_name(const struct kp_model_thread *th, bool idle_name, char *buf, size_t size);
/* threads.c: the id and name that lead a row, "    12 name             ";
 * a name longer than its 16 columns goes whole on a line of its own. */
void kp_report_row_lead(FILE *f, uint32_t tid, const char *name);

/* ---- a table of functions (hot.c; objects.c uses it too) ---- */

struct kp_hot_row {
	bool known;                   /* in a function (func its start)             */
	uint64_t func;
	uint64_t weight, count;       /* periods (or hits) and samples (or buckets) */
	double w2;                    /* the samples' weights squared, summed       */
};
/* Heaviest first; ties: more samples, then the lower address. */
int kp_hot_row_cmp(const void *a, const void *b);
/* Rows [0, top) by name, then one line for the rest. */
void kp_hot_rows(FILE *f, const struct kp_symbols *syms, const struct kp_hot_row *rows, size_t nr, size_t top,
		 uint64_t total, bool weighted, const struct kp_hot_row *all);
/* The rows of the ProfileTime table over all CPUs (the first table of
 * Hot spots: samples of kprof's own measurement left out), heaviest first,
 * into *rows (malloc'd); *all gets their totals with the samples outside
 * any function, from rp->cache's samples (KP_GATHER_SAMPLES).  Returns the
 * number of rows. */
size_t kp_hot_profile_rows(const struct kp_report *rp, struct kp_hot_row **rows, struct kp_hot_row *all);
/* One row: weight, share of total, count, with `all` (the table's totals)
 * the 95% interval of the row's share (NULL: none), and the name cut to
 * the width. */
void kp_hot_row_line(FILE *f, const struct kp_hot_row *r, uint64_t total, bool weighted,
		     const struct kp_hot_row *all, const char *name);

/* ---- helpers (format.c) ---- */

/* A section title: a blank line, "== title ==", underlined to the width. */
void kp_report_section(FILE *f, const char *title);
/* ---- 95% confidence intervals (interval.c) ---- */

/* Wilson score interval of the proportion p from n samples. */
void kp_wilson(double p, double n, double *lo, double *hi);
/* The share w / all_w of weighted samples whose weights' squares add up
 * to all_w2: Wilson with Kish's effective n; as "12.3-15.9%". */
const char *kp_share_ci_text(uint64_t w, uint64_t all_w, double all_w2, char *buf, size_t size);
/* A Horvitz-Thompson estimate with its variance estimate sum(w (w - 1)):
 * "lo-hi", normal, lo never below the traced count. */
const char *kp_ht_text(uint64_t estimate, double variance, uint64_t traced, char *buf, size_t size);
/* The contended share of a lock's acquisitions estimated over all of them
 * (est_cont / est_acq, Horvitz-Thompson totals with the variance sums
 * var_acq, var_cont of struct kp_lock_group), and in *var that ratio's
 * variance (the delta method); 0 (var 0) when est_acq is 0. */
double kp_lock_est_share(double est_acq, double est_cont, double var_acq, double var_cont, double *var);
/* The normal 95% interval share +- 1.96 sqrt(var), clipped to [0, 1]. */
void kp_share_interval(double share, double var, double *lo, double *hi);

/* ---- units of time (units.c) ---- */

struct kp_unit {
	const char *name;             /* "s", "ms", "us", "ns"                      */
	uint64_t per_s;               /* units in a second                          */
};
/* The unit of a column whose largest value is max_cycles: the largest in
 * which that is at least 1 (ns below a microsecond). */
struct kp_unit kp_unit_for(const struct kp_log *log, uint64_t max_cycles);
/* cycles in unit u: three decimals, rounded down (ns: whole); "?" without
 * the TSC rate.  Returns buf. */
const char *kp_unit_text(const struct kp_log *log, struct kp_unit u, uint64_t cycles, char *buf, size_t size);
/* A figure in text: cycles in the unit its own size picks, with the
 * unit's name ("2.967 s", "812.004 us").  Returns buf. */
const char *kp_report_time(const struct kp_log *log, uint64_t cycles, char *buf, size_t size);

/* Code: "function+0xoff", or the address in hex. */
const char *kp_report_code_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size);
/* Data (a lock, a resource): "name+0xoff" only inside a symbol of known
 * size (the table holds functions, so usually not), else "". */
const char *kp_report_data_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size);
/* A lock or resource: "hot0 (SpinLock at 0xffffffff80261100)" from its
 * KprofObjectName record (the latest), else "0xffffffff80261100" and its
 * data symbol, if any, in parentheses.  Never cut; returns buf. */
const char *kp_report_object(const struct kp_report *r, uint64_t addr, char *buf, size_t size);
/* A release site: "function+0xoff" (or the address), then " (file:line)"
 * of the release call from the kernel's DWARF when it has it
 * (kp_symbols_site_line: return_address for the executive spin locks,
 * which record where the release call returns to).  Never cut; returns
 * buf. */
const char *kp_report_site(const struct kp_symbols *syms, uint64_t addr, bool return_address, char *buf,
			   size_t size);
/* Lost records make every count low: a note saying so, when any were. */
void kp_report_lost_note(FILE *f, const struct kp_log *log);
/* Was the event group on in the run (true without a run header)? */
bool kp_report_group_on(const struct kp_log *log, uint32_t mask);

/* ---- spin-lock sampling (lock_sampling.c) ---- */

struct kp_lock_sampling {
	const KPROF_SPINLOCK_CONFIG *configs; /* the model's, in time order     */
	size_t nconfigs;
	KPROF_SPINLOCK_CONFIG fallback;       /* without any: defaults and the  */
	const char *fallback_source;          /* command line, and which        */
};
void kp_lock_sampling_init(struct kp_lock_sampling *s, const struct kp_report *r);
/* The setting for a record written under setting `config` (the index in
 * the model, -1 before any). */
const KPROF_SPINLOCK_CONFIG *kp_lock_sampling_at(const struct kp_lock_sampling *s, int config);
/* "sampling: spin threshold ..., acquire rate ..." and where it came from. */
void kp_lock_sampling_print(FILE *f, const struct kp_lock_sampling *s);

/* ---- a resource's waits, each counted once (resource_waits.c) ---- */

struct kp_res_waits {
	uint64_t slices;              /* excessive waits: slices the wait went on   */
	                              /* after (the owners boosted)                 */
	uint64_t went_on;             /* waits with slices that got the resource    */
	uint64_t timeouts, timeouts_x;/* waits that ended without it (exclusive)    */
	uint64_t timeout_total;       /* their final WaitTime, each once            */
	uint64_t timeout_max;
};
/* The waits on one resource, from its Resource records taken in time
 * order (their TimeStamps beside them), then ended: w is its figures. */
struct kp_res_wait_walk {
	struct kp_res_waits w;
	struct kp_res_open *open;     /* its waits still open, by thread            */
	size_t n, cap;
};
void kp_res_waits_take(struct kp_res_wait_walk *k, const WMI_RESOURCE *r, uint64_t ts);
void kp_res_waits_end(struct kp_res_wait_walk *k);

/* ---- order statistics (stats.c) ---- */

struct kp_stats {
	size_t n;                     /* values (weighted: their total weight)      */
	uint64_t median, p99, max;    /* nearest rank; 0 when n is 0                */
};
struct kp_weighted {
	uint64_t v, w;                /* a value and its weight                     */
};
/* Nearest-rank median, 99th percentile and maximum of v[0..n) (sorts v). */
void kp_stats_of(uint64_t *v, size_t n, struct kp_stats *s);
/* The same weighted: the value at which the running weight first reaches
 * the rank (sorts a). */
void kp_stats_weighted(struct kp_weighted *a, size_t n, struct kp_stats *s);
/* A table of them: the units of its three time columns (each from its
 * largest value over the rows with values), the header naming them, and
 * a row in cycles and in those units. */
struct kp_stats_units {
	struct kp_unit median, p99, max;
};
struct kp_stats_units kp_stats_units(const struct kp_log *log, const struct kp_stats *const *rows, size_t n);
void kp_stats_header(FILE *f, const char *indent, const struct kp_stats_units *u);
void kp_stats_row(FILE *f, const struct kp_log *log, const char *label, const struct kp_stats *s,
		  const struct kp_stats_units *u);
/* v in decimal, or "-" when there is no value. */
const char *kp_stats_num(char *buf, size_t size, uint64_t v, bool have);

/* ---- the spin-lock figures (lock_stats.c; locks.c prints them) ---- */

#define KP_LOCK_MODES 6               /* the five AcquireModes, then "other"        */
/* One traced release. */
struct kp_lock_rec {
	uint64_t lock, caller;
	uint64_t wait, hold;          /* WaitTimeInCycles less stalled; ReleaseTime */
	                              /* - AcquireTime                               */
	uint64_t stalled;             /* of WaitTimeInCycles, on a stalled CPU       */
	uint64_t weight;              /* acquisitions it stands for                 */
	uint32_t spins;
	int config;                   /* setting in force (index), -1: none yet     */
	uint8_t mode;                 /* AcquireMode, KP_LOCK_MODES - 1: any other     */
	bool contended;
};

/* A lock, or a call site of one. */
struct kp_lock_group {
	uint64_t addr;
	uint64_t lock;                /* a call site's lock (a lock: 0)             */
	uint64_t traced, contended, spins, wait_total, stalled;
	uint64_t est_acq, est_cont, est_wait;
	double var_acq, var_cont, var_wait; /* their variance estimates, sum w(w-1)x^2 */
	uint64_t modes[KP_LOCK_MODES];
	struct kp_stats wait, hold;
	struct kp_stats hold_est;  /* weighted by what each record stands for    */
	size_t site0, nsites;         /* locks: their call sites in sites[]         */
};

/* A walk's counting of the log's SpinLock records as the section counts
 * them: the wait less its stalled part, contended or not and the
 * acquisitions each stands for under the sampling in force
 * (lock_sampling.c).  config -1 at each walk's start; kp_lock_counted
 * fills *out and is true for a SpinLock record, and a KprofSpinlockConfig
 * record moves the setting on. */
struct kp_lock_counting {
	const struct kp_model *m;
	struct kp_lock_sampling smp;
	int config;                   /* KprofSpinlockConfig records met - 1       */
};
void kp_lock_counting_init(struct kp_lock_counting *c, const struct kp_report *rp);
bool kp_lock_counted(struct kp_lock_counting *c, const struct kp_record *r, uint16_t kind, struct kp_lock_rec *out);
/* r's part of g's totals and estimates (not its order statistics). */
void kp_lock_group_add(struct kp_lock_group *g, const struct kp_lock_rec *r);
/* All of them, sorted by lock, then release site; *n of them, malloc'd. */
struct kp_lock_rec *kp_lock_recs(const struct kp_report *rp, size_t *n);
/* Fill g (zeroed, g->addr set) from recs[0..n); v and vw: room for n
 * values each. */
void kp_lock_summarise(struct kp_lock_group *g, const struct kp_lock_rec *recs, size_t n, uint64_t *v,
		       struct kp_weighted *vw);

/* The section's table (lock_table.c), its size that of the locks and
 * sites, not of the records: all of them, every lock (in address order)
 * and every release site (each lock's at sites[site0..site0 + nsites), in
 * kp_lock_site_order). */
struct kp_lock_table {
	struct kp_lock_group all;
	struct kp_lock_group *locks, *sites;
	size_t nlocks, nsites;
};
void kp_lock_table_free(struct kp_lock_table *t);
/* Release sites: total wait descending, then traced descending, then address. */
int kp_lock_site_order(const void *a, const void *b);

/* ---- one walk of the log for the sections that read records (walk.c) ---- */

struct kp_res_table;                  /* resources.c                                */
struct kp_hot_samples;                /* hot.c                                      */

/* The order statistics the readers of one walk share, so that one budget
 * of values kept bounds them all (quantiles.h): reader i's series are in
 * space i. */
struct kp_report_stats {
	struct kp_quantiles *q;
	size_t space;
};
/* A series' figures as the sections print them: n its total weight (its
 * count when plain), median, 99th percentile, max (walk.c). */
void kp_report_stats_get(const struct kp_report_stats *st, size_t series, struct kp_stats *s);

/* A section's reader.  Before each walk, begin() (NULL: none) gets the
 * shared order statistics and whether the walk is the first (the records
 * counted) or a reading of them (the same values added again); take()
 * gets every record of a kind the model reads (kp_model_kind's, passed
 * as kind) in time order; the walks go on while the order statistics ask
 * (kp_quantiles_replay), then finish() makes what the reader was for,
 * the statistics still there, and frees ctx (NULL: nothing to do). */
struct kp_report_reader {
	void *ctx;
	void (*begin)(void *ctx, const struct kp_report_stats *st, bool first);
	void (*take)(void *ctx, const struct kp_record *r, uint16_t kind);
	void (*finish)(void *ctx);
};
void kp_report_walk(struct kp_log *log, struct kp_report_reader *readers, size_t n);
/* The same with the first walk the caller's: start, each record of a kind
 * the model reads to take (in time order), then end, which walks again as
 * often as the order statistics ask and finishes the readers. */
struct kp_report_walk {
	struct kp_log *log;
	struct kp_report_reader *readers;
	size_t n;
	struct kp_quantiles *q;
};
void kp_report_walk_start(struct kp_report_walk *w, struct kp_log *log, struct kp_report_reader *readers, size_t n);
void kp_report_walk_take(struct kp_report_walk *w, const struct kp_record *r, uint16_t kind);
void kp_report_walk_end(struct kp_report_walk *w);

/* The readers that make the sections' tables (each section's file).
 * kp_lock_table_reader fills *t, the others a table they allocate. */
void kp_lock_table_reader(const struct kp_report *rp, struct kp_lock_table *t, struct kp_report_reader *out);
void kp_res_table_reader(const struct kp_report *rp, struct kp_res_table **t, struct kp_report_reader *out);
void kp_hot_samples_reader(const struct kp_report *rp, struct kp_hot_samples **s, struct kp_report_reader *out);
void kp_seen_interval_reader(const struct kp_report *rp, uint64_t *seen, struct kp_report_reader *out);
/* Fill rp->cache with those of `what` (KP_GATHER_*) in one walk and its
 * readings: kp_report_gather_start, the walk's first records given by the
 * caller (the report's: the model's second pass), then
 * kp_report_walk_end(&g->walk); or kp_report_gather, a walk of its own. */
enum {
	KP_GATHER_LOCKS = 1u << 0,
	KP_GATHER_RESOURCES = 1u << 1,
	KP_GATHER_SAMPLES = 1u << 2,
	KP_GATHER_SEEN = 1u << 3,        /* the clock line's (the summary has none) */
};
struct kp_report_gathering {
	struct kp_report_reader r[4];
	struct kp_report_walk walk;
};
void kp_report_gather_start(const struct kp_report *rp, unsigned what, struct kp_report_gathering *g);
void kp_report_gather(const struct kp_report *rp, unsigned what);

/* ---- what the sections made, kept for the report's other sections ---- */

struct kp_report_cache {
	unsigned have;                    /* KP_GATHER_* gathered                       */
	struct kp_lock_table locks;
	struct kp_res_table *resources;
	struct kp_hot_samples *samples;
	uint64_t seen;                    /* clock.c: the seen profile interval (0: none) */
};
void kp_res_table_free(struct kp_res_table *t);
void kp_hot_samples_free(struct kp_hot_samples *s);
void kp_report_cache_free(struct kp_report_cache *c);

#endif
