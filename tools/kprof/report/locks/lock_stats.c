/*
 * lock_stats.c - the figures of the "Spin locks" section (locks.c prints
 * them; `kprof assert` and `kprof compare` read the same ones, so a rule
 * and the report can never disagree): each traced release as the section
 * counts it, read from the log in time order (the stream); the table of
 * every lock and release site with their totals, estimates and order
 * statistics; and a group's figures from records kept in memory (assert's
 * rule on one lock).  What is contended, what a record stands for and why
 * a wait's stalled part is left out: locks.c's header.
 *
 * The table holds a row per lock and per release site, never the records:
 * its medians and 99th percentiles are exact all the same, read from the
 * stream as many times as report/quantiles.c asks (once, or a few times
 * for a log with more values than it keeps at once), so the section's
 * memory does not grow with the log.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/report/quantiles.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/sort.h"

/* A SpinLock record as the section counts it. */
static void rec_of(const struct kp_model *m, const WMI_SPINLOCK *w, uint32_t cpu, int config, struct kp_lock_rec *r)
{
	unsigned mode = w->Flags & SPINLOCK_ACQUIRE_MODE_MASK;
	uint64_t stalled = cpu < m->ncpus && w->WaitTimeInCycles <= w->AcquireTime
				   ? kp_stall_overlap(&m->cpu[cpu], w->AcquireTime - w->WaitTimeInCycles, w->AcquireTime)
				   : 0;

	*r = (struct kp_lock_rec){
		.lock = w->SpinLockAddress,
		.caller = w->CallerAddress,
		.wait = w->WaitTimeInCycles - stalled,
		.stalled = stalled,
		.hold = w->ReleaseTime >= w->AcquireTime ? w->ReleaseTime - w->AcquireTime : 0,
		.spins = w->SpinCount,
		.config = config,
		.mode = (uint8_t)(mode < KP_LOCK_MODES - 1 ? mode : KP_LOCK_MODES - 1),
	};
}

/* Contended or not, and what the record stands for (see the top). */
static void classify(const struct kp_lock_sampling *s, struct kp_lock_rec *r)
{
	const KPROF_SPINLOCK_CONFIG *c = kp_lock_sampling_at(s, r->config);
	bool long_hold = c->SpinLockHoldThreshold && r->hold >= c->SpinLockHoldThreshold;
	uint32_t rate;

	r->contended = r->spins >= c->SpinLockSpinThreshold;
	rate = r->contended ? c->SpinLockContentionSampleRate : c->SpinLockAcquireSampleRate;
	r->weight = long_hold || !rate ? 1 : rate;
}

/* A SpinLock record r written under setting `config`, as counted. */
static void counted(const struct kp_model *m, const struct kp_lock_sampling *smp, const struct kp_record *r, int config,
		    struct kp_lock_rec *out)
{
	WMI_SPINLOCK w;

	memcpy(&w, r->payload, sizeof(w));
	rec_of(m, &w, r->cpu, config, out);
	classify(smp, out);
}

void kp_lock_stream_open(struct kp_lock_stream *s, const struct kp_report *rp)
{
	*s = (struct kp_lock_stream){ .rp = rp, .config = -1 };
	kp_lock_sampling_init(&s->smp, rp);
	kp_merge_init(&s->mg, rp->log);
}

/* The model's rules of what a record is (kp_model_kind): the same records,
 * and the same KprofSpinlockConfig counted before each, as the model's. */
bool kp_lock_stream_next(struct kp_lock_stream *s, struct kp_lock_rec *out)
{
	struct kp_record r;

	while (kp_merge_next(&s->mg, &r)) {
		uint16_t kind = kp_model_kind(&r);
		if (kind == KPROF_LOG_TYPE_SPINLOCK_CONFIG) {
			s->config++;
		} else if (kind == PERFINFO_LOG_TYPE_SPINLOCK) {
			counted(s->rp->m, &s->smp, &r, s->config, out);
			return true;
		}
	}
	return false;
}

void kp_lock_stream_close(struct kp_lock_stream *s)
{
	kp_merge_free(&s->mg);
}

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

static int by_lock_caller(const void *a, const void *b)
{
	const struct kp_lock_rec *x = a, *y = b;
	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

struct kp_lock_rec *kp_lock_recs(const struct kp_report *rp, size_t *n)
{
	struct kp_lock_stream s;
	struct kp_lock_rec *recs = NULL, r;
	size_t cap = 0;

	*n = 0;
	kp_lock_stream_open(&s, rp);
	while (kp_lock_stream_next(&s, &r))
		KP_PUSH(recs, *n, cap, r);
	kp_lock_stream_close(&s);
	kp_sort(recs, *n, sizeof(*recs), by_lock_caller);
	return recs;
}

/* r's part of g's totals and estimates (not the order statistics). */
static void group_add(struct kp_lock_group *g, const struct kp_lock_rec *r)
{
	g->traced++;
	g->contended += r->contended;
	g->spins += r->spins;
	g->wait_total += r->wait;
	g->stalled += r->stalled;
	g->est_acq += r->weight;
	g->est_cont += r->contended ? r->weight : 0;
	g->est_wait += r->weight * r->wait;
	double ww = (double)r->weight * (double)(r->weight - 1);
	g->var_acq += ww;
	g->var_cont += r->contended ? ww : 0;
	g->var_wait += ww * (double)r->wait * (double)r->wait;
	g->modes[r->mode]++;
}

void kp_lock_summarise(struct kp_lock_group *g, const struct kp_lock_rec *recs, size_t n, uint64_t *v, struct kp_weighted *vw)
{
	size_t nw = 0;

	for (size_t i = 0; i < n; i++) {
		group_add(g, &recs[i]);
		if (recs[i].wait)
			v[nw++] = recs[i].wait;
	}
	kp_stats_of(v, nw, &g->wait);
	for (size_t i = 0; i < n; i++)
		v[i] = recs[i].hold;
	kp_stats_of(v, n, &g->hold);
	for (size_t i = 0; i < n; i++)
		vw[i] = (struct kp_weighted){ recs[i].hold, recs[i].weight };
	kp_stats_weighted(vw, n, &g->hold_est);
}

/* ---- the table ---- */

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
	void (*give)(struct kp_quantiles *, size_t, uint64_t, uint64_t) = count ? kp_quantiles_count : kp_quantiles_add;

	if (r->wait)
		give(st->q, kp_report_series(st, gid * SERIES + S_WAIT), r->wait, 1);
	give(st->q, kp_report_series(st, gid * SERIES + S_HOLD), r->hold, 1);
	give(st->q, kp_report_series(st, gid * SERIES + S_HOLD_EST), r->hold, r->weight);
}

static void stats_of(const struct kp_report_stats *st, size_t series, struct kp_stats *s)
{
	struct kp_quantile_result r;

	kp_quantiles_get(st->q, kp_report_series(st, series), &r);
	*s = (struct kp_stats){ .n = (size_t)r.weight, .median = r.median, .p99 = r.p99, .max = r.max };
}

static void group_stats(const struct kp_report_stats *st, size_t gid, struct kp_lock_group *g)
{
	stats_of(st, gid * SERIES + S_WAIT, &g->wait);
	stats_of(st, gid * SERIES + S_HOLD, &g->hold);
	stats_of(st, gid * SERIES + S_HOLD_EST, &g->hold_est);
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
	struct kp_lock_sampling smp;
	int config;                   /* KprofSpinlockConfig records this walk - 1 */
	bool counting;                /* the first walk                          */
};

static void table_begin(void *ctx, const struct kp_report_stats *st, bool first)
{
	struct table_reader *x = ctx;

	x->st = *st;
	x->counting = first;
	x->config = -1;
}

static void table_take(void *ctx, const struct kp_record *r, uint16_t kind)
{
	struct table_reader *x = ctx;
	struct kp_lock_rec rec;
	struct kp_lock_group *g[3];
	size_t gid[3];

	if (kind == KPROF_LOG_TYPE_SPINLOCK_CONFIG) {
		x->config++;
		return;
	}
	if (kind != PERFINFO_LOG_TYPE_SPINLOCK)
		return;
	counted(x->rp->m, &x->smp, r, x->config, &rec);
	groups_of(&x->b, &rec, gid, g);
	for (int i = 0; i < 3; i++) {
		if (x->counting)
			group_add(g[i], &rec);
		series_of(&x->st, gid[i], &rec, x->counting);
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
	kp_lock_sampling_init(&x->smp, rp);
	*out = (struct kp_report_reader){ x, table_begin, table_take, table_finish };
}

void kp_lock_table(const struct kp_report *rp, struct kp_lock_table *t)
{
	struct kp_report_reader r;

	kp_lock_table_reader(rp, t, &r);
	kp_report_walk(rp->log, &r, 1);
}

void kp_lock_table_free(struct kp_lock_table *t)
{
	free(t->locks);
	free(t->sites);
	*t = (struct kp_lock_table){ 0 };
}

const struct kp_lock_table *kp_report_lock_table(const struct kp_report *rp, struct kp_lock_table *own)
{
	struct kp_report_cache *c = rp->cache;

	if (!c) {
		kp_lock_table(rp, own);
		return own;
	}
	if (!c->have_locks) {
		kp_lock_table(rp, &c->locks);
		c->have_locks = true;
	}
	return &c->locks;
}
