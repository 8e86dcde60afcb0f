/*
 * lock_table.c - the "Spin locks" section's table (locks.c prints it): a
 * row per lock and per release site, and one of all the records, with
 * their totals, estimates and order statistics, made by one reader of the
 * report's walk of the log (walk.c), never holding the records.  The
 * medians and 99th percentiles are exact all the same: the log is read
 * again as often as the order statistics ask (quantiles.c: once more, or a
 * few times for a log with more values than they keep at once), so the
 * section's memory is its rows, whatever the log's length.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/sort.h"

/* Call sites: total wait descending, then traced descending, then address. */
int kp_lock_site_order(const void *a, const void *b)
{
	const struct kp_lock_group *x = a, *y = b;
	if (x->wait_total != y->wait_total)
		return x->wait_total > y->wait_total ? -1 : 1;
	if (x->traced != y->traced)
		return x->traced > y->traced ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Each group's three series of values in the order statistics: the waits
 * of the records that waited, the holds, the holds weighted by what each
 * record stands for.  Group 0 is all the records. */
enum { S_WAIT, S_HOLD, S_HOLD_EST, SERIES };

struct building {
	struct kp_lock_table *t;
	struct kp_index lock_ix, site_ix;
	size_t *lock_gid, *site_gid;  /* a row's group in the order statistics */
	size_t caplocks, capsites, caplg, capsg, ngroups;
};

static size_t find_lock(struct building *b, uint64_t lock)
{
	uint64_t h = kp_hash_u64(lock, 0);
	size_t it;

	for (size_t at = kp_index_first(&b->lock_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&b->lock_ix, h, &it))
		if (b->t->locks[at].addr == lock)
			return at;
	KP_PUSH(b->t->locks, b->t->nlocks, b->caplocks, ((struct kp_lock_group){ .addr = lock }));
	b->lock_gid = kp_grow(b->lock_gid, &b->caplg, b->t->nlocks, sizeof(*b->lock_gid));
	b->lock_gid[b->t->nlocks - 1] = b->ngroups++;
	kp_index_add(&b->lock_ix, h, b->t->nlocks - 1);
	return b->t->nlocks - 1;
}

static size_t find_site(struct building *b, uint64_t lock, uint64_t caller)
{
	uint64_t h = kp_hash_u64(caller, kp_hash_u64(lock, 1));
	size_t it;

	for (size_t at = kp_index_first(&b->site_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&b->site_ix, h, &it))
		if (b->t->sites[at].addr == caller && b->t->sites[at].lock == lock)
			return at;
	KP_PUSH(b->t->sites, b->t->nsites, b->capsites, ((struct kp_lock_group){ .addr = caller, .lock = lock }));
	b->site_gid = kp_grow(b->site_gid, &b->capsg, b->t->nsites, sizeof(*b->site_gid));
	b->site_gid[b->t->nsites - 1] = b->ngroups++;
	kp_index_add(&b->site_ix, h, b->t->nsites - 1);
	return b->t->nsites - 1;
}

/* The three groups of a record: all, its lock, its release site. */
static void groups_of(struct building *b, const struct kp_lock_rec *r, size_t gid[3], struct kp_lock_group *g[3])
{
	size_t l = find_lock(b, r->lock), s = find_site(b, r->lock, r->caller);

	gid[0] = 0, g[0] = &b->t->all;
	gid[1] = b->lock_gid[l], g[1] = &b->t->locks[l];
	gid[2] = b->site_gid[s], g[2] = &b->t->sites[s];
}

static void series_of(const struct kp_report_stats *st, size_t gid, const struct kp_lock_rec *r, bool count)
{
	void (*give)(struct kp_quantiles *, size_t, size_t, uint64_t, uint64_t) = count ? kp_quantiles_count : kp_quantiles_add;

	if (r->wait)
		give(st->q, st->space, gid * SERIES + S_WAIT, r->wait, 1);
	give(st->q, st->space, gid * SERIES + S_HOLD, r->hold, 1);
	give(st->q, st->space, gid * SERIES + S_HOLD_EST, r->hold, r->weight);
}

static void group_stats(const struct kp_report_stats *st, size_t gid, struct kp_lock_group *g)
{
	kp_report_stats_get(st, gid * SERIES + S_WAIT, &g->wait);
	kp_report_stats_get(st, gid * SERIES + S_HOLD, &g->hold);
	kp_report_stats_get(st, gid * SERIES + S_HOLD_EST, &g->hold_est);
}

static int by_addr(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_lock_group *)a)->addr, ((const struct kp_lock_group *)b)->addr);
}

/* Sites by lock, then the order the section prints them in. */
static int by_lock_then(const void *a, const void *b)
{
	const struct kp_lock_group *x = a, *y = b;
	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return kp_lock_site_order(a, b);
}

/* The table's reader (walk.c): the SpinLock records counted into the
 * rows and the order statistics, then as many readings as they ask. */
struct table_reader {
	const struct kp_report *rp;
	struct building b;
	struct kp_report_stats st;
	struct kp_lock_counting counting;
	bool first;                   /* the first walk: counted into the rows   */
};

static void table_begin(void *ctx, const struct kp_report_stats *st, bool first)
{
	struct table_reader *x = ctx;

	x->st = *st;
	x->first = first;
	x->counting.config = -1;
}

static void table_take(void *ctx, const struct kp_record *r, uint16_t kind)
{
	struct table_reader *x = ctx;
	struct kp_lock_rec rec;
	struct kp_lock_group *g[3];
	size_t gid[3];

	if (!kp_lock_counted(&x->counting, r, kind, &rec))
		return;
	groups_of(&x->b, &rec, gid, g);
	for (int i = 0; i < 3; i++) {
		if (x->first)
			kp_lock_group_add(g[i], &rec);
		series_of(&x->st, gid[i], &rec, x->first);
	}
}

static void table_finish(void *ctx)
{
	struct table_reader *x = ctx;
	struct kp_lock_table *t = x->b.t;

	group_stats(&x->st, 0, &t->all);
	for (size_t i = 0; i < t->nlocks; i++)
		group_stats(&x->st, x->b.lock_gid[i], &t->locks[i]);
	for (size_t i = 0; i < t->nsites; i++)
		group_stats(&x->st, x->b.site_gid[i], &t->sites[i]);
	kp_index_free(&x->b.lock_ix);
	kp_index_free(&x->b.site_ix);
	free(x->b.lock_gid);
	free(x->b.site_gid);
	free(x);

	/* locks in address order, each with its sites in print order */
	kp_sort(t->locks, t->nlocks, sizeof(*t->locks), by_addr);
	kp_sort(t->sites, t->nsites, sizeof(*t->sites), by_lock_then);
	for (size_t i = 0, k = 0; i < t->nlocks; i++) {
		t->locks[i].site0 = k;
		while (k < t->nsites && t->sites[k].lock == t->locks[i].addr)
			k++;
		t->locks[i].nsites = k - t->locks[i].site0;
	}
}

void kp_lock_table_reader(const struct kp_report *rp, struct kp_lock_table *t, struct kp_report_reader *out)
{
	struct table_reader *x = kp_xcalloc(1, sizeof(*x));

	*t = (struct kp_lock_table){ 0 };
	*x = (struct table_reader){ .rp = rp, .b = { .t = t, .ngroups = 1 } };
	kp_lock_counting_init(&x->counting, rp);
	*out = (struct kp_report_reader){ x, table_begin, table_take, table_finish };
}

void kp_lock_table_free(struct kp_lock_table *t)
{
	free(t->locks);
	free(t->sites);
	*t = (struct kp_lock_table){ 0 };
}
