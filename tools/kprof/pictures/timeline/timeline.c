/*
 * timeline.c - `kprof timeline LOG [--kernel ELF] -o FILE.svg`: one row
 * per CPU over the run's time (timeline_rows.c draws the rows), the
 * ERESOURCE waits' row under them (timeline_resources.c), the workload
 * phases behind them (timeline_phases.c), a time axis in milliseconds
 * with gridlines, and the legend (timeline_legend.c).
 *
 * Views: FILE.svg shows the whole trace; when the log has workload phases
 * (KprofPhase records: scenario=mix's profile, locks, resources and
 * sched), each also gets a picture of its own next to it,
 * FILE-<phase>.svg (timeline-locks.svg), the same drawing with the time
 * axis spanning only that phase, linked from the phase's label in
 * FILE.svg.  Separate files rather than a zoom script: each is a plain
 * SVG that opens anywhere (an image viewer, a document), and its figures
 * are checked as the whole picture's are (tests/tools/test_timeline).
 *
 * Everything drawn comes from the model (model/model.h): the runs are the
 * schedule the report's Threads and CPUs sections count, planned for every
 * view as the model makes them (timeline_plan.c), not kept.  The threads'
 * colours are chosen once for all the views (timeline_colours.c).
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/format.h"
#include "tools/kprof/util/outfile.h"

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
	double a = kp_model_ms(t->m, t->t0), b = kp_model_ms(t->m, t->t1);
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
	      ".runname{font-size:10px;pointer-events:none} .phaselabel{text-anchor:middle;font-weight:bold;fill:#234}\n"
	      ".phasestart,.phaseend{stroke:#234;stroke-dasharray:4 3;stroke-width:1;pointer-events:none}\n"
	      "a .phaselabel,.wholelink{fill:#1a4fb0;text-decoration:underline}\n"
	      ".cpulabel{text-anchor:end;font-weight:bold} .cpubusy{text-anchor:end;fill:#555;font-size:10px}\n"
	      ".tick{text-anchor:middle;font-size:10px} .axistitle{text-anchor:middle}\n"
	      ".grid{stroke:#000;stroke-opacity:0.18;pointer-events:none} .legendtitle{font-weight:bold}\n"
	      ".run:hover,.wait:hover,.reswait:hover{stroke:#000;stroke-width:0.8} .footer{fill:#666;font-size:10px}</style>\n", t->f);
	fprintf(t->f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", TL_WIDTH, height);
	fprintf(t->f, "<text class=\"title\" x=\"%.0f\" y=\"26\">kprof timeline%s", TL_WIDTH / 2,
		scenario[0] ? ": scenario " : "");
	kp_xml_text(t->f, scenario);
	if (t->view) {
		fprintf(t->f, ", phase %" PRIu32 " ", t->view->index);
		kp_xml_text(t->f, t->view->name);
		fprintf(t->f, " (+%.3f ms to +%.3f ms)", kp_model_ms(m, t->t0), kp_model_ms(m, t->t1));
	}
	fputs("</text>\n", t->f);
	if (t->view) {
		fputs("<a href=\"", t->f);
		kp_xml_text(t->f, t->whole);
		fputs("\"><text class=\"wholelink\" x=\"10\" y=\"26\">&lt; the whole trace</text></a>\n", t->f);
	}
	fprintf(t->f, "<text class=\"subtitle\" x=\"%.0f\" y=\"48\">%u CPU%s over %s ms: %" PRIu64
		      " context switches, %" PRIu64 " samples, %" PRIu64 " spin-lock waits in the whole trace; %s</text>\n",
		TL_WIDTH / 2, m->ncpus, m->ncpus == 1 ? "" : "s", kp_ms_text(ms, sizeof(ms), m->end - m->begin, (uint64_t)m->hz),
		m->switches, m->samples, m->waits,
		m->thread_records ? "thread names from KprofThread records" : "no KprofThread records: threads by id");
}

static void draw(const struct tl *t)
{
	const struct kp_model *m = t->m;
	uint32_t rows = m->ncpus + (tl_has_resources(t) ? 1 : 0);
	double rows_end = tl_row_y(rows), axis_y = rows_end + 2, legend_y = axis_y + 66;
	double height = legend_y + tl_legend_height(t) + 28;

	draw_header(t, height);
	tl_draw_phases(t, rows_end);
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++)
		tl_draw_row(t, cpu);
	tl_draw_resources(t, m->ncpus);
	tl_draw_phase_lines(t, rows_end);
	draw_axis(t, axis_y);
	tl_draw_legend(t, legend_y);
	fprintf(t->f, "<text class=\"footer\" x=\"10\" y=\"%.0f\">", height - 8);
	if (t->log->cmdline[0]) {
		fputs("command line: ", t->f);
		kp_xml_text(t->f, t->log->cmdline);
	}
	fputs("</text>\n</svg>\n", t->f);
}

/* The command's state that the model writer's fixed signature cannot
 * carry: the phases (read before the model is built), where the views
 * go, and the plan of the runs (made as the model is built, its sink).
 * One command runs per process. */
static struct {
	const char *output;            /* -o, NULL: stdout (no phase views)  */
	struct tl_phases phases;
	struct tl_plan plan;
	int rc;                        /* 3 when a phase view failed         */
} run;

/* FILE.svg -> FILE-<name>.svg (the name's letters, digits, - and _),
 * FILE-<name>-<n>.svg for the n-th phase of a name seen before. */
static void view_path(char *buf, size_t size, const char *output, const struct tl_phases *p, size_t i)
{
	const struct tl_phase *ph = &p->v[i];
	size_t len = strlen(output), k, nth = 1;
	char suffix[24] = "";
	char name[sizeof(ph->name)];

	for (k = 0; ph->name[k]; k++)
		name[k] = (ph->name[k] >= 'a' && ph->name[k] <= 'z') || (ph->name[k] >= 'A' && ph->name[k] <= 'Z') ||
					  (ph->name[k] >= '0' && ph->name[k] <= '9') || ph->name[k] == '-'
				  ? ph->name[k]
				  : '_';
	name[k] = 0;
	if (len > 4 && !strcmp(output + len - 4, ".svg"))
		len -= 4;
	for (k = 0; k < i; k++)
		nth += p->v[k].index && !strcmp(p->v[k].name, ph->name);
	if (nth > 1)
		snprintf(suffix, sizeof(suffix), "-%zu", nth);
	snprintf(buf, size, "%.*s-%s%s.svg", (int)len, output, name[0] ? name : "phase", suffix);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* The views, once the model has its span (before its runs): the whole
 * trace, then each phase with a picture of its own (its end the trace's
 * when it never ended; its file's name, for the links); and the plan of
 * their runs. */
static void plan_views(void *ctx, const struct kp_model *m)
{
	struct tl_phases *p = &run.phases;
	struct tl *views = kp_xcalloc(p->n + 1, sizeof(*views));
	size_t n = 0;
	char path[4096];

	(void)ctx;
	views[n++] = (struct tl){ .m = m, .phases = p, .t0 = m->begin,
				  .t1 = m->end > m->begin ? m->end : m->begin + 1 };
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].end > m->end) /* never ended: to the end of the trace */
			p->v[i].end = m->end;
		p->v[i].file[0] = 0;
		if (run.output && p->v[i].index && p->v[i].end > p->v[i].start) {
			view_path(path, sizeof(path), run.output, p, i);
			if (strlen(base_name(path)) < sizeof(p->v[i].file)) /* a file name fits */
				memcpy(p->v[i].file, base_name(path), strlen(base_name(path)) + 1);
		}
		if (p->v[i].file[0])
			views[n++] = (struct tl){ .m = m, .phases = p, .view = &p->v[i], .t0 = p->v[i].start,
						  .t1 = p->v[i].end };
	}
	for (size_t v = 0; v < n; v++)
		views[v].span = (double)(views[v].t1 - views[v].t0);
	tl_plan_init(&run.plan, m, views, n);
	free(views);
}

static void plan_run(void *ctx, uint32_t cpu, const struct kp_run *r)
{
	(void)ctx;
	tl_plan_run(&run.plan, cpu, r);
}

static void plan_record(void *ctx, const struct kp_record *r, uint16_t kind)
{
	(void)ctx;
	tl_plan_record(&run.plan, r, kind);
}

static void write_timeline(FILE *f, const struct kp_log *log, const struct kp_model *m,
			   const struct kp_symbols *syms)
{
	struct tl_palette pal;
	char path[4096];

	tl_plan_finish(&run.plan);
	tl_palette_build(&pal, m, run.plan.first);
	for (size_t v = 0; v < run.plan.nviews; v++) {
		struct tl t = run.plan.views[v].t;
		t.log = log;
		t.syms = syms;
		t.pal = &pal;
		t.plan = &run.plan.views[v];
		if (!t.view) {
			t.f = f;
			draw(&t);
			continue;
		}
		t.whole = base_name(run.output);
		view_path(path, sizeof(path), run.output, &run.phases, (size_t)(t.view - run.phases.v));
		if (!(t.f = kp_out_open(path))) {
			run.rc = 3;
			continue;
		}
		draw(&t);
		if (kp_out_close(t.f, path))
			run.rc = 3;
	}
	tl_palette_free(&pal);
}

static const char *lacks(const struct kp_model *m)
{
	return m->switches ? NULL : "no CSwitch records: run with trace=cswitch";
}

int kp_cmd_timeline(struct kp_log *log, const struct kp_options *o)
{
	static const struct kp_run_sink sink = { .start = plan_views, .run = plan_run, .record = plan_record };

	run.output = o->output;
	tl_phases_read(&run.phases, log, UINT64_MAX);
	/* the runs, the samples and the ERESOURCE waits planned as they come,
	 * the spin-lock waits drawn: the runs, samples, ReadyThread and
	 * Resource records not kept */
	int rc = kp_write_model(log, o, KP_KEEP_WAITS, &sink, lacks, write_timeline);
	tl_plan_free(&run.plan);
	tl_phases_free(&run.phases);
	return rc ? rc : run.rc;
}
