/*
 * noise.c - scenario=noise's records in the protobuf trace, streamed as
 * the model's second pass meets them (the sink's `other`), drawn as
 * perfetto_noise.c draws them for the JSON:
 *
 *   a KprofNoiseGap: a slice on "CPU n noise" from its Start for its
 *     Cycles, "noise gap" (pass 1) or "noise gap, alone" (pass 2); a
 *     correlated pass-1 gap also goes into the links' sort (by start,
 *     then CPU);
 *   a KprofTimerLatency: an instant "timer latency" on "CPU n noise";
 *   after the wake-up flows (their ids first), a sweep over the links'
 *     sort: a gap that starts before the cluster so far has ended is
 *     linked to the one before it by a flow ("noise") from the start of
 *     one slice to the start of the other.
 *
 * What is held: a CPU's count of events on its noise track, and the
 * sort's buffer.
 */
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/util/sort.h"

static inline int pb_link_cmp_of(const struct pb_noise_link *x, const struct pb_noise_link *y)
{
	int c;

	if ((c = kp_cmp_u64(x->start, y->start)))
		return c;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

int pb_link_cmp(const void *a, const void *b)
{
	return pb_link_cmp_of(a, b);
}

PB_SORT_DEFINE(pb_link_sort, struct pb_noise_link, pb_link_cmp_of)

static void on_track(struct pb_writer *w, uint32_t cpu)
{
	if (cpu < w->pf.m->ncpus)
		w->pf.noise_cpus[cpu]++; /* its "CPU n noise" track is named (perfetto_tracks.c) */
}

bool pb_noise_record(struct pb_writer *w, const struct kp_record *r)
{
	if (r->h.HookId == KPROF_LOG_TYPE_NOISE_GAP && r->version == NOISE_GAP_VERSION &&
	    r->payload_size >= sizeof(KPROF_NOISE_GAP)) {
		KPROF_NOISE_GAP g;
		memcpy(&g, r->payload, sizeof(g));
		on_track(w, r->cpu);
		pb_add_slice(w, PF_CPUS_PID, NOISE_TID + r->cpu, g.Start, g.Start + g.Cycles,
			     pb_intern(w, g.Pass == 2 ? "noise gap, alone" : "noise gap"));
		if (g.Pass == 1 && (g.Flags & KPROF_NOISE_GAP_CORRELATED)) {
			struct pb_noise_link l = { .start = g.Start, .end = g.Start + g.Cycles, .cpu = r->cpu };
			pb_spill_add(&w->links, &l);
		}
		return true;
	}
	if (r->h.HookId == KPROF_LOG_TYPE_TIMER_LATENCY && r->version == TIMER_LATENCY_VERSION &&
	    r->payload_size >= sizeof(KPROF_TIMER_LATENCY)) {
		on_track(w, r->cpu);
		pb_add(w, PF_CPUS_PID, NOISE_TID + r->cpu,
		       (struct pb_ev){ .ts = pf_ns(w->pf.m, r->h.TimeStamp), .name = pb_intern(w, "timer latency"),
				       .type = EV_INSTANT });
		return true;
	}
	return false;
}

static void flow_end(struct pb_writer *w, const struct pb_noise_link *g, uint64_t id, bool in)
{
	pb_add(w, PF_CPUS_PID, NOISE_TID + g->cpu,
	       (struct pb_ev){ .ts = pf_ns(w->pf.m, g->start), .end = id, .name = pb_intern(w, "noise"),
			       .type = in ? EV_FLOW_IN : EV_FLOW_OUT });
}

void pb_noise_links(struct pb_writer *w)
{
	const struct pb_noise_link *g;
	struct pb_noise_link prev = { 0 };
	uint64_t cluster_end = 0;
	bool any = false;

	pb_spill_sorted(&w->links);
	while ((g = pb_spill_next(&w->links))) {
		if (any && g->start < cluster_end) {
			uint64_t id = ++w->pf.flows;
			flow_end(w, &prev, id, false);
			flow_end(w, g, id, true);
		}
		if (!any || g->start >= cluster_end || g->end > cluster_end)
			cluster_end = g->end;
		prev = *g;
		any = true;
	}
	pb_spill_free(&w->links);
}
