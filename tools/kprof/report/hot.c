/*
 * hot.c - the hot-spots section of `kprof report`: the log's
 * SampledProfile samples (weighted by Count, the periods each stands for)
 * and PmcInterrupt samples by function, in total and per CPU; the short
 * form for --summary; and the table of functions the profile objects
 * (objects.c) print too; the rows of the ProfileTime table for `kprof
 * assert` and `kprof compare` (kp_hot_profile_rows).
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/sort.h"

/* The samples of one function (or address outside any) on one CPU, of
 * one group, summed: what the tables are made of.  The samples are read
 * from the log (not kept by the model) and summed by instruction pointer,
 * so the section holds a row per place sampled, not per sample. */
struct sample {
	uint32_t group;   /* 0: SampledProfile; 1 + ProfileSource: PmcInterrupt */
	uint32_t cpu;
	bool known;       /* in a function                                      */
	uint64_t func;    /* its start (0 when not known)                       */
	uint64_t ip;      /* the instruction pointer they were summed by        */
	uint64_t weight;  /* periods (SampledProfile) or 1 each                 */
	uint64_t count;   /* samples                                            */
	uint64_t w2;      /* their weights' squares summed                      */
};

struct kp_hot_samples {
	struct sample *v;
	size_t n, cap;
	struct kp_index ix;
};

/* The sum of (group, cpu, ip), made on first sight. */
static struct sample *sum_of(const struct kp_report *rp, struct kp_hot_samples *s, uint32_t group, uint32_t cpu, uint64_t ip)
{
	uint64_t h = kp_hash_u64(ip, kp_hash_u64(((uint64_t)group << 32) | cpu, 2));
	size_t it;

	for (size_t at = kp_index_first(&s->ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&s->ix, h, &it))
		if (s->v[at].ip == ip && s->v[at].group == group && s->v[at].cpu == cpu)
			return &s->v[at];
	struct sample x = { .group = group, .cpu = cpu, .ip = ip };
	x.known = kp_symbols_lookup(rp->syms, ip, NULL, &x.func, NULL);
	if (!x.known)
		x.func = 0;
	KP_PUSH(s->v, s->n, s->cap, x);
	kp_index_add(&s->ix, h, s->n - 1);
	return &s->v[s->n - 1];
}

/* The samples' reader (walk.c): every sample of the log but those of
 * kprof's own measurement (model/measure.c: each CPU's walk of its
 * KprofMeasure spans, its samples coming in time order), summed with
 * their functions; then sorted (cmp_sample). */
struct samples_reader {
	const struct kp_report *rp;
	struct kp_hot_samples *s;
	size_t *walk;                 /* per CPU, kp_measure_in's               */
	bool first;                   /* the first walk: the others are the     */
	                              /* other sections' readings               */
};

static void samples_begin(void *ctx, const struct kp_report_stats *st, bool first)
{
	((struct samples_reader *)ctx)->first = first;
}

static void samples_take(void *ctx, const struct kp_record *r, uint16_t kind)
{
	struct samples_reader *x = ctx;
	struct kp_sample k;

	if (!x->first || (kind != PERFINFO_LOG_TYPE_SAMPLED_PROFILE && kind != PERFINFO_LOG_TYPE_PMC_INTERRUPT) ||
	    r->cpu >= x->rp->m->ncpus)
		return;
	kp_sample_of(r, &k);
	if (kp_measure_in(&x->rp->m->cpu[r->cpu], &x->walk[r->cpu], k.ts))
		return; /* kprof's own measurement (model/measure.c) */
	uint64_t w = k.pmc ? 1 : k.count;
	struct sample *e = sum_of(x->rp, x->s, k.pmc ? 1u + k.source : 0, r->cpu, k.ip);
	e->weight += w;
	e->count++;
	e->w2 += w * w;
}

static int cmp_sample(const void *a, const void *b);

static void samples_finish(void *ctx)
{
	struct samples_reader *x = ctx;

	kp_index_free(&x->s->ix);
	kp_sort(x->s->v, x->s->n, sizeof(*x->s->v), cmp_sample);
	free(x->walk);
	free(x);
}

void kp_hot_samples_reader(const struct kp_report *rp, struct kp_hot_samples **s, struct kp_report_reader *out)
{
	struct samples_reader *x = kp_xcalloc(1, sizeof(*x));

	*s = kp_xcalloc(1, sizeof(**s));
	*x = (struct samples_reader){ .rp = rp, .s = *s, .walk = kp_xcalloc(rp->m->ncpus + 1, sizeof(*x->walk)) };
	*out = (struct kp_report_reader){ x, samples_begin, samples_take, samples_finish };
}

/* Samples (not sums) in v[0..n). */
static uint64_t samples_in(const struct sample *v, size_t n)
{
	uint64_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += v[i].count;
	return c;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->known != y->known)
		return x->known ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return kp_cmp_u64(x->ip, y->ip);
}

void kp_hot_samples_free(struct kp_hot_samples *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

int kp_hot_row_cmp(const void *a, const void *b)
{
	const struct kp_hot_row *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Rows of the known functions of samples v[0..n) (sorted by function) on
 * `cpu` (or every CPU when cpu < 0), heaviest first; *outside gets the
 * samples in no function.  Returns the number of rows. */
static size_t make_rows(const struct sample *v, size_t n, long cpu, struct kp_hot_row *rows, struct kp_hot_row *outside)
{
	size_t nr = 0;

	*outside = (struct kp_hot_row){ 0 };
	for (size_t i = 0; i < n; i++) {
		const struct sample *x = &v[i];
		if (cpu >= 0 && x->cpu != (uint32_t)cpu)
			continue;
		struct kp_hot_row *r = outside;
		if (x->known) {
			if (!nr || rows[nr - 1].func != x->func)
				rows[nr++] = (struct kp_hot_row){ .known = true, .func = x->func };
			r = &rows[nr - 1];
		}
		r->weight += x->weight;
		r->w2 += (double)x->w2;
		r->count += x->count;
	}
	kp_sort(rows, nr, sizeof(*rows), kp_hot_row_cmp);
	return nr;
}

/* The function's name; with its address when another row of the table
 * is a different function of the same name (static functions of two
 * files, say). */
static const char *row_name(const struct kp_symbols *syms, const struct kp_hot_row *r,
			    const struct kp_hot_row *all, size_t nall, char *buf, size_t size)
{
	const char *name, *other;

	if (!kp_symbols_lookup(syms, r->func, &name, NULL, NULL))
		return "?";
	for (size_t i = 0; i < nall; i++)
		if (all[i].known && all[i].func != r->func &&
		    kp_symbols_lookup(syms, all[i].func, &other, NULL, NULL) && !strcmp(name, other)) {
			snprintf(buf, size, "%s (0x%" PRIx64 ")", name, r->func);
			return buf;
		}
	return name;
}

void kp_hot_row_line(FILE *f, const struct kp_hot_row *r, uint64_t total, bool weighted,
		     const struct kp_hot_row *all, const char *name)
{
	char p[32], cut[256], ci[32];
	int col;

	if (weighted)
		col = fprintf(f, "  %10" PRIu64 " %8s %10" PRIu64 "  ", r->weight,
			      kp_pct(p, sizeof(p), r->weight, total, 2), r->count);
	else
		col = fprintf(f, "  %10" PRIu64 " %8s  ", r->count, kp_pct(p, sizeof(p), r->count, total, 2));
	if (all)
		col += fprintf(f, "%13s  ", weighted ? kp_share_ci_text(r->weight, all->weight, all->w2, ci, sizeof(ci))
						     : kp_share_ci_text(r->count, all->count, (double)all->count, ci,
									sizeof(ci)));
	fprintf(f, "%s\n", kp_cut(cut, sizeof(cut), name, (size_t)(KP_TEXT_WIDTH - col), "..."));
}

void kp_hot_rows(FILE *f, const struct kp_symbols *syms, const struct kp_hot_row *rows, size_t nr, size_t top,
		     uint64_t total, bool weighted, const struct kp_hot_row *all)
{
	struct kp_hot_row rest = { 0 };
	char buf[160];

	for (size_t i = 0; i < nr && i < top; i++)
		kp_hot_row_line(f, &rows[i], total, weighted, all, row_name(syms, &rows[i], rows, nr, buf, sizeof(buf)));
	for (size_t i = top; i < nr; i++) {
		rest.weight += rows[i].weight;
		rest.count += rows[i].count;
		rest.w2 += rows[i].w2;
	}
	if (nr > top) {
		snprintf(buf, sizeof(buf), "(%zu other function%s)", nr - top, nr - top == 1 ? "" : "s");
		kp_hot_row_line(f, &rest, total, weighted, all, buf);
	}
}

/* A table: the top `top` rows, a line for the rest, and the line for
 * samples outside any function (always shown when `always_outside`). */
static void hot_table(FILE *f, const struct kp_symbols *syms, const struct kp_hot_row *rows, size_t nr,
		      const struct kp_hot_row *outside, bool weighted, size_t top, bool always_outside)
{
	struct kp_hot_row all = *outside;

	for (size_t i = 0; i < nr; i++) {
		all.weight += rows[i].weight;
		all.count += rows[i].count;
		all.w2 += rows[i].w2;
	}
	uint64_t total = weighted ? all.weight : all.count;
	if (weighted)
		fprintf(f, "  %10s %8s %10s  %13s  %s\n", "periods", "%", "samples", "95% CI", "function");
	else
		fprintf(f, "  %10s %8s  %13s  %s\n", "samples", "%", "95% CI", "function");
	kp_hot_rows(f, syms, rows, nr, top, total, weighted, &all);
	if (always_outside || outside->count)
		kp_hot_row_line(f, outside, total, weighted, &all, "(outside any function)");
}

static void hot_group(FILE *f, const struct kp_report *rp, const struct sample *v, size_t n)
{
	struct kp_hot_row *rows = kp_xcalloc(n, sizeof(*rows)), outside;
	bool weighted = v[0].group == 0;
	uint64_t weight = 0;
	char sbuf[32];
	size_t nr;

	for (size_t i = 0; i < n; i++)
		weight += v[i].weight;
	if (weighted)
		fprintf(f, "SampledProfile (ProfileTime): %" PRIu64 " samples standing for %" PRIu64 " profile periods\n"
			   "(a sample's weight is its Count: the periods it stands for; %% of all periods; 95%% CI:\n"
			   "the share's Wilson interval, n being Kish's effective sample size for the weights)\n\n",
			samples_in(v, n), weight);
	else
		fprintf(f, "PmcInterrupt %s: %" PRIu64 " samples (one per counter overflow; 95%% CI: the share's Wilson\n"
			   "interval)\n\n", kp_source_name(v[0].group - 1, sbuf, sizeof(sbuf)), samples_in(v, n));
	nr = make_rows(v, n, -1, rows, &outside);
	fprintf(f, "All CPUs, top %d functions:\n", TOP_FUNCTIONS);
	hot_table(f, rp->syms, rows, nr, &outside, weighted, TOP_FUNCTIONS, true);
	for (uint32_t c = 0; c < rp->log->ncpus; c++) {
		nr = make_rows(v, n, c, rows, &outside);
		if (!nr && !outside.count)
			continue;
		fprintf(f, "\nCPU %u, top %d:\n", c, TOP_PER_CPU);
		hot_table(f, rp->syms, rows, nr, &outside, weighted, TOP_PER_CPU, false);
	}
	fputc('\n', f);
	free(rows);
}

void kp_report_hot_spots(FILE *f, const struct kp_report *rp)
{
	const struct kp_hot_samples *s = rp->cache->samples; /* gathered (walk.c) */

	kp_report_section(f, "Hot spots");
	if (rp->m->measure_samples)
		fprintf(f, "Left out: %" PRIu64 " samples of kprof's own measurement (KprofMeasure: scenario=profile's\n"
			   "interrupt cost, whose self-IPIs write real samples, at arch_send_ipi).\n\n",
			rp->m->measure_samples);
	if (!s->n) {
		fprintf(f, "No SampledProfile or PmcInterrupt records%s.\n",
			kp_report_group_on(rp->log, PERF_PROFILE) || kp_report_group_on(rp->log, PERF_PMC_PROFILE)
				? " in the trace"
				: ": the run's trace= had neither profile nor pmc");
		return;
	}
	for (size_t i = 0; i < s->n;) {
		size_t j = i;
		while (j < s->n && s->v[j].group == s->v[i].group)
			j++;
		hot_group(f, rp, s->v + i, j - i);
		i = j;
	}
}

/* The hottest functions of each sample group, all CPUs. */
void kp_report_hot_summary(FILE *f, const struct kp_report *rp)
{
	const struct kp_hot_samples *s = rp->cache->samples; /* gathered (walk.c) */

	if (!s->n) {
		fprintf(f, "hot spots: no samples in the trace\n");
		return;
	}
	if (rp->m->measure_samples)
		fprintf(f, "hot spots: %" PRIu64 " samples of kprof's own measurement left out (KprofMeasure)\n",
			rp->m->measure_samples);
	for (size_t i = 0; i < s->n;) {
		size_t j = i;
		char sbuf[32];
		while (j < s->n && s->v[j].group == s->v[i].group)
			j++;
		struct kp_hot_row *rows = kp_xcalloc(j - i, sizeof(*rows)), outside;
		size_t nr = make_rows(s->v + i, j - i, -1, rows, &outside);
		fprintf(f, "\nhottest functions (%s, %" PRIu64 " samples):\n",
			s->v[i].group ? kp_source_name(s->v[i].group - 1, sbuf, sizeof(sbuf)) : "ProfileTime",
			samples_in(s->v + i, j - i));
		hot_table(f, rp->syms, rows, nr, &outside, s->v[i].group == 0, TOP_SUMMARY, false);
		free(rows);
		i = j;
	}
}

size_t kp_hot_profile_rows(const struct kp_report *rp, struct kp_hot_row **rows, struct kp_hot_row *all)
{
	const struct kp_hot_samples *s = rp->cache->samples; /* gathered (walk.c) */
	size_t n = 0, nr;

	while (n < s->n && s->v[n].group == 0)
		n++;
	*rows = kp_xcalloc(n ? n : 1, sizeof(**rows));
	nr = make_rows(s->v, n, -1, *rows, all);
	for (size_t i = 0; i < nr; i++) { /* the table's totals, as hot_table() sums them */
		all->weight += (*rows)[i].weight;
		all->count += (*rows)[i].count;
		all->w2 += (*rows)[i].w2;
	}
	return nr;
}
