/*
 * diffflame.c - `kprof compare --flame FILE.svg`: the differential flame
 * graph, drawn by the flame graph's own code (pictures/flame/flame.h): the
 * stacks of all B's runs make the tree and its widths; each frame is
 * coloured by how its share of the samples changed from A (all A's runs)
 * to B - red where it grew, blue where it shrank, the deeper the larger
 * the change against the largest change of any frame, near white when
 * unchanged - as Brendan Gregg's differential flame graphs colour them.
 * A frame's tooltip gives its share in A and the change.  A frame only in
 * A has no width in B and is not drawn (compare B with A the other way
 * round to see it).
 */
#include "tools/kprof/compare/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/pictures/flame/flame.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/outfile.h"

struct diff {
	const struct kp_flame *a;
	double *delta;              /* per node of B: share in B - share in A */
	double *share_a;            /* per node of B: its share in A          */
	double max;                 /* the largest |delta| of a frame         */
};

/* The child of A's node `an` (index + 1, 0: none) named name. */
static size_t a_child(const struct kp_flame *a, size_t an, const char *name)
{
	if (!an)
		return 0;
	for (size_t c = a->nodes[an - 1].child; c; c = a->nodes[c - 1].sibling)
		if (!strcmp(a->nodes[c - 1].name, name))
			return c;
	return 0;
}

/* Node bn of B (index) and its counterpart an in A (index + 1, or 0). */
static void match(struct diff *d, const struct kp_flame *b, size_t bn, size_t an)
{
	double sb = (double)b->nodes[bn].weight / (double)b->total;
	double sa = an && d->a->total ? (double)d->a->nodes[an - 1].weight / (double)d->a->total : 0;

	d->share_a[bn] = sa;
	d->delta[bn] = sb - sa;
	if (bn && fabs(d->delta[bn]) > d->max)
		d->max = fabs(d->delta[bn]);
	for (size_t c = b->nodes[bn].child; c; c = b->nodes[c - 1].sibling)
		match(d, b, c - 1, a_child(d->a, an, b->nodes[c - 1].name));
}

static struct kp_rgb colour(const struct kp_flame *fl, size_t node, void *ctx)
{
	const struct diff *d = ctx;
	double k = d->max > 0 ? fmin(1, fabs(d->delta[node]) / d->max) : 0;
	uint8_t deep = (uint8_t)(235 - 190 * k);

	if (d->delta[node] > 0)
		return (struct kp_rgb){ 255, deep, deep };
	if (d->delta[node] < 0)
		return (struct kp_rgb){ deep, deep, 255 };
	return (struct kp_rgb){ 235, 235, 235 };
}

static void note(FILE *f, const struct kp_flame *fl, size_t node, void *ctx)
{
	const struct diff *d = ctx;
	fprintf(f, "; A %.2f%%, change %+.2f points", 100 * d->share_a[node], 100 * d->delta[node]);
}

/* Every run's stacks into one tree. */
static void read_side(struct kp_flame *fl, struct kp_runlog *const *runs, size_t n)
{
	kp_flame_init(fl);
	for (size_t i = 0; i < n; i++)
		kp_flame_read(fl, &runs[i]->log, &runs[i]->m, runs[i]->syms);
}

int kp_cmp_flame(const char *path, struct kp_runlog *const *a, size_t na, struct kp_runlog *const *b, size_t nb,
		 const char *kernel)
{
	struct kp_flame fa, fb;
	char sub[300];
	int rc = 3;

	read_side(&fa, a, na);
	read_side(&fb, b, nb);
	if (!fb.total || !fa.total) {
		fprintf(stderr, "kprof: compare --flame: no StackWalk records in %s: run with trace=stack (and "
				"trace=profile)\n", !fb.total ? "B" : "A");
	} else {
		struct diff d = { .a = &fa, .delta = kp_xcalloc(fb.nnodes, sizeof(double)),
				  .share_a = kp_xcalloc(fb.nnodes, sizeof(double)) };
		match(&d, &fb, 0, 1);
		snprintf(sub, sizeof(sub), "widths: B's %" PRIu64 " samples (%zu run%s); colour: the change of each frame's "
			 "share from A's %" PRIu64 " samples (%zu run%s), red grew, blue shrank, largest %.2f points", fb.total,
			 nb, nb == 1 ? "" : "s", fa.total, na, na == 1 ? "" : "s", 100 * d.max);
		struct kp_flame_style style = { .title = "kprof differential flame graph (B against A)", .subtitle = sub,
						.colour = colour, .note = note, .ctx = &d };
		FILE *f = kp_out_open(path);
		if (f) {
			kp_flame_svg_styled(f, &fb, &b[0]->log, kernel, &style);
			rc = kp_out_close(f, path);
		}
		free(d.delta);
		free(d.share_a);
	}
	kp_flame_free(&fa);
	kp_flame_free(&fb);
	return rc;
}
