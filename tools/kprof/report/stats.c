/*
 * stats.c - order statistics of the report's lock and resource sections
 * (report.h): nearest-rank median, 99th percentile and maximum, plain and
 * weighted, and the table rows that show them in cycles and in time, each
 * time column in one unit chosen from its values over the table (units.c).
 *
 * Nearest rank: the p-th percentile of n sorted values is the one at rank
 * ceil(p * n / 100), counting from 1.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <string.h>

#include "tools/kprof/util/sort.h"

static int cmp_vw(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_weighted *)a)->v, ((const struct kp_weighted *)b)->v);
}

/* Nearest rank: the p-th percentile of n sorted values is the one at rank
 * ceil(p * n / 100), counting from 1.  Sorts v. */
void kp_stats_of(uint64_t *v, size_t n, struct kp_stats *s)
{
	*s = (struct kp_stats){ .n = n };
	if (!n)
		return;
	kp_sort(v, n, sizeof(*v), kp_cmp_u64s);
	s->median = v[kp_nearest_rank(n, 50)];
	s->p99 = v[kp_nearest_rank(n, 99)];
	s->max = v[n - 1];
}

#define LABEL_COLS 13 /* indentation and row label */

/* Weighted nearest rank: the value at which the running sum of weights
 * (values in order) first reaches ceil(p * total / 100). */
void kp_stats_weighted(struct kp_weighted *a, size_t n, struct kp_stats *s)
{
	uint64_t total = 0, cum = 0, r50, r99;
	bool have50 = false, have99 = false;

	*s = (struct kp_stats){ 0 };
	if (!n)
		return;
	kp_sort(a, n, sizeof(*a), cmp_vw);
	for (size_t i = 0; i < n; i++)
		total += a[i].w;
	r50 = (50 * total + 99) / 100;
	r99 = (99 * total + 99) / 100;
	for (size_t i = 0; i < n; i++) {
		cum += a[i].w;
		if (!have50 && cum >= r50)
			s->median = a[i].v, have50 = true;
		if (!have99 && cum >= r99)
			s->p99 = a[i].v, have99 = true;
	}
	s->n = total;
	s->max = a[n - 1].v;
}

struct kp_stats_units kp_stats_units(const struct kp_log *log, const struct kp_stats *const *rows, size_t n)
{
	uint64_t med = 0, p99 = 0, max = 0;

	for (size_t i = 0; i < n; i++) {
		if (!rows[i]->n)
			continue;
		med = rows[i]->median > med ? rows[i]->median : med;
		p99 = rows[i]->p99 > p99 ? rows[i]->p99 : p99;
		max = rows[i]->max > max ? rows[i]->max : max;
	}
	return (struct kp_stats_units){ kp_unit_for(log, med), kp_unit_for(log, p99), kp_unit_for(log, max) };
}

void kp_stats_header(FILE *f, const char *indent, const struct kp_stats_units *u)
{
	char h[3][16];

	snprintf(h[0], sizeof(h[0]), "median %s", u->median.name);
	snprintf(h[1], sizeof(h[1]), "p99 %s", u->p99.name);
	snprintf(h[2], sizeof(h[2]), "max %s", u->max.name);
	fprintf(f, "%s%-*s %9s %10s %10s %10s %10s %10s %10s\n", indent, LABEL_COLS - (int)strlen(indent), "cycles",
		"n", "median", "p99", "max", h[0], h[1], h[2]);
}

void kp_stats_row(FILE *f, const struct kp_log *log, const char *label, const struct kp_stats *s,
		  const struct kp_stats_units *u)
{
	char v[6][32];

	kp_stats_num(v[0], sizeof(v[0]), s->median, s->n);
	kp_stats_num(v[1], sizeof(v[1]), s->p99, s->n);
	kp_stats_num(v[2], sizeof(v[2]), s->max, s->n);
	kp_unit_text(log, u->median, s->median, v[3], sizeof(v[3]));
	kp_unit_text(log, u->p99, s->p99, v[4], sizeof(v[4]));
	kp_unit_text(log, u->max, s->max, v[5], sizeof(v[5]));
	if (!s->n)
		strcpy(v[3], "-"), strcpy(v[4], "-"), strcpy(v[5], "-");
	fprintf(f, "%-*s %9zu %10s %10s %10s %10s %10s %10s\n", LABEL_COLS, label, s->n, v[0], v[1], v[2], v[3], v[4],
		v[5]);
}

/* v in decimal, or "-" when there is no value. */
const char *kp_stats_num(char *buf, size_t size, uint64_t v, bool have)
{
	if (have)
		snprintf(buf, size, "%" PRIu64, v);
	else
		snprintf(buf, size, "-");
	return buf;
}
