/*
 * perfetto_user.c - the workload's own events (read/user_types.c) in
 * trace.json, drawn by their type's kind:
 *
 *   instant  an instant ("i", thread scope) on "CPU n events"
 *            (USER_TID + n * 256), the fields as args;
 *   span     a slice ("X") on "CPU n TYPE" (USER_TID + n * 256 + id) from
 *            a Begin to the End that closes it (the latest open Begin of
 *            the type on that CPU), the Begin's fields as args and the
 *            End's as "End.FIELD"; slices of one track nest, never
 *            overlap.  A Begin never ended lasts to the CPU's last record
 *            (args Unclosed); an End without a Begin is an instant;
 *   counter  a counter ("C", the CPUs' process) named by the type, one
 *            series per numeric field.
 * Events shown raw (type missing or damaged) are left out: the decoder
 * and the issues tell of them.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/json.h"

struct pf_user {
	struct kp_record *recs;  /* the user events decoded, all CPUs, each */
	                         /* with a copy of its bytes               */
	size_t n, cap;
	size_t *end;             /* a span's End record (index), or SIZE_MAX */
	bool *taken;             /* an End that closes a Begin               */
	uint64_t *cpu_last;      /* per CPU: its last record's time          */
};

/* A field a counter draws: a number (not text, an enumeration or an address). */
static bool counter_series(const struct kp_field *f)
{
	return !(f->kind == KP_CHARS || f->names || f->kind == KP_POINTER);
}

/* The fields of r as args: ',"NAME":value', NAME after prefix. */
static void field_args(struct pf *p, const struct kp_user_type *t, const struct kp_record *r, const char *prefix,
		       bool numeric_only)
{
	for (unsigned i = 0; i < t->ev.nfields; i++) {
		const struct kp_field *f = &t->ev.fields[i];
		uint64_t v = kp_field_value(f, r->payload);
		const char *name = kp_field_value_name(f, v);
		if (f->offset < sizeof(KPROF_USER_EVENT)) /* Phase: the slice says it */
			continue;
		if (numeric_only && !counter_series(f))
			continue;
		fprintf(p->f, ",\"%s%s\":", prefix, f->name);
		if (f->kind == KP_CHARS) {
			const uint8_t *s = r->payload + f->offset;
			const uint8_t *nul = memchr(s, 0, f->size);
			kp_json_chars(p->f, (const char *)s, nul ? (size_t)(nul - s) : f->size);
		} else if (name) {
			kp_json_string(p->f, name);
		} else if (f->kind == KP_POINTER) {
			fprintf(p->f, "\"0x%016" PRIx64 "\"", v);
		} else if (f->kind == KP_SIGNED) {
			fprintf(p->f, "%" PRId64, (int64_t)v);
		} else {
			fprintf(p->f, "%" PRIu64, v);
		}
	}
}

static void write_user(struct pf *p, const struct pf_item *it)
{
	const struct pf_user *u = p->user;
	const struct kp_record *r = &u->recs[it->a];
	const struct kp_user_type *t = kp_user_type_of(p->log, r);

	if (t->kind == KprofEventKindCounter) {
		pf_begin(p, "C", PF_CPUS_PID, CPU_TID + r->cpu);
		pf_time(p, "ts", r->h.TimeStamp);
		pf_str_arg(p, "name", t->name);
		fputs(",\"cat\":\"user\",\"args\":{", p->f);
		/* the args without their leading comma: "{" then the first */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len), *f = p->f;
		p->f = m;
		field_args(p, t, r, "", true);
		fclose(m);
		p->f = f;
		fputs(len ? text + 1 : "", p->f);
		free(text);
		fputs("}}", p->f);
		return;
	}
	if (t->kind == KprofEventKindSpan && r->payload[2] == KprofEventBegin) {
		size_t e = u->end[it->a];
		pf_begin(p, "X", PF_CPUS_PID, pf_user_tid(r->cpu, t->id));
		pf_span(p, r->h.TimeStamp, e != SIZE_MAX ? u->recs[e].h.TimeStamp : u->cpu_last[r->cpu]);
		pf_str_arg(p, "name", t->name);
		fputs(",\"cat\":\"user\",\"args\":{\"TypeId\":", p->f);
		fprintf(p->f, "%u", t->id);
		field_args(p, t, r, "", false);
		if (e != SIZE_MAX)
			field_args(p, t, &u->recs[e], "End.", false);
		else
			fputs(",\"Unclosed\":true", p->f);
		fputs("}}", p->f);
		return;
	}
	/* an instant, or an End without a Begin */
	pf_begin(p, "i", PF_CPUS_PID, pf_user_tid(r->cpu, 0));
	fputs(",\"s\":\"t\"", p->f);
	pf_time(p, "ts", r->h.TimeStamp);
	pf_str_arg(p, "name", t->name);
	fputs(",\"cat\":\"user\",\"args\":{\"TypeId\":", p->f);
	fprintf(p->f, "%u", t->id);
	if (t->kind == KprofEventKindSpan)
		fputs(",\"EndWithoutBegin\":true", p->f);
	field_args(p, t, r, "", false);
	fputs("}}", p->f);
}

static void describe_user(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct pf_user *u = p->user;
	const struct kp_record *r = &u->recs[it->a];
	const struct kp_user_type *t = kp_user_type_of(p->log, r);

	*e = (struct pf_event){ .ph = 'i', .pid = PF_CPUS_PID, .tid = pf_user_tid(r->cpu, 0), .start = r->h.TimeStamp };
	snprintf(e->name, sizeof(e->name), "%s", t->name);
	if (t->kind == KprofEventKindCounter) {
		e->ph = 'C';
		e->tid = CPU_TID + r->cpu;
		e->nseries = pf_user_series(t, r, e->series, e->value);
	} else if (t->kind == KprofEventKindSpan && r->payload[2] == KprofEventBegin) {
		size_t end = u->end[it->a];
		e->ph = 'X';
		e->tid = pf_user_tid(r->cpu, t->id);
		e->end = end != SIZE_MAX ? u->recs[end].h.TimeStamp : u->cpu_last[r->cpu];
	}
}

/* Pair each CPU's Begins and Ends per type: the records are gathered a
 * CPU at a time, in its order (kp_cursor), so a stack per type per CPU. */
static void pair_spans(struct pf_user *u, const struct kp_log *log)
{
	size_t *stack[KPROF_EVENT_MAX_TYPES + 1] = { 0 }, depth[KPROF_EVENT_MAX_TYPES + 1] = { 0 };
	size_t cap[KPROF_EVENT_MAX_TYPES + 1] = { 0 };
	uint32_t cpu = UINT32_MAX;

	u->end = kp_xcalloc(u->n + 1, sizeof(*u->end));
	u->taken = kp_xcalloc(u->n + 1, sizeof(*u->taken));
	for (size_t i = 0; i < u->n; i++) {
		const struct kp_record *r = &u->recs[i];
		const struct kp_user_type *t = kp_user_type_of(log, r);
		u->end[i] = SIZE_MAX;
		if (r->cpu != cpu) {
			memset(depth, 0, sizeof(depth));
			cpu = r->cpu;
		}
		if (t->kind != KprofEventKindSpan)
			continue;
		if (r->payload[2] == KprofEventBegin) {
			if (depth[t->id] == cap[t->id])
				stack[t->id] = kp_xrealloc(stack[t->id], cap[t->id] = cap[t->id] ? 2 * cap[t->id] : 16,
							   sizeof(size_t));
			stack[t->id][depth[t->id]++] = i;
		} else if (r->payload[2] == KprofEventEnd && depth[t->id]) {
			u->end[stack[t->id][--depth[t->id]]] = i;
			u->taken[i] = true;
		}
	}
	for (size_t id = 0; id <= KPROF_EVENT_MAX_TYPES; id++)
		free(stack[id]);
}

unsigned pf_user_series(const struct kp_user_type *t, const struct kp_record *r, const char **series,
			int64_t *value)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->ev.nfields && n < PF_SERIES_MAX; i++) {
		const struct kp_field *f = &t->ev.fields[i];
		if (f->offset < sizeof(KPROF_USER_EVENT) || !counter_series(f))
			continue;
		if (r)
			value[n] = (int64_t)kp_field_value(f, r->payload);
		series[n++] = f->name;
	}
	return n;
}

void pf_user_seen_add(struct pf *p, const struct kp_user_type *t, const struct kp_record *r)
{
	struct pf_user_seen *s = p->user_seen;
	bool slice = t->kind == KprofEventKindSpan && r->payload[2] == KprofEventBegin;
	uint16_t id = slice ? t->id : 0;

	if (t->kind == KprofEventKindCounter || r->cpu >= p->m->ncpus)
		return;
	if (!s) {
		s = p->user_seen = kp_xcalloc(1, sizeof(*s));
		s->ncpus = p->m->ncpus;
		s->cpu = kp_xcalloc(s->ncpus, sizeof(*s->cpu));
	}
	struct pf_user_seen_cpu *c = &s->cpu[r->cpu];
	if (!c->used[id]) {
		c->used[id] = true;
		c->id[c->n++] = id;
	}
}

static const struct pf_kind user_kind = { write_user, describe_user };

void pf_user_events(struct pf *p)
{
	struct pf_user *u = kp_xcalloc(1, sizeof(*u));
	struct kp_log *log = (struct kp_log *)p->log; /* read only: cursors */

	p->user = u;
	u->cpu_last = kp_xcalloc(log->ncpus + 1, sizeof(*u->cpu_last));
	if (!log->user_types || !log->user_types->n)
		return; /* no type: no record is the workload's own (kp_user_type_of) */
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &r)) {
			u->cpu_last[cpu] = r.h.TimeStamp > u->cpu_last[cpu] ? r.h.TimeStamp : u->cpu_last[cpu];
			if (!kp_user_type_of(log, &r))
				continue;
			/* Its bytes copied: a compressed chunk's records are not kept decoded. */
			uint8_t *copy = kp_xrealloc(NULL, r.h.Size, 1);
			memcpy(copy, r.raw, r.h.Size);
			r.raw = copy;
			r.payload = copy + sizeof(r.h);
			KP_PUSH(u->recs, u->n, u->cap, r);
			pf_user_seen_add(p, kp_user_type_of(log, &r), &r);
		}
	}
	pair_spans(u, log);
	for (size_t i = 0; i < u->n; i++) {
		const struct kp_record *r = &u->recs[i];
		if (r->payload[2] == KprofEventEnd && u->taken[i] &&
		    kp_user_type_of(log, r)->kind == KprofEventKindSpan)
			continue; /* drawn with its Begin */
		pf_add(p, (struct pf_item){ .ts = r->h.TimeStamp, .kind = &user_kind, .cpu = r->cpu, .a = i });
	}
}

/* Names of the tracks the events use: "CPU n events", "CPU n TYPE", a
 * CPU's in the order its events first use them (pf_user_seen_add). */
void pf_user_tracks(struct pf *p, void (*track)(struct pf *, uint32_t, uint32_t, const char *, long))
{
	const struct pf_user_seen *s = p->user_seen;
	char name[80];

	for (uint32_t cpu = 0; s && cpu < s->ncpus; cpu++) {
		const struct pf_user_seen_cpu *c = &s->cpu[cpu];
		for (uint16_t k = 0; k < c->n; k++) {
			uint16_t id = c->id[k];
			if (id)
				snprintf(name, sizeof(name), "CPU %u %s", cpu, p->log->user_types->by_id[id]->name);
			else
				snprintf(name, sizeof(name), "CPU %u events", cpu);
			track(p, PF_CPUS_PID, pf_user_tid(cpu, id), name, 4L * p->m->ncpus + 256L * cpu + id);
		}
	}
}

void pf_user_events_free(struct pf *p)
{
	struct pf_user *u = p->user;

	if (p->user_seen) {
		free(p->user_seen->cpu);
		free(p->user_seen);
		p->user_seen = NULL;
	}
	if (!u)
		return;
	for (size_t i = 0; i < u->n; i++)
		free((void *)u->recs[i].raw);
	free(u->recs);
	free(u->end);
	free(u->taken);
	free(u->cpu_last);
	free(u);
	p->user = NULL;
}
