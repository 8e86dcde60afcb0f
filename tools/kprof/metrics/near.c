/*
 * near.c - the near matches of a name that is not there (metrics.h): a
 * misspelt lock, thread, function or metric is answered with the names it
 * is closest to, so the fix is one look away.
 *
 * Close: an edit distance (Levenshtein: insertions, deletions and
 * substitutions, ignoring case) of at most a third of the name's length
 * and at least 2, or one name inside the other.  Closest first; ties in
 * the order given.
 */
#define _GNU_SOURCE /* strcasestr */
#include "tools/kprof/metrics/metrics.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#define MAX_LEN 128 /* longer names are compared on their first 128 bytes */

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, MAX_LEN), lb = strnlen(b, MAX_LEN), row[MAX_LEN + 1];

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
			size_t best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
			row[j] = sub < best ? sub : best;
			diag = up;
		}
	}
	return row[lb];
}

/* strcasestr for either order */
static bool inside(const char *a, const char *b)
{
	return (strlen(a) > 1 && strcasestr(b, a)) || (strlen(b) > 1 && strcasestr(a, b));
}

struct cand {
	size_t dist, order;
	const char *name;
};

static int by_dist(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;
	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

const char *kp_near_names(const char *want, const char *const *names, size_t n, char *buf, size_t size)
{
	struct cand *c = kp_xcalloc(n ? n : 1, sizeof(*c));
	size_t nc = 0, limit = strlen(want) / 3 > 2 ? strlen(want) / 3 : 2, len = 0;

	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t k = 0; k < nc && !dup; k++)
			dup = !strcmp(c[k].name, names[i]);
		if (dup)
			continue;
		size_t d = edit_distance(want, names[i]);
		if (d <= limit || inside(want, names[i]))
			c[nc++] = (struct cand){ d, i, names[i] };
	}
	qsort(c, nc, sizeof(*c), by_dist);
	buf[0] = 0;
	for (size_t k = 0; k < nc && k < KP_NEAR_MAX && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s\"%s\"", k ? ", " : "", c[k].name);
	free(c);
	return buf;
}
