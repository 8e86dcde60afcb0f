/*
 * report_hot.c - the hot-spots and profile-objects sections of `kprof
 * report`: SampledProfile samples (weighted by Count, the periods each
 * stands for) and PmcInterrupt samples by function, in total and per CPU;
 * each KprofProfileObject's buckets summed per function; and the short
 * form for --summary.
 */
#include "tools/kprof/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/exit_status.h"
#include "tools/kprof/fields.h"
#include "tools/kprof/output.h"
#include "tools/kprof/report_internal.h"

/* ------------------------------------------------------------ 2. hot spots */

struct sample {
	uint32_t group;   /* 0: SampledProfile; 1 + ProfileSource: PmcInterrupt */
	uint32_t cpu;
	bool known;       /* in a function                                      */
	uint64_t func;    /* its start (0 when not known)                       */
	uint64_t weight;  /* periods (SampledProfile) or 1                      */
};

struct samples {
	struct sample *v;
	size_t n, cap;
};

struct row {
	bool known;
	uint64_t func;
	uint64_t weight, count;
};

static void push_sample(struct samples *s, const struct sample *x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->v = kp_xrealloc(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n++] = *x;
}

static void collect_samples(struct kp_log *log, const struct kp_symbols *syms, struct samples *s)
{
	struct kp_merge m;
	struct kp_record r;

	kp_merge_init(&m, log);
	while (kp_merge_next(&m, &r)) {
		struct sample x = { .cpu = r.cpu, .weight = 1 };
		uint64_t ip;
		if (r.h.HookId == PERFINFO_LOG_TYPE_SAMPLED_PROFILE &&
		    r.payload_size >= sizeof(PERFINFO_SAMPLED_PROFILE_INFORMATION)) {
			PERFINFO_SAMPLED_PROFILE_INFORMATION p;
			memcpy(&p, r.payload, sizeof(p));
			ip = p.InstructionPointer;
			x.weight = p.Count;
		} else if (r.h.HookId == PERFINFO_LOG_TYPE_PMC_INTERRUPT &&
			   r.payload_size >= sizeof(PERFINFO_PMC_SAMPLE)) {
			PERFINFO_PMC_SAMPLE p;
			memcpy(&p, r.payload, sizeof(p));
			ip = p.InstructionPointer;
			x.group = 1u + p.ProfileSource;
		} else {
			continue;
		}
		x.known = kp_symbols_lookup(syms, ip, NULL, &x.func, NULL);
		if (!x.known)
			x.func = 0;
		push_sample(s, &x);
	}
	kp_merge_free(&m);
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
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Heaviest first; ties: more samples, then the lower address. */
static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* Rows of the known functions of samples v[0..n) (sorted by function) on
 * `cpu` (or every CPU when cpu < 0), heaviest first; *outside gets the
 * samples in no function.  Returns the number of rows. */
static size_t make_rows(const struct sample *v, size_t n, long cpu, struct row *rows, struct row *outside)
{
	size_t nr = 0;

	*outside = (struct row){ 0 };
	for (size_t i = 0; i < n; i++) {
		const struct sample *x = &v[i];
		if (cpu >= 0 && x->cpu != (uint32_t)cpu)
			continue;
		struct row *r = outside;
		if (x->known) {
			if (!nr || rows[nr - 1].func != x->func)
				rows[nr++] = (struct row){ .known = true, .func = x->func };
			r = &rows[nr - 1];
		}
		r->weight += x->weight;
		r->count++;
	}
	qsort(rows, nr, sizeof(*rows), cmp_row);
	return nr;
}

/* The function's name; with its address when another row of the table
 * is a different function of the same name (static functions of two
 * files, say). */
static const char *row_name(const struct kp_symbols *syms, const struct row *r, const struct row *all, size_t nall,
			    char *buf, size_t size)
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

static void hot_row(FILE *f, const struct row *r, uint64_t total, bool weighted, const char *name)
{
	char p[32];
	int col;

	if (weighted)
		col = fprintf(f, "  %10" PRIu64 " %8s %10" PRIu64 "  ", r->weight, kp_rp_pct(r->weight, total, p, sizeof(p)),
			      r->count);
	else
		col = fprintf(f, "  %10" PRIu64 " %8s  ", r->count, kp_rp_pct(r->count, total, p, sizeof(p)));
	kp_rp_name_cut(f, name, KP_REPORT_WIDTH - col);
	fputc('\n', f);
}

/* Rows [0, top) by name, then one line for the rest. */
static void top_rows(FILE *f, const struct kp_symbols *syms, const struct row *rows, size_t nr, size_t top,
		     uint64_t total, bool weighted)
{
	struct row rest = { 0 };
	char buf[160];

	for (size_t i = 0; i < nr && i < top; i++)
		hot_row(f, &rows[i], total, weighted, row_name(syms, &rows[i], rows, nr, buf, sizeof(buf)));
	for (size_t i = top; i < nr; i++) {
		rest.weight += rows[i].weight;
		rest.count += rows[i].count;
	}
	if (nr > top) {
		snprintf(buf, sizeof(buf), "(%zu other function%s)", nr - top, nr - top == 1 ? "" : "s");
		hot_row(f, &rest, total, weighted, buf);
	}
}

/* A table: the top `top` rows, a line for the rest, and the line for
 * samples outside any function (always shown when `always_outside`). */
static void hot_table(FILE *f, const struct kp_symbols *syms, const struct row *rows, size_t nr, const struct row *outside,
		      bool weighted, size_t top, bool always_outside)
{
	uint64_t total = weighted ? outside->weight : outside->count;

	for (size_t i = 0; i < nr; i++)
		total += weighted ? rows[i].weight : rows[i].count;
	if (weighted)
		fprintf(f, "  %10s %8s %10s  %s\n", "periods", "%", "samples", "function");
	else
		fprintf(f, "  %10s %8s  %s\n", "samples", "%", "function");
	top_rows(f, syms, rows, nr, top, total, weighted);
	if (always_outside || outside->count)
		hot_row(f, outside, total, weighted, "(outside any function)");
}

static void hot_group(FILE *f, struct kp_log *log, const struct kp_symbols *syms, const struct sample *v, size_t n)
{
	struct row *rows = kp_xcalloc(n, sizeof(*rows)), outside;
	bool weighted = v[0].group == 0;
	uint64_t weight = 0;
	char sbuf[32];
	size_t nr;

	for (size_t i = 0; i < n; i++)
		weight += v[i].weight;
	if (weighted)
		fprintf(f, "SampledProfile (ProfileTime): %zu samples standing for %" PRIu64 " profile periods\n"
			   "(a sample's weight is its Count: the periods it stands for; %% of all periods)\n\n", n, weight);
	else
		fprintf(f, "PmcInterrupt %s: %zu samples (one per counter overflow)\n\n",
			kp_rp_source_name(v[0].group - 1, sbuf, sizeof(sbuf)), n);
	nr = make_rows(v, n, -1, rows, &outside);
	fprintf(f, "All CPUs, top %d functions:\n", TOP_FUNCTIONS);
	hot_table(f, syms, rows, nr, &outside, weighted, TOP_FUNCTIONS, true);
	for (uint32_t c = 0; c < log->ncpus; c++) {
		nr = make_rows(v, n, c, rows, &outside);
		if (!nr && !outside.count)
			continue;
		fprintf(f, "\nCPU %u, top %d:\n", c, TOP_PER_CPU);
		hot_table(f, syms, rows, nr, &outside, weighted, TOP_PER_CPU, false);
	}
	fputc('\n', f);
	free(rows);
}


void kp_rp_hot_spots(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	struct samples s = { 0 };

	kp_report_section(f, "Hot spots");
	collect_samples(log, syms, &s);
	if (!s.n) {
		fprintf(f, "No SampledProfile or PmcInterrupt records%s.\n",
			kp_rp_group_on(log, PERF_PROFILE) || kp_rp_group_on(log, PERF_PMC_PROFILE)
				? " in the trace"
				: ": the run's trace= had neither profile nor pmc");
		return;
	}
	qsort(s.v, s.n, sizeof(*s.v), cmp_sample);
	for (size_t i = 0; i < s.n;) {
		size_t j = i;
		while (j < s.n && s.v[j].group == s.v[i].group)
			j++;
		hot_group(f, log, syms, s.v + i, j - i);
		i = j;
	}
	free(s.v);
}

/* ------------------------------------------------------------ 3. profile objects */

static void affinity_text(const uint64_t aff[4], char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = 0;
	for (unsigned c = 0; c < 256 && len < size; c++) {
		if (!(aff[c / 64] >> (c % 64) & 1))
			continue;
		unsigned e = c;
		while (e + 1 < 256 && (aff[(e + 1) / 64] >> ((e + 1) % 64) & 1))
			e++;
		if (e == c)
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, e);
		c = e;
	}
	if (!buf[0])
		snprintf(buf, size, "none");
}

static int cmp_row_addr(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->known != y->known)
		return x->known ? -1 : 1;
	return x->func < y->func ? -1 : x->func > y->func;
}

/* The object's buckets summed by the function each bucket starts in. */
static size_t bucket_rows(const struct kp_symbols *syms, const KPROF_PROFILE_OBJECT *po, const uint8_t *buckets,
			  size_t nb, struct row *rows, struct row *outside, uint64_t *sum)
{
	unsigned shift = po->BucketShift + 2u;
	size_t nr = 0;

	*outside = (struct row){ 0 };
	*sum = 0;
	for (size_t i = 0; i < nb; i++) {
		uint32_t c;
		memcpy(&c, buckets + 4 * i, 4);
		if (!c)
			continue;
		*sum += c;
		uint64_t addr = po->RangeBase + (shift < 64 ? (uint64_t)i << shift : 0);
		struct row x = { .weight = c, .count = 1 };
		x.known = kp_symbols_lookup(syms, addr, NULL, &x.func, NULL);
		if (!x.known) {
			outside->weight += c;
			outside->count++;
			continue;
		}
		rows[nr++] = x;
	}
	qsort(rows, nr, sizeof(*rows), cmp_row_addr);
	size_t out = 0;
	for (size_t i = 0; i < nr; i++) {
		if (out && rows[out - 1].func == rows[i].func) {
			rows[out - 1].weight += rows[i].weight;
			rows[out - 1].count += rows[i].count;
		} else {
			rows[out++] = rows[i];
		}
	}
	qsort(rows, out, sizeof(*rows), cmp_row);
	return out;
}

/* The non-inclusive end of a range: as the end of the function its last
 * byte is in ("name+0x43") when there is one. */
static const char *range_end(const struct kp_symbols *syms, uint64_t limit, char *buf, size_t size)
{
	const char *name;
	uint64_t start;

	if (limit && kp_symbols_lookup(syms, limit - 1, &name, &start, NULL))
		snprintf(buf, size, "%s+0x%" PRIx64, name, limit - start);
	else
		snprintf(buf, size, "0x%" PRIx64, limit);
	return buf;
}

static void object_head(FILE *f, const struct kp_symbols *syms, const KPROF_PROFILE_OBJECT *po, size_t nb)
{
	char a[128], b[128], cpus[200], sbuf[32], line[600];

	snprintf(line, sizeof(line), "Profile object %u: %s, source %s, CPUs %s, range %s .. %s (0x%" PRIx64
		 "..0x%" PRIx64 ", limit not included), %u-byte buckets, %u buckets",
		 po->ProfileId, (po->Flags & KPROF_PROFILE_OBJECT_PROCESS) ? "per process" : "global",
		 kp_rp_source_name(po->Source, sbuf, sizeof(sbuf)), (affinity_text(po->Affinity, cpus, sizeof(cpus)), cpus),
		 kp_symbols_format(syms, po->RangeBase, a, sizeof(a)), range_end(syms, po->RangeLimit, b, sizeof(b)),
		 po->RangeBase, po->RangeLimit, 1u << ((po->BucketShift + 2u) & 31), po->BucketCount);
	kp_rp_wrapped(f, "", 0, line);
	if (po->Flags & KPROF_PROFILE_OBJECT_PROCESS)
		fprintf(f, "  process %u only\n", po->ProcessId);
	if (nb < po->BucketCount)
		fprintf(f, "  TRUNCATED: the record holds %zu of its %u buckets (the record size limit)\n", nb,
			po->BucketCount);
}

static void report_object(FILE *f, const struct kp_symbols *syms, const struct kp_record *r)
{
	KPROF_PROFILE_OBJECT po;
	size_t nb = (r->payload_size - sizeof(po)) / 4, nr;
	struct row *rows = kp_xcalloc(nb, sizeof(*rows)), outside;
	uint64_t sum;

	memcpy(&po, r->payload, sizeof(po));
	object_head(f, syms, &po, nb);
	nr = bucket_rows(syms, &po, r->payload + sizeof(po), nb, rows, &outside, &sum);
	fprintf(f, "  Hits %" PRIu64 ", buckets sum to %" PRIu64 "%s\n", po.Hits, sum,
		sum == po.Hits ? "" : (nb < po.BucketCount ? " (truncated)" : " (DIFFERENT from Hits)"));
	if (sum) {
		fprintf(f, "  %10s %8s %10s  %s\n", "hits", "%", "buckets", "function (the bucket's start address in it)");
		top_rows(f, syms, rows, nr, TOP_BUCKET_FUNCS, sum, true);
		if (outside.count)
			hot_row(f, &outside, sum, true, "(outside any function)");
	}
	fputc('\n', f);
	free(rows);
}

void kp_rp_profile_objects(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	struct kp_merge m;
	struct kp_record r;
	size_t n = 0;

	kp_report_section(f, "Profile objects");
	kp_merge_init(&m, log);
	while (kp_merge_next(&m, &r)) {
		if (r.h.HookId != KPROF_LOG_TYPE_PROFILE_OBJECT || r.payload_size < sizeof(KPROF_PROFILE_OBJECT))
			continue;
		report_object(f, syms, &r);
		n++;
	}
	kp_merge_free(&m);
	if (!n)
		fprintf(f, "No KprofProfileObject records (written when scenario=profile stops its objects, "
			   "with trace=profile).\n");
}

/* The hottest functions of each sample group, all CPUs. */
void kp_rp_hot_summary(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	struct samples s = { 0 };

	collect_samples(log, syms, &s);
	if (!s.n) {
		fprintf(f, "hot spots: no samples in the trace\n");
		return;
	}
	qsort(s.v, s.n, sizeof(*s.v), cmp_sample);
	for (size_t i = 0; i < s.n;) {
		size_t j = i;
		char sbuf[32];
		while (j < s.n && s.v[j].group == s.v[i].group)
			j++;
		struct row *rows = kp_xcalloc(j - i, sizeof(*rows)), outside;
		size_t nr = make_rows(s.v + i, j - i, -1, rows, &outside);
		fprintf(f, "\nhottest functions (%s, %zu samples):\n",
			s.v[i].group ? kp_rp_source_name(s.v[i].group - 1, sbuf, sizeof(sbuf)) : "ProfileTime", j - i);
		hot_table(f, syms, rows, nr, &outside, s.v[i].group == 0, TOP_SUMMARY, false);
		free(rows);
		i = j;
	}
	free(s.v);
}
