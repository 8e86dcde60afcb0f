/*
 * timeline.h - what the two files of `kprof timeline` share: the
 * picture's geometry and the state of one drawing.  timeline.c draws the
 * frame (title, axis, legend) and runs the command; timeline_rows.c draws
 * a CPU's row (runs, lock waits, sample ticks).
 */
#ifndef KPROF_TOOL_TIMELINE_H
#define KPROF_TOOL_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/model/model.h"
#include "tools/kprof/read/symbols.h"

#define TL_WIDTH      1400.0
#define TL_LEFT       110.0   /* CPU labels                                  */
#define TL_RIGHT      20.0
#define TL_PLOT_W     (TL_WIDTH - TL_LEFT - TL_RIGHT)
#define TL_ROWS_TOP   72.0
#define TL_ROW_PITCH  38.0
#define TL_TICK_H     5.0     /* sample ticks, above the run band            */
#define TL_RUN_Y      6.0     /* run band: offset in the row and height      */
#define TL_RUN_H      20.0
#define TL_WAIT_Y     27.0    /* lock-wait band under it                     */
#define TL_WAIT_H     5.0
#define TL_MIN_PX     1.0     /* narrower runs and waits are merged          */

struct tl {
	FILE *f;
	const struct kp_log *log;
	const struct kp_model *m;
	const struct kp_symbols *syms; /* NULL without --kernel              */
	double span;                   /* TSC cycles across the plot (> 0)   */
};

/* The top of a CPU's row. */
static inline double tl_row_y(uint32_t cpu)
{
	return TL_ROWS_TOP + cpu * TL_ROW_PITCH;
}

/* A CPU's row: label, busy share, runs, lock waits, sample ticks. */
void tl_draw_row(const struct tl *t, uint32_t cpu);

#endif
