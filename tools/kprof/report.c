/*
 * report.c - `kprof report LOG --kernel ELF [-o FILE]`: the report people
 * read, in sections:
 *
 *   1. the run, and up front what was lost or damaged ("nothing lost" when so)
 *   2. hot spots: SampledProfile and PmcInterrupt samples by function
 *   3. profile objects: each KprofProfileObject's buckets by function
 *   4. locks, 5. resources (report_locks.c)
 *   6. threads: CPU time, switches and why they left the CPU (CSwitch)
 *   7. CPUs: busy and idle shares
 *
 * Lines stay within KP_REPORT_WIDTH columns, and every order is total
 * (ties broken by address or id), so the same log and kernel always give
 * the same bytes: tests/tools/test_report compares them with golden files.
 */
#include "tools/kprof/report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/exit_status.h"
#include "tools/kprof/fields.h"
#include "tools/kprof/output.h"

#define TOP_FUNCTIONS    20 /* hot spots, all CPUs                       */
#define TOP_PER_CPU      5  /* hot spots, each CPU                       */
#define TOP_SUMMARY      5  /* --summary: functions and threads          */
#define TOP_BUCKET_FUNCS 20 /* functions listed per profile object       */
#define REASONS          256

/* ------------------------------------------------------------ helpers */

void kp_report_section(FILE *f, const char *title)
{
	int n = fprintf(f, "\n== %s ", title) - 1;
	for (; n < KP_REPORT_WIDTH; n++)
		fputc('=', f);
	fputs("\n\n", f);
}

/* Allocation that cannot fail quietly: out of memory ends the tool. */
static void *xrealloc(void *p, size_t n, size_t size)
{
	p = realloc(p, (n ? n : 1) * size);
	if (!p) {
		perror("kprof");
		exit(3);
	}
	return p;
}

static void *xcalloc(size_t n, size_t size)
{
	return memset(xrealloc(NULL, n, size), 0, (n ? n : 1) * size);
}

/* value * scale / hz with three decimals, e.g. "12.345"; "?" without a
 * TSC rate. */
static const char *scaled(const struct kp_log *log, uint64_t cycles, uint64_t scale, char *buf, size_t size)
{
	uint64_t hz = log->have_header ? log->header.tsc_hz : 0;
	if (!hz) {
		snprintf(buf, size, "?");
		return buf;
	}
	unsigned __int128 milli = (unsigned __int128)cycles * scale * 1000u / hz;
	snprintf(buf, size, "%" PRIu64 ".%03u", (uint64_t)(milli / 1000u), (unsigned)(milli % 1000u));
	return buf;
}

const char *kp_report_us(const struct kp_log *log, uint64_t cycles, char *buf, size_t size)
{
	return scaled(log, cycles, 1000000u, buf, size);
}

static const char *ms(const struct kp_log *log, uint64_t cycles, char *buf, size_t size)
{
	return scaled(log, cycles, 1000u, buf, size);
}

/* part / whole as "12.34%" (two decimals, rounded down). */
static const char *pct(uint64_t part, uint64_t whole, char *buf, size_t size)
{
	uint64_t bp = whole ? (uint64_t)((unsigned __int128)part * 10000u / whole) : 0;
	snprintf(buf, size, "%" PRIu64 ".%02u%%", bp / 100u, (unsigned)(bp % 100u));
	return buf;
}

/* Text after a label of `indent` columns, wrapped at spaces to the width. */
static void wrapped(FILE *f, const char *label, int indent, const char *text)
{
	int col = fprintf(f, "%-*s", indent, label);
	const char *p = text;

	while (*p) {
		const char *sp = strchr(p, ' ');
		int len = sp ? (int)(sp - p) : (int)strlen(p);
		if (col > indent && col + 1 + len > KP_REPORT_WIDTH)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		else if (col > indent)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", len, p);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* The name of a field's value in an event's description, or NULL. */
static const char *value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v)
{
	const struct kp_event *e = kp_event_find(hook, version);
	for (unsigned i = 0; e && i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, field))
			return kp_field_value_name(&e->fields[i], v);
	return NULL;
}

static const char *source_name(unsigned source, char *buf, size_t size)
{
	const char *n = kprofile_source_name(source);
	if (n)
		return n;
	snprintf(buf, size, "source %u", source);
	return buf;
}

/* A function name cut to `room` columns ("..." at the end when cut). */
static void name_cut(FILE *f, const char *name, int room)
{
	int len = (int)strlen(name);
	if (len <= room || room < 4)
		fprintf(f, "%s", name);
	else
		fprintf(f, "%.*s...", room - 3, name);
}

/* Each CPU's first and last record time stamps. */
struct span {
	bool any;
	uint64_t first, last;
};

static void spans(struct kp_log *log, struct span *s)
{
	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		s[i] = (struct span){ 0 };
		kp_cursor_init(&c, log, i);
		while (kp_cursor_next(&c, &r)) {
			uint64_t ts = r.h.TimeStamp;
			if (!s[i].any || ts < s[i].first)
				s[i].first = ts;
			if (!s[i].any || ts > s[i].last)
				s[i].last = ts;
			s[i].any = true;
		}
	}
}

/* ------------------------------------------------------------ 1. header */

static const char *status_name(uint32_t status)
{
	switch (status) {
	case KPROF_EXIT_SUCCESS: return "success";
	case KPROF_EXIT_FAILURE: return "FAILURE (a scenario or self-test check failed)";
	case KPROF_EXIT_PANIC: return "PANIC (exception or bug check)";
	case KPROF_EXIT_CONFIG: return "CONFIG (the command line was rejected)";
	case KPROF_EXIT_LOADER: return "LOADER (the UEFI loader could not start the kernel)";
	default: return "unknown status";
	}
}

static void header_run(FILE *f, struct kp_log *log, const struct kp_options *o)
{
	const struct kprof_run_header *h = &log->header;
	char line[400];

	fprintf(f, "kprof report\n\n");
	fprintf(f, "%-10s%s\n", "log", o->input);
	fprintf(f, "%-10s%s\n", "kernel", o->kernel);
	if (!log->have_header) {
		fprintf(f, "%-10s%s\n", "run", "NO RUN HEADER: CPU count, TSC rate and command line unknown");
	} else {
		snprintf(line, sizeof(line), "%u CPU%s, TSC %" PRIu64 " Hz, trace mode %s, %u sub-buffers of %u KiB per CPU",
			 h->cpu_count, h->cpu_count == 1 ? "" : "s", h->tsc_hz,
			 h->trace_mode == KPROF_TRACE_DUMP ? "dump" : "stream", h->buffers_per_cpu, h->buffer_size / 1024);
		wrapped(f, "run", 10, line);
		wrapped(f, "cmdline", 10, log->cmdline[0] ? log->cmdline : "(empty: defaults)");
		fprintf(f, "%-10s%s\n", "build", log->build_id[0] ? log->build_id : "(none)");
	}
	if (log->have_run_end)
		fprintf(f, "%-10s%s (0x%02x)\n", "ended", status_name(log->run_end.status), log->run_end.status);
	else
		fprintf(f, "%-10s%s\n", "ended", "NO RUN END FRAME: the run did not finish sending (see frames)");
}

static void header_trace(FILE *f, struct kp_log *log, const struct kp_totals *t, const struct span *s)
{
	uint64_t first = 0, last = 0;
	bool any = false;
	char buf[40], line[200];

	for (uint32_t i = 0; i < log->ncpus; i++) {
		if (!s[i].any)
			continue;
		if (!any || s[i].first < first)
			first = s[i].first;
		if (!any || s[i].last > last)
			last = s[i].last;
		any = true;
	}
	snprintf(line, sizeof(line), "%" PRIu64 " records from %u CPU%s, %zu frames, %s ms from the first record to the last",
		 t->records, t->cpus_with_records, t->cpus_with_records == 1 ? "" : "s", log->frames,
		 ms(log, last - first, buf, sizeof(buf)));
	wrapped(f, "trace", 10, line);
}

/* "0, 3" - the CPUs without an end frame (their drop counts never came);
 * empty when every CPU's came. */
static void cpus_without_end(const struct kp_log *log, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < log->ncpus && len < size; i++)
		if (!log->cpus[i].have_end)
			len += (size_t)snprintf(buf + len, size - len, "%s%u", len ? ", " : "", i);
}

static void loss_counts(FILE *f, struct kp_log *log, const struct kp_totals *t)
{
	char line[400];

	snprintf(line, sizeof(line), "LOST %" PRIu64 " records: buffers full %" PRIu64 ", too large %" PRIu64
		 ", not started %" PRIu64 "%s", t->lost_total, t->lost[KPROF_LOSS_BUFFERS_FULL],
		 t->lost[KPROF_LOSS_TOO_LARGE], t->lost[KPROF_LOSS_NOT_STARTED],
		 t->stuck ? "; some reserved records were never committed" : "");
	wrapped(f, "lost", 10, line);
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		uint64_t n = 0;
		for (int k = 0; c->have_end && k < KPROF_LOSS_CAUSES; k++)
			n += c->end.lost[k];
		if (n || (c->have_end && c->end.stuck))
			fprintf(f, "%-10scpu %u: %" PRIu64 " lost, %" PRIu64 " never committed\n", "", i, n,
				c->have_end ? c->end.stuck : 0);
	}
}

/* Records the kernel dropped (its end frames count them), then frames
 * damaged or missing on the way: "nothing lost" only when both are known
 * to be none. */
static void header_losses(FILE *f, struct kp_log *log, const struct kp_totals *t)
{
	char line[400], missing[200];

	cpus_without_end(log, missing, sizeof(missing));
	if (t->lost_total || t->stuck)
		loss_counts(f, log, t);
	if (missing[0]) {
		bool some_end = false;
		for (uint32_t i = 0; i < log->ncpus; i++)
			some_end |= log->cpus[i].have_end;
		snprintf(line, sizeof(line), "UNKNOWN for CPU %s (no end frame: the kernel's count of dropped records "
			 "never arrived)%s", missing, some_end && !t->lost_total && !t->stuck ? "; none dropped on the others" : "");
		wrapped(f, t->lost_total || t->stuck ? "" : "lost", 10, line);
	} else if (!log->ncpus) {
		fprintf(f, "%-10s%s\n", "lost", "UNKNOWN: no CPU sent any frame");
	} else if (!t->lost_total && !t->stuck) {
		fprintf(f, "%-10s%s\n", "lost", log->nissues ? "the kernel dropped no records (frames below were lost "
							  "or damaged on the way)"
							: "nothing lost: every record written was recorded");
	}
	if (!log->nissues) {
		fprintf(f, "%-10s%s\n", "frames", "no corrupt, truncated or missing frames");
		return;
	}
	snprintf(line, sizeof(line), "%zu PROBLEM%s: the records of damaged or missing frames are not in this report",
		 log->nissues, log->nissues == 1 ? "" : "S");
	wrapped(f, "frames", 10, line);
	for (size_t i = 0; i < log->nissues; i++) {
		const struct kp_issue *is = &log->issues[i];
		snprintf(line, sizeof(line), "%s at byte %" PRIu64 ": %s", kp_issue_kind_name(is->kind), is->offset,
			 is->what);
		wrapped(f, "", 12, line);
	}
}

static void header_cpus(FILE *f, struct kp_log *log, const uint64_t *per_cpu)
{
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		fprintf(f, "%-10scpu %u: %" PRIu64 " records in %zu buffer frame%s, %s\n", i ? "" : "cpus", i, per_cpu[i],
			c->nbuffers, c->nbuffers == 1 ? "" : "s",
			c->have_end ? "end frame received" : "NO END FRAME (its losses are unknown)");
	}
}

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
		s->v = xrealloc(s->v, s->cap, sizeof(*s->v));
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
		col = fprintf(f, "  %10" PRIu64 " %8s %10" PRIu64 "  ", r->weight, pct(r->weight, total, p, sizeof(p)),
			      r->count);
	else
		col = fprintf(f, "  %10" PRIu64 " %8s  ", r->count, pct(r->count, total, p, sizeof(p)));
	name_cut(f, name, KP_REPORT_WIDTH - col);
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
	struct row *rows = xcalloc(n, sizeof(*rows)), outside;
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
			source_name(v[0].group - 1, sbuf, sizeof(sbuf)), n);
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

static bool group_on(const struct kp_log *log, uint32_t mask)
{
	PERFINFO_GROUPMASK g;
	if (!log->have_header)
		return true;
	memcpy(g.Masks, log->header.group_masks, sizeof(g.Masks));
	return perfinfo_is_group_on(&g, mask);
}

static void report_hot_spots(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	struct samples s = { 0 };

	kp_report_section(f, "Hot spots");
	collect_samples(log, syms, &s);
	if (!s.n) {
		fprintf(f, "No SampledProfile or PmcInterrupt records%s.\n",
			group_on(log, PERF_PROFILE) || group_on(log, PERF_PMC_PROFILE)
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
		 source_name(po->Source, sbuf, sizeof(sbuf)), (affinity_text(po->Affinity, cpus, sizeof(cpus)), cpus),
		 kp_symbols_format(syms, po->RangeBase, a, sizeof(a)), range_end(syms, po->RangeLimit, b, sizeof(b)),
		 po->RangeBase, po->RangeLimit, 1u << ((po->BucketShift + 2u) & 31), po->BucketCount);
	wrapped(f, "", 0, line);
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
	struct row *rows = xcalloc(nb, sizeof(*rows)), outside;
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

static void report_profile_objects(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
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

/* ------------------------------------------------------------ 6. threads */

struct thread {
	uint32_t id;
	bool named;
	char name[17], process[17];
	uint64_t cycles;          /* on a CPU                                     */
	uint64_t in;              /* switched in                                  */
	uint64_t out;             /* switched out                                 */
	bool have_prio;
	int pmin, pmax;
	uint32_t max_wait;        /* NewThreadWaitTime, clock ticks               */
	uint32_t reasons[REASONS];/* OldThreadWaitReason when it left             */
};

struct threads {
	struct thread *v;
	size_t n, cap;
	size_t *slots;            /* hash of ids: index + 1, 0 empty              */
	size_t nslots;
};

static size_t slot_of(const struct threads *t, uint32_t id)
{
	size_t i = (id * 2654435761u) & (t->nslots - 1);
	while (t->slots[i] && t->v[t->slots[i] - 1].id != id)
		i = (i + 1) & (t->nslots - 1);
	return i;
}

static void rehash(struct threads *t)
{
	free(t->slots);
	t->nslots = t->nslots ? t->nslots * 2 : 256;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	for (size_t i = 0; i < t->n; i++)
		t->slots[slot_of(t, t->v[i].id)] = i + 1;
}

static struct thread *thread_get(struct threads *t, uint32_t id)
{
	if (!t->nslots || 2 * (t->n + 1) > t->nslots)
		rehash(t);
	size_t s = slot_of(t, id);
	if (t->slots[s])
		return &t->v[t->slots[s] - 1];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->v = xrealloc(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n] = (struct thread){ .id = id };
	t->slots[s] = ++t->n;
	return &t->v[t->n - 1];
}

static void thread_prio(struct thread *th, int prio)
{
	if (!th->have_prio || prio < th->pmin)
		th->pmin = prio;
	if (!th->have_prio || prio > th->pmax)
		th->pmax = prio;
	th->have_prio = true;
}

/* What each CPU was doing, switch by switch. */
struct cpu_run {
	bool any_switch;
	uint32_t cur;             /* thread on the CPU since `since`              */
	uint64_t since;
	uint64_t idle;            /* cycles the idle thread ran                   */
	uint64_t switches;
	uint64_t mismatches;      /* old thread not the one switched in before    */
};

struct sched {
	struct threads threads;
	struct cpu_run *cpus;
	struct span *spans;
	uint64_t switches;
};

static void credit(struct sched *s, uint32_t cpu, uint32_t id, uint64_t from, uint64_t to)
{
	uint64_t d = to > from ? to - from : 0;
	thread_get(&s->threads, id)->cycles += d;
	if (id == 0)
		s->cpus[cpu].idle += d;
}

static void on_cswitch(struct sched *s, const struct kp_record *r)
{
	struct cpu_run *c = &s->cpus[r->cpu];
	uint64_t ts = r->h.TimeStamp;
	WMI_CONTEXTSWAP cs;

	memcpy(&cs, r->payload, sizeof(cs));
	if (!c->any_switch)
		credit(s, r->cpu, cs.OldThreadId, s->spans[r->cpu].first, ts);
	else {
		credit(s, r->cpu, c->cur, c->since, ts);
		c->mismatches += c->cur != cs.OldThreadId;
	}
	c->any_switch = true;
	c->cur = cs.NewThreadId;
	c->since = ts;
	c->switches++;
	s->switches++;

	struct thread *nt = thread_get(&s->threads, cs.NewThreadId);
	nt->in++;
	thread_prio(nt, cs.NewThreadPriority);
	if (cs.NewThreadWaitTime > nt->max_wait)
		nt->max_wait = cs.NewThreadWaitTime;
	struct thread *ot = thread_get(&s->threads, cs.OldThreadId);
	ot->out++;
	thread_prio(ot, cs.OldThreadPriority);
	ot->reasons[cs.OldThreadWaitReason]++;
}

static void copy_name(char *dst, const uint8_t *src)
{
	size_t i;
	for (i = 0; i < 16 && src[i]; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? (char)src[i] : '?';
	dst[i] = 0;
}

static void on_thread(struct sched *s, const struct kp_record *r)
{
	KPROF_THREAD kt;
	memcpy(&kt, r->payload, sizeof(kt));
	struct thread *th = thread_get(&s->threads, kt.ThreadId);
	if (th->named)
		return; /* the first record names it */
	th->named = true;
	copy_name(th->name, (const uint8_t *)kt.ThreadName);
	copy_name(th->process, (const uint8_t *)kt.ProcessName);
}

static void sched_collect(struct kp_log *log, struct sched *s)
{
	struct kp_merge m;
	struct kp_record r;

	kp_merge_init(&m, log);
	while (kp_merge_next(&m, &r)) {
		if (r.h.HookId == PERFINFO_LOG_TYPE_CONTEXTSWAP && r.payload_size >= sizeof(WMI_CONTEXTSWAP))
			on_cswitch(s, &r);
		else if (r.h.HookId == KPROF_LOG_TYPE_THREAD && r.payload_size >= sizeof(KPROF_THREAD))
			on_thread(s, &r);
	}
	kp_merge_free(&m);
	for (uint32_t i = 0; i < log->ncpus; i++)
		if (s->cpus[i].any_switch)
			credit(s, i, s->cpus[i].cur, s->cpus[i].since, s->spans[i].last);
}

/* id, name, process, cpu ms, %, in, prio (then out and wait). */
#define THREAD_COLUMNS "%6u %-16s %-16.16s %10s %7s %6" PRIu64 " %5s "

static int cmp_thread(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

#define TOP_REASONS 3

/* The reason (0..REASONS-1) it left the CPU for most often, not yet
 * used (ties: the lower reason); -1 when none is left. */
static int next_reason(const struct thread *th, const bool *used)
{
	int best = -1;
	for (int k = 0; k < REASONS; k++)
		if (!used[k] && th->reasons[k] && (best < 0 || th->reasons[k] > th->reasons[best]))
			best = k;
	return best;
}

/* Its top wait reasons with their counts, wrapped at the width onto lines
 * that start at column `indent`. */
static void reasons_text(FILE *f, const struct thread *th, int indent)
{
	bool used[REASONS] = { 0 };
	int col = indent, shown = 0, more = 0, k;
	char item[64];

	while ((k = next_reason(th, used)) >= 0) {
		used[k] = true;
		if (shown == TOP_REASONS) {
			more++;
			continue;
		}
		const char *n = value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadWaitReason",
					   (uint64_t)k);
		int len = n ? snprintf(item, sizeof(item), "%s %u", n, th->reasons[k])
			    : snprintf(item, sizeof(item), "reason %d %u", k, th->reasons[k]);
		if (shown && col + 2 + len > KP_REPORT_WIDTH - 1) {
			fprintf(f, ",\n%*s", indent, "");
			col = indent;
		} else if (shown) {
			col += fprintf(f, ", ");
		}
		col += fprintf(f, "%s", item);
		shown++;
	}
	if (more && col + 12 > KP_REPORT_WIDTH)
		fprintf(f, ",\n%*s+%d more", indent, "", more);
	else if (more)
		fprintf(f, ", +%d more", more);
	if (!shown)
		fputs("-", f);
}

static void thread_line(FILE *f, struct kp_log *log, const struct thread *th, uint64_t total)
{
	char name[24], proc[24], t[32], p[32], prio[32];

	if (th->named) {
		snprintf(name, sizeof(name), "%s", th->name[0] ? th->name : "(no name)");
		snprintf(proc, sizeof(proc), "%s", th->process);
	} else {
		snprintf(name, sizeof(name), th->id ? "thread %u" : "Idle", th->id);
		snprintf(proc, sizeof(proc), "%s", th->id ? "-" : "Idle");
	}
	if (th->have_prio && th->pmin != th->pmax)
		snprintf(prio, sizeof(prio), "%d-%d", th->pmin, th->pmax);
	else if (th->have_prio)
		snprintf(prio, sizeof(prio), "%d", th->pmin);
	else
		snprintf(prio, sizeof(prio), "-");
	fprintf(f, THREAD_COLUMNS "%6" PRIu64 " %4u\n", th->id, name, proc, ms(log, th->cycles, t, sizeof(t)),
		pct(th->cycles, total, p, sizeof(p)), th->in, prio, th->out, th->max_wait);
}

static void thread_reasons(FILE *f, const struct thread *th)
{
	char name[24];

	if (th->named)
		snprintf(name, sizeof(name), "%s", th->name[0] ? th->name : "(no name)");
	else
		snprintf(name, sizeof(name), "thread %u", th->id);
	reasons_text(f, th, fprintf(f, "%6u %-16s ", th->id, name));
	fputc('\n', f);
}

static void report_threads(FILE *f, struct kp_log *log, struct sched *s)
{
	uint64_t total = 0;
	uint32_t ncpus = 0;

	kp_report_section(f, "Threads");
	if (!s->switches) {
		fprintf(f, "No CSwitch records%s.\n",
			group_on(log, PERF_CONTEXT_SWITCH) ? " in the trace" : ": the run's trace= did not include cswitch");
		return;
	}
	for (uint32_t i = 0; i < log->ncpus; i++)
		if (s->cpus[i].any_switch) {
			total += s->spans[i].last - s->spans[i].first;
			ncpus++;
		}
	fprintf(f, "From %" PRIu64 " CSwitch records.  cpu ms: time on a CPU, from the switch in to the switch\n"
		   "out (a CPU's first thread from the CPU's first record on, its last one up to the last record);\n"
		   "%%: of the %u CPUs' traced time; in, out: times switched in and out; prio: priorities seen;\n"
		   "wait: longest NewThreadWaitTime (clock ticks since it last left a CPU).\n\n",
		s->switches, ncpus);
	qsort(s->threads.v, s->threads.n, sizeof(*s->threads.v), cmp_thread);
	fprintf(f, "%6s %-16s %-16s %10s %7s %6s %5s %6s %4s\n", "thread", "name", "process", "cpu ms", "%", "in",
		"prio", "out", "wait");
	for (size_t i = 0; i < s->threads.n; i++)
		if (s->threads.v[i].in || s->threads.v[i].out)
			thread_line(f, log, &s->threads.v[i], total);
	fprintf(f, "\nWhy they left the CPU (OldThreadWaitReason, times; the %d most frequent):\n\n", TOP_REASONS);
	fprintf(f, "%6s %-16s %s\n", "thread", "name", "reasons");
	for (size_t i = 0; i < s->threads.n; i++)
		if (s->threads.v[i].id && s->threads.v[i].out)
			thread_reasons(f, &s->threads.v[i]);
	for (uint32_t i = 0; i < log->ncpus; i++)
		if (s->cpus[i].mismatches)
			fprintf(f, "CPU %u: %" PRIu64 " switches whose old thread was not the thread switched in before "
				   "(records missing?)\n", i, s->cpus[i].mismatches);
}

/* ------------------------------------------------------------ 7. CPUs */

static void report_cpus(FILE *f, struct kp_log *log, const struct sched *s)
{
	char a[32], b[32], c[32];

	kp_report_section(f, "CPUs");
	fprintf(f, "Each CPU from its first record to its last; idle: the idle thread (ThreadId 0) on the CPU.\n\n");
	if (!log->ncpus) {
		fprintf(f, "No CPU sent any frame.\n");
		return;
	}
	fprintf(f, "%5s %16s %14s %8s %8s %10s\n", "cpu", "traced cycles", "traced us", "busy", "idle", "switches");
	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct span *sp = &s->spans[i];
		const struct cpu_run *cr = &s->cpus[i];
		uint64_t len = sp->last - sp->first;
		if (!sp->any) {
			fprintf(f, "%5u  no records\n", i);
			continue;
		}
		fprintf(f, "%5u %16" PRIu64 " %14s ", i, len, kp_report_us(log, len, a, sizeof(a)));
		if (!cr->any_switch)
			fprintf(f, "%8s %8s %10s  (no CSwitch records: busy and idle unknown)\n", "?", "?", "0");
		else
			fprintf(f, "%8s %8s %10" PRIu64 "\n", pct(len - cr->idle, len, b, sizeof(b)),
				pct(cr->idle, len, c, sizeof(c)), cr->switches);
	}
}

/* ------------------------------------------------------------ the command */

/* ------------------------------------------------------------ --summary */

static void sched_free(struct sched *s)
{
	free(s->threads.v);
	free(s->threads.slots);
	free(s->cpus);
}

/* The hottest functions of each sample group, all CPUs. */
static void summary_hot_spots(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
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
		struct row *rows = xcalloc(j - i, sizeof(*rows)), outside;
		size_t nr = make_rows(s.v + i, j - i, -1, rows, &outside);
		fprintf(f, "\nhottest functions (%s, %zu samples):\n",
			s.v[i].group ? source_name(s.v[i].group - 1, sbuf, sizeof(sbuf)) : "ProfileTime", j - i);
		hot_table(f, syms, rows, nr, &outside, s.v[i].group == 0, TOP_SUMMARY, false);
		free(rows);
		i = j;
	}
	free(s.v);
}

/* The headline lines ("most contended: ...") of a section, which the
 * section functions write first: run it into memory and keep those. */
static void summary_headlines(FILE *f, struct kp_log *log, const struct kp_symbols *syms, const char *what,
			      void (*section)(FILE *, struct kp_log *, const struct kp_symbols *))
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	bool any = false;

	if (!m)
		return;
	section(m, log, syms);
	fclose(m);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "most ", 5)) {
			fprintf(f, "%s%s %s\n", any ? "" : "\n", what, line);
			any = true;
		}
	free(text);
}

/* `kprof report --summary`: what `make run` prints at the end. */
static void write_summary(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	size_t n = log->ncpus ? log->ncpus : 1;
	uint64_t *per_cpu = xcalloc(n, sizeof(*per_cpu));
	struct span *sp = xcalloc(n, sizeof(*sp));
	struct sched s = { .cpus = xcalloc(n, sizeof(*s.cpus)), .spans = sp };
	struct kp_totals t;

	kp_totals(log, &t, per_cpu);
	spans(log, sp);
	fprintf(f, "== kprof report: summary (the whole report: kprof report LOG --kernel ELF) ==\n");
	header_trace(f, log, &t, sp);
	header_losses(f, log, &t);
	summary_hot_spots(f, log, syms);
	summary_headlines(f, log, syms, "locks:", kp_report_locks);
	summary_headlines(f, log, syms, "resources:", kp_report_resources);
	sched_collect(log, &s);
	if (s.switches) {
		uint64_t total = 0;
		for (uint32_t i = 0; i < log->ncpus; i++)
			if (s.cpus[i].any_switch)
				total += s.spans[i].last - s.spans[i].first;
		qsort(s.threads.v, s.threads.n, sizeof(*s.threads.v), cmp_thread);
		fprintf(f, "\nbusiest threads:\n");
		fprintf(f, "%6s %-16s %-16s %10s %7s %6s %5s %6s %4s\n", "thread", "name", "process", "cpu ms", "%", "in",
			"prio", "out", "wait");
		for (size_t i = 0, shown = 0; i < s.threads.n && shown < TOP_SUMMARY; i++)
			if (s.threads.v[i].in || s.threads.v[i].out) {
				thread_line(f, log, &s.threads.v[i], total);
				shown++;
			}
	}
	sched_free(&s);
	free(sp);
	free(per_cpu);
}

static void write_report(FILE *f, struct kp_log *log, const struct kp_symbols *syms, const struct kp_options *o)
{
	size_t n = log->ncpus ? log->ncpus : 1;
	uint64_t *per_cpu = xcalloc(n, sizeof(*per_cpu));
	struct span *sp = xcalloc(n, sizeof(*sp));
	struct sched s = { .cpus = xcalloc(n, sizeof(*s.cpus)), .spans = sp };
	struct kp_totals t;

	kp_totals(log, &t, per_cpu); /* walks every record: any malformed one is an issue now */
	spans(log, sp);
	header_run(f, log, o);
	header_trace(f, log, &t, sp);
	header_losses(f, log, &t);
	header_cpus(f, log, per_cpu);
	report_hot_spots(f, log, syms);
	report_profile_objects(f, log, syms);
	kp_report_locks(f, log, syms);
	kp_report_resources(f, log, syms);
	sched_collect(log, &s);
	report_threads(f, log, &s);
	report_cpus(f, log, &s);
	sched_free(&s);
	free(sp);
	free(per_cpu);
}

int kp_cmd_report(struct kp_log *log, const struct kp_options *o)
{
	struct kp_symbols *syms;
	char err[512];
	FILE *out = stdout;

	if (!o->kernel) {
		fprintf(stderr, "kprof: report needs --kernel ELF: the kernel the log was recorded with, with its "
				"symbols (build/kernel.elf), to name the functions\n");
		return 2;
	}
	if (!(syms = kp_symbols_open(o->kernel, err, sizeof(err)))) {
		fprintf(stderr, "kprof: --kernel %s\n", err);
		return 3;
	}
	if (o->output && !(out = fopen(o->output, "w"))) {
		perror(o->output);
		kp_symbols_close(syms);
		return 3;
	}
	if (o->summary)
		write_summary(out, log, syms);
	else
		write_report(out, log, syms, o);
	kp_symbols_close(syms);
	if (out != stdout ? fclose(out) != 0 : fflush(out) != 0) {
		perror(o->output ? o->output : "stdout");
		return 3;
	}
	return kp_summary(log, o, o->output);
}
