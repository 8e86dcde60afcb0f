/*
 * user.c - the figures of the workload's own events for `kprof compare`
 * (compare.h), read by the types the trace describes (read/user_types.h),
 * each with its variance within the run:
 *
 *   event rate    a type's events per second of the run (a span type:
 *                 its slices): count / T, variance count / T^2 (the
 *                 count taken as Poisson)
 *   field mean    each numeric field of an instant type (integers; not
 *                 pointers, strings or enumerations): the mean of its
 *                 values, s^2 / n
 *   field median  the nearest-rank median of those values; no variance
 *                 within a run, so an interval over runs only
 *   span mean,    the lengths of a span type's slices (a Begin and the
 *   span median   End that closes it on its CPU, as the report pairs them)
 *
 * A type with an enumeration field is split by its value (its first one;
 * --by names the field): "ticketlock_handoff HandoffNs [Lock=ticket]" and
 * "... [Lock=queued]" are two figures.  A slice has its Begin's values.
 * Counter types give their rate only: their values sample a level, they
 * are not one value per event to average.
 *
 * Events that cannot be read (type record missing or damaged, an event of
 * the wrong size) are left out with a note naming the run, the type and
 * how many; such a run's rate of a type it lacks is then not known,
 * rather than 0 (compare.c).
 */
#include "tools/kprof/compare/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

struct vec {
	double *v;
	size_t n, cap;
};

/* The events of one type with one value of its split field. */
struct group {
	const struct kp_user_type *t;
	uint64_t split;                /* the split field's value               */
	uint64_t events;               /* instants, counters: events; spans:    */
	                               /* slices                                */
	struct vec field[KPROF_EVENT_MAX_FIELDS + 1]; /* by t->ev.fields index  */
	struct vec len;                /* spans: slice lengths, s               */
};

struct groups {
	struct group *g;
	size_t n, cap;
	struct kp_index ix;            /* g[] by (type, split value)            */
};

/* A Begin still open on a CPU; the open ones of each type a stack. */
struct open_span {
	uint64_t ts, split;
	size_t below;                  /* index + 1 of the one before of its    */
	                               /* type; 0: none                         */
};

static void push(struct vec *v, double x)
{
	v->v = kp_grow(v->v, &v->cap, v->n + 1, sizeof(*v->v));
	v->v[v->n++] = x;
}

static struct group *group(struct groups *gs, const struct kp_user_type *t, uint64_t split)
{
	uint64_t h = kp_hash_u64(split, t->id);
	size_t it;

	for (size_t i = kp_index_first(&gs->ix, h, &it); i != KP_INDEX_NONE; i = kp_index_next(&gs->ix, h, &it))
		if (gs->g[i].t == t && gs->g[i].split == split)
			return &gs->g[i];
	kp_index_add(&gs->ix, h, gs->n);
	gs->g = kp_grow(gs->g, &gs->cap, gs->n + 1, sizeof(*gs->g));
	struct group *g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->t = t;
	g->split = split;
	return g;
}

/* The value of t's split field in payload p (0 when it has none). */
static uint64_t split_value(const struct kp_cmp_table *tb, const struct kp_user_type *t, const uint8_t *p)
{
	int sf = kp_user_split_field(t, tb->by.field);
	return sf >= 0 ? kp_field_value(&t->ev.fields[sf], p) : 0;
}

/* The group of t's events with that split value on this side, or NULL:
 * under --by, t has not the field or this is not the side's value. */
static struct group *group_of(struct groups *gs, const struct kp_cmp_table *tb, int side,
			      const struct kp_user_type *t, uint64_t split)
{
	int sf = kp_user_split_field(t, tb->by.field);

	if (tb->by.field && (sf < 0 || (int64_t)split != kp_field_value_named(&t->ev.fields[sf], tb->by.value[side])))
		return NULL;
	return group(gs, t, split);
}

/* Every readable event of the run into its group; spans paired per CPU:
 * an End closes the latest open Begin of its type (top[type]: the top of
 * that type's stack, index + 1 into open[], whose entries are never moved,
 * so an End costs the same however many Begins of other types are open). */
static void read_events(struct groups *gs, const struct kp_cmp_table *tb, int side, const struct kp_runlog *r)
{
	const struct kp_log *log = &r->log;
	struct open_span *open = NULL;
	size_t cap = 0, *top = kp_xcalloc(KPROF_EVENT_MAX_TYPES + 1, sizeof(*top));

	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		size_t n = 0;
		memset(top, 0, (KPROF_EVENT_MAX_TYPES + 1) * sizeof(*top));
		kp_cursor_init(&c, (struct kp_log *)log, cpu); /* reads only */
		while (kp_cursor_next(&c, &rec)) {
			const struct kp_user_type *t = kp_user_type_of(log, &rec);
			if (!t)
				continue;
			if (t->kind != KprofEventKindSpan) {
				struct group *g = group_of(gs, tb, side, t, split_value(tb, t, rec.payload));
				if (!g)
					continue;
				g->events++;
				for (unsigned i = 0; t->kind == KprofEventKindInstant && i < t->ev.nfields; i++) {
					const struct kp_field *f = &t->ev.fields[i];
					uint64_t v = kp_field_value(f, rec.payload);
					if (f->names || (f->kind != KP_UNSIGNED && f->kind != KP_SIGNED))
						continue;
					push(&g->field[i], f->kind == KP_SIGNED ? (double)(int64_t)v : (double)v);
				}
			} else if (rec.payload[2] == KprofEventBegin) {
				open = kp_grow(open, &cap, n + 1, sizeof(*open));
				open[n++] = (struct open_span){ rec.h.TimeStamp, split_value(tb, t, rec.payload), top[t->id] };
				top[t->id] = n;
			} else if (rec.payload[2] == KprofEventEnd) {
				size_t k = top[t->id]; /* the latest open Begin of its type */
				if (!k)
					continue; /* an End without a Begin: no slice */
				struct open_span b = open[k - 1];
				top[t->id] = b.below;
				if (k == n) /* the last: its room is free again */
					n--;
				struct group *g = group_of(gs, tb, side, t, b.split);
				if (!g || rec.h.TimeStamp < b.ts)
					continue; /* an End before its Begin: damaged, no slice */
				g->events++;
				if (r->m.hz > 0)
					push(&g->len, (double)(rec.h.TimeStamp - b.ts) / r->m.hz);
			}
		}
	}
	free(open);
	free(top);
}

/* Mean (its variance s^2 / n) and nearest-rank median of v; sorts v. */
static void mean_median(const char *name, enum kp_cmp_kind mean_kind, struct kp_cmp_table *t, int side,
			size_t run, struct vec *v)
{
	double s = 0, ss = 0;

	if (!v->n)
		return;
	for (size_t i = 0; i < v->n; i++)
		s += v->v[i];
	double mean = s / (double)v->n;
	for (size_t i = 0; i < v->n; i++)
		ss += (v->v[i] - mean) * (v->v[i] - mean);
	double var = v->n > 1 ? ss / (double)(v->n - 1) / (double)v->n : NAN;
	kp_cmp_put(t, side, run, mean_kind, name, mean, var);
	kp_sort(v->v, v->n, sizeof(*v->v), kp_cmp_doubles);
	kp_cmp_put(t, side, run, mean_kind + 1, name, v->v[kp_nearest_rank(v->n, 50)], NAN);
}

/* "TYPE[ FIELD] [SPLIT=value]" (no split part under --by). */
static void figure_name(char *buf, size_t size, const struct kp_cmp_table *tb, const struct group *g,
			const char *field)
{
	int sf = kp_user_split_field(g->t, tb->by.field);
	size_t len = (size_t)snprintf(buf, size, "%s%s%s", g->t->name, field ? " " : "", field ? field : "");

	if (sf < 0 || tb->by.field || len >= size)
		return;
	const struct kp_field *f = &g->t->ev.fields[sf];
	const char *vn = kp_field_value_name(f, g->split);
	if (vn)
		snprintf(buf + len, size - len, " [%s=%s]", f->name, vn);
	else
		snprintf(buf + len, size - len, " [%s=%" PRIu64 "]", f->name, g->split);
}

/* Notes for the run's events that could not be read; whether there are. */
static bool unread(struct kp_cmp_table *tb, int side, size_t run, const struct kp_runlog *r)
{
	const struct kp_user_types *u = r->log.user_types;
	bool any = false;

	for (uint32_t i = 0; u && i < u->n; i++) {
		const struct kp_user_type *t = u->list[i];
		if (!t->raw_events)
			continue;
		any = true;
		if (!t->known || t->damaged)
			kp_cmp_note(tb, "%c run %zu (%s): user event type %u: its type record is %s; its %" PRIu64
				    " events are not compared, and this run's event rates are not known", side ? 'B' : 'A',
				    run + 1, r->path, t->id, t->damaged ? "damaged" : "missing", t->raw_events);
		else
			kp_cmp_note(tb, "%c run %zu (%s): user event type %u (\"%s\"): %" PRIu64 " events not of its "
				    "size are not compared, and this run's event rates are not known", side ? 'B' : 'A',
				    run + 1, r->path, t->id, t->name, t->raw_events);
	}
	return any;
}

/* --by: whether the side's run has the field with the side's value. */
static bool by_value_known(const struct kp_cmp_table *tb, int side, const struct kp_runlog *r)
{
	const struct kp_user_types *u = r->log.user_types;

	for (uint32_t i = 0; u && i < u->n; i++) {
		const struct kp_user_type *t = u->list[i];
		int sf = t->known && !t->damaged ? kp_user_split_field(t, tb->by.field) : -1;
		if (sf >= 0 && kp_field_value_named(&t->ev.fields[sf], tb->by.value[side]) >= 0)
			return true;
	}
	return false;
}

void kp_cmp_collect_user(struct kp_cmp_table *t, int side, size_t run, const struct kp_runlog *r)
{
	struct groups gs = { 0 };
	double secs = r->m.hz > 0 && r->m.end > r->m.begin ? (double)(r->m.end - r->m.begin) / r->m.hz : 0;
	char name[200];

	if (t->raw[side])
		t->raw[side][run] = unread(t, side, run, r);
	if (t->by.field)
		t->by_seen[side] |= by_value_known(t, side, r);
	read_events(&gs, t, side, r);
	for (size_t i = 0; i < gs.n; i++) {
		struct group *g = &gs.g[i];
		figure_name(name, sizeof(name), t, g, NULL);
		if (secs > 0)
			kp_cmp_put(t, side, run, KP_CMP_EV_RATE, name, (double)g->events / secs,
				   (double)g->events / (secs * secs));
		mean_median(name, KP_CMP_SPAN_MEAN, t, side, run, &g->len);
		for (unsigned k = 0; k < g->t->ev.nfields; k++) {
			if (!g->field[k].n)
				continue;
			figure_name(name, sizeof(name), t, g, g->t->ev.fields[k].name);
			mean_median(name, KP_CMP_EV_MEAN, t, side, run, &g->field[k]);
		}
		for (unsigned k = 0; k <= KPROF_EVENT_MAX_FIELDS; k++)
			free(g->field[k].v);
		free(g->len.v);
	}
	free(gs.g);
	kp_index_free(&gs.ix);
}
