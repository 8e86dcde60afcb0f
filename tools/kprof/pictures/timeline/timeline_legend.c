/*
 * timeline_legend.c - the legend under the rows of `kprof timeline`: a
 * key per thread (its colour, name and id, and its CPU time in the view),
 * busiest first, up to LEGEND_MAX (a "N more threads" key's tooltip lists
 * the rest); then the idle threads, and what the other marks are.
 *
 * In the picture of the whole trace a thread's time is the report's
 * "cpu ms", formatted by the same function (kp_ms_text), so the two agree
 * to the last digit (tests/tools/test_thread_time checks it); in a phase's
 * picture it is the thread's run time inside the phase (timeline.h,
 * tl_run_cycles, summed by the plan: timeline_plan.c).
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <inttypes.h>
#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/format.h"
#include "tools/kprof/util/sort.h"

#define LEGEND_MAX 64      /* threads with a key of their own             */
#define LEGEND_COL 330.0
#define LEGEND_PITCH 18.0
#define KINDS 5            /* keys after the threads'                     */

struct key {
	uint32_t tid;
	uint64_t cycles;       /* in the view                                */
};

static int cmp_busiest(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->cycles != y->cycles)
		return x->cycles < y->cycles ? 1 : -1;
	return kp_cmp_u64(x->tid, y->tid);
}

/* Every thread with time in the view, busiest first; [0] is the idle
 * threads' (tid 0) and not counted in *n. */
static struct key *keys(const struct tl *t, size_t *n)
{
	const struct kp_model *m = t->m;
	struct key *k = kp_xcalloc(m->nthreads + 1, sizeof(*k));

	for (size_t i = 0; i < m->nthreads; i++)
		k[i].tid = m->threads[i].tid,
		k[i].cycles = t->view ? t->plan->thread_cycles[i] : m->threads[i].cycles;
	struct key idle = { 0, 0 };
	size_t w = 0;
	for (size_t i = 0; i < m->nthreads; i++)
		if (!k[i].tid)
			idle.cycles += k[i].cycles;
		else if (k[i].cycles)
			k[w++] = k[i];
	kp_sort(k, w, sizeof(*k), cmp_busiest);
	for (size_t i = w; i > 0; i--)
		k[i] = k[i - 1];
	k[0] = idle;
	*n = w;
	return k;
}

static unsigned items(const struct tl *t)
{
	size_t n;
	free(keys(t, &n));
	unsigned shown = n > LEGEND_MAX ? LEGEND_MAX + 1 : (unsigned)n;
	return (shown + 3) / 4 * 4 + KINDS;
}

double tl_legend_height(const struct tl *t)
{
	return (items(t) + 3) / 4 * LEGEND_PITCH;
}

/* Key i of the legend (four to a line from y0): a swatch and its text. */
static void item(const struct tl *t, unsigned i, double y0, const char *fill, const char *opacity, const char *text,
		 const char *extra)
{
	double x = TL_LEFT + (i % 4) * LEGEND_COL, y = y0 + (i / 4) * LEGEND_PITCH;

	fprintf(t->f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"%s/><text x=\"%.0f\" y=\"%.0f\">",
		x, y, fill, opacity, x + 17, y + 10.5);
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
static void more_threads(const struct tl *t, unsigned i, double y0, const struct key *k, size_t n)
{
	char label[64], extra[64];

	fprintf(t->f, "<g class=\"more\"><title>");
	for (size_t j = LEGEND_MAX; j < n; j++) {
		kp_xml_text(t->f, kp_model_thread_label(t->m, k[j].tid, label, sizeof(label)));
		fprintf(t->f, "%s%s", cpu_time(t, k[j].cycles, extra, sizeof(extra)), j + 1 < n ? "\n" : "");
	}
	fprintf(t->f, "</title>");
	snprintf(label, sizeof(label), "%zu more threads", n - LEGEND_MAX);
	item(t, i, y0, "none", "", label, "");
	fputs("</g>\n", t->f);
}

void tl_draw_legend(const struct tl *t, double y0)
{
	size_t n;
	struct key *all = keys(t, &n), *k = all + 1;
	unsigned shown = 0;
	char label[96], extra[64], hex[8];

	fprintf(t->f, "<g id=\"legend\">\n<text class=\"legendtitle\" x=\"%.0f\" y=\"%.0f\">threads, busiest first "
		      "(name (id): run time on all CPUs%s)</text>\n",
		TL_LEFT, y0 - 6, t->view ? " in this phase" : "");
	for (size_t i = 0; i < n && i < LEGEND_MAX; i++) {
		fprintf(t->f, "<g class=\"key\" data-tid=\"%" PRIu32 "\">", k[i].tid);
		item(t, shown++, y0, tl_colour_hex(t, k[i].tid, hex), "",
		     kp_model_thread_label(t->m, k[i].tid, label, sizeof(label)),
		     cpu_time(t, k[i].cycles, extra, sizeof(extra)));
		fputs("</g>\n", t->f);
	}
	if (n > LEGEND_MAX)
		more_threads(t, shown++, y0, k, n);
	shown = (shown + 3) / 4 * 4; /* the other keys on a line of their own */
	snprintf(label, sizeof(label), " (thread 0)%s", all[0].cycles ? cpu_time(t, all[0].cycles, extra, sizeof(extra)) : "");
	item(t, shown++, y0, tl_colour_hex(t, 0, hex), "", "Idle", label);
	item(t, shown++, y0, TL_SPIN_COLOUR, "", "spin-lock wait", " (band under a CPU)");
	item(t, shown++, y0, TL_RES_COLOUR, "", "ERESOURCE wait", " (its own row)");
	item(t, shown++, y0, TL_SPIN_COLOUR, " fill-opacity=\"0.25\"", "merged waits", ": opacity = share waiting");
	item(t, shown++, y0, "#505050", "", "sample", " (tick above a CPU)");
	fputs("</g>\n", t->f);
	free(all);
}
