/*
 * timeline_colours.c - the threads' colours in `kprof timeline`: as far
 * apart as the palette allows, so that two threads side by side never look
 * alike (a hash of the thread id gave neighbours near-identical hues).
 *
 * The threads are numbered by first appearance (the start of their first
 * run on any CPU; threads that never ran after them, by id), and each in
 * turn takes, from a fixed set of candidates (36 hues, 10 degrees apart, at
 * six lightnesses and three saturations), the one farthest from every
 * colour taken before it: farthest-point sampling.  So the first threads
 * differ most, and every thread keeps its colour in every picture of the
 * run.  Distance is CIE76, the Euclidean distance in CIELAB (D65), where
 * equal distances look about equally different; the roots it needs are
 * Newton's (the tool does not link libm).  Fixed colours are taken first:
 * the idle thread light grey, the trace sender (TraceLogger) charcoal,
 * white (the background), and the spin-lock and ERESOURCE waits' red and
 * purple, which no thread should resemble.  The 51 threads of a make run
 * are then at least 22.9 CIELAB units apart, 26 threads at least 31
 * (tests/tools/test_timeline checks 20).
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#define HUES 36
#define SENDER_NAME "TraceLogger"

static const struct kp_rgb IDLE = { 0xC8, 0xC8, 0xC8 }, SENDER = { 0x3A, 0x3A, 0x3A }, WHITE = { 0xFF, 0xFF, 0xFF };
/* TL_SPIN_COLOUR and TL_RES_COLOUR (timeline.h): no thread looks like a wait. */
static const struct kp_rgb SPIN = { 0xD0, 0x10, 0x10 }, RES = { 0x7A, 0x2B, 0xD0 };
static const double lightness[] = { 0.30, 0.40, 0.50, 0.60, 0.70, 0.80 }, saturation[] = { 1.0, 0.7, 0.45 };
#define NCAND (HUES * (sizeof(lightness) / sizeof(lightness[0])) * (sizeof(saturation) / sizeof(saturation[0])))

struct lab {
	double l, a, b;
};

/* The n-th root of x >= 0 (Newton's method from above). */
static double root(double x, int n)
{
	double y = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 60; i++) {
		double p = 1;
		for (int k = 1; k < n; k++)
			p *= y;
		y = ((n - 1) * y + x / p) / n;
	}
	return y;
}

/* sRGB (0..255) to linear light: ((c + 0.055) / 1.055)^2.4, x^2.4 being
 * x^2 times the fifth root of x^2. */
static double linear(uint8_t v)
{
	double c = v / 255.0, x = (c + 0.055) / 1.055;
	return c <= 0.04045 ? c / 12.92 : x * x * root(x * x, 5);
}

static double lab_f(double t)
{
	return t > 216.0 / 24389 ? root(t, 3) : (24389.0 / 27 * t + 16) / 116;
}

static struct lab to_lab(struct kp_rgb c)
{
	double r = linear(c.r), g = linear(c.g), b = linear(c.b);
	double x = lab_f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047), y = lab_f(0.2126 * r + 0.7152 * g + 0.0722 * b),
	       z = lab_f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883);
	return (struct lab){ 116 * y - 16, 500 * (x - y), 200 * (y - z) };
}

/* The square of the CIE76 distance. */
static double dist2(struct lab p, struct lab q)
{
	return (p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) + (p.b - q.b) * (p.b - q.b);
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

/* The threads other than idle and the sender, by first appearance (first:
 * by thread row, its first run's start, UINT64_MAX for none). */
static size_t order_threads(const struct kp_model *m, const uint64_t *first, struct first *v)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nthreads; i++)
		if (m->threads[i].tid && !is_sender(m, m->threads[i].tid))
			v[n++] = (struct first){ m->threads[i].tid, first[i] };
	qsort(v, n, sizeof(*v), by_first);
	return n;
}

void tl_palette_build(struct tl_palette *p, const struct kp_model *m, const uint64_t *first)
{
	struct first *order = kp_xcalloc(m->nthreads + 1, sizeof(*order));
	size_t n = order_threads(m, first, order), k = 0;
	struct kp_rgb *cand = kp_xcalloc(NCAND, sizeof(*cand));
	struct lab *lab = kp_xcalloc(NCAND, sizeof(*lab)), fixed[] = { to_lab(IDLE), to_lab(SENDER), to_lab(WHITE),
										 to_lab(SPIN), to_lab(RES) };
	double *near = kp_xcalloc(NCAND, sizeof(*near)); /* to the nearest taken */
	bool *used = kp_xcalloc(NCAND, sizeof(*used));

	for (size_t s = 0; s < sizeof(saturation) / sizeof(saturation[0]); s++)
		for (size_t l = 0; l < sizeof(lightness) / sizeof(lightness[0]); l++)
			for (unsigned h = 0; h < HUES; h++, k++) {
				cand[k] = kp_colour_hsl(h / (double)HUES, saturation[s], lightness[l]);
				lab[k] = to_lab(cand[k]);
				near[k] = dist2(lab[k], fixed[0]);
				for (size_t j = 1; j < sizeof(fixed) / sizeof(fixed[0]); j++)
					if (dist2(lab[k], fixed[j]) < near[k])
						near[k] = dist2(lab[k], fixed[j]);
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
			if (dist2(lab[k], lab[best]) < near[k])
				near[k] = dist2(lab[k], lab[best]);
	}
	free(order);
	free(cand);
	free(lab);
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
