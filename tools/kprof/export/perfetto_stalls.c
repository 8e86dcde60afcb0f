/*
 * perfetto_stalls.c - when each CPU could not run, for the "CPU n
 * stalled" tracks: a KprofClockLate record says the clock interrupt due
 * at DueTime was handled only LateCycles later (the virtual CPU was not
 * running, or interrupts were masked), so the CPU ran nothing from
 * DueTime to DueTime + LateCycles.  Overlapping stretches are merged,
 * and each is clipped to the trace's span.
 *
 * The model (model.h) has no stall list on this branch; when it gets one
 * (issue 14, item 2), this file should read it instead.
 */
#include <string.h>

#include "tools/kprof/export/perfetto.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

static int cmp_stall(const void *a, const void *b)
{
	const struct pf_stall *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sort a CPU's stalls and merge those that overlap; returns how many. */
static size_t merge(struct pf_stall *s, size_t n)
{
	size_t k = 0;

	kp_sort(s, n, sizeof(*s), cmp_stall);
	for (size_t i = 0; i < n; i++) {
		if (k && s[i].start <= s[k - 1].end) {
			if (s[i].end > s[k - 1].end)
				s[k - 1].end = s[i].end;
			s[k - 1].records += s[i].records;
		} else {
			s[k++] = s[i];
		}
	}
	return k;
}

void pf_stalls_build(struct pf_stalls *s, struct kp_log *log, const struct kp_model *m)
{
	size_t *cap = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*cap));
	struct kp_merge mg;
	struct kp_record r;

	s->cpu = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*s->cpu));
	s->n = kp_xcalloc(m->ncpus ? m->ncpus : 1, sizeof(*s->n));
	kp_merge_init(&mg, log);
	while (kp_merge_next(&mg, &r)) {
		KPROF_CLOCK_LATE c;
		if (r.h.HookId != KPROF_LOG_TYPE_CLOCK_LATE || r.payload_size < sizeof(c) || r.cpu >= m->ncpus)
			continue;
		memcpy(&c, r.payload, sizeof(c));
		struct pf_stall st = { c.DueTime, c.DueTime + c.LateCycles, 1 };
		if (st.start < m->begin)
			st.start = m->begin;
		if (st.end > m->end)
			st.end = m->end;
		if (st.end > st.start)
			KP_PUSH(s->cpu[r.cpu], s->n[r.cpu], cap[r.cpu], st);
	}
	kp_merge_free(&mg);
	for (uint32_t i = 0; i < m->ncpus; i++)
		s->n[i] = merge(s->cpu[i], s->n[i]);
	free(cap);
}

void pf_stalls_free(struct pf_stalls *s, uint32_t ncpus)
{
	for (uint32_t i = 0; i < ncpus; i++)
		free(s->cpu[i]);
	free(s->cpu);
	free(s->n);
}
