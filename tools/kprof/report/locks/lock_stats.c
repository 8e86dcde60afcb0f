/*
 * lock_stats.c - the figures of the "Spin locks" section (locks.c prints
 * them; `kprof assert` and `kprof compare` read the same ones, so a rule
 * and the report can never disagree): each traced release as the section
 * counts it, as a walk of the log meets it (kp_lock_counted: the
 * section's table, lock_table.c, and kp_lock_recs for compare and
 * assert); a record's part of a group's totals and estimates; and a
 * group's figures from records kept in memory (assert's rule on one
 * lock).  What is contended, what a record stands for and why a wait's
 * stalled part is left out: locks.c's header.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
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

void kp_lock_counting_init(struct kp_lock_counting *c, const struct kp_report *rp)
{
	*c = (struct kp_lock_counting){ .m = rp->m, .config = -1 };
	kp_lock_sampling_init(&c->smp, rp);
}

/* The model's rules of what a record is (kp_model_kind): the same records,
 * and the same KprofSpinlockConfig counted before each, as the model's. */
bool kp_lock_counted(struct kp_lock_counting *c, const struct kp_record *r, uint16_t kind, struct kp_lock_rec *out)
{
	WMI_SPINLOCK w;

	if (kind == KPROF_LOG_TYPE_SPINLOCK_CONFIG)
		c->config++;
	if (kind != PERFINFO_LOG_TYPE_SPINLOCK)
		return false;
	memcpy(&w, r->payload, sizeof(w));
	rec_of(c->m, &w, r->cpu, c->config, out);
	classify(&c->smp, out);
	return true;
}

static int by_lock_caller(const void *a, const void *b)
{
	const struct kp_lock_rec *x = a, *y = b;
	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* kp_lock_recs' reader (walk.c): every SpinLock record, counted, kept. */
struct recs_reader {
	struct kp_lock_counting counting;
	struct kp_lock_rec *v;
	size_t n, cap;
	bool first;
};

static void recs_begin(void *ctx, const struct kp_report_stats *st, bool first)
{
	struct recs_reader *x = ctx;

	x->counting.config = -1;
	x->first = first;
}

static void recs_take(void *ctx, const struct kp_record *r, uint16_t kind)
{
	struct recs_reader *x = ctx;
	struct kp_lock_rec rec;

	if (x->first && kp_lock_counted(&x->counting, r, kind, &rec))
		KP_PUSH(x->v, x->n, x->cap, rec);
}

struct kp_lock_rec *kp_lock_recs(const struct kp_report *rp, size_t *n)
{
	struct recs_reader x = { 0 };
	struct kp_report_reader r = { &x, recs_begin, recs_take, NULL };

	kp_lock_counting_init(&x.counting, rp);
	kp_report_walk(rp->log, &r, 1);
	kp_sort(x.v, x.n, sizeof(*x.v), by_lock_caller);
	*n = x.n;
	return x.v;
}

/* r's part of g's totals and estimates (not the order statistics). */
void kp_lock_group_add(struct kp_lock_group *g, const struct kp_lock_rec *r)
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
		kp_lock_group_add(g, &recs[i]);
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
