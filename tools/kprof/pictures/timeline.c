/*
 * timeline.c - `kprof timeline LOG [--kernel ELF] -o FILE.svg`: one row
 * per CPU over the run's time (timeline_rows.c draws the rows), with a
 * time axis in milliseconds, gridlines, and a legend of the busiest
 * threads with their CPU time.
 *
 * Everything drawn comes from the model (model/model.h): the runs are the
 * schedule the report's Threads and CPUs sections count, and a thread's
 * time in the legend is the report's "cpu ms", formatted by the same
 * function (kp_ms_text), so the two agree to the last digit
 * (tests/tools/test_thread_time checks it).  The legend names the
 * LEGEND_MAX busiest threads; the "N more threads" key's tooltip lists
 * the others, and the Idle key gives the idle threads' time.
 */
#include "tools/kprof/pictures/timeline.h"

#include <inttypes.h>
#include <stdlib.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/format.h"
#include "tools/kprof/util/sort.h"

#define LEGEND_MAX 16      /* busiest threads in the legend               */
#define LEGEND_COL 330.0

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
	double a = kp_model_ms(t->m, t->m->begin), b = kp_model_ms(t->m, t->m->end);
	double step = axis_step(b - a > 0 ? b - a : 1);
	long long k = (long long)(a / step);

	if ((double)k * step < a)
		k++;
	fprintf(t->f, "<g id=\"axis\">\n<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#000\"/>\n",
		TL_LEFT,
		y_end, TL_LEFT + TL_PLOT_W, y_end);
	for (double ms = (double)k * step; ms <= b + step * 1e-9; ms = (double)++k * step) {
		double x = TL_LEFT + (ms - a) / (b - a > 0 ? b - a : 1) * TL_PLOT_W;
		fprintf(t->f, "<line class=\"grid\" x1=\"%.2f\" y1=\"%.0f\" x2=\"%.2f\" y2=\"%.1f\"/>", x, TL_ROWS_TOP, x,
			y_end + 4);
		fprintf(t->f, "<text class=\"tick\" x=\"%.2f\" y=\"%.1f\">%g ms</text>\n", x, y_end + 17,
			ms == 0 ? 0.0 : ms);
	}
	fprintf(t->f, "<text class=\"axistitle\" x=\"%.0f\" y=\"%.1f\">time since the trace started (ms)</text>\n"
		      "</g>\n",
		TL_LEFT + TL_PLOT_W / 2, y_end + 35);
}

/* ---------------------------------------------------------------- legend */

static int cmp_busiest(const void *a, const void *b)
{
	const struct kp_model_thread *x = *(const struct kp_model_thread *const *)a;
	const struct kp_model_thread *y = *(const struct kp_model_thread *const *)b;
	if (x->cycles != y->cycles)
		return x->cycles < y->cycles ? 1 : -1;
	return kp_cmp_u64(x->tid, y->tid);
}

/* Key i of the legend (four to a line from y0): a swatch and its text. */
static void legend_item(const struct tl *t, unsigned i, double y0, const char *fill, const char *text,
			const char *extra)
{
	double x = TL_LEFT + (i % 4) * LEGEND_COL, y = y0 + (i / 4) * 18;

	fprintf(t->f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		      "<text x=\"%.0f\" y=\"%.0f\">",
		x, y, fill, x + 17, y + 10.5);
	kp_xml_text(t->f, text);
	fprintf(t->f, "%s</text>\n", extra);
}

/* ": 12.345 ms", a thread's CPU time as the report writes it. */
static const char *cpu_time(const struct tl *t, uint64_t cycles, char *buf, size_t size)
{
	char ms[32];
	snprintf(buf, size, ": %s ms", kp_ms_text(ms, sizeof(ms), cycles, t->log->header.tsc_hz));
	return buf;
}

/* The threads after the first LEGEND_MAX, in a tooltip of their key. */
static void more_threads(const struct tl *t, unsigned i, double y0, const struct kp_model_thread **order,
			 unsigned n)
{
	char label[64], extra[64];

	fprintf(t->f, "<g class=\"more\"><title>");
	for (unsigned k = LEGEND_MAX; k < n; k++) {
		kp_xml_text(t->f, kp_model_thread_label(t->m, order[k]->tid, label, sizeof(label)));
		fprintf(t->f, "%s%s", cpu_time(t, order[k]->cycles, extra, sizeof(extra)), k + 1 < n ? "\n" : "");
	}
	fprintf(t->f, "</title>");
	snprintf(label, sizeof(label), "%u more threads", n - LEGEND_MAX);
	legend_item(t, i, y0, "none", label, "");
	fputs("</g>\n", t->f);
}

/* Items drawn; the legend starts at y0. */
static unsigned draw_legend(const struct tl *t, double y0)
{
	const struct kp_model *m = t->m;
	const struct kp_model_thread **order = kp_xcalloc(m->nthreads, sizeof(*order));
	const struct kp_model_thread *idle = kp_model_thread(m, 0);
	unsigned shown = 0, n = 0;
	char label[96], extra[64], hex[8];

	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid && m->threads[i].cycles)
			order[n++] = &m->threads[i];
	kp_sort(order, n, sizeof(*order), cmp_busiest);
	fprintf(t->f, "<g id=\"legend\">\n<text class=\"legendtitle\" x=\"%.0f\" y=\"%.0f\">busiest threads "
		      "(run time on all CPUs)</text>\n", TL_LEFT, y0 - 6);
	for (unsigned i = 0; i < n && i < LEGEND_MAX; i++)
		legend_item(t, shown++, y0, kp_colour_hex(kp_colour_thread(order[i]->tid), hex),
			    kp_model_thread_label(m, order[i]->tid, label, sizeof(label)),
			    cpu_time(t, order[i]->cycles, extra, sizeof(extra)));
	if (n > LEGEND_MAX)
		more_threads(t, shown++, y0, order, n);
	shown = (shown + 3) / 4 * 4; /* the keys on a line of their own */
	snprintf(label, sizeof(label), " (thread 0)%s",
		 idle && idle->cycles ? cpu_time(t, idle->cycles, extra, sizeof(extra)) : "");
	legend_item(t, shown++, y0, kp_colour_hex(kp_colour_thread(0), hex), "Idle", label);
	legend_item(t, shown++, y0, "#d01010", "spin-lock wait", " (band under a CPU)");
	legend_item(t, shown++, y0, "#505050", "sample", " (tick above a CPU)");
	fputs("</g>\n", t->f);
	free(order);
	return shown;
}

/* ---------------------------------------------------------------- picture */

static void draw_header(const struct tl *t, double height)
{
	const struct kp_model *m = t->m;
	char scenario[64], ms[32];

	kp_scenario_text(t->log, scenario, sizeof(scenario));
	fprintf(t->f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(t->f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		      "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"12\">\n",
		TL_WIDTH, height, TL_WIDTH, height);
	fputs("<style>.title{font-size:17px;text-anchor:middle} .subtitle{fill:#444;text-anchor:middle}\n"
	      ".cpulabel{text-anchor:end;font-weight:bold} .cpubusy{text-anchor:end;fill:#555;font-size:10px}\n"
	      ".tick{text-anchor:middle;font-size:10px} .axistitle{text-anchor:middle}\n"
	      ".grid{stroke:#000;stroke-opacity:0.18;pointer-events:none} .legendtitle{font-weight:bold}\n"
	      ".run:hover,.wait:hover{stroke:#000;stroke-width:0.8} .footer{fill:#666;font-size:10px}</style>\n", t->f);
	fprintf(t->f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", TL_WIDTH, height);
	fprintf(t->f, "<text class=\"title\" x=\"%.0f\" y=\"26\">kprof timeline%s", TL_WIDTH / 2,
		scenario[0] ? ": scenario " : "");
	kp_xml_text(t->f, scenario);
	fprintf(t->f, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"48\">%u CPU%s over %s ms: %" PRIu64
		      " context switches, %" PRIu64 " samples, %" PRIu64 " spin-lock waits; %s</text>\n",
		TL_WIDTH / 2, m->ncpus, m->ncpus == 1 ? "" : "s", kp_ms_text(ms, sizeof(ms), m->end - m->begin, (uint64_t)m->hz),
		m->switches, m->samples, m->waits,
		m->thread_records ? "thread names from KprofThread records" : "no KprofThread records: threads by id");
}

static void draw(const struct tl *t)
{
	const struct kp_model *m = t->m;
	double axis_y = TL_ROWS_TOP + m->ncpus * TL_ROW_PITCH + 2, legend_y = axis_y + 66;
	unsigned nthreads = 0;

	for (size_t i = 0; i < m->nthreads; i++)
		nthreads += m->threads[i].tid && m->threads[i].cycles;
	unsigned items = (nthreads < LEGEND_MAX ? nthreads : LEGEND_MAX + 1);
	items = (items + 3) / 4 * 4 + 3;
	double height = legend_y + (items + 3) / 4 * 18 + 28;

	draw_header(t, height);
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++)
		tl_draw_row(t, cpu);
	draw_axis(t, axis_y);
	draw_legend(t, legend_y);
	fprintf(t->f, "<text class=\"footer\" x=\"10\" y=\"%.0f\">", height - 8);
	if (t->log->cmdline[0]) {
		fputs("command line: ", t->f);
		kp_xml_text(t->f, t->log->cmdline);
	}
	fputs("</text>\n</svg>\n", t->f);
}

static void write_timeline(FILE *f, const struct kp_log *log, const struct kp_model *m,
			   const struct kp_symbols *syms)
{
	struct tl t = { .f = f, .log = log, .m = m, .syms = syms,
			.span = m->end > m->begin ? (double)(m->end - m->begin) : 1 };
	draw(&t);
}

static const char *lacks(const struct kp_model *m)
{
	return m->switches ? NULL : "no CSwitch records: run with trace=cswitch";
}

int kp_cmd_timeline(struct kp_log *log, const struct kp_options *o)
{
	return kp_write_model(log, o, lacks, write_timeline);
}
