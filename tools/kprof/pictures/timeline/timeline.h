/*
 * timeline.h - what the files of `kprof timeline` share: the picture's
 * geometry and the state of one drawing.  timeline.c draws the frame
 * (title, axis) and runs the command, writing one picture of the whole
 * trace and one per workload phase; timeline_rows.c draws a CPU's row
 * (runs with names, lock waits, sample ticks, holes); timeline_bands.c
 * the wait bands (spin locks, and the ERESOURCE row of
 * timeline_resources.c); timeline_phases.c the KprofPhase records and
 * their markers; timeline_colours.c the threads' colours;
 * timeline_legend.c the legend; timeline_steps.c the steps back of a
 * CPU's clock.
 */
#ifndef KPROF_TOOL_TIMELINE_H
#define KPROF_TOOL_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/model/model.h"
#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/elf/symbols.h"

#define TL_WIDTH      1400.0
#define TL_LEFT       110.0   /* CPU labels                                  */
#define TL_RIGHT      20.0
#define TL_PLOT_W     (TL_WIDTH - TL_LEFT - TL_RIGHT)
#define TL_ROWS_TOP   84.0    /* phase labels above it                       */
#define TL_ROW_PITCH  38.0
#define TL_TICK_H     5.0     /* sample ticks, above the run band            */
#define TL_RUN_Y      6.0     /* run band: offset in the row and height      */
#define TL_RUN_H      20.0
#define TL_WAIT_Y     27.0    /* lock-wait band under it                     */
#define TL_WAIT_H     5.0
#define TL_RES_Y      8.0     /* the ERESOURCE row's band                    */
#define TL_RES_H      14.0
#define TL_MIN_PX     1.0     /* narrower runs and waits are merged          */
#define TL_NAME_PX    6.2     /* width of a character of a name in a run     */

#define TL_SPIN_COLOUR "#d01010"  /* spin-lock waits                         */
#define TL_RES_COLOUR  "#7a2bd0"  /* ERESOURCE waits                         */

/* A phase of the run (KprofPhase records, include/kprof/wmi.h). */
struct tl_phase {
	uint32_t index;        /* 0 the scenario, i the mix's i-th workload  */
	char name[25];         /* as recorded, NUL-ended                     */
	char file[300];        /* its own picture (a file name), or ""      */
	uint64_t start, end;   /* TSC; end: the trace's when it never ended  */
};

struct tl_phases {
	struct tl_phase *v;    /* by start                                   */
	size_t n;
};

/* The threads' colours (timeline_colours.c). */
struct tl_palette {
	uint32_t *tid;         /* by first appearance                        */
	struct kp_rgb *rgb;
	size_t n;
};

struct tl_view_plan;

struct tl {
	FILE *f;
	const struct kp_log *log;
	const struct kp_model *m;
	const struct kp_symbols *syms; /* NULL without --kernel              */
	const struct tl_palette *pal;
	const struct tl_phases *phases;
	const struct tl_phase *view;   /* the phase this picture shows, or   */
	                               /* NULL: the whole trace              */
	const char *whole;             /* a view: the whole trace's picture  */
	                               /* (a file name), to link back to     */
	uint64_t t0, t1;               /* TSC across the plot                */
	double span;                   /* t1 - t0 (> 0)                      */
	const struct tl_view_plan *plan; /* its runs (timeline_plan.c)       */
};

/* timeline_plan.c: the runs as the rows draw them, planned per view as
 * the model makes them, the samples' tick marks and the ERESOURCE waits
 * (the model keeps none of them). */
#define TL_TOP_SHARES 6    /* threads named in a merged rectangle's title */
struct tl_seg {            /* consecutive runs drawn as one rectangle     */
	struct kp_run first;   /* the first run (all of it when n is 1)       */
	uint64_t end;          /* where the last ends                         */
	size_t n;
	double x0, x1;
	struct {
		uint32_t tid;
		uint64_t cycles;
	} top[TL_TOP_SHARES];
	unsigned ntop;
	uint64_t other;        /* cycles of threads not in top[]              */
};
struct tl_ticks {          /* a CPU's samples of one kind in a view       */
	uint64_t *cols;        /* the plot's pixel columns that hold any (a   */
	                       /* bit each), NULL while none                  */
	uint64_t n, periods;   /* samples; their Count (1 for a PMC sample)   */
};
struct tl_row_plan {
	struct tl_seg *v;      /* in time order                               */
	size_t n, cap;
	struct tl_seg cur;     /* being merged                                */
	uint64_t busy;         /* a phase's view: the CPU's busy cycles in it */
	struct tl_ticks ticks[2]; /* ProfileTime, PMC samples                 */
};
/* A release that waited for its ERESOURCE: what its band and tooltip need. */
struct tl_res_wait {
	uint64_t acquire, wait, hold; /* AcquireTime, WaitTime, HoldTime      */
	uint64_t resource;
	uint32_t tid;
	bool exclusive;        /* CompleteReleaseExclusive, else shared       */
};
struct tl_res_waits {
	struct tl_res_wait *v; /* in time order                               */
	size_t n, cap;
	uint64_t records;      /* Resource records of any kind                */
};
struct tl_view_plan {
	struct tl t;           /* the view's span (t0, t1, span, view)        */
	struct tl_row_plan *cpu;
	uint64_t *thread_cycles; /* a phase's view: by thread row, run cycles */
	const struct tl_res_waits *res; /* every view's: the plan's           */
};
struct tl_plan {
	const struct kp_model *m;
	uint32_t ncpus;        /* the model's (freed before the plan is)      */
	struct tl_view_plan *views;
	size_t nviews;
	uint64_t *first;       /* by thread row: its first run's start        */
	struct tl_res_waits res;
};
void tl_plan_init(struct tl_plan *p, const struct kp_model *m, const struct tl *views, size_t nviews);
void tl_plan_run(struct tl_plan *p, uint32_t cpu, const struct kp_run *r);
/* A record the model's sink gives (the model keeping neither samples nor
 * Resource records): a sample's pixel column marked in each view it falls
 * in; a Resource record counted, and kept (struct tl_res_wait) when it is
 * a wait the ERESOURCE row draws (timeline_resources.c). */
#define TL_COLUMNS ((size_t)TL_PLOT_W + 1)
void tl_plan_record(struct tl_plan *p, const struct kp_record *r, uint16_t kind);
void tl_plan_finish(struct tl_plan *p);
void tl_plan_free(struct tl_plan *p);

/* The top of a row (the CPUs, then the ERESOURCE row). */
static inline double tl_row_y(uint32_t row)
{
	return TL_ROWS_TOP + row * TL_ROW_PITCH;
}

/* x of time ts, inside the plot (times outside it at its edges). */
double tl_px(const struct tl *t, uint64_t ts);
/* Cycles one pixel of the plot stands for. */
double tl_px_cycles(const struct tl *t);
/* "12.345 us" or "1.234 ms" into buf; returns buf. */
const char *tl_duration(const struct tl *t, uint64_t cycles, char *buf, size_t size);

/* A CPU's row: label, busy share, runs, lock waits, sample ticks. */
void tl_draw_row(const struct tl *t, uint32_t cpu);
/* timeline_steps.c: the steps back of CPU cpu's clock on its row. */
void tl_draw_steps(const struct tl *t, const struct kp_model_cpu *c, uint32_t cpu);
/* timeline_noise.c: scenario=noise's gaps on CPU cpu's row (its
 * KprofNoiseGap records, read from t->log). */
void tl_draw_noise(const struct tl *t, uint32_t cpu);
/* Cycles of CPU c's run r inside the view, its holes left out (its
 * thread's CPU time there). */
uint64_t tl_run_cycles(const struct tl *t, const struct kp_model_cpu *c, const struct kp_run *r);

/* timeline_bands.c: intervals drawn as wait bands, merged below a pixel.
 * An interval is any element that begins with its start and end (a
 * struct tl_interval, the model's struct kp_wait), found by its index in
 * the caller's array. */
struct tl_interval {
	uint64_t start, end;
	size_t i;              /* the caller's index                         */
};
struct tl_band {
	size_t first;          /* the first interval's index                 */
	size_t n;
	uint64_t start, end;   /* first start, latest end                    */
	uint64_t waited;       /* the union of the intervals                 */
	uint64_t longest;
	size_t longest_at;     /* its index (SIZE_MAX: none yet)             */
	double x0, w;          /* drawn: at least TL_MIN_PX wide             */
	double share;          /* waited / the cycles of w: fill-opacity     */
};
/* What the bands of one kind of wait are. */
struct tl_wait_kind {
	const char *kind, *object;     /* "spin-lock", "lock"                */
	const char *colour, *cls;      /* fill, and the rectangles' class    */
	/* A single wait's tooltip; the object (and the time to name it at)
	 * of wait i (its index in the array drawn), for a merged band's
	 * tooltip. */
	void (*title)(const struct tl *t, size_t i, const void *ctx);
	uint64_t (*object_of)(size_t i, const void *ctx, uint64_t *ts);
};
/* Draw the n intervals at v, stride bytes apart (by start), at y, h
 * high; ctx goes to k's functions.  The array is read in place: the
 * spin-lock waits are the model's own, not copied. */
void tl_draw_bands(const struct tl *t, const void *v, size_t stride, size_t n, double y, double h,
		   const struct tl_wait_kind *k, const void *ctx);
_Static_assert(offsetof(struct tl_interval, end) == sizeof(uint64_t), "an interval begins with start, end");

/* timeline_resources.c: the ERESOURCE waits' row under the CPUs, if the
 * log has Resource records; returns the rows it took (0 or 1). */
unsigned tl_draw_resources(const struct tl *t, uint32_t row);
/* Whether the log has Resource records: a row for them. */
bool tl_has_resources(const struct tl *t);
/* A release that waited (the waits the row draws). */
bool tl_resource_waited(const WMI_RESOURCE *r);
/* A lock's or resource's name (KprofObjectName) and address. */
void tl_object_label(const struct tl *t, uint64_t object, uint64_t ts);

/* timeline_phases.c */
/* The phases of the log; one that never ended ends at `end`. */
void tl_phases_read(struct tl_phases *p, struct kp_log *log, uint64_t end);
void tl_phases_free(struct tl_phases *p);
/* Whether phase i gets a band (the workloads; the scenario when alone). */
bool tl_phase_drawn(const struct tl_phases *p, size_t i);
/* Bands behind the rows (down to y1) with labels above them; then, over
 * the rows, dashed lines at the starts and ends. */
void tl_draw_phases(const struct tl *t, double y1);
void tl_draw_phase_lines(const struct tl *t, double y1);

/* timeline_colours.c: first, by thread row, its first run's start
 * (timeline_plan.c). */
void tl_palette_build(struct tl_palette *p, const struct kp_model *m, const uint64_t *first);
void tl_palette_free(struct tl_palette *p);
struct kp_rgb tl_colour(const struct tl *t, uint32_t tid);
const char *tl_colour_hex(const struct tl *t, uint32_t tid, char *buf);

/* timeline_legend.c: the legend from y0; returns its height. */
double tl_legend_height(const struct tl *t);
void tl_draw_legend(const struct tl *t, double y0);

#endif
