/*
 * measure.c - the spans of kprof's own measurements (KprofMeasure records,
 * hook 0xFE08) and the samples inside them.
 *
 * scenario=profile measures what a profile interrupt costs by sending
 * itself 2000 of them (kernel/workloads/scenarios/profile.c); each is a real one and
 * writes a real SampledProfile record, at the instruction the self-IPI
 * interrupted (arch_send_ipi), enough to make that the top hot spot of a
 * short run.  The kernel tags the span with a KprofMeasure record, written
 * on the measuring CPU at the end: from TimeStamp - DurationCycles to
 * TimeStamp.  Every sample of that CPU in the span is counted, and marked
 * `measuring` when the model keeps it (the model's second pass, model.c),
 * so that the report can leave them out of its hot spots (which it reads
 * from the log, with kp_measure_in) and say how many; nothing else changes
 * (they stay in the model for the pictures to show or not).
 */
#include "tools/kprof/model/model.h"

#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

void kp_measure_add(struct kp_model_cpu *c, const struct kp_record *r)
{
	KPROF_MEASURE k;

	memcpy(&k, r->payload, sizeof(k));
	struct kp_measure s = { .start = k.DurationCycles <= r->h.TimeStamp ? r->h.TimeStamp - k.DurationCycles : 0,
				.end = r->h.TimeStamp, .rounds = k.Rounds, .what = k.What };
	KP_PUSH(c->measures, c->nmeasures, c->capmeasures, s);
}

static int cmp_measure(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_measure *)a)->start, ((const struct kp_measure *)b)->start);
}

void kp_measure_finish(struct kp_model_cpu *c)
{
	kp_sort(c->measures, c->nmeasures, sizeof(*c->measures), cmp_measure);
}

/* The spans by start; a sample is in the first span not ended before it
 * if that one has started. */
bool kp_measure_in(const struct kp_model_cpu *c, size_t *walk, uint64_t ts)
{
	while (*walk < c->nmeasures && c->measures[*walk].end < ts)
		(*walk)++;
	return *walk < c->nmeasures && c->measures[*walk].start <= ts;
}
