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
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

/* One thread's wait that has had slices, not yet ended. */
struct open_wait {
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
static void timed_out(struct kp_res_waits *w, const struct open_wait *o)
{
	w->slices += o->slices - 1;
	w->timeouts++;
	w->timeouts_x += o->exclusive;
	w->timeout_total += o->last_wait;
	w->timeout_max = o->last_wait > w->timeout_max ? o->last_wait : w->timeout_max;
}

/* The open wait of tid, or NULL. */
static struct open_wait *find(struct open_wait *v, size_t n, uint32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].tid == tid)
			return &v[i];
	return NULL;
}

void kp_resource_waits(const struct kp_model *m, uint64_t resource, struct kp_res_waits *w)
{
	struct open_wait *open = NULL;
	size_t n = 0, cap = 0;

	*w = (struct kp_res_waits){ 0 };
	for (size_t i = 0; i < m->nresources; i++) { /* in time order */
		const WMI_RESOURCE *r = &m->resources[i];
		uint64_t ts = m->resource_ts[i];
		if (r->Resource != resource || (!is_slice(r->Action) && !is_release(r->Action)))
			continue;
		struct open_wait *o = find(open, n, r->ThreadId);
		if (is_slice(r->Action)) {
			uint64_t began = r->WaitTime <= ts ? ts - r->WaitTime : 0;
			if (o && began <= o->last_ts) { /* the same wait goes on */
				o->slices++, o->last_ts = ts, o->last_wait = r->WaitTime;
				continue;
			}
			if (o) {
				timed_out(w, o);
			} else {
				KP_PUSH(open, n, cap, (struct open_wait){ 0 });
				o = &open[n - 1];
			}
			*o = (struct open_wait){ .tid = r->ThreadId, .last_ts = ts, .last_wait = r->WaitTime, .slices = 1,
						 .exclusive = r->Action == WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE };
			continue;
		}
		if (!o || r->AcquireTime < o->last_ts)
			continue; /* a hold that began before the open wait: not its end */
		if (r->WaitTime && r->AcquireTime - r->WaitTime <= o->last_ts) {
			w->slices += o->slices; /* it got the resource: every slice went on */
			w->went_on++;
		} else {
			timed_out(w, o);
		}
		*o = open[--n];
	}
	for (size_t i = 0; i < n; i++)
		timed_out(w, &open[i]);
	free(open);
}
