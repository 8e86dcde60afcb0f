/*
 * timeline_bands.c - wait bands in `kprof timeline` (spin-lock waits under
 * a CPU's row, ERESOURCE waits in their own row), drawn as what they are.
 *
 * Waits closer than TL_MIN_PX are merged into one band (a run has far
 * more waits than the picture has pixels).  A band is drawn at least
 * TL_MIN_PX wide, and its fill-opacity is the share of that width's time
 * spent waiting: the union of its waits (nested or overlapping waits
 * count once) over the cycles its drawn width stands for, at most 1.  So
 * a merged band that is a quarter waiting is a quarter opaque, not solid,
 * and a single wait shorter than a pixel is faint in proportion.  The
 * share is also in data-share.  A band's tooltip is its wait's own (the
 * kind's title()), or for merged waits their count, time and share and
 * the object of the longest.  Waits outside the view are left out and those across
 * its edges cut at them.
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include "tools/kprof/util/format.h"

#include <string.h>

/* The band's tooltip: a single wait's own (with its share of the pixel
 * when it is narrower), or the merged waits' count, time, share and
 * longest wait's object. */
static void title(const struct tl *t, const struct tl_band *b, const struct tl_wait_kind *k, const void *ctx)
{
	char d[32], d2[32], pct[16];
	uint64_t ts, object;

	kp_pct(pct, sizeof(pct), (uint64_t)(b->share * 1e6), 1000000, 1);
	if (b->n == 1) {
		k->title(t, b->first, ctx);
		if (b->share < 1)
			fprintf(t->f, "\nnarrower than a pixel: drawn a pixel wide, %s of it waiting", pct);
		return;
	}
	fprintf(t->f, "%zu %s waits, %s of waiting between +%.6f ms and +%.6f ms (%s of the band)\nlongest %s, %s ",
		b->n, k->kind, tl_duration(t, b->waited, d, sizeof(d)), kp_model_ms(t->m, b->start),
		kp_model_ms(t->m, b->end), pct, tl_duration(t, b->longest, d2, sizeof(d2)), k->object);
	object = k->object_of(b->longest_at, ctx, &ts);
	tl_object_label(t, object, ts);
}

static void emit(const struct tl *t, struct tl_band *b, double x1, double y, double h, const struct tl_wait_kind *k,
		 const void *ctx)
{
	b->w = x1 - b->x0 < TL_MIN_PX ? TL_MIN_PX : x1 - b->x0;
	b->share = b->waited / (b->w * tl_px_cycles(t));
	if (b->share > 1)
		b->share = 1;
	fprintf(t->f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" fill=\"%s\" "
		      "fill-opacity=\"%.3f\" data-share=\"%.4f\" data-n=\"%zu\"><title>",
		k->cls, b->x0, y, b->w, h, k->colour, b->share, b->share, b->n);
	title(t, b, k, ctx);
	fputs("</title></rect>\n", t->f);
}

/* Interval i's start and end (each element begins with them). */
static void span_of(const void *v, size_t stride, size_t i, uint64_t *start, uint64_t *end)
{
	const unsigned char *e = (const unsigned char *)v + i * stride;

	memcpy(start, e, sizeof(*start));
	memcpy(end, e + sizeof(*start), sizeof(*end));
}

void tl_draw_bands(const struct tl *t, const void *v, size_t stride, size_t n, double y, double h,
		   const struct tl_wait_kind *k, const void *ctx)
{
	struct tl_band b = { 0 };
	uint64_t covered = 0; /* the union so far ends here */
	double bx1 = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t vs, ve;
		span_of(v, stride, i, &vs, &ve);
		uint64_t s = vs > t->t0 ? vs : t->t0, e = ve < t->t1 ? ve : t->t1;
		if (e < s || ve <= t->t0 || vs >= t->t1)
			continue;
		double x0 = tl_px(t, s), x1 = tl_px(t, e);
		if (b.n && x0 > bx1 + TL_MIN_PX) {
			emit(t, &b, bx1, y, h, k, ctx);
			b.n = 0;
		}
		if (!b.n) {
			b = (struct tl_band){ .first = i, .x0 = x0, .start = s, .end = e, .longest_at = SIZE_MAX };
			bx1 = x1;
			covered = s;
		}
		b.n++;
		if (x1 > bx1)
			bx1 = x1;
		if (e > b.end)
			b.end = e;
		if (e > covered) {
			b.waited += e - (s > covered ? s : covered);
			covered = e;
		}
		if (e - s > b.longest || b.longest_at == SIZE_MAX) {
			b.longest = e - s;
			b.longest_at = i;
		}
	}
	if (b.n)
		emit(t, &b, bx1, y, h, k, ctx);
}
