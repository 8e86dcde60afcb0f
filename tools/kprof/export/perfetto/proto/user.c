/*
 * user.c - the workload's own events (read/user_types.c) in the protobuf
 * trace, streamed: each record is drawn as the model's second pass meets
 * it, by perfetto_user.c's rules for the JSON, so that the writer keeps
 * no record (proto.h):
 *
 *   instant  an instant on "CPU n events" named after its type;
 *   span     a slice on "CPU n TYPE" from a Begin to the End that closes
 *            it, the latest open Begin of the type on that CPU: a stack of
 *            open Begins' times per CPU and type (all that is kept, 8
 *            bytes an open Begin).  A Begin never ended lasts to its CPU's
 *            last record (finish); an End without a Begin is an instant;
 *   counter  a COUNTER on a track per type and numeric field ("TYPE
 *            FIELD"), those tracks declared after the JSON's tracks in the
 *            order the JSON writer meets them: a CPU's in the order its
 *            events first name them, CPU after CPU.
 *
 * A CPU's records come in its order (the second pass merges the CPUs in
 * time order), which is the order the JSON writer pairs them in.
 */
#include <stdlib.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"

struct pb_user_open { /* a CPU's open Begins of one type */
	uint64_t *ts;
	size_t n, cap;
};

struct pb_user {
	uint32_t ncpus;
	struct pb_user_cpu {
		struct pb_user_open open[KPROF_EVENT_MAX_TYPES + 1];
		uint16_t ncounters; /* its counter types, in first use's order */
		uint16_t counters[KPROF_EVENT_MAX_TYPES + 1];
		bool counted[KPROF_EVENT_MAX_TYPES + 1];
	} **cpu;                /* made at a CPU's first event               */
	uint32_t uuid[PB_COUNTER_KEYS]; /* per counter key, once declared    */
};

static struct pb_user_cpu *user_cpu(struct pb_writer *w, uint32_t cpu)
{
	struct pb_user *u = w->user;

	if (!u) {
		u = w->user = kp_xcalloc(1, sizeof(*u));
		u->ncpus = w->pf.m->ncpus;
		u->cpu = kp_xcalloc(u->ncpus, sizeof(*u->cpu));
	}
	if (!u->cpu[cpu])
		u->cpu[cpu] = kp_xcalloc(1, sizeof(*u->cpu[cpu]));
	return u->cpu[cpu];
}

static void instant(struct pb_writer *w, const struct kp_user_type *t, uint32_t cpu, uint64_t ts)
{
	pb_add(w, PF_CPUS_PID, pf_user_tid(cpu, 0),
	       (struct pb_ev){ .ts = pf_ns(w->pf.m, ts), .name = pb_intern(w, t->name), .type = EV_INSTANT });
}

static void span(struct pb_writer *w, const struct kp_user_type *t, uint32_t cpu, uint64_t from, uint64_t to)
{
	pb_add_slice(w, PF_CPUS_PID, pf_user_tid(cpu, t->id), from, to, pb_intern(w, t->name));
}

void pb_user_record(struct pb_writer *w, const struct kp_record *r)
{
	const struct kp_user_type *t = kp_user_type_of(w->pf.log, r);

	if (!t || r->cpu >= w->pf.m->ncpus)
		return; /* not the workload's (or shown raw), or a CPU the model does not have */
	pf_user_seen_add(&w->pf, t, r);
	struct pb_user_cpu *c = user_cpu(w, r->cpu);
	if (t->kind == KprofEventKindCounter) {
		const char *series[PF_SERIES_MAX];
		int64_t value[PF_SERIES_MAX];
		unsigned n = pf_user_series(t, r, series, value);
		if (!c->counted[t->id]) {
			c->counted[t->id] = true;
			c->counters[c->ncounters++] = t->id;
		}
		for (unsigned k = 0; k < n; k++)
			pb_add(w, 0, PB_COUNTER_KEY(t->id, k),
			       (struct pb_ev){ .ts = pf_ns(w->pf.m, r->h.TimeStamp), .end = (uint64_t)value[k],
					       .type = EV_COUNTER });
		return;
	}
	struct pb_user_open *o = &c->open[t->id];
	if (t->kind == KprofEventKindSpan && r->payload[2] == KprofEventBegin) {
		KP_PUSH(o->ts, o->n, o->cap, r->h.TimeStamp);
	} else if (t->kind == KprofEventKindSpan && r->payload[2] == KprofEventEnd && o->n) {
		span(w, t, r->cpu, o->ts[--o->n], r->h.TimeStamp);
	} else {
		instant(w, t, r->cpu, r->h.TimeStamp); /* an instant, an End without a Begin, another phase */
	}
}

void pb_user_finish(struct pb_writer *w)
{
	const struct pb_user *u = w->user;

	for (uint32_t cpu = 0; u && cpu < u->ncpus; cpu++) {
		struct pb_user_cpu *c = u->cpu[cpu];
		for (uint32_t id = 0; c && id <= KPROF_EVENT_MAX_TYPES; id++) {
			struct pb_user_open *o = &c->open[id];
			/* the oldest first, as the JSON writer's Begins come */
			for (size_t i = 0; i < o->n; i++)
				span(w, w->pf.log->user_types->by_id[id], cpu, o->ts[i], w->pf.m->cpu[cpu].last);
			o->n = 0;
		}
	}
}

void pb_user_declare(struct pb_writer *w)
{
	struct pb_user *u = w->user;
	const char *series[PF_SERIES_MAX];
	char name[320];

	for (uint32_t cpu = 0; u && cpu < u->ncpus; cpu++) {
		const struct pb_user_cpu *c = u->cpu[cpu];
		for (uint16_t i = 0; c && i < c->ncounters; i++) {
			const struct kp_user_type *t = w->pf.log->user_types->by_id[c->counters[i]];
			unsigned n = pf_user_series(t, NULL, series, NULL);
			for (unsigned k = 0; k < n; k++) {
				snprintf(name, sizeof(name), "%s %s", t->name, series[k]);
				u->uuid[PB_COUNTER_KEY(t->id, k)] = pb_counter_uuid(w, name);
			}
		}
	}
}

uint32_t pb_user_counter_uuid(const struct pb_writer *w, uint32_t key)
{
	return w->user && key < PB_COUNTER_KEYS ? w->user->uuid[key] : 0;
}

void pb_user_free(struct pb_writer *w)
{
	struct pb_user *u = w->user;

	for (uint32_t cpu = 0; u && cpu < u->ncpus; cpu++) {
		for (uint32_t id = 0; u->cpu[cpu] && id <= KPROF_EVENT_MAX_TYPES; id++)
			free(u->cpu[cpu]->open[id].ts);
		free(u->cpu[cpu]);
	}
	if (u)
		free(u->cpu);
	free(u);
	w->user = NULL;
}
