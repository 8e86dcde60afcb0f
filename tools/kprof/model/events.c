/*
 * events.c - the model's per-CPU events besides the schedule: spin-lock
 * waits (SpinLock records that waited), samples (SampledProfile,
 * PmcInterrupt) and ReadyThread records, each sorted by time once all
 * are in.  A model built keeping less (kp_model_build_keeping) may count
 * the waits, samples or ReadyThread records and not keep them.
 *
 * Waits are kept so that those of a CPU nest, as the Chrome trace format
 * wants of one track: a wait that starts inside another and ends after it
 * (time stamps a few cycles apart, AcquireTime - WaitTimeInCycles being
 * computed) is cut to end with it; one that starts before the trace is
 * cut to start with it.
 */
#include "tools/kprof/model/model.h"

#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"
#include "tools/kprof/util/sort.h"

/* The index of what a wait shares with others, kept once. */
static uint32_t wait_site(struct kp_model *m, const struct kp_wait_site *k)
{
	uint64_t h = kp_hash_u64(k->lock ^ (k->caller << 1) ^ ((uint64_t)k->tid << 32) ^ k->mode, k->caller);
	size_t it;

	for (size_t at = kp_index_first(&m->wait_site_ix, h, &it); at != KP_INDEX_NONE;
	     at = kp_index_next(&m->wait_site_ix, h, &it)) {
		const struct kp_wait_site *x = &m->wait_sites[at];
		if (x->lock == k->lock && x->caller == k->caller && x->tid == k->tid && x->mode == k->mode)
			return (uint32_t)at;
	}
	KP_ASSERT(m->nwait_sites < UINT32_MAX, "%zu wait sites", m->nwait_sites);
	kp_index_add(&m->wait_site_ix, h, m->nwait_sites);
	KP_PUSH(m->wait_sites, m->nwait_sites, m->capwait_sites, *k);
	return (uint32_t)(m->nwait_sites - 1);
}

static void add_wait(struct kp_model *m, struct kp_model_cpu *c, const struct kp_record *r)
{
	WMI_SPINLOCK w;

	memcpy(&w, r->payload, sizeof(w));
	if (!kp_spinlock_waited(&w))
		return;
	c->waited++;
	if (m->not_kept & KP_KEEP_WAITS) {
		m->waits++;
		return;
	}
	struct kp_wait_site site = { .lock = w.SpinLockAddress, .caller = w.CallerAddress, .tid = w.ThreadId,
				     .mode = w.Flags & SPINLOCK_ACQUIRE_MODE_MASK };
	struct kp_wait k = { .start = w.AcquireTime - w.WaitTimeInCycles, .end = w.AcquireTime,
			     .site = wait_site(m, &site), .spins = w.SpinCount };
	KP_PUSH(c->waits, c->nwaits, c->capwaits, k);
}

const struct kp_wait_site *kp_wait_site_of(const struct kp_model *m, const struct kp_wait *w)
{
	return &m->wait_sites[w->site];
}

void kp_sample_of(const struct kp_record *r, struct kp_sample *s)
{
	struct kp_sample k = { .ts = r->h.TimeStamp };

	if (r->h.HookId == PERFINFO_LOG_TYPE_SAMPLED_PROFILE) {
		PERFINFO_SAMPLED_PROFILE_INFORMATION p;
		memcpy(&p, r->payload, sizeof(p));
		k.ip = p.InstructionPointer;
		k.tid = p.ThreadId;
		k.count = p.Count;
	} else {
		PERFINFO_PMC_SAMPLE p;
		memcpy(&p, r->payload, sizeof(p));
		k.ip = p.InstructionPointer;
		k.tid = p.ThreadId;
		k.count = 1;
		k.pmc = true;
		k.source = p.ProfileSource;
	}
	*s = k;
}

static void add_sample(struct kp_model *m, struct kp_model_cpu *c, const struct kp_record *r)
{
	struct kp_sample k;

	kp_sample_of(r, &k);
	m->samples++;
	m->sample_periods += k.count;
	if (!(m->not_kept & KP_KEEP_SAMPLES))
		KP_PUSH(c->samples, c->nsamples, c->capsamples, k);
}

static void add_ready(struct kp_model *m, struct kp_model_cpu *c, const struct kp_record *r)
{
	WMI_READY_THREAD p;

	if (m->not_kept & KP_KEEP_READIES) {
		m->readies++;
		return;
	}
	memcpy(&p, r->payload, sizeof(p));
	struct kp_ready k = { .ts = r->h.TimeStamp, .tid = p.TThreadId, .reason = p.AdjustReason,
			      .increment = p.AdjustIncrement };
	KP_PUSH(c->readies, c->nreadies, c->capreadies, k);
}

void kp_events_add(struct kp_model *m, struct kp_model_cpu *c, const struct kp_record *r)
{
	switch (r->h.HookId) {
	case PERFINFO_LOG_TYPE_SPINLOCK: add_wait(m, c, r); break;
	case PERFINFO_LOG_TYPE_READY_THREAD: add_ready(m, c, r); break;
	default: add_sample(m, c, r); break;
	}
}

/* ---------------------------------------------------------------- sorting */

static int cmp_wait(const void *a, const void *b)
{
	const struct kp_wait *x = a, *y = b;
	int c = kp_cmp_u64(x->start, y->start);
	return c ? c : kp_cmp_u64(y->end, x->end); /* the outer one first */
}

static int cmp_sample(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_sample *)a)->ts, ((const struct kp_sample *)b)->ts);
}

static int cmp_ready(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_ready *)a)->ts, ((const struct kp_ready *)b)->ts);
}

uint64_t kp_wait_nest(struct kp_wait_nesting *n, uint64_t start, uint64_t end)
{
	while (n->depth && n->stack[n->depth - 1] <= start)
		n->depth--;
	if (n->depth && end > n->stack[n->depth - 1])
		end = n->stack[n->depth - 1];
	if (n->depth < sizeof(n->stack) / sizeof(n->stack[0]))
		n->stack[n->depth++] = end;
	return end;
}

static void nest_waits(const struct kp_model *m, struct kp_model_cpu *c)
{
	struct kp_wait_nesting n = { .depth = 0 };

	for (size_t i = 0; i < c->nwaits; i++)
		if (c->waits[i].start < m->begin)
			c->waits[i].start = m->begin;
	kp_sort_nearly(c->waits, c->nwaits, sizeof(*c->waits), cmp_wait); /* they come by release */
	for (size_t i = 0; i < c->nwaits; i++)
		c->waits[i].end = kp_wait_nest(&n, c->waits[i].start, c->waits[i].end);
}

void kp_events_finish(struct kp_model *m, struct kp_model_cpu *c)
{
	nest_waits(m, c);
	kp_sort_nearly(c->samples, c->nsamples, sizeof(*c->samples), cmp_sample); /* they come by time */
	kp_sort_nearly(c->readies, c->nreadies, sizeof(*c->readies), cmp_ready);
}
