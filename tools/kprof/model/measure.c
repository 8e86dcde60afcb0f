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
 * TimeStamp.  Every sample of that CPU in the span is marked `measuring`,
 * and counted, so that the report can leave them out of its hot spots and
 * say how many; nothing else changes (they stay in the model for the
 * pictures to show or not).
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
	size_t k = 0;

	kp_sort(c->measures, c->nmeasures, sizeof(*c->measures), cmp_measure);
	for (size_t i = 0; i < c->nsamples; i++) { /* both by time */
		struct kp_sample *s = &c->samples[i];
		while (k < c->nmeasures && c->measures[k].end < s->ts)
			k++;
		if (k < c->nmeasures && c->measures[k].start <= s->ts) {
			s->measuring = true;
			c->measure_samples++;
		}
	}
}
