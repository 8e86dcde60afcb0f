/*
 * quantiles.c - exact nearest-rank medians and 99th percentiles of many
 * series in bounded memory (quantiles.h): the report's lock and resource
 * sections, whose values a big log has too many of to keep, but whose
 * records it can read again.
 *
 * Nearest rank, weighted: the p-th percentile is the least value at which
 * the running weight of the values in order reaches ceil(p * total / 100)
 * (weight 1 each: the plain nearest rank of stats.c).
 *
 * The counting gives each series its count, weight, least and largest
 * value; a series' ranks then lie in a window [least, largest].  Before
 * each reading every window not yet answered is planned, the ones with
 * the fewest values first:
 *   - kept: its values are kept whole while the values kept in all stay
 *     within the budget; after the reading they are sorted and the ranks
 *     read off;
 *   - sliced: else, for at most SLICED windows, the window is cut into
 *     1,024 slices by value, of which the reading counts the values and
 *     their weight; the slice where the running weight reaches a rank is
 *     that rank's next window (two ranks in one slice share it), or its
 *     value when one wide.  A series' first window is cut by octaves of
 *     the distance from its least value (log_slice: each slice at most a
 *     16th of its values' size), which narrows a skewed series (waits
 *     mostly short, a few very long) in one reading; any later one, and a
 *     first one under 1,024 wide, into slices of equal width, 1,024 times
 *     narrower;
 *   - waiting: the rest, for a later reading.
 * So a series of 64-bit values is answered within 8 readings of its own,
 * one whose values fit the budget in the first; the bench's 20 M-record
 * log takes two.  Memory: the budget's values (16 bytes each) and the
 * slices (16 KiB a window, 4 MiB at most), whatever the number of values; the series
 * themselves (56 bytes each), and the windows of those the counting did
 * not answer (a series of one value, or of equal values, has none).
 * Series are numbered in spaces (one per caller that shares the budget),
 * each dense from 0.
 *
 * Invariant of a window: `below` is the weight of the series' values
 * under lo, so a rank r lies in the window at r - below of its own weight.
 */
#include "tools/kprof/report/quantiles.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define SLICE_BITS 10
#define SLICES (1u << SLICE_BITS)      /* 16 KiB a sliced window           */
#define SLICED 256                     /* sliced windows in one reading    */
#define EXACT 32                       /* log slices: the first, 1 wide    */
#define PER_OCTAVE 16                  /* then this many per power of two  */
#define RANKS 2                        /* the median, the 99th percentile  */

static const unsigned pct[RANKS] = { 50, 99 };

enum how { WAIT, KEEP, SLICE };

struct slice {
	uint64_t count, weight;
};

struct pair {
	uint64_t v, w;
};

struct window {
	uint64_t lo, hi;               /* its ranks' values lie in [lo, hi]  */
	uint64_t below;                /* weight of the values under lo     */
	uint64_t count;                /* values in it (known)              */
	enum how how;                  /* in the coming reading             */
	bool whole;                    /* the series' first: [least, most]  */
	bool octaves;                  /* SLICE: by octave (log_slice), else */
	unsigned shift;                /* ... (v - lo) >> shift             */
	size_t at, n;                  /* KEEP: its values at pairs[at..]   */
	struct slice *slices;          /* SLICE: SLICES of them             */
};

struct series {
	uint64_t count, weight, least, most;
	uint64_t value[RANKS];
	uint32_t open;                 /* 1 + its entry in kp_quantiles.open */
	                               /* while a rank is not answered, 0   */
};

/* A series whose ranks the counting did not answer. */
struct open {
	struct series *s;              /* (its space's array does not move  */
	                               /* once counting is over)            */
	uint64_t rank[RANKS];          /* the running weight to reach       */
	int8_t win[RANKS];             /* its window in w[], -1: answered   */
	uint8_t nw;
	struct window w[RANKS];
};

struct space {
	struct series *s;
	size_t n, cap;
};

struct kp_quantiles {
	struct space *spaces;
	size_t nspaces;
	size_t budget;
	bool counted;                  /* the first replay call was made    */
	unsigned readings;
	struct open *open;             /* the series not yet answered       */
	size_t nopen;
	struct pair *pairs;            /* the kept values of every window   */
	struct slice *slices;          /* SLICED windows' slices            */
};

struct kp_quantiles *kp_quantiles_new(size_t budget)
{
	struct kp_quantiles *q = kp_xcalloc(1, sizeof(*q));

	q->budget = budget ? budget : 1;
	return q;
}

void kp_quantiles_count(struct kp_quantiles *q, size_t space, size_t series, uint64_t v, uint64_t w)
{
	if (space >= q->nspaces) {
		q->spaces = kp_xrealloc(q->spaces, space + 1, sizeof(*q->spaces));
		memset(&q->spaces[q->nspaces], 0, (space + 1 - q->nspaces) * sizeof(*q->spaces));
		q->nspaces = space + 1;
	}
	struct space *sp = &q->spaces[space];
	if (series >= sp->n) {
		sp->s = kp_grow(sp->s, &sp->cap, series + 1, sizeof(*sp->s));
		memset(&sp->s[sp->n], 0, (series + 1 - sp->n) * sizeof(*sp->s));
		sp->n = series + 1;
	}
	struct series *s = &sp->s[series];
	if (!s->count || v < s->least)
		s->least = v;
	if (!s->count || v > s->most)
		s->most = v;
	s->count++;
	s->weight += w;
}

/* A series' first window, wider than SLICES values, is cut by octaves of
 * d = v - lo: the first EXACT slices one value wide, then PER_OCTAVE
 * slices of equal width in each power of two (so a slice is at most 1/16
 * of its values' size): a skewed series (waits mostly short, a few long)
 * narrows to a few percent of its values in one reading.  At most
 * 32 + 59 * 16 slices. */
static unsigned log_slice(uint64_t d)
{
	if (d < EXACT)
		return (unsigned)d;
	unsigned b = 64 - (unsigned)__builtin_clzll(d); /* 6 .. 64 */
	return EXACT + (b - 6) * PER_OCTAVE + (unsigned)((d >> (b - 5)) & (PER_OCTAVE - 1));
}

/* The values of slice j of a window sliced by octaves: [*from, *to] of d. */
static void log_slice_range(unsigned j, uint64_t *from, uint64_t *to)
{
	if (j < EXACT) {
		*from = *to = j;
		return;
	}
	unsigned b = (j - EXACT) / PER_OCTAVE + 6, m = (j - EXACT) % PER_OCTAVE;
	*from = (uint64_t)(PER_OCTAVE + m) << (b - 5);
	*to = *from + (((uint64_t)1 << (b - 5)) - 1);
}
_Static_assert(EXACT + 59 * PER_OCTAVE <= SLICES, "every octave's slices fit");

void kp_quantiles_add(struct kp_quantiles *q, size_t space, size_t series, uint64_t v, uint64_t w)
{
	if (space >= q->nspaces || series >= q->spaces[space].n) /* not counted: the readings differ */
		return;
	const struct series *s = &q->spaces[space].s[series];
	if (!s->open)
		return;
	struct open *o = &q->open[s->open - 1];

	for (unsigned i = 0; i < o->nw; i++) {
		struct window *x = &o->w[i];
		if (x->how == WAIT || v < x->lo || v > x->hi)
			continue;
		if (x->how == KEEP) {
			q->pairs[x->at + x->n++] = (struct pair){ v, w };
		} else {
			struct slice *sl = &x->slices[x->octaves ? log_slice(v - x->lo) : (v - x->lo) >> x->shift];
			sl->count++;
			sl->weight += w;
		}
	}
}

static int cmp_pair(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct pair *)a)->v, ((const struct pair *)b)->v);
}

/* Rank k answered: its value is v. */
static void answer(struct open *o, unsigned k, uint64_t v)
{
	o->s->value[k] = v;
	o->win[k] = -1;
}

/* The window of rank k after a reading, in the new windows nw[] (*n of
 * them, shared by the ranks that fall in one slice). */
static void narrow(struct kp_quantiles *q, struct open *o, unsigned k, struct window *nw, uint8_t *n)
{
	const struct window *x = &o->w[o->win[k]];
	uint64_t need = o->rank[k] - x->below, cum = 0;

	if (x->how == KEEP) {
		const struct pair *p = &q->pairs[x->at];
		size_t i = 0;
		while (i + 1 < x->n && (cum += p[i].w) < need)
			i++;
		answer(o, k, x->n ? p[i].v : x->lo); /* none: only if the readings differed */
		return;
	}
	unsigned j = 0, last = 0;
	for (j = 0; j < SLICES; j++) {
		if (!x->slices[j].count)
			continue;
		last = j;
		if (cum + x->slices[j].weight >= need)
			break;
		cum += x->slices[j].weight;
	}
	if (j == SLICES) /* not reached: only if the readings differed; the last value's slice */
		j = last, cum -= x->slices[last].weight;
	uint64_t from = (uint64_t)j << x->shift, to = from + (((uint64_t)1 << x->shift) - 1);
	if (x->octaves)
		log_slice_range(j, &from, &to);
	uint64_t lo = x->lo + from;
	uint64_t hi = x->hi - x->lo < to ? x->hi : x->lo + to;
	if (lo == hi) {
		answer(o, k, lo);
		return;
	}
	for (uint8_t i = 0; i < *n; i++)
		if (nw[i].lo == lo) {
			o->win[k] = (int8_t)i;
			return;
		}
	nw[*n] = (struct window){ .lo = lo, .hi = hi, .below = x->below + cum, .count = x->slices[j].count };
	o->win[k] = (int8_t)(*n)++;
}

/* Every window read in the last reading is answered or narrowed. */
static void resolve(struct kp_quantiles *q)
{
	for (size_t i = 0; i < q->nopen; i++) {
		struct open *o = &q->open[i];
		struct window nw[RANKS];
		uint8_t n = 0;
		int8_t moved[RANKS];

		for (unsigned w = 0; w < o->nw; w++)
			if (o->w[w].how == KEEP)
				kp_sort(&q->pairs[o->w[w].at], o->w[w].n, sizeof(struct pair), cmp_pair);
		for (unsigned k = 0; k < RANKS; k++) {
			moved[k] = -1;
			if (o->win[k] < 0)
				continue;
			if (o->w[o->win[k]].how == WAIT) { /* not read: kept as it is */
				nw[n] = o->w[o->win[k]];
				for (unsigned j = 0; j < k; j++)
					if (moved[j] >= 0 && o->win[j] == o->win[k])
						moved[k] = moved[j];
				if (moved[k] < 0)
					moved[k] = (int8_t)n++;
				continue;
			}
			narrow(q, o, k, nw, &n);
		}
		for (unsigned k = 0; k < RANKS; k++)
			if (moved[k] >= 0)
				o->win[k] = moved[k];
		memcpy(o->w, nw, n * sizeof(*nw));
		o->nw = n;
		for (unsigned w = 0; w < n; w++)
			o->w[w].how = WAIT, o->w[w].n = 0, o->w[w].slices = NULL;
	}
}

/* After the counting: every series with two values or more is open, with
 * one window over all its values. */
static void first_windows(struct kp_quantiles *q)
{
	size_t n = 0;

	for (size_t sp = 0; sp < q->nspaces; sp++)
		for (size_t i = 0; i < q->spaces[sp].n; i++) {
			struct series *s = &q->spaces[sp].s[i];
			if (s->count && s->least == s->most)
				s->value[0] = s->value[1] = s->least;
			n += s->count && s->least != s->most;
		}
	q->open = n ? kp_xcalloc(n, sizeof(*q->open)) : NULL;
	for (size_t sp = 0; sp < q->nspaces; sp++)
		for (size_t i = 0; i < q->spaces[sp].n; i++) {
			struct series *s = &q->spaces[sp].s[i];
			if (!s->count || s->least == s->most)
				continue;
			struct open *o = &q->open[q->nopen++];
			*o = (struct open){ .s = s, .nw = 1 };
			for (unsigned k = 0; k < RANKS; k++)
				o->rank[k] = (pct[k] * s->weight + 99) / 100;
			o->w[0] = (struct window){ .lo = s->least, .hi = s->most, .count = s->count, .whole = true };
			s->open = (uint32_t)q->nopen;
		}
}

static int cmp_window_count(const void *a, const void *b)
{
	const struct window *x = *(struct window *const *)a, *y = *(struct window *const *)b;
	return kp_cmp_u64(x->count, y->count);
}

bool kp_quantiles_replay(struct kp_quantiles *q)
{
	struct window **todo;
	size_t n = 0, kept = 0, sliced = 0;

	if (!q->counted) {
		q->counted = true;
		first_windows(q);
	} else {
		q->readings++;
		resolve(q);
	}
	for (size_t i = 0; i < q->nopen; i++)
		n += q->open[i].nw;
	todo = kp_xcalloc(n ? n : 1, sizeof(*todo));
	n = 0;
	for (size_t i = 0; i < q->nopen; i++)
		for (unsigned w = 0; w < q->open[i].nw; w++)
			todo[n++] = &q->open[i].w[w];
	kp_sort(todo, n, sizeof(*todo), cmp_window_count); /* the fewest values first */
	for (size_t i = 0; i < n; i++) {
		struct window *x = todo[i];
		if (kept + x->count <= q->budget) {
			x->how = KEEP;
			x->at = kept;
			kept += x->count;
		} else if (sliced < SLICED) {
			unsigned bits = 64 - (unsigned)__builtin_clzll(x->hi - x->lo);
			x->how = SLICE;
			x->octaves = x->whole && bits > SLICE_BITS;
			x->shift = x->octaves || bits <= SLICE_BITS ? 0 : bits - SLICE_BITS;
			x->at = sliced++;
		}
	}
	free(q->pairs);
	free(q->slices);
	q->pairs = kept ? kp_xcalloc(kept, sizeof(*q->pairs)) : NULL;
	q->slices = sliced ? kp_xcalloc(sliced * SLICES, sizeof(*q->slices)) : NULL;
	for (size_t i = 0; i < n; i++)
		if (todo[i]->how == SLICE)
			todo[i]->slices = &q->slices[todo[i]->at * SLICES];
	free(todo);
	if (n)
		return true;
	for (size_t i = 0; i < q->nopen; i++) /* all answered: nothing open */
		q->open[i].s->open = 0;
	free(q->open);
	q->open = NULL;
	q->nopen = 0;
	return false;
}

unsigned kp_quantiles_readings(const struct kp_quantiles *q)
{
	return q->readings;
}

void kp_quantiles_get(const struct kp_quantiles *q, size_t space, size_t series, struct kp_quantile_result *r)
{
	*r = (struct kp_quantile_result){ 0 };
	if (space >= q->nspaces || series >= q->spaces[space].n || !q->spaces[space].s[series].count)
		return;
	const struct series *s = &q->spaces[space].s[series];
	*r = (struct kp_quantile_result){ .count = s->count, .weight = s->weight, .median = s->value[0],
					  .p99 = s->value[1], .max = s->most };
}

void kp_quantiles_free(struct kp_quantiles *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nspaces; i++)
		free(q->spaces[i].s);
	free(q->spaces);
	free(q->open);
	free(q->pairs);
	free(q->slices);
	free(q);
}
