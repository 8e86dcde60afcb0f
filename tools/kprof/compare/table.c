/*
 * table.c - the comparison's table of figures (compare.h): each kind's
 * unit and name, a figure found or made by kind and name, an observation
 * put in for a run of a side, and the notes that go under the table.
 * collect.c and user.c fill it, compare.c, text.c and json.c read it; it
 * calls none of them.
 */
#include "tools/kprof/compare/compare.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

bool kp_cmp_zero_if_absent(enum kp_cmp_kind k)
{
	return k == KP_CMP_HOT || k == KP_CMP_CPU || k == KP_CMP_EV_RATE;
}

enum kp_cmp_unit kp_cmp_unit(enum kp_cmp_kind k)
{
	switch (k) {
	case KP_CMP_HOT: case KP_CMP_CONTENTION: case KP_CMP_CONTENTION_EST: case KP_CMP_CPU: case KP_CMP_NOISE:
		return KP_CMP_SHARE;
	case KP_CMP_EV_RATE: return KP_CMP_PER_S;
	case KP_CMP_EV_MEAN: case KP_CMP_EV_MEDIAN: return KP_CMP_VALUE;
	default: return KP_CMP_SECONDS;
	}
}

bool kp_cmp_is_share(enum kp_cmp_kind k)
{
	return kp_cmp_unit(k) == KP_CMP_SHARE;
}

bool kp_cmp_is_user(enum kp_cmp_kind k)
{
	return k >= KP_CMP_EV_RATE && k < KP_CMP_KINDS;
}

const char *kp_cmp_kind_name(enum kp_cmp_kind k)
{
	static const char *const names[] = { "hot", "contention", "contention_est", "wait", "hold", "latency", "cpu",
					     "noise", "timer_mean", "event_rate", "field_mean", "field_median", "span_mean",
					     "span_median" };
	return names[k];
}

struct kp_cmp_metric *kp_cmp_metric(struct kp_cmp_table *t, enum kp_cmp_kind k, const char *name)
{
	uint64_t h = kp_hash_str(name, (uint64_t)k);
	size_t it;

	for (size_t i = kp_index_first(&t->by_name, h, &it); i != KP_INDEX_NONE; i = kp_index_next(&t->by_name, h, &it))
		if (t->m[i].kind == k && !strcmp(t->m[i].name, name))
			return &t->m[i];
	kp_index_add(&t->by_name, h, t->n);
	t->m = kp_grow(t->m, &t->cap, t->n + 1, sizeof(*t->m));
	struct kp_cmp_metric *m = &t->m[t->n++];
	*m = (struct kp_cmp_metric){ .kind = k };
	snprintf(m->name, sizeof(m->name), "%s", name);
	for (int s = 0; s < 2; s++)
		m->obs[s] = kp_xcalloc(t->runs[s] ? t->runs[s] : 1, sizeof(*m->obs[s]));
	return m;
}

void kp_cmp_put(struct kp_cmp_table *t, int side, size_t run, enum kp_cmp_kind k, const char *name, double v,
		double var)
{
	struct kp_cmp_obs *o = &kp_cmp_metric(t, k, name)->obs[side][run];
	*o = (struct kp_cmp_obs){ .have = true, .value = v, .var = var };
}

void kp_cmp_note(struct kp_cmp_table *t, const char *fmt, ...)
{
	va_list ap;
	char buf[600];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->notes = kp_grow(t->notes, &t->notes_cap, t->nnotes + 1, sizeof(*t->notes));
	t->notes[t->nnotes++] = kp_xstrdup(buf);
}
