/*
 * timeline_colours.c - the threads' colours in `kprof timeline`: as far
 * apart as the palette allows, so that two threads side by side never look
 * alike (a hash of the thread id gave neighbours near-identical hues).
 *
 * The threads are numbered by first appearance (the start of their first
 * run on any CPU; threads that never ran after them, by id), and each in
 * turn takes, from a fixed set of candidates (36 hues, 10 degrees apart, at
 * four lightnesses and two saturations), the one farthest from every
 * colour taken before it: farthest-point sampling.  So the first threads
 * differ most, and every thread keeps its colour in every picture of the
 * run.  Distance is the "redmean" weighted RGB distance, a cheap
 * approximation of perceived difference that needs no libm.  Fixed
 * colours are taken first: the idle thread light grey, the trace sender
 * (TraceLogger) charcoal, and white, the background.
 * tests/tools/test_timeline checks the minimum pairwise CIELAB distance.
 */
#include "tools/kprof/pictures/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#define HUES 36
#define SENDER_NAME "TraceLogger"

static const struct kp_rgb IDLE = { 0xC8, 0xC8, 0xC8 }, SENDER = { 0x3A, 0x3A, 0x3A }, WHITE = { 0xFF, 0xFF, 0xFF };
static const double lightness[] = { 0.38, 0.52, 0.66, 0.78 }, saturation[] = { 0.78, 0.45 };
#define NCAND (HUES * (sizeof(lightness) / sizeof(lightness[0])) * (sizeof(saturation) / sizeof(saturation[0])))

static long dist2(struct kp_rgb a, struct kp_rgb b)
{
	long rm = ((long)a.r + b.r) / 2, dr = (long)a.r - b.r, dg = (long)a.g - b.g, db = (long)a.b - b.b;
	return ((512 + rm) * dr * dr >> 8) + 4 * dg * dg + ((767 - rm) * db * db >> 8);
}

static bool is_sender(const struct kp_model *m, uint32_t tid)
{
	const struct kp_model_thread *th = kp_model_thread(m, tid);
	return th && th->named && !strcmp(th->name, SENDER_NAME);
}

struct first {
	uint32_t tid;
	uint64_t ts;           /* start of its first run; UINT64_MAX: none   */
};

static int by_first(const void *a, const void *b)
{
	const struct first *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The threads other than idle and the sender, by first appearance. */
static size_t order_threads(const struct kp_model *m, struct first *v)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid && !is_sender(m, m->threads[i].tid))
			v[n++] = (struct first){ m->threads[i].tid, UINT64_MAX };
	for (uint32_t c = 0; c < m->ncpus; c++)
		for (size_t r = 0; r < m->cpu[c].nruns; r++) {
			const struct kp_run *run = &m->cpu[c].runs[r];
			for (size_t k = 0; k < n; k++) /* few threads: a scan */
				if (v[k].tid == run->tid && run->start < v[k].ts)
					v[k].ts = run->start;
		}
	qsort(v, n, sizeof(*v), by_first);
	return n;
}

void tl_palette_build(struct tl_palette *p, const struct kp_model *m)
{
	struct first *order = kp_xcalloc(m->nthreads + 1, sizeof(*order));
	size_t n = order_threads(m, order), taken = 0;
	struct kp_rgb cand[NCAND], *chosen = kp_xcalloc(n + 3, sizeof(*chosen));
	long *near = kp_xcalloc(NCAND, sizeof(*near)); /* to the nearest chosen */
	bool *used = kp_xcalloc(NCAND, sizeof(*used));
	size_t k = 0;

	for (size_t s = 0; s < sizeof(saturation) / sizeof(saturation[0]); s++)
		for (size_t l = 0; l < sizeof(lightness) / sizeof(lightness[0]); l++)
			for (unsigned h = 0; h < HUES; h++)
				cand[k++] = kp_colour_hsl(h / (double)HUES, saturation[s], lightness[l]);
	chosen[taken++] = IDLE;
	chosen[taken++] = SENDER;
	chosen[taken++] = WHITE;
	for (k = 0; k < NCAND; k++) {
		near[k] = dist2(cand[k], chosen[0]);
		for (size_t j = 1; j < taken; j++)
			if (dist2(cand[k], chosen[j]) < near[k])
				near[k] = dist2(cand[k], chosen[j]);
	}
	p->n = n;
	p->tid = kp_xcalloc(n + 1, sizeof(*p->tid));
	p->rgb = kp_xcalloc(n + 1, sizeof(*p->rgb));
	for (size_t i = 0; i < n; i++) {
		size_t best = NCAND;
		for (k = 0; k < NCAND; k++) /* the farthest from all taken */
			if (!used[k] && (best == NCAND || near[k] > near[best]))
				best = k;
		if (best == NCAND) { /* more threads than candidates: start over */
			memset(used, 0, NCAND * sizeof(*used));
			best = i % NCAND;
		}
		used[best] = true;
		p->tid[i] = order[i].tid;
		p->rgb[i] = cand[best];
		for (k = 0; k < NCAND; k++)
			if (dist2(cand[k], cand[best]) < near[k])
				near[k] = dist2(cand[k], cand[best]);
	}
	free(order);
	free(chosen);
	free(near);
	free(used);
}

void tl_palette_free(struct tl_palette *p)
{
	free(p->tid);
	free(p->rgb);
}

struct kp_rgb tl_colour(const struct tl *t, uint32_t tid)
{
	if (tid == 0)
		return IDLE;
	for (size_t i = 0; i < t->pal->n; i++)
		if (t->pal->tid[i] == tid)
			return t->pal->rgb[i];
	return SENDER; /* the sender, the only thread not in the palette */
}

const char *tl_colour_hex(const struct tl *t, uint32_t tid, char *buf)
{
	return kp_colour_hex(tl_colour(t, tid), buf);
}
