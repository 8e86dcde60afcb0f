/*
 * lock_stats.c - the figures of the "Spin locks" section (locks.c prints
 * them; `kprof assert` and `kprof compare` read the same ones, so a rule
 * and the report can never disagree): each traced release as the section
 * counts it, and a lock's or release site's totals, estimates and order
 * statistics.  What is contended, what a record stands for and why a
 * wait's stalled part is left out: locks.c's header.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

/* The model's SpinLock records as the section counts them. */
static struct kp_lock_rec *collect(const struct kp_model *m)
{
	struct kp_lock_rec *recs = kp_xcalloc(m->nspinlocks, sizeof(*recs));

	for (size_t i = 0; i < m->nspinlocks; i++) {
		const WMI_SPINLOCK *w = &m->spinlocks[i].r;
		unsigned mode = w->Flags & SPINLOCK_ACQUIRE_MODE_MASK;
		uint32_t cpu = m->spinlocks[i].cpu;
		uint64_t stalled = cpu < m->ncpus && w->WaitTimeInCycles <= w->AcquireTime
					   ? kp_stall_overlap(&m->cpu[cpu], w->AcquireTime - w->WaitTimeInCycles, w->AcquireTime)
					   : 0;
		recs[i] = (struct kp_lock_rec){
			.lock = w->SpinLockAddress,
			.caller = w->CallerAddress,
			.wait = w->WaitTimeInCycles - stalled,
			.stalled = stalled,
			.hold = w->ReleaseTime >= w->AcquireTime ? w->ReleaseTime - w->AcquireTime : 0,
			.spins = w->SpinCount,
			.config = m->spinlocks[i].config,
			.mode = (uint8_t)(mode < KP_LOCK_MODES - 1 ? mode : KP_LOCK_MODES - 1),
		};
	}
	return recs;
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

static int by_lock_caller(const void *a, const void *b)
{
	const struct kp_lock_rec *x = a, *y = b;
	if (x->lock != y->lock)
		return x->lock < y->lock ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* Fill g from recs[0..n), which share g->addr. */
void kp_lock_summarise(struct kp_lock_group *g, const struct kp_lock_rec *recs, size_t n, uint64_t *v, struct kp_weighted *vw)
{
	size_t nw = 0;

	for (size_t i = 0; i < n; i++) {
		const struct kp_lock_rec *r = &recs[i];
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
		if (r->wait)
			v[nw++] = r->wait;
	}
	kp_stats_of(v, nw, &g->wait);
	for (size_t i = 0; i < n; i++)
		v[i] = recs[i].hold;
	kp_stats_of(v, n, &g->hold);
	for (size_t i = 0; i < n; i++)
		vw[i] = (struct kp_weighted){ recs[i].hold, recs[i].weight };
	kp_stats_weighted(vw, n, &g->hold_est);
}


struct kp_lock_rec *kp_lock_recs(const struct kp_report *rp)
{
	struct kp_lock_sampling smp;
	struct kp_lock_rec *recs;

	kp_lock_sampling_init(&smp, rp);
	recs = collect(rp->m);
	for (size_t i = 0; i < rp->m->nspinlocks; i++)
		classify(&smp, &recs[i]);
	kp_sort(recs, rp->m->nspinlocks, sizeof(*recs), by_lock_caller);
	return recs;
}
