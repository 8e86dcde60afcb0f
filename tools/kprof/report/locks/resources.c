/*
 * resources.c - the "Executive resources" section of `kprof report`
 * (the model's WMI_RESOURCE records, kernel/ex/resource.h).
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
 * its release's WaitTime already.  The WaitExcessive records are put
 * back into waits (resource_waits.c): excessive waits, after which the
 * wait went on, apart from time-outs, each wait counted once.
 * Resources are ordered by total wait descending, then address; every
 * record type is also totalled per Action.
 *
 * The records are read from the log in time order and the rows made as
 * they come: a row per resource address, never the records; the medians
 * and percentiles exact all the same (report/quantiles.c reads the log
 * again for them when it has more values than it keeps).
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/report/quantiles.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/sort.h"

#define TOP_RESOURCES 10

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
	uint64_t contention;          /* ContentionDelta over the releases          */
	uint32_t max_depth;           /* deepest MaxRecursionDepth of a release     */
	struct kp_stats hold, wait;
	struct kp_res_wait_walk waits; /* its waits, each once (resource_waits.c)   */
};

/* The section's figures, made as the records come. */
struct kp_res_table {
	struct rs_totals totals[NACTIONS];
	struct rs_group *groups;
	size_t ngroups, cap, records;
	struct kp_index ix;
};

static int group_order(const void *a, const void *b)
{
	const struct rs_group *x = a, *y = b;
	if (x->wait_total != y->wait_total)
		return x->wait_total > y->wait_total ? -1 : 1;
	return kp_cmp_u64(x->addr, y->addr);
}

static int by_addr(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct rs_group *)a)->addr, ((const struct rs_group *)b)->addr);
}

static unsigned action_index(uint32_t action)
{
	for (unsigned i = 0; i < NACTIONS - 1; i++)
		if (actions[i].action == action)
			return i;
	return A_OTHER;
}

static size_t group_of(struct kp_res_table *t, uint64_t addr)
{
	uint64_t h = kp_hash_u64(addr, 3);
	size_t it;

	for (size_t at = kp_index_first(&t->ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&t->ix, h, &it))
		if (t->groups[at].addr == addr)
			return at;
	KP_PUSH(t->groups, t->ngroups, t->cap, ((struct rs_group){ .addr = addr }));
	kp_index_add(&t->ix, h, t->ngroups - 1);
	return t->ngroups - 1;
}

/* Each group's two series of values: the holds of its releases, the waits
 * of those that waited. */
enum { S_HOLD, S_WAIT, SERIES };

/* The table's reader (walk.c): the Resource records, in time order, into
 * the rows and the order statistics (the first walk), or to a reading of
 * them. */
struct res_reader {
	struct kp_res_table *t;
	struct kp_report_stats st;
	bool counting;
};

static void res_begin(void *ctx, const struct kp_report_stats *st, bool first)
{
	struct res_reader *x = ctx;

	x->st = *st;
	x->counting = first;
}

static void take_record(struct kp_res_table *t, struct rs_group *g, unsigned a, const WMI_RESOURCE *r, uint64_t ts)
{
	struct rs_totals *to = &t->totals[a];

	t->records++;
	to->records++;
	to->waited += r->WaitTime != 0;
	to->wait_total += r->WaitTime;
	to->wait_max = r->WaitTime > to->wait_max ? r->WaitTime : to->wait_max;
	to->hold_total += r->HoldTime;
	g->count[a]++;
	kp_res_waits_take(&g->waits, r, ts);
	if (a != A_REL_X && a != A_REL_S)
		return;
	if (r->WaitTime)
		g->waited++, g->wait_total += r->WaitTime;
	g->contention += r->ContentionDelta;
	g->max_depth = r->MaxRecursionDepth > g->max_depth ? r->MaxRecursionDepth : g->max_depth;
}

static void res_take(void *ctx, const struct kp_record *rec, uint16_t kind)
{
	struct res_reader *x = ctx;
	void (*give)(struct kp_quantiles *, size_t, size_t, uint64_t, uint64_t) = x->counting ? kp_quantiles_count
										       : kp_quantiles_add;
	WMI_RESOURCE r;

	if (kind != PERFINFO_LOG_TYPE_RESOURCE)
		return;
	memcpy(&r, rec->payload, sizeof(r));
	unsigned a = action_index(r.Action);
	size_t gi = group_of(x->t, r.Resource);
	if (x->counting)
		take_record(x->t, &x->t->groups[gi], a, &r, rec->h.TimeStamp);
	if (a != A_REL_X && a != A_REL_S)
		return;
	give(x->st.q, x->st.space, gi * SERIES + S_HOLD, r.HoldTime, 1);
	if (r.WaitTime)
		give(x->st.q, x->st.space, gi * SERIES + S_WAIT, r.WaitTime, 1);
}

/* Every resource's row, in address order. */
static void res_finish(void *ctx)
{
	struct res_reader *x = ctx;
	struct kp_res_table *t = x->t;

	for (size_t i = 0; i < t->ngroups; i++) {
		kp_report_stats_get(&x->st, i * SERIES + S_HOLD, &t->groups[i].hold);
		kp_report_stats_get(&x->st, i * SERIES + S_WAIT, &t->groups[i].wait);
		kp_res_waits_end(&t->groups[i].waits);
	}
	kp_index_free(&t->ix);
	kp_sort(t->groups, t->ngroups, sizeof(*t->groups), by_addr);
	free(x);
}

void kp_res_table_reader(const struct kp_report *rp, struct kp_res_table **t, struct kp_report_reader *out)
{
	struct res_reader *x = kp_xcalloc(1, sizeof(*x));

	*t = kp_xcalloc(1, sizeof(**t));
	*x = (struct res_reader){ .t = *t };
	*out = (struct kp_report_reader){ x, res_begin, res_take, res_finish };
}

static void print_group(FILE *f, const struct kp_report *rp, int rank, const struct rs_group *g)
{
	const struct kp_log *log = rp->log;
	char name[300], us[32], us2[32];
	uint64_t timeouts = g->count[A_TO_X] + g->count[A_TO_S];
	const struct kp_res_waits *w = &g->waits.w;

	fprintf(f, "\n%2d resource %s\n", rank, kp_report_object(rp, g->addr, name, sizeof(name)));
	kp_wrapf(f, "     ", 0, 7, ", ",
		 "releases: exclusive %" PRIu64 "\tshared %" PRIu64 "\t%" PRIu64 " waited\twait total %" PRIu64
		 " cycles = %s",
		 g->count[A_REL_X], g->count[A_REL_S], g->waited, g->wait_total,
		 kp_report_time(log, g->wait_total, us, sizeof(us)));
	if (timeouts)
		kp_wrapf(f, "     ", 0, 7, ", ",
			 "excessive waits: %" PRIu64 " slices the wait went on after\t%" PRIu64
			 " waits with them got the resource",
			 w->slices, w->went_on);
	if (w->timeouts)
		kp_wrapf(f, "     ", 0, 7, ", ",
			 "time-outs: %" PRIu64 " waits gave up (exclusive %" PRIu64 ", shared %" PRIu64 ")\twaited %s in all"
			 "\tlongest %" PRIu64 " cycles = %s",
			 w->timeouts, w->timeouts_x, w->timeouts - w->timeouts_x,
			 kp_report_time(log, w->timeout_total, us, sizeof(us)), w->timeout_max,
			 kp_report_time(log, w->timeout_max, us2, sizeof(us2)));
	else
		fprintf(f, "     time-outs: 0\n");
	kp_wrapf(f, "     ", 0, 7, ", ",
		 "max recursion depth %u\tcontention delta sum %" PRIu64 "\tinitialized %" PRIu64
		 "\treinitialized %" PRIu64,
		 g->max_depth, g->contention, g->count[A_INIT], g->count[A_REINIT]);
	const struct kp_stats *rows[] = { &g->hold, &g->wait };
	struct kp_stats_units u = kp_stats_units(log, rows, 2);
	kp_stats_header(f, "     ", &u);
	kp_stats_row(f, log, "     hold", &g->hold, &u);
	kp_stats_row(f, log, "     wait", &g->wait, &u);
}

/* By total wait; ties by address.  groups[] is in address order. */
static void print_most_waited(FILE *f, const struct kp_report *rp, const struct rs_group *groups, size_t n)
{
	const struct rs_group *best = NULL;
	char us[32], name[300];

	for (size_t i = 0; i < n; i++)
		if (groups[i].wait_total && (!best || groups[i].wait_total > best->wait_total))
			best = &groups[i];
	if (!best) {
		fprintf(f, "most waited for: none (no release had waited)\n");
		return;
	}
	kp_wrapf(f, "", 0, 2, " ", "most waited for: %s: %" PRIu64 " of %" PRIu64 " releases waited, %s in all",
		 kp_report_object(rp, best->addr, name, sizeof(name)), best->waited,
		 best->count[A_REL_X] + best->count[A_REL_S], kp_report_time(rp->log, best->wait_total, us, sizeof(us)));
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
		char wait[24];
		if (i == A_TO_X || i == A_TO_S) /* waited so far: a sum would count a wait again per slice */
			snprintf(wait, sizeof(wait), "-");
		else
			snprintf(wait, sizeof(wait), "%" PRIu64, t[i].wait_total);
		fprintf(f, "%-36s %8" PRIu64 " %8" PRIu64 " %14s %12" PRIu64 " %14" PRIu64 "\n", label, t[i].records,
			t[i].waited, wait, t[i].wait_max, t[i].hold_total);
	}
}

void kp_res_table_free(struct kp_res_table *t)
{
	if (!t)
		return;
	free(t->groups);
	free(t);
}

void kp_report_resources(FILE *f, const struct kp_report *rp)
{
	struct kp_log *log = rp->log;
	const struct kp_res_table *t = rp->cache->resources; /* gathered (walk.c) */

	kp_report_section(f, "Executive resources");
	if (!t->records) {
		fprintf(f, "no Resource records (executive resources are the group trace=resource)\n");
		return;
	}
	print_most_waited(f, rp, t->groups, t->ngroups);
	fprintf(f, "%zu Resource records for %zu resource addresses\n", t->records, t->ngroups);
	print_actions(f, t->totals);
	fprintf(f, "hold: HoldTime and wait: WaitTime (of those that waited) of the releases; median, p99\n"
		   "(nearest rank), max.  WaitExcessiveFor... records: a wait slice ended without the resource,\n"
		   "WaitTime the time waited so far (so not summed: \"-\"; longest: the longest so far).  Per\n"
		   "resource they are put back into waits: excessive waits (the wait went on) apart from\n"
		   "time-outs (the caller gave up; waited: each wait's final WaitTime, once)\n");
	kp_report_lost_note(f, log);
	struct rs_group *order = kp_xcalloc(t->ngroups, sizeof(*order)); /* the table stays in address order */
	memcpy(order, t->groups, t->ngroups * sizeof(*order));
	kp_sort(order, t->ngroups, sizeof(*order), group_order);
	fprintf(f, "\nResources by total wait (top %zu of %zu)\n", t->ngroups < TOP_RESOURCES ? t->ngroups : TOP_RESOURCES,
		t->ngroups);
	for (size_t i = 0; i < t->ngroups && i < TOP_RESOURCES; i++)
		print_group(f, rp, (int)i + 1, &order[i]);
	free(order);
}
