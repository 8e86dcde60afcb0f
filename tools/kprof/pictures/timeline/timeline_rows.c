/*
 * timeline_rows.c - a CPU's row of `kprof timeline` (timeline.h): which
 * thread ran when (the model's runs, from the CSwitch records, in the
 * thread's colour, timeline_colours.c, and named in the run when it is
 * wide enough), spin-lock waits (first try to acquisition, a thin red band
 * under the row, timeline_bands.c) and samples (tick marks above the row),
 * and holes (no trace: records its kernel dropped or frames lost on the
 * link, shaded dark over the runs and labelled "lost N").  Every rectangle
 * has a <title> tooltip.  Only what is inside the view (timeline.h) is
 * drawn, cut at its edges.
 *
 * Size: a long run has far more switches than the picture has pixels, and
 * an SVG with millions of elements takes a browser minutes to open.  So a
 * run narrower than TL_MIN_PX is merged with its neighbours into one
 * rectangle (coloured after the thread that had most of its time, its
 * tooltip listing the threads' shares) until the merged rectangle is
 * TL_MIN_PX wide; every rectangle drawn is then at least TL_MIN_PX wide or
 * followed by one that is, so a row holds at most 2 * TL_PLOT_W / TL_MIN_PX
 * + 1 of them (about 2500), however long the run.  The merging is done
 * as the model makes the runs (timeline_plan.c), which it then does not
 * keep; the row draws the plan's rectangles.  Lock waits closer than
 * TL_MIN_PX are merged too (timeline_bands.c), and samples become at most
 * one tick per pixel column, all of a row's ticks in one <path>.
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/format.h"

double tl_px(const struct tl *t, uint64_t ts)
{
	if (ts <= t->t0)
		return TL_LEFT;
	if (ts >= t->t1)
		return TL_LEFT + TL_PLOT_W;
	return TL_LEFT + (double)(ts - t->t0) / t->span * TL_PLOT_W;
}

double tl_px_cycles(const struct tl *t)
{
	return t->span / TL_PLOT_W;
}

const char *tl_duration(const struct tl *t, uint64_t cycles, char *buf, size_t size)
{
	uint64_t hz = (uint64_t)t->m->hz;
	char v[32];

	if ((unsigned __int128)cycles * 1000u < hz)
		snprintf(buf, size, "%s us", kp_us_text(v, sizeof(v), cycles, hz));
	else
		snprintf(buf, size, "%s ms", kp_ms_text(v, sizeof(v), cycles, hz));
	return buf;
}

uint64_t tl_run_cycles(const struct tl *t, const struct kp_model_cpu *c, const struct kp_run *r)
{
	uint64_t s = r->start > t->t0 ? r->start : t->t0, e = r->end < t->t1 ? r->end : t->t1;

	if (e <= s)
		return 0;
	if (s == r->start && e == r->end)
		return r->end - r->start - r->no_trace;
	return e - s - kp_hole_overlap(c, s, e);
}

/* ---------------------------------------------------------------- runs */

static uint32_t seg_main_thread(const struct tl_seg *g)
{
	unsigned best = 0;
	for (unsigned i = 1; i < g->ntop; i++)
		if (g->top[i].cycles > g->top[best].cycles)
			best = i;
	return g->top[best].tid;
}

static void run_title(const struct tl *t, const struct kp_run *r, uint32_t cpu)
{
	char label[64], d[32];

	kp_xml_text(t->f, kp_model_thread_label(t->m, r->tid, label, sizeof(label)));
	const struct kp_model_thread *th = kp_model_thread(t->m, r->tid);
	if (th && th->named && th->process[0]) {
		fputs(", process ", t->f);
		kp_xml_text(t->f, th->process);
		fprintf(t->f, " (%" PRIu32 ")", th->pid);
	}
	fprintf(t->f, "\nCPU %u from +%.6f ms for %s, priority %d", cpu, kp_model_ms(t->m, r->start),
		tl_duration(t, r->end - r->start, d, sizeof(d)), r->priority);
	if (r->from_start)
		fputs("\nrunning when the trace started", t->f);
	if (r->to_end)
		fputs("\nstill running at the end of the trace", t->f);
	else
		fprintf(t->f, "\nthen %s (%s)", kp_state_name(r->end_state), kp_wait_reason_name(r->end_reason));
	if (r->gap)
		fputs("\nswitches were lost before the next one: it may have stopped earlier", t->f);
}

static void merged_title(const struct tl *t, const struct tl_seg *g, uint64_t start, uint64_t end, uint32_t cpu)
{
	char label[64], d[32], pct[16];
	uint64_t total = end - start;

	fprintf(t->f, "%zu runs, each narrower than a pixel\nCPU %u from +%.6f ms for %s\n", g->n, cpu,
		kp_model_ms(t->m, start), tl_duration(t, end - start, d, sizeof(d)));
	for (unsigned i = 0; i < g->ntop; i++) {
		fputs(i ? ", " : "", t->f);
		kp_xml_text(t->f, kp_model_thread_label(t->m, g->top[i].tid, label, sizeof(label)));
		fprintf(t->f, " %s", kp_pct(pct, sizeof(pct), g->top[i].cycles, total, 0));
	}
	if (g->other)
		fprintf(t->f, ", others %s", kp_pct(pct, sizeof(pct), g->other, total, 0));
}

/* The thread's name in its run, cut to what fits the run's width (".."
 * marks a cut, and keeps two characters at least); nothing when neither fits.  Dark text on
 * light colours, white on dark. */
static void run_name(const struct tl *t, uint32_t tid, double x, double w, double y)
{
	const struct kp_model_thread *th = kp_model_thread(t->m, tid);
	char name[40];
	size_t fit = w > 6 ? (size_t)((w - 6) / TL_NAME_PX) : 0, len;

	if (th && th->named && th->name[0])
		snprintf(name, sizeof(name), "%s", th->name);
	else
		snprintf(name, sizeof(name), "%" PRIu32, tid);
	len = strlen(name);
	if (!fit || (fit < len && fit < 4))
		return;
	if (fit < len) {
		name[fit - 2] = name[fit - 1] = '.';
		name[fit] = 0;
	}
	struct kp_rgb c = tl_colour(t, tid);
	bool dark = c.r * 299 + c.g * 587 + c.b * 114 < 140000;
	fprintf(t->f, "<text class=\"runname\" x=\"%.2f\" y=\"%.1f\" fill=\"%s\" data-w=\"%.3f\">", x + 3, y + 14,
		dark ? "#ffffff" : "#000000", w);
	kp_xml_text(t->f, name);
	fputs("</text>\n", t->f);
}

static void emit_seg(const struct tl *t, const struct tl_seg *g, uint32_t cpu)
{
	const struct kp_run *r = &g->first;
	uint32_t tid = g->n == 1 ? r->tid : seg_main_thread(g);
	char hex[8];

	fprintf(t->f, "<rect class=\"run%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" fill=\"%s\" "
		      "data-tid=\"%" PRIu32 "\"><title>",
		g->n > 1 ? " merged" : "", g->x0, tl_row_y(cpu) + TL_RUN_Y, g->x1 - g->x0, TL_RUN_H,
		tl_colour_hex(t, tid, hex), tid);
	if (g->n == 1)
		run_title(t, r, cpu);
	else
		merged_title(t, g, r->start, g->end, cpu);
	fputs("</title></rect>\n", t->f);
	if (g->n == 1 && tid)
		run_name(t, tid, g->x0, g->x1 - g->x0, tl_row_y(cpu) + TL_RUN_Y);
}

/* The row's rectangles, as the plan made them. */
static void draw_runs(const struct tl *t, uint32_t cpu)
{
	const struct tl_row_plan *row = &t->plan->cpu[cpu];

	for (size_t i = 0; i < row->n; i++)
		emit_seg(t, &row->v[i], cpu);
}

/* ---------------------------------------------------------------- lock waits */

/* The lock's name (KprofObjectName) and address, or the address alone. */
void tl_object_label(const struct tl *t, uint64_t lock, uint64_t ts)
{
	char name[40];

	if (kp_model_object_name(t->m, lock, ts)) {
		kp_xml_text(t->f, kp_model_object_label(t->m, lock, ts, name, sizeof(name)));
		fputc(' ', t->f);
	}
	fprintf(t->f, "0x%016" PRIx64, lock);
}

/* A CPU's waits, and the model their sites are in. */
struct tl_spin {
	const struct kp_model *m;
	const struct kp_model_cpu *c;
};

static void wait_title(const struct tl *t, const struct kp_wait *w)
{
	const struct kp_wait_site *site = kp_wait_site_of(t->m, w);
	char d[32], label[64], caller[160];

	if (t->syms)
		kp_symbols_format(t->syms, site->caller, caller, sizeof(caller));
	else
		snprintf(caller, sizeof(caller), "0x%016" PRIx64, site->caller);
	fprintf(t->f, "spin-lock wait of %s from +%.6f ms\nlock ", tl_duration(t, w->end - w->start, d, sizeof(d)),
		kp_model_ms(t->m, w->start));
	tl_object_label(t, site->lock, w->start);
	fprintf(t->f, " (%s), %" PRIu32 " spins\n", kp_acquire_mode_name(site->mode), w->spins);
	fputs("thread ", t->f);
	kp_xml_text(t->f, kp_model_thread_label(t->m, site->tid, label, sizeof(label)));
	fputs(", released by ", t->f);
	kp_xml_text(t->f, caller);
}

static void spin_title(const struct tl *t, size_t i, const void *ctx)
{
	wait_title(t, &((const struct tl_spin *)ctx)->c->waits[i]);
}

static uint64_t spin_lock(size_t i, const void *ctx, uint64_t *ts)
{
	const struct tl_spin *s = ctx;
	const struct kp_wait *w = &s->c->waits[i];
	*ts = w->start;
	return kp_wait_site_of(s->m, w)->lock;
}

static const struct tl_wait_kind spin = { "spin-lock", "lock", TL_SPIN_COLOUR, "wait", spin_title, spin_lock };

_Static_assert(offsetof(struct kp_wait, start) == 0 && offsetof(struct kp_wait, end) == sizeof(uint64_t),
	       "a wait begins with its start and end: the bands read the model's waits in place");

static void draw_waits(const struct tl *t, const struct kp_model_cpu *c, uint32_t cpu)
{
	struct tl_spin ctx = { t->m, c };

	tl_draw_bands(t, c->waits, sizeof(*c->waits), c->nwaits, tl_row_y(cpu) + TL_WAIT_Y, TL_WAIT_H, &spin, &ctx);
}

/* ---------------------------------------------------------------- samples */

/* One tick per pixel column that holds samples of the kind, in one path
 * (the plan marked the columns: timeline_plan.c). */
static void draw_ticks(const struct tl *t, uint32_t cpu, bool pmc)
{
	const struct tl_ticks *k = &t->plan->cpu[cpu].ticks[pmc];

	if (!k->n)
		return;
	fprintf(t->f, "<path class=\"%s\" stroke=\"%s\" stroke-width=\"1\" fill=\"none\" d=\"",
		pmc ? "pmc-samples" : "samples", pmc ? "#1050c0" : "#505050");
	for (size_t col = 0; col < TL_COLUMNS; col++)
		if (k->cols[col / 64] >> (col % 64) & 1)
			fprintf(t->f, "M%ld.5 %.1fv%.0f", (long)TL_LEFT + (long)col, tl_row_y(cpu), TL_TICK_H);
	if (pmc)
		fprintf(t->f, "\"><title>CPU %u: %" PRIu64 " PMC samples</title></path>\n", cpu, k->n);
	else
		fprintf(t->f, "\"><title>CPU %u: %" PRIu64 " samples standing for %" PRIu64
			      " profile periods</title></path>\n",
			cpu, k->n, k->periods);
}

/* ---------------------------------------------------------------- holes */

/* The CPU's holes (no trace: records its kernel dropped, frames lost on
 * the link; model.h) shaded over the run band, at least TL_MIN_PX wide,
 * labelled with what was lost when there is room, with a tooltip. */
static void draw_holes(const struct tl *t, const struct kp_model_cpu *c, uint32_t cpu)
{
	double y = tl_row_y(cpu) + TL_RUN_Y;
	char d[32], n[32];

	for (size_t i = 0; i < c->nholes; i++) {
		const struct kp_hole *h = &c->holes[i];
		if (h->end < t->t0 || h->start > t->t1)
			continue;
		double x0 = tl_px(t, h->start), x1 = tl_px(t, h->end);
		if (x1 - x0 < TL_MIN_PX)
			x1 = x0 + TL_MIN_PX;
		if (h->kernel || h->lost)
			snprintf(n, sizeof(n), "%" PRIu64, h->lost);
		else
			snprintf(n, sizeof(n), "?");
		fprintf(t->f, "<g class=\"hole\"><rect x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" "
			      "fill=\"#202020\" fill-opacity=\"0.55\" stroke=\"#c00000\" stroke-width=\"1\"><title>"
			      "CPU %u: no trace from +%.6f ms for %s\n",
			x0, y, x1 - x0, TL_RUN_H, cpu, kp_model_ms(t->m, h->start),
			tl_duration(t, h->end - h->start, d, sizeof(d)));
		if (h->kernel) {
			fprintf(t->f, "%s records dropped by the kernel (", n);
			for (int k = 0, first = 1; k < KPROF_LOSS_CAUSES; k++)
				if (h->cause[k]) {
					fprintf(t->f, "%s%s %" PRIu64, first ? "" : ", ", kp_loss_cause_text(k), h->cause[k]);
					first = 0;
				}
			fputs(h->tail ? "), after the CPU's last record" : ")", t->f);
		} else {
			fprintf(t->f, "%s records lost on the link (frames %u..%u missing)", n, h->seq_first, h->seq_last);
		}
		fputs("</title></rect>", t->f);
		if (x1 - x0 >= 48)
			fprintf(t->f, "<text class=\"holelabel\" x=\"%.2f\" y=\"%.1f\" fill=\"#ffffff\" "
				      "font-size=\"10\">lost %s</text>",
				x0 + 3, y + 13, n);
		fputs("</g>\n", t->f);
	}
}

/* ---------------------------------------------------------------- stalls */

/* The CPU's stalls (model/stall.c: it could not run, KprofClockLate; steal
 * time on a VM) hatched over the run band, with a tooltip: what ran there
 * did not run. */
static void draw_stalls(const struct tl *t, const struct kp_model_cpu *c, uint32_t cpu)
{
	double y = tl_row_y(cpu) + TL_RUN_Y;
	char d[32];

	for (size_t i = 0; i < c->nstalls; i++) {
		const struct kp_stall *st = &c->stalls[i];
		if (st->end <= t->t0 || st->start >= t->t1)
			continue; /* outside this view (a phase's picture) */
		double x0 = tl_px(t, st->start < t->t0 ? t->t0 : st->start);
		double x1 = tl_px(t, st->end > t->t1 ? t->t1 : st->end);
		if (x1 - x0 < TL_MIN_PX)
			x1 = x0 + TL_MIN_PX;
		fprintf(t->f, "<rect class=\"stall\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" "
			      "fill=\"#ffffff\" fill-opacity=\"0.6\"><title>CPU %u stalled from +%.6f ms for %s: it could "
			      "not run (KprofClockLate: the virtual CPU was not running, or interrupts were masked)"
			      "</title></rect>\n",
			x0, y, x1 - x0, TL_RUN_H, cpu, kp_model_ms(t->m, st->start),
			tl_duration(t, st->end - st->start, d, sizeof(d)));
	}
}

/* ---------------------------------------------------------------- rows */

/* The CPU's busy cycles in the view: the model's for the whole trace. */
static uint64_t view_busy(const struct tl *t, const struct kp_model_cpu *c, uint32_t cpu)
{
	return t->view ? t->plan->cpu[cpu].busy : c->busy;
}

void tl_draw_row(const struct tl *t, uint32_t cpu)
{
	const struct kp_model_cpu *c = &t->m->cpu[cpu];
	double y = tl_row_y(cpu);
	char busy[16];

	fprintf(t->f, "<g class=\"cpu\" id=\"cpu%u\">\n", cpu);
	fprintf(t->f, "<text class=\"cpulabel\" x=\"%.0f\" y=\"%.1f\">CPU %u</text>\n", TL_LEFT - 10, y + TL_RUN_Y + 14, cpu);
	fprintf(t->f, "<text class=\"cpubusy\" x=\"%.0f\" y=\"%.1f\">busy %s</text>\n", TL_LEFT - 10,
		y + TL_RUN_Y + 27, kp_pct(busy, sizeof(busy), view_busy(t, c, cpu), t->t1 - t->t0, 1));
	fprintf(t->f, "<rect class=\"lane\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\"/>\n",
		TL_LEFT, y + TL_RUN_Y, TL_PLOT_W, TL_RUN_H);
	draw_runs(t, cpu);
	draw_stalls(t, c, cpu);
	tl_draw_noise(t, cpu);
	draw_holes(t, c, cpu);
	draw_waits(t, c, cpu);
	draw_ticks(t, cpu, false);
	draw_ticks(t, cpu, true);
	tl_draw_steps(t, c, cpu);
	fputs("</g>\n", t->f);
}
