/*
 * resource_waits.c - the waits behind a resource's WaitExcessiveFor...
 * records, each wait counted once (kernel/ex/resource_wait.c).
 *
 * A thread waits for an ERESOURCE in slices (resource.timeout_ms, NT's
 * 4 s).  Each slice that ends without ownership writes a WaitExcessive
 * record whose WaitTime is the time waited *so far*, since the wait
 * began; then either the wait goes on (an excessive wait: the owners are
 * boosted) or, for the ..._timeout calls past the caller's deadline, it
 * ends (a time-out: STATUS_TIMEOUT).  One 400 ms wait in 100 ms slices
 * writes 100, 201, 302 ...: summing them counts it several times over.
 *
 * So the records of one thread on one resource are put back into waits,
 * in time order: a WaitExcessive record belongs to the wait of the one
 * before it when its wait began (TimeStamp - WaitTime) before that one was
 * written; a release by the thread whose wait began (AcquireTime -
 * WaitTime) before the last slice's record ends that wait with the
 * resource held: all its slices were excessive waits, and its wait is the
 * release's (counted with the releases).  A wait that ends otherwise - a
 * new wait, a release of a hold that began after it, or the end of the
 * trace - ended without the resource: its last slice was the caller's
 * time-out, the others excessive waits, and its wait is that last
 * record's WaitTime, once.  (A wait still going on when the trace ended
 * is counted as a time-out too: the trace cannot tell them apart.)
 *
 * The walk takes one resource's records as they come, in time order, and
 * holds only its waits still open (the report walks every resource at
 * once, as it reads the log: resources.c).
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

/* One thread's wait that has had slices, not yet ended. */
struct kp_res_open {
	uint32_t tid;
	uint64_t last_ts;             /* the last slice's record                    */
	uint64_t last_wait;           /* its WaitTime: waited so far                */
	uint64_t slices;
	bool exclusive;
};

static bool is_slice(uint32_t action)
{
	return action == WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE ||
	       action == WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED;
}

static bool is_release(uint32_t action)
{
	return action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE ||
	       action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED;
}

/* The wait ended without the resource: a time-out. */
static void timed_out(struct kp_res_waits *w, const struct kp_res_open *o)
{
	w->slices += o->slices - 1;
	w->timeouts++;
	w->timeouts_x += o->exclusive;
	w->timeout_total += o->last_wait;
	w->timeout_max = o->last_wait > w->timeout_max ? o->last_wait : w->timeout_max;
}

/* The open wait of tid, or NULL. */
static struct kp_res_open *find(struct kp_res_open *v, size_t n, uint32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tid == tid)
			return &v[i];
	return NULL;
}

void kp_res_waits_take(struct kp_res_wait_walk *k, const WMI_RESOURCE *r, uint64_t ts)
{
	struct kp_res_waits *w = &k->w;

	if (!is_slice(r->Action) && !is_release(r->Action))
		return;
	struct kp_res_open *o = find(k->open, k->n, r->ThreadId);
	if (is_slice(r->Action)) {
		uint64_t began = r->WaitTime <= ts ? ts - r->WaitTime : 0;
		if (o && began <= o->last_ts) { /* the same wait goes on */
			o->slices++, o->last_ts = ts, o->last_wait = r->WaitTime;
			return;
		}
		if (o) {
			timed_out(w, o);
		} else {
			KP_PUSH(k->open, k->n, k->cap, (struct kp_res_open){ 0 });
			o = &k->open[k->n - 1];
		}
		*o = (struct kp_res_open){ .tid = r->ThreadId, .last_ts = ts, .last_wait = r->WaitTime, .slices = 1,
					   .exclusive = r->Action == WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE };
		return;
	}
	if (!o || r->AcquireTime < o->last_ts)
		return; /* a hold that began before the open wait: not its end */
	if (r->WaitTime && r->AcquireTime - r->WaitTime <= o->last_ts) {
		w->slices += o->slices; /* it got the resource: every slice went on */
		w->went_on++;
	} else {
		timed_out(w, o);
	}
	*o = k->open[--k->n];
}

void kp_res_waits_end(struct kp_res_wait_walk *k)
{
	for (size_t i = 0; i < k->n; i++)
		timed_out(&k->w, &k->open[i]);
	free(k->open);
	k->open = NULL;
	k->n = k->cap = 0;
}
