/*
 * svg_timeline.c - `kprof timeline LOG [--kernel ELF] -o FILE.svg`: one
 * row per CPU over the run's time, showing which thread ran when (from
 * the CSwitch records), spin-lock waits (from the SpinLock records: first
 * try to acquisition, a thin red band under the row) and samples (tick
 * marks above the row), with a time axis in milliseconds, gridlines and a
 * legend of the busiest threads.  Every rectangle has a <title> tooltip.
 *
 * Size: a long run has far more switches than the picture has pixels, and
 * an SVG with millions of elements takes a browser minutes to open.  So a
 * run narrower than MIN_PX is merged with its neighbours into one
 * rectangle (coloured after the thread that had most of its time, its
 * tooltip listing the threads' shares) until the merged rectangle is
 * MIN_PX wide; every rectangle drawn is then at least MIN_PX wide or
 * followed by one that is, so a row holds at most 2 * PLOT_W / MIN_PX + 1
 * of them (about 2500), however long the run.  Lock waits closer than
 * MIN_PX are merged the same way, and samples become at most one tick per
 * pixel column, all of a row's ticks in one <path>.
 */
#include "tools/kprof/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/svg.h"
#include "tools/kprof/symbols.h"

#define WIDTH      1400.0
#define LEFT       110.0   /* CPU labels                                  */
#define RIGHT      20.0
#define PLOT_W     (WIDTH - LEFT - RIGHT)
#define ROWS_TOP   72.0
#define ROW_PITCH  38.0
#define TICK_H     5.0     /* sample ticks, above the run band            */
#define RUN_Y      6.0     /* run band: offset in the row and height      */
#define RUN_H      20.0
#define WAIT_Y     27.0    /* lock-wait band under it                     */
#define WAIT_H     5.0
#define MIN_PX     1.0     /* narrower runs and waits are merged          */
#define LEGEND_MAX 16      /* busiest threads in the legend               */
#define LEGEND_COL 330.0
#define TOP_SHARES 6       /* threads named in a merged rectangle's title */

struct tl {
	FILE *f;
	const struct kp_sched *s;
	const struct kp_symbols *syms;
	double span;           /* TSC cycles across the plot                  */
};

static double px(const struct tl *t, uint64_t ts)
{
	double d = ts >= t->s->begin ? (double)(ts - t->s->begin) : -(double)(t->s->begin - ts);
	return LEFT + d / t->span * PLOT_W;
}

static double row_y(uint32_t cpu)
{
	return ROWS_TOP + cpu * ROW_PITCH;
}

/* "12.345 us" or "1.234 ms". */
static const char *duration(const struct kp_sched *s, uint64_t cycles, char *buf, size_t size)
{
	double us = kp_cycles_us(s, cycles);
	if (us < 1000)
		snprintf(buf, size, "%.3f us", us);
	else
		snprintf(buf, size, "%.3f ms", us / 1000);
	return buf;
}

/* ---------------------------------------------------------------- runs */

/* Consecutive runs drawn as one rectangle, with the threads' shares. */
struct seg {
	size_t first, n;                 /* runs[first .. first + n)           */
	double x0, x1;
	struct {
		uint32_t tid;
		uint64_t cycles;
	} top[TOP_SHARES];
	unsigned ntop;
	uint64_t other;                  /* cycles of threads not in top[]     */
};

static void seg_add(struct seg *g, const struct kp_run *r)
{
	uint64_t c = r->end - r->start;
	unsigned i;

	for (i = 0; i < g->ntop && g->top[i].tid != r->tid; i++)
		;
	if (i < g->ntop)
		g->top[i].cycles += c;
	else if (g->ntop < TOP_SHARES)
		g->top[g->ntop++] = (typeof(g->top[0])){ r->tid, c };
	else
		g->other += c;
	g->n++;
}

static uint32_t seg_main_thread(const struct seg *g)
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

	kp_xml_text(t->f, kp_thread_label(t->s, r->tid, label, sizeof(label)));
	const struct kp_thread *th = kp_sched_thread(t->s, r->tid);
	if (th && th->named && th->process[0]) {
		fputs(", process ", t->f);
		kp_xml_text(t->f, th->process);
		fprintf(t->f, " (%" PRIu32 ")", th->pid);
	}
	fprintf(t->f, "\nCPU %u from +%.6f ms for %s, priority %d", cpu, kp_sched_ms(t->s, r->start),
		duration(t->s, r->end - r->start, d, sizeof(d)), r->priority);
	if (r->from_start)
		fputs("\nrunning when the trace started", t->f);
	if (r->to_end)
		fputs("\nstill running at the end of the trace", t->f);
	else
		fprintf(t->f, "\nthen %s (%s)", kp_state_name(r->end_state), kp_wait_reason_name(r->end_reason));
	if (r->gap)
		fputs("\nswitches were lost before the next one: it may have stopped earlier", t->f);
}

static void merged_title(const struct tl *t, const struct seg *g, uint64_t start, uint64_t end, uint32_t cpu)
{
	char label[64], d[32];
	uint64_t total = end - start ? end - start : 1;

	fprintf(t->f, "%zu runs, each narrower than a pixel\nCPU %u from +%.6f ms for %s\n", g->n, cpu,
		kp_sched_ms(t->s, start), duration(t->s, end - start, d, sizeof(d)));
	for (unsigned i = 0; i < g->ntop; i++) {
		fputs(i ? ", " : "", t->f);
		kp_xml_text(t->f, kp_thread_label(t->s, g->top[i].tid, label, sizeof(label)));
		fprintf(t->f, " %.0f%%", 100.0 * (double)g->top[i].cycles / (double)total);
	}
	if (g->other)
		fprintf(t->f, ", others %.0f%%", 100.0 * (double)g->other / (double)total);
}

static void emit_seg(const struct tl *t, const struct seg *g, const struct kp_cpu_sched *c, uint32_t cpu)
{
	const struct kp_run *r = &c->runs[g->first], *last = &c->runs[g->first + g->n - 1];
	uint32_t tid = g->n == 1 ? r->tid : seg_main_thread(g);
	char hex[8];

	fprintf(t->f, "<rect class=\"run%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" fill=\"%s\"><title>",
		g->n > 1 ? " merged" : "", g->x0, row_y(cpu) + RUN_Y, g->x1 - g->x0, RUN_H,
		kp_colour_hex(kp_colour_thread(tid), hex));
	if (g->n == 1)
		run_title(t, r, cpu);
	else
		merged_title(t, g, r->start, last->end, cpu);
	fputs("</title></rect>\n", t->f);
}

static void draw_runs(const struct tl *t, const struct kp_cpu_sched *c, uint32_t cpu)
{
	struct seg g = { 0 };

	for (size_t i = 0; i < c->nruns; i++) {
		const struct kp_run *r = &c->runs[i];
		double x0 = px(t, r->start), x1 = px(t, r->end);
		if (!(g.n && g.x1 - g.x0 < MIN_PX && x1 - x0 < MIN_PX)) {
			if (g.n)
				emit_seg(t, &g, c, cpu);
			g = (struct seg){ .first = i, .x0 = x0 };
		}
		g.x1 = x1;
		seg_add(&g, r);
	}
	if (g.n)
		emit_seg(t, &g, c, cpu);
}

/* ---------------------------------------------------------------- lock waits */

struct band {
	size_t first, n;
	double x0, x1;
	uint64_t start, end, waited, longest;
	size_t longest_i;
};

static void wait_title(const struct tl *t, const struct kp_wait *w)
{
	char d[32], label[64], caller[160];

	if (t->syms)
		kp_symbols_format(t->syms, w->caller, caller, sizeof(caller));
	else
		snprintf(caller, sizeof(caller), "0x%016" PRIx64, w->caller);
	fprintf(t->f, "spin-lock wait of %s from +%.6f ms\nlock 0x%016" PRIx64 " (%s), %" PRIu32 " spins\n",
		duration(t->s, w->end - w->start, d, sizeof(d)), kp_sched_ms(t->s, w->start), w->lock,
		kp_acquire_mode_name(w->mode), w->spins);
	fputs("thread ", t->f);
	kp_xml_text(t->f, kp_thread_label(t->s, w->tid, label, sizeof(label)));
	fputs(", released by ", t->f);
	kp_xml_text(t->f, caller);
}

static void emit_band(const struct tl *t, const struct band *b, const struct kp_cpu_sched *c, uint32_t cpu)
{
	char d[32], d2[32];
	double w = b->x1 - b->x0 < 0.5 ? 0.5 : b->x1 - b->x0; /* a short wait still shows */

	fprintf(t->f, "<rect class=\"wait\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" "
		      "fill=\"#d01010\"><title>",
		b->x0, row_y(cpu) + WAIT_Y, w, WAIT_H);
	if (b->n == 1) {
		wait_title(t, &c->waits[b->first]);
	} else {
		fprintf(t->f, "%zu spin-lock waits, %s of waiting between +%.6f ms and +%.6f ms\n"
			      "longest %s, lock 0x%016" PRIx64,
			b->n, duration(t->s, b->waited, d, sizeof(d)), kp_sched_ms(t->s, b->start),
			kp_sched_ms(t->s, b->end), duration(t->s, b->longest, d2, sizeof(d2)),
			c->waits[b->longest_i].lock);
	}
	fputs("</title></rect>\n", t->f);
}

static void draw_waits(const struct tl *t, const struct kp_cpu_sched *c, uint32_t cpu)
{
	struct band b = { 0 };

	for (size_t i = 0; i < c->nwaits; i++) {
		const struct kp_wait *w = &c->waits[i];
		double x0 = px(t, w->start), x1 = px(t, w->end);
		if (b.n && x0 > b.x1 + MIN_PX) {
			emit_band(t, &b, c, cpu);
			b.n = 0;
		}
		if (!b.n)
			b = (struct band){ .first = i, .x0 = x0, .x1 = x1, .start = w->start, .end = w->end };
		b.n++;
		if (x1 > b.x1)
			b.x1 = x1;
		if (w->end > b.end)
			b.end = w->end;
		b.waited += w->end - w->start;
		if (w->end - w->start > b.longest) {
			b.longest = w->end - w->start;
			b.longest_i = i;
		}
	}
	if (b.n)
		emit_band(t, &b, c, cpu);
}

/* ---------------------------------------------------------------- samples */

/* One tick per pixel column that holds samples of the kind, in one path. */
static void draw_ticks(const struct tl *t, const struct kp_cpu_sched *c, uint32_t cpu, bool pmc)
{
	uint64_t n = 0, periods = 0;
	long last = -1;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct kp_sample *s = &c->samples[i];
		if (s->pmc != pmc)
			continue;
		long col = (long)(px(t, s->ts) - LEFT);
		if (!n)
			fprintf(t->f, "<path class=\"%s\" stroke=\"%s\" stroke-width=\"1\" fill=\"none\" d=\"",
				pmc ? "pmc-samples" : "samples", pmc ? "#1050c0" : "#505050");
		if (col != last)
			fprintf(t->f, "M%ld.5 %.1fv%.0f", (long)LEFT + col, row_y(cpu), TICK_H);
		last = col;
		n++;
		periods += s->count;
	}
	if (!n)
		return;
	if (pmc)
		fprintf(t->f, "\"><title>CPU %u: %" PRIu64 " PMC samples</title></path>\n", cpu, n);
	else
		fprintf(t->f, "\"><title>CPU %u: %" PRIu64 " samples standing for %" PRIu64
			      " profile periods</title></path>\n",
			cpu, n, periods);
}

/* ---------------------------------------------------------------- rows */

static void draw_row(const struct tl *t, uint32_t cpu)
{
	const struct kp_cpu_sched *c = &t->s->cpu[cpu];
	double y = row_y(cpu);

	fprintf(t->f, "<g class=\"cpu\" id=\"cpu%u\">\n", cpu);
	fprintf(t->f, "<text class=\"cpulabel\" x=\"%.0f\" y=\"%.1f\">CPU %u</text>\n", LEFT - 10, y + RUN_Y + 14, cpu);
	fprintf(t->f, "<text class=\"cpubusy\" x=\"%.0f\" y=\"%.1f\">busy %.1f%%</text>\n", LEFT - 10,
		y + RUN_Y + 27, 100.0 * (double)c->busy / t->span);
	fprintf(t->f, "<rect class=\"lane\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\"/>\n",
		LEFT, y + RUN_Y, PLOT_W, RUN_H);
	draw_runs(t, c, cpu);
	draw_waits(t, c, cpu);
	draw_ticks(t, c, cpu, false);
	draw_ticks(t, c, cpu, true);
	fputs("</g>\n", t->f);
}

/* ---------------------------------------------------------------- axis */

/* A step of 1, 2 or 5 times a power of ten giving at most 12 ticks. */
static double axis_step(double span_ms)
{
	static const double m[] = { 1, 2, 5 };
	double p = 1e-6;

	for (;;)
		for (int i = 0; i < 3; i++)
			if (span_ms / (m[i] * p) <= 12)
				return m[i] * p;
			else if (i == 2)
				p *= 10;
}

static void draw_axis(const struct tl *t, double y_end)
{
	double a = kp_sched_ms(t->s, t->s->begin), b = kp_sched_ms(t->s, t->s->end);
	double step = axis_step(b - a > 0 ? b - a : 1);
	long long k = (long long)(a / step);

	if ((double)k * step < a)
		k++;
	fprintf(t->f, "<g id=\"axis\">\n<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
		LEFT,
		y_end, LEFT + PLOT_W, y_end);
	for (double ms = (double)k * step; ms <= b + step * 1e-9; ms = (double)++k * step) {
		double x = LEFT + (ms - a) / (b - a > 0 ? b - a : 1) * PLOT_W;
		fprintf(t->f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.1f\"/>", x, ROWS_TOP, x,
			y_end + 4);
		fprintf(t->f, "<text class=\"tick\" x=\"%.2f\" y=\"%.1f\">%g ms</text>\n", x, y_end + 17,
			ms == 0 ? 0.0 : ms);
	}
	fprintf(t->f, "<text class=\"axistitle\" x=\"%.0f\" y=\"%.1f\">time since the trace started (ms)</text>\n"
		      "</g>\n",
		LEFT + PLOT_W / 2, y_end + 35);
}

/* ---------------------------------------------------------------- legend */

static int cmp_busiest(const void *a, const void *b)
{
	const struct kp_thread *x = *(const struct kp_thread *const *)a, *y = *(const struct kp_thread *const *)b;
	if (x->cycles != y->cycles)
		return x->cycles < y->cycles ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void legend_item(const struct tl *t, unsigned i, double y0, const char *fill, const char *text,
			const char *extra)
{
	double x = LEFT + (i % 4) * LEGEND_COL, y = y0 + (i / 4) * 18;

	fprintf(t->f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		      "<text x=\"%.0f\" y=\"%.0f\">",
		x, y, fill, x + 17, y + 10.5);
	kp_xml_text(t->f, text);
	fprintf(t->f, "%s</text>\n", extra);
}

/* Items drawn; the legend starts at y0. */
static unsigned draw_legend(const struct tl *t, double y0)
{
	const struct kp_sched *s = t->s;
	const struct kp_thread **order = kp_xrealloc(NULL, s->nthreads ? s->nthreads : 1, sizeof(*order));
	unsigned shown = 0, n = 0;
	char label[64], extra[64], hex[8];

	for (size_t i = 0; i < s->nthreads; i++)
		if (s->threads[i].tid && s->threads[i].cycles)
			order[n++] = &s->threads[i];
	kp_sort(order, n, sizeof(*order), cmp_busiest);
	fprintf(t->f, "<g id=\"legend\">\n<text class=\"legendtitle\" x=\"%.0f\" y=\"%.0f\">busiest threads "
		      "(run time on all CPUs)</text>\n", LEFT, y0 - 6);
	for (unsigned i = 0; i < n && i < LEGEND_MAX; i++) {
		snprintf(extra, sizeof(extra), ": %.3f ms", kp_cycles_us(s, order[i]->cycles) / 1000);
		legend_item(t, shown++, y0, kp_colour_hex(kp_colour_thread(order[i]->tid), hex),
			    kp_thread_label(s, order[i]->tid, label, sizeof(label)), extra);
	}
	if (n > LEGEND_MAX) {
		snprintf(label, sizeof(label), "%u more threads", n - LEGEND_MAX);
		legend_item(t, shown++, y0, "none", label, "");
	}
	shown = (shown + 3) / 4 * 4; /* the keys on a line of their own */
	legend_item(t, shown++, y0, kp_colour_hex(kp_colour_thread(0), hex), "Idle", " (thread 0)");
	legend_item(t, shown++, y0, "#d01010", "spin-lock wait", " (band under a CPU)");
	legend_item(t, shown++, y0, "#505050", "sample", " (tick above a CPU)");
	fputs("</g>\n", t->f);
	free(order);
	return shown;
}

/* ---------------------------------------------------------------- picture */

static void draw_header(const struct tl *t, const struct kp_log *log, double height)
{
	const struct kp_sched *s = t->s;
	char scenario[64];

	kp_scenario_of(log->cmdline, scenario, sizeof(scenario));
	fprintf(t->f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(t->f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		      "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"12\">\n",
		WIDTH, height, WIDTH, height);
	fputs("<style>.title{font-size:17px;text-anchor:middle} .subtitle{fill:#444;text-anchor:middle}\n"
	      ".cpulabel{text-anchor:end;font-weight:bold} .cpubusy{text-anchor:end;fill:#555;font-size:10px}\n"
	      ".tick{text-anchor:middle;font-size:10px} .axistitle{text-anchor:middle}\n"
	      ".grid{stroke:#000;stroke-opacity:0.18;pointer-events:none} .legendtitle{font-weight:bold}\n"
	      ".run:hover,.wait:hover{stroke:#000;stroke-width:0.8} .footer{fill:#666;font-size:10px}</style>\n", t->f);
	fprintf(t->f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", WIDTH, height);
	fprintf(t->f, "<text class=\"title\" x=\"%.0f\" y=\"26\">kprof timeline%s", WIDTH / 2,
		scenario[0] ? ": scenario " : "");
	kp_xml_text(t->f, scenario);
	fprintf(t->f, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"48\">%u CPU%s over %.3f ms: %" PRIu64
		      " context switches, %" PRIu64 " samples, %" PRIu64 " spin-lock waits; %s</text>\n",
		WIDTH / 2, s->ncpus, s->ncpus == 1 ? "" : "s", kp_cycles_us(s, s->end - s->begin) / 1000, s->switches,
		s->samples, s->waits,
		s->thread_records ? "thread names from KprofThread records" : "no KprofThread records: threads by id");
}

static void draw(const struct tl *t, const struct kp_log *log)
{
	const struct kp_sched *s = t->s;
	double axis_y = ROWS_TOP + s->ncpus * ROW_PITCH + 2, legend_y = axis_y + 66;
	unsigned nthreads = 0;

	for (size_t i = 0; i < s->nthreads; i++)
		nthreads += s->threads[i].tid && s->threads[i].cycles;
	unsigned items = (nthreads < LEGEND_MAX ? nthreads : LEGEND_MAX + 1);
	items = (items + 3) / 4 * 4 + 3;
	double height = legend_y + (items + 3) / 4 * 18 + 28;

	draw_header(t, log, height);
	for (uint32_t cpu = 0; cpu < s->ncpus; cpu++)
		draw_row(t, cpu);
	draw_axis(t, axis_y);
	draw_legend(t, legend_y);
	fprintf(t->f, "<text class=\"footer\" x=\"10\" y=\"%.0f\">", height - 8);
	if (log->cmdline[0]) {
		fputs("command line: ", t->f);
		kp_xml_text(t->f, log->cmdline);
	}
	fputs("</text>\n</svg>\n", t->f);
}

static bool has_cswitch(const struct kp_sched *s)
{
	return s->switches != 0;
}

int kp_cmd_timeline(struct kp_log *log, const struct kp_options *o)
{
	struct kp_sched s;
	struct kp_symbols *syms;
	int rc = 3;

	if (!kp_sched_read(log, o->input, &s))
		return 3;
	if (!has_cswitch(&s)) {
		fprintf(stderr, "kprof: %s: no CSwitch records: run with trace=cswitch\n", o->input);
		kp_sched_free(&s);
		return 3;
	}
	if (!kp_picture_symbols(o->kernel, &syms)) {
		kp_sched_free(&s);
		return 3;
	}
	struct tl t = { .s = &s, .syms = syms, .span = s.end > s.begin ? (double)(s.end - s.begin) : 1 };
	t.f = kp_picture_create(o->output);
	if (t.f) {
		draw(&t, log);
		rc = kp_picture_close(t.f, o->output);
	}
	if (syms)
		kp_symbols_close(syms);
	kp_sched_free(&s);
	return rc ? rc : kp_summary(log, o, o->output);
}
