/*
 * report_resources.c - the "Executive resources" section of `kprof
 * report` (WMI_RESOURCE records, seed 003, kernel/ex/resource.h), and the
 * helpers it shares with the spin-lock section in report_locks.c
 * (kp_rl_*: nearest-rank statistics and their rows, names, the loss note).
 *
 * Per resource address (an address reused after a deletion is the same
 * row: its Initialize count says so): exclusive and shared releases, hold
 * times (HoldTime of the releases), waits (WaitTime of the releases that
 * waited), time-outs (WaitExcessiveFor..., with the longest WaitTime),
 * the deepest recursion of a hold, the sum of ContentionDelta over the
 * releases (waits by others during the holds).  MaxRecursionDepth and
 * ContentionDelta mean something else in a Reinitialize record (owner
 * entries provided for, owners at that moment): only releases count.
 * Total wait, the order of the table, is that of the releases: a slice
 * that ended in an excessive wait and then got the resource is part of
 * its release's WaitTime already, so time-outs are kept apart.
 * Resources are ordered by total wait descending, then address; every
 * record type is also totalled per Action.
 */
#include "tools/kprof/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/records.h"

#define TOP_RESOURCES 10

#include "tools/kprof/report_shared.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_vw(const void *a, const void *b)
{
	const struct kp_rl_vw *x = a, *y = b;
	return x->v < y->v ? -1 : x->v > y->v;
}

/* Nearest rank: the p-th percentile of n sorted values is the one at rank
 * ceil(p * n / 100), counting from 1.  Sorts v. */
void kp_rl_stats(uint64_t *v, size_t n, struct kp_rl_stats *s)
{
	*s = (struct kp_rl_stats){ .n = n };
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	s->median = v[(50 * n + 99) / 100 - 1];
	s->p99 = v[(99 * n + 99) / 100 - 1];
	s->max = v[n - 1];
}

#define LABEL_COLS 13 /* indentation and row label */

/* Weighted nearest rank: the value at which the running sum of weights
 * (values in order) first reaches ceil(p * total / 100). */
void kp_rl_weighted_stats(struct kp_rl_vw *a, size_t n, struct kp_rl_stats *s)
{
	uint64_t total = 0, cum = 0, r50, r99;
	bool have50 = false, have99 = false;

	*s = (struct kp_rl_stats){ 0 };
	if (!n)
		return;
	qsort(a, n, sizeof(*a), cmp_vw);
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

void kp_rl_stats_header(FILE *f, const char *indent)
{
	fprintf(f, "%s%-*s %9s %10s %10s %10s %10s %10s %10s\n", indent, LABEL_COLS - (int)strlen(indent), "cycles",
		"n", "median", "p99", "max", "median us", "p99 us", "max us");
}

void kp_rl_stats_row(FILE *f, const struct kp_log *log, const char *label, const struct kp_rl_stats *s)
{
	char v[6][32];

	kp_rl_num(v[0], sizeof(v[0]), s->median, s->n);
	kp_rl_num(v[1], sizeof(v[1]), s->p99, s->n);
	kp_rl_num(v[2], sizeof(v[2]), s->max, s->n);
	kp_report_us(log, s->median, v[3], sizeof(v[3]));
	kp_report_us(log, s->p99, v[4], sizeof(v[4]));
	kp_report_us(log, s->max, v[5], sizeof(v[5]));
	if (!s->n)
		strcpy(v[3], "-"), strcpy(v[4], "-"), strcpy(v[5], "-");
	fprintf(f, "%-*s %9zu %10s %10s %10s %10s %10s %10s\n", LABEL_COLS, label, s->n, v[0], v[1], v[2], v[3], v[4],
		v[5]);
}

/* v in decimal, or "-" when there is no value. */
const char *kp_rl_num(char *buf, size_t size, uint64_t v, bool have)
{
	if (have)
		snprintf(buf, size, "%" PRIu64, v);
	else
		snprintf(buf, size, "-");
	return buf;
}

const char *kp_rl_pct(char *buf, size_t size, uint64_t part, uint64_t whole)
{
	if (whole)
		snprintf(buf, size, "%.1f%%", 100.0 * (double)part / (double)whole);
	else
		snprintf(buf, size, "-");
	return buf;
}

/* Code: "function+0xoff", or the address in hex. */
const char *kp_rl_code_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size)
{
	if (syms)
		return kp_symbols_format(syms, addr, buf, size);
	snprintf(buf, size, "0x%" PRIx64, addr); /* as kp_symbols_format() */
	return buf;
}

/* Data (a lock, a resource): "name+0xoff" only inside a symbol of known
 * size (the table holds functions, so usually not), else "". */
const char *kp_rl_data_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size)
{
	const char *name;
	uint64_t start, len;

	buf[0] = 0;
	if (syms && kp_symbols_lookup(syms, addr, &name, &start, &len) && len && addr - start < len)
		kp_symbols_format(syms, addr, buf, size);
	return buf;
}

/* Lost records make every count here low: say so. */
void kp_rl_lost_note(FILE *f, const struct kp_log *log)
{
	uint64_t lost = 0;

	for (uint32_t i = 0; i < log->ncpus; i++)
		for (int k = 0; log->cpus[i].have_end && k < KPROF_LOSS_CAUSES; k++)
			lost += log->cpus[i].end.lost[k];
	if (lost)
		fprintf(f, "note: the trace lost %" PRIu64 " records (of all kinds): these counts are low\n", lost);
}

/* One line of parts: fmt's tabs separate them.  They are joined by ", ";
 * a part that would pass the report's width goes on a new line, indented
 * two more, after a trailing ",". */
void kp_rl_wrap(FILE *f, const char *indent, const char *fmt, ...)
{
	char buf[1024];
	size_t col = strlen(indent);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs(indent, f);
	for (char *p = buf, *tab; p; p = tab ? tab + 1 : NULL) {
		tab = strchr(p, '\t');
		size_t len = tab ? (size_t)(tab - p) : strlen(p);
		if (p != buf) {
			/* room for this part and, unless it is the last, its comma */
			if (col + 2 + len + (tab ? 1 : 0) > KP_REPORT_WIDTH) {
				fprintf(f, ",\n%s  ", indent);
				col = strlen(indent) + 2;
			} else {
				fputs(", ", f);
				col += 2;
			}
		}
		fwrite(p, 1, len, f);
		col += len;
	}
	fputc('\n', f);
}

/* ---------------------------------------------------------------- resources */

/* Actions, as rows of the totals table; the last one is any other value. */
static const struct {
	uint32_t action;
	const char *name;
} actions[] = {
	{ WMI_RESOURCE_ACTION_INITIALIZE, "Initialize" },
	{ WMI_RESOURCE_ACTION_REINITIALIZE, "Reinitialize" },
	{ WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE, "CompleteReleaseExclusive" },
	{ WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED, "CompleteReleaseShared" },
	{ WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE, "WaitExcessiveForExclusive" },
	{ WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED, "WaitExcessiveForShared" },
	{ 0, "other" },
};
#define NACTIONS (sizeof(actions) / sizeof(actions[0]))
enum { A_INIT, A_REINIT, A_REL_X, A_REL_S, A_TO_X, A_TO_S, A_OTHER };

struct rs_totals {
	uint64_t records, waited, wait_total, wait_max, hold_total;
};

struct rs_group {
	uint64_t addr;
	uint64_t count[NACTIONS];     /* records by action                          */
	uint64_t waited, wait_total;  /* releases that waited, and their WaitTime   */
	uint64_t timeout_max;         /* longest WaitTime of a time-out             */
	uint64_t contention;          /* ContentionDelta over the releases          */
	uint32_t max_depth;           /* deepest MaxRecursionDepth of a release     */
	struct kp_rl_stats hold, wait;
};

static int by_resource(const void *a, const void *b)
{
	const WMI_RESOURCE *x = a, *y = b;
	return x->Resource < y->Resource ? -1 : x->Resource > y->Resource;
}

static int group_order(const void *a, const void *b)
{
	const struct rs_group *x = a, *y = b;
	if (x->wait_total != y->wait_total)
		return x->wait_total > y->wait_total ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static unsigned action_index(uint32_t action)
{
	for (unsigned i = 0; i < NACTIONS - 1; i++)
		if (actions[i].action == action)
			return i;
	return A_OTHER;
}

/* Fill g from recs[0..n), all of one resource. */
static void summarise(struct rs_group *g, const WMI_RESOURCE *recs, size_t n, uint64_t *holds, uint64_t *waits)
{
	size_t nh = 0;

	for (size_t i = 0; i < n; i++) {
		const WMI_RESOURCE *r = &recs[i];
		unsigned a = action_index(r->Action);
		g->count[a]++;
		if (a == A_TO_X || a == A_TO_S)
			g->timeout_max = r->WaitTime > g->timeout_max ? r->WaitTime : g->timeout_max;
		if (a != A_REL_X && a != A_REL_S)
			continue;
		holds[nh++] = r->HoldTime;
		if (r->WaitTime)
			waits[g->waited++] = r->WaitTime, g->wait_total += r->WaitTime;
		g->contention += r->ContentionDelta;
		g->max_depth = r->MaxRecursionDepth > g->max_depth ? r->MaxRecursionDepth : g->max_depth;
	}
	kp_rl_stats(holds, nh, &g->hold);
	kp_rl_stats(waits, g->waited, &g->wait);
}

static void print_group(FILE *f, const struct kp_log *log, int rank, const struct rs_group *g,
			const struct kp_symbols *syms)
{
	char name[160], us[32], us2[32];
	uint64_t timeouts = g->count[A_TO_X] + g->count[A_TO_S];

	kp_rl_data_name(syms, g->addr, name, sizeof(name));
	fprintf(f, "\n%2d resource 0x%016" PRIx64 "%s%s%s\n", rank, g->addr, name[0] ? " (" : "", name,
		name[0] ? ")" : "");
	kp_rl_wrap(f, "     ",
		   "releases: exclusive %" PRIu64 "\tshared %" PRIu64 "\t%" PRIu64 " waited\twait total %" PRIu64
		   " cycles = %s us",
		   g->count[A_REL_X], g->count[A_REL_S], g->waited, g->wait_total,
		   kp_report_us(log, g->wait_total, us, sizeof(us)));
	if (timeouts)
		kp_rl_wrap(f, "     ",
			   "time-outs: %" PRIu64 " (exclusive %" PRIu64 ", shared %" PRIu64 ")\tlongest wait %" PRIu64
			   " cycles = %s us",
			   timeouts, g->count[A_TO_X], g->count[A_TO_S], g->timeout_max,
			   kp_report_us(log, g->timeout_max, us2, sizeof(us2)));
	else
		fprintf(f, "     time-outs: 0\n");
	kp_rl_wrap(f, "     ",
		   "max recursion depth %u\tcontention delta sum %" PRIu64 "\tinitialized %" PRIu64
		   "\treinitialized %" PRIu64,
		   g->max_depth, g->contention, g->count[A_INIT], g->count[A_REINIT]);
	kp_rl_stats_header(f, "     ");
	kp_rl_stats_row(f, log, "     hold", &g->hold);
	kp_rl_stats_row(f, log, "     wait", &g->wait);
}

/* By total wait; ties by address.  groups[] is in address order. */
static void print_most_waited(FILE *f, const struct kp_log *log, const struct rs_group *groups, size_t n)
{
	const struct rs_group *best = NULL;
	char us[32];

	for (size_t i = 0; i < n; i++)
		if (groups[i].wait_total && (!best || groups[i].wait_total > best->wait_total))
			best = &groups[i];
	if (!best) {
		fprintf(f, "most waited for: none (no release had waited)\n");
		return;
	}
	fprintf(f, "most waited for: 0x%016" PRIx64 " (%" PRIu64 " of %" PRIu64 " releases waited, %s us in all)\n",
		best->addr, best->waited, best->count[A_REL_X] + best->count[A_REL_S],
		kp_report_us(log, best->wait_total, us, sizeof(us)));
}

static void print_actions(FILE *f, const struct rs_totals *t)
{
	fprintf(f, "%-36s %8s %8s %14s %12s %14s\n", "action", "records", "waited", "wait cycles", "longest",
		"hold cycles");
	for (unsigned i = 0; i < NACTIONS; i++) {
		char label[48];
		if (i == A_OTHER && !t[i].records)
			continue;
		if (i == A_OTHER)
			snprintf(label, sizeof(label), "other values");
		else
			snprintf(label, sizeof(label), "0x%08x %s", actions[i].action, actions[i].name);
		fprintf(f, "%-36s %8" PRIu64 " %8" PRIu64 " %14" PRIu64 " %12" PRIu64 " %14" PRIu64 "\n", label,
			t[i].records, t[i].waited, t[i].wait_total, t[i].wait_max, t[i].hold_total);
	}
}

void kp_report_resources(FILE *f, struct kp_log *log, const struct kp_symbols *syms)
{
	WMI_RESOURCE *recs = NULL;
	size_t n = 0, cap = 0, ngroups = 0;
	struct rs_totals totals[NACTIONS] = { 0 };
	struct rs_group *groups;
	uint64_t *holds, *waits;
	struct kp_merge m;
	struct kp_record r;

	kp_report_section(f, "Executive resources");
	kp_merge_init(&m, log);
	while (kp_merge_next(&m, &r)) {
		if (r.h.HookId != PERFINFO_LOG_TYPE_RESOURCE || r.payload_size < sizeof(WMI_RESOURCE))
			continue;
		recs = kp_grow(recs, &cap, n + 1, sizeof(*recs));
		memcpy(&recs[n], r.payload, sizeof(*recs));
		struct rs_totals *t = &totals[action_index(recs[n].Action)];
		t->records++;
		t->waited += recs[n].WaitTime != 0;
		t->wait_total += recs[n].WaitTime;
		t->wait_max = recs[n].WaitTime > t->wait_max ? recs[n].WaitTime : t->wait_max;
		t->hold_total += recs[n].HoldTime;
		n++;
	}
	kp_merge_free(&m);
	if (!n) {
		fprintf(f, "no Resource records (executive resources are the group trace=resource)\n");
		return;
	}
	qsort(recs, n, sizeof(*recs), by_resource); /* stable enough: only counts and sorted values */
	groups = calloc(n, sizeof(*groups));
	holds = malloc(n * sizeof(*holds));
	waits = malloc(n * sizeof(*waits));
	if (!groups || !holds || !waits) {
		perror("kprof: report");
		exit(3);
	}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && recs[j].Resource == recs[i].Resource; j++)
			;
		groups[ngroups].addr = recs[i].Resource;
		summarise(&groups[ngroups++], &recs[i], j - i, holds, waits);
	}

	print_most_waited(f, log, groups, ngroups);
	fprintf(f, "%zu Resource records for %zu resource addresses\n", n, ngroups);
	print_actions(f, totals);
	fprintf(f, "hold: HoldTime and wait: WaitTime (of those that waited) of the releases;\n"
		   "time-outs: WaitExcessiveFor... records; median, p99 (nearest rank), max\n");
	kp_rl_lost_note(f, log);
	qsort(groups, ngroups, sizeof(*groups), group_order);
	fprintf(f, "\nResources by total wait (top %zu of %zu)\n", ngroups < TOP_RESOURCES ? ngroups : TOP_RESOURCES,
		ngroups);
	for (size_t i = 0; i < ngroups && i < TOP_RESOURCES; i++)
		print_group(f, log, (int)i + 1, &groups[i], syms);
	free(groups);
	free(holds);
	free(waits);
	free(recs);
}
