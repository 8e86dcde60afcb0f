/*
 * sched_order.c - the latency walk's events (model.h: every CPU's
 * switches in and out, and its ReadyThread records) handed to latency.c in
 * the order its state machine relies on, as the model's second pass makes
 * them (schedule.c), none gathered beyond one time stamp's.
 *
 * The order: by time stamp; at one time stamp a switch out before a
 * ReadyThread before a switch in (a thread switched out and readied at
 * one instant was readied after it went out; one readied and switched in
 * at one instant waited no time); then CPU by CPU; then in the order the
 * CPU's records make them (a switch out, then the next run's switch in).
 * That is the order the events would take gathered CPU by CPU and sorted.
 *
 * How: the pass meets the records in time order (the CPUs merged by
 * stamp, read/records.h), and every event comes at its record's stamp.
 * So the events of one stamp are gathered (a few) and, when a record of a
 * later stamp comes, sorted on (type, CPU, arrival) and handed over.  A
 * ReadyThread's `by`, the thread running on its CPU at that stamp, is
 * found then, when every switch at that stamp is in (kp_schedule_running).
 */
#include "tools/kprof/model/model.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

struct kp_sched_item {
	struct kp_sched_event e;
	uint32_t cpu;
	size_t arrival;
};

static int cmp_item(const void *a, const void *b)
{
	const struct kp_sched_item *x = a, *y = b;

	if (x->e.type != y->e.type)
		return x->e.type < y->e.type ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->arrival > y->arrival) - (x->arrival < y->arrival);
}

void kp_sched_order_flush(struct kp_sched_order *o)
{
	if (o->n > 1)
		kp_sort(o->v, o->n, sizeof(*o->v), cmp_item);
	for (size_t i = 0; i < o->n; i++) {
		struct kp_sched_item *it = &o->v[i];
		if (it->e.type == KP_SCHED_READY)
			it->e.by = kp_schedule_running(o->sched, it->cpu, it->e.ts);
		kp_latency_take(o->lat, &it->e);
	}
	o->n = 0;
}

void kp_sched_order_at(struct kp_sched_order *o, uint64_t ts)
{
	if (o->n && ts != o->ts)
		kp_sched_order_flush(o);
	o->ts = ts;
}

void kp_sched_order_add(struct kp_sched_order *o, struct kp_sched_event e, uint32_t cpu)
{
	struct kp_sched_item it = { e, cpu, o->n };

	KP_PUSH(o->v, o->n, o->cap, it);
}
