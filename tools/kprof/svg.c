/*
 * svg.c - what the pictures share (see svg.h): text escaping, colours,
 * the output file, and the schedule read from the records.
 *
 * The schedule of a CPU comes from its CSwitch records: the NewThreadId of
 * a switch runs from that switch to the next one on the CPU; before the
 * first switch its OldThreadId ran (from the start of the trace), after
 * the last its NewThreadId runs to the end of the trace.  Records are
 * sorted by time per CPU (stable), so a buffer out of order does not make
 * a run of negative length.
 */
#include "tools/kprof/svg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/fields.h"

/* ---------------------------------------------------------------- text */

static void put_byte_escaped(FILE *f, unsigned char c, bool json)
{
	if (c >= 0x80)
		fprintf(f, json ? "\\u%04x" : "&#x%X;", c); /* Latin-1 */
	else if (json && c < 0x20)
		fprintf(f, "\\u%04x", c);
	else if (c < 0x20 && c != '\t' && c != '\n')
		return; /* not allowed in XML 1.0, even as a reference */
	else
		fputc(c, f);
}

void kp_xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: put_byte_escaped(f, (unsigned char)*s, false); break;
		}
	}
}

void kp_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\t')
			fputs("\\t", f);
		else
			put_byte_escaped(f, (unsigned char)*s, true);
	}
	fputc('"', f);
}

/* "sched" from "... scenario=sched ...", else "". */
void kp_scenario_of(const char *cmdline, char *buf, size_t size)
{
	const char *p = strstr(cmdline, "scenario=");
	size_t n = 0;

	buf[0] = 0;
	if (!p || (p != cmdline && p[-1] != ' '))
		return;
	p += strlen("scenario=");
	while (p[n] && p[n] != ' ' && n + 1 < size)
		n++;
	memcpy(buf, p, n);
	buf[n] = 0;
}

/* ---------------------------------------------------------------- colours */

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct kp_rgb kp_colour_warm(const char *name)
{
	/* flamegraph.pl's "hot": red 205..255, green 0..230, blue 0..55 */
	uint32_t h = fnv1a(name);
	double v1 = (h & 0x3FF) / 1023.0, v2 = ((h >> 10) & 0x3FF) / 1023.0, v3 = ((h >> 20) & 0x3FF) / 1023.0;
	return (struct kp_rgb){ (uint8_t)(205 + 50 * v3), (uint8_t)(230 * v1), (uint8_t)(55 * v2) };
}

static double hue_part(double p, double q, double t)
{
	if (t < 0)
		t += 1;
	if (t > 1)
		t -= 1;
	if (t < 1.0 / 6)
		return p + (q - p) * 6 * t;
	if (t < 0.5)
		return q;
	if (t < 2.0 / 3)
		return p + (q - p) * (2.0 / 3 - t) * 6;
	return p;
}

static struct kp_rgb hsl(double h, double s, double l)
{
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	return (struct kp_rgb){ (uint8_t)(255 * hue_part(p, q, h + 1.0 / 3) + 0.5),
				(uint8_t)(255 * hue_part(p, q, h) + 0.5),
				(uint8_t)(255 * hue_part(p, q, h - 1.0 / 3) + 0.5) };
}

struct kp_rgb kp_colour_thread(uint32_t tid)
{
	if (tid == 0)
		return (struct kp_rgb){ 0xC8, 0xC8, 0xC8 };
	/* kprof's thread ids are multiples of 4: step the golden angle per
	 * id, so threads created one after the other differ clearly. */
	uint32_t n = tid % 4 ? tid : tid / 4;
	double h = n * 0.381966;
	h -= (double)(uint64_t)h; /* the fraction: no libm */
	double l = n % 3 == 0 ? 0.48 : n % 3 == 1 ? 0.58 : 0.68;
	return hsl(h, 0.62, l);
}

const char *kp_colour_hex(struct kp_rgb c, char *buf)
{
	snprintf(buf, 8, "#%02x%02x%02x", c.r, c.g, c.b);
	return buf;
}

/* ---------------------------------------------------------------- files */

FILE *kp_picture_create(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "kprof: cannot create %s: %s\n", path, strerror(errno));
	return f;
}

bool kp_picture_symbols(const char *kernel, struct kp_symbols **syms)
{
	char err[512] = "";

	*syms = NULL;
	if (!kernel)
		return true;
	*syms = kp_symbols_open(kernel, err, sizeof(err));
	if (!*syms)
		fprintf(stderr, "kprof: %s\n", err[0] ? err : kernel);
	return *syms != NULL;
}

int kp_picture_close(FILE *f, const char *path)
{
	int err = 0;
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		fprintf(stderr, "kprof: cannot write %s: %s (the file is incomplete)\n", path, strerror(err));
		return 3;
	}
	return 0;
}

void kp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* Append one element to a growable array (*a, *n, *cap). */
#define PUSH(a, n, cap, v)                                                     \
	do {                                                                   \
		if ((n) == (cap)) {                                            \
			(cap) = (cap) ? 2 * (cap) : 64;                        \
			(a) = kp_xrealloc((a), (cap), sizeof(*(a)));           \
		}                                                              \
		(a)[(n)++] = (v);                                              \
	} while (0)

/* ---------------------------------------------------------------- field names */

const char *kp_value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v)
{
	const struct kp_event *e = kp_event_find(hook, version);
	for (unsigned i = 0; e && i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, field)) {
			const char *n = kp_field_value_name(&e->fields[i], v);
			return n ? n : "?";
		}
	return "?";
}

const char *kp_state_name(uint8_t state)
{
	return kp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadState", state);
}

const char *kp_wait_reason_name(uint8_t reason)
{
	return kp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadWaitReason", reason);
}

const char *kp_acquire_mode_name(uint8_t mode)
{
	return kp_value_name(PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, "AcquireMode", mode);
}

/* ---------------------------------------------------------------- reading */

struct cswitch {
	uint64_t ts;
	size_t order;
	WMI_CONTEXTSWAP c;
};

struct named {
	struct kp_thread t;
	size_t order;
};

/* What one pass over a CPU's records collects before the runs are made. */
struct gather {
	struct cswitch *sw;
	size_t nsw, capsw;
	size_t capw, caps, capr;
	uint64_t first, last;
	bool any;
};

static void note_time(struct gather *g, uint64_t ts)
{
	if (!g->any || ts < g->first)
		g->first = ts;
	if (!g->any || ts > g->last)
		g->last = ts;
	g->any = true;
}

static void add_thread_record(struct kp_sched *s, struct named **names, size_t *n, size_t *cap,
			      const struct kp_record *r)
{
	KPROF_THREAD t;
	struct named e = { .order = *n };

	memcpy(&t, r->payload, sizeof(t));
	e.t.tid = t.ThreadId;
	e.t.pid = t.ProcessId;
	e.t.base_priority = t.BasePriority;
	e.t.named = true;
	memcpy(e.t.name, t.ThreadName, 16);
	memcpy(e.t.process, t.ProcessName, 16);
	PUSH(*names, *n, *cap, e);
	s->thread_records++;
}

static void add_wait(struct kp_cpu_sched *c, struct gather *g, const struct kp_record *r)
{
	WMI_SPINLOCK w;

	memcpy(&w, r->payload, sizeof(w));
	if (!w.WaitTimeInCycles || w.WaitTimeInCycles > w.AcquireTime)
		return; /* no wait (or a time stamp that cannot be) */
	struct kp_wait k = { .start = w.AcquireTime - w.WaitTimeInCycles, .end = w.AcquireTime,
			     .lock = w.SpinLockAddress, .caller = w.CallerAddress, .tid = w.ThreadId,
			     .spins = w.SpinCount, .mode = w.Flags & SPINLOCK_ACQUIRE_MODE_MASK };
	PUSH(c->waits, c->nwaits, g->capw, k);
}

static void add_sample(struct kp_cpu_sched *c, struct gather *g, const struct kp_record *r)
{
	struct kp_sample k = { .ts = r->h.TimeStamp };

	if (r->h.HookId == PERFINFO_LOG_TYPE_SAMPLED_PROFILE) {
		PERFINFO_SAMPLED_PROFILE_INFORMATION p;
		memcpy(&p, r->payload, sizeof(p));
		k.ip = p.InstructionPointer;
		k.tid = p.ThreadId;
		k.count = p.Count;
	} else {
		PERFINFO_PMC_SAMPLE p;
		memcpy(&p, r->payload, sizeof(p));
		k.ip = p.InstructionPointer;
		k.tid = p.ThreadId;
		k.count = 1;
		k.pmc = true;
		k.source = p.ProfileSource;
	}
	PUSH(c->samples, c->nsamples, g->caps, k);
}

static void add_ready(struct kp_cpu_sched *c, struct gather *g, const struct kp_record *r)
{
	WMI_READY_THREAD p;

	memcpy(&p, r->payload, sizeof(p));
	struct kp_ready k = { .ts = r->h.TimeStamp, .tid = p.TThreadId, .reason = p.AdjustReason,
			      .increment = p.AdjustIncrement };
	PUSH(c->readies, c->nreadies, g->capr, k);
}

/* A record of a known kind whose payload is long enough, else 0. */
static uint16_t kind_of(const struct kp_record *r)
{
	static const struct {
		uint16_t hook;
		size_t size;
	} kinds[] = {
		{ PERFINFO_LOG_TYPE_CONTEXTSWAP, sizeof(WMI_CONTEXTSWAP) },
		{ PERFINFO_LOG_TYPE_SPINLOCK, sizeof(WMI_SPINLOCK) },
		{ PERFINFO_LOG_TYPE_SAMPLED_PROFILE, sizeof(PERFINFO_SAMPLED_PROFILE_INFORMATION) },
		{ PERFINFO_LOG_TYPE_PMC_INTERRUPT, sizeof(PERFINFO_PMC_SAMPLE) },
		{ PERFINFO_LOG_TYPE_READY_THREAD, sizeof(WMI_READY_THREAD) },
		{ KPROF_LOG_TYPE_THREAD, sizeof(KPROF_THREAD) },
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (r->h.HookId == kinds[i].hook)
			return r->payload_size >= kinds[i].size ? kinds[i].hook : 0;
	return 0;
}

static void gather_cpu(struct kp_sched *s, struct kp_log *log, uint32_t cpu, struct gather *g,
		       struct named **names, size_t *nnames, size_t *capnames)
{
	struct kp_cpu_sched *c = &s->cpu[cpu];
	struct kp_cpu_cursor cur;
	struct kp_record r;

	kp_cursor_init(&cur, log, cpu);
	while (kp_cursor_next(&cur, &r)) {
		note_time(g, r.h.TimeStamp);
		switch (kind_of(&r)) {
		case PERFINFO_LOG_TYPE_CONTEXTSWAP: {
			struct cswitch e = { .ts = r.h.TimeStamp, .order = g->nsw };
			memcpy(&e.c, r.payload, sizeof(e.c));
			PUSH(g->sw, g->nsw, g->capsw, e);
			c->switches++;
			break;
		}
		case PERFINFO_LOG_TYPE_SPINLOCK: add_wait(c, g, &r); break;
		case PERFINFO_LOG_TYPE_SAMPLED_PROFILE:
		case PERFINFO_LOG_TYPE_PMC_INTERRUPT: add_sample(c, g, &r); break;
		case PERFINFO_LOG_TYPE_READY_THREAD: add_ready(c, g, &r); break;
		case KPROF_LOG_TYPE_THREAD: add_thread_record(s, names, nnames, capnames, &r); break;
		default: break;
		}
	}
}

/* ---------------------------------------------------------------- sorting */

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_cswitch(const void *a, const void *b)
{
	const struct cswitch *x = a, *y = b;
	int c = cmp_u64(x->ts, y->ts);
	return c ? c : cmp_u64(x->order, y->order);
}

static int cmp_wait(const void *a, const void *b)
{
	const struct kp_wait *x = a, *y = b;
	int c = cmp_u64(x->start, y->start);
	return c ? c : cmp_u64(y->end, x->end); /* the outer one first */
}

static int cmp_sample(const void *a, const void *b)
{
	return cmp_u64(((const struct kp_sample *)a)->ts, ((const struct kp_sample *)b)->ts);
}

static int cmp_ready(const void *a, const void *b)
{
	return cmp_u64(((const struct kp_ready *)a)->ts, ((const struct kp_ready *)b)->ts);
}

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = cmp_u64(x->t.tid, y->t.tid);
	if (!c)
		c = (int)x->t.named - (int)y->t.named;
	return c ? c : cmp_u64(x->order, y->order);
}

static int cmp_thread_tid(const void *key, const void *elem)
{
	return cmp_u64(*(const uint32_t *)key, ((const struct kp_thread *)elem)->tid);
}

/* ---------------------------------------------------------------- building */

static void push_run(struct kp_cpu_sched *c, size_t *cap, struct kp_run r)
{
	if (r.end < r.start)
		r.end = r.start;
	PUSH(c->runs, c->nruns, *cap, r);
}

static void build_runs(struct kp_sched *s, struct kp_cpu_sched *c, struct cswitch *sw, size_t n)
{
	size_t cap = 0;

	kp_sort(sw, n, sizeof(*sw), cmp_cswitch);
	if (n && sw[0].ts > s->begin)
		push_run(c, &cap, (struct kp_run){ .start = s->begin, .end = sw[0].ts, .tid = sw[0].c.OldThreadId,
						   .priority = sw[0].c.OldThreadPriority, .from_start = true,
						   .end_state = sw[0].c.OldThreadState,
						   .end_reason = sw[0].c.OldThreadWaitReason });
	for (size_t i = 0; i < n; i++) {
		struct kp_run r = { .start = sw[i].ts, .tid = sw[i].c.NewThreadId,
				    .priority = sw[i].c.NewThreadPriority };
		if (i + 1 < n) {
			r.end = sw[i + 1].ts;
			r.gap = sw[i + 1].c.OldThreadId != r.tid;
			r.end_state = sw[i + 1].c.OldThreadState;
			r.end_reason = sw[i + 1].c.OldThreadWaitReason;
		} else {
			r.end = s->end;
			r.to_end = true;
		}
		push_run(c, &cap, r);
	}
	for (size_t i = 0; i < c->nruns; i++)
		if (c->runs[i].tid)
			c->busy += c->runs[i].end - c->runs[i].start;
}

/* Waits sorted by start; one that starts inside another and ends after
 * it (time stamps a few cycles apart) is cut to end with it, so that the
 * waits of a CPU nest as the Chrome trace format wants. */
static void nest_waits(struct kp_sched *s, struct kp_cpu_sched *c)
{
	uint64_t stack[64];
	size_t depth = 0;

	for (size_t i = 0; i < c->nwaits; i++) {
		struct kp_wait *w = &c->waits[i];
		if (w->start < s->begin)
			w->start = s->begin;
	}
	kp_sort(c->waits, c->nwaits, sizeof(*c->waits), cmp_wait);
	for (size_t i = 0; i < c->nwaits; i++) {
		struct kp_wait *w = &c->waits[i];
		while (depth && stack[depth - 1] <= w->start)
			depth--;
		if (depth && w->end > stack[depth - 1])
			w->end = stack[depth - 1];
		if (depth < sizeof(stack) / sizeof(stack[0]))
			stack[depth++] = w->end;
	}
}

static void build_threads(struct kp_sched *s, struct named *names, size_t n, size_t cap)
{
	for (uint32_t i = 0; i < s->ncpus; i++)
		for (size_t k = 0; k < s->cpu[i].nruns; k++) {
			struct named e = { .t = { .tid = s->cpu[i].runs[k].tid }, .order = n };
			PUSH(names, n, cap, e);
		}
	kp_sort(names, n, sizeof(*names), cmp_named);
	s->threads = kp_xrealloc(NULL, n ? n : 1, sizeof(*s->threads));
	for (size_t i = 0; i < n; i++) {
		/* the last of a tid's entries: its latest name, if any */
		if (i + 1 < n && names[i + 1].t.tid == names[i].t.tid)
			continue;
		s->threads[s->nthreads++] = names[i].t;
	}
	free(names);
	for (uint32_t i = 0; i < s->ncpus; i++)
		for (size_t k = 0; k < s->cpu[i].nruns; k++) {
			const struct kp_run *r = &s->cpu[i].runs[k];
			struct kp_thread *t = (struct kp_thread *)kp_sched_thread(s, r->tid);
			t->cycles += r->end - r->start;
		}
}

static void count_cpu(struct kp_sched *s, const struct kp_cpu_sched *c)
{
	s->switches += c->switches;
	s->waits += c->nwaits;
	s->samples += c->nsamples;
	s->readies += c->nreadies;
	for (size_t i = 0; i < c->nsamples; i++)
		s->sample_periods += c->samples[i].count;
}

static void trace_span(struct kp_sched *s, struct kp_log *log, const struct gather *g)
{
	/* The end is the last record, not the run end frame's end_tsc: in
	 * dump mode that comes after the whole trace went out, long after
	 * anything happened. */
	s->begin = log->header.start_tsc;
	s->end = s->begin;
	for (uint32_t i = 0; i < s->ncpus; i++) {
		if (!g[i].any)
			continue;
		if (g[i].first < s->begin)
			s->begin = g[i].first;
		if (g[i].last > s->end)
			s->end = g[i].last;
	}
	s->origin = s->begin; /* start_tsc, unless a record came before it */
}

bool kp_sched_read(struct kp_log *log, const char *path, struct kp_sched *s)
{
	struct named *names = NULL;
	size_t nnames = 0, capnames = 0;

	*s = (struct kp_sched){ 0 };
	if (!log->have_header || !log->header.tsc_hz) {
		fprintf(stderr, "kprof: %s: no run header, so the TSC rate is unknown: cannot place the records "
				"in time\n", path);
		return false;
	}
	s->hz = (double)log->header.tsc_hz;
	s->ncpus = log->ncpus;
	s->cpu = kp_xrealloc(NULL, s->ncpus ? s->ncpus : 1, sizeof(*s->cpu));
	memset(s->cpu, 0, (s->ncpus ? s->ncpus : 1) * sizeof(*s->cpu));
	struct gather *g = kp_xrealloc(NULL, s->ncpus ? s->ncpus : 1, sizeof(*g));
	memset(g, 0, (s->ncpus ? s->ncpus : 1) * sizeof(*g));
	for (uint32_t i = 0; i < s->ncpus; i++)
		gather_cpu(s, log, i, &g[i], &names, &nnames, &capnames);
	trace_span(s, log, g);
	for (uint32_t i = 0; i < s->ncpus; i++) {
		struct kp_cpu_sched *c = &s->cpu[i];
		build_runs(s, c, g[i].sw, g[i].nsw);
		free(g[i].sw);
		nest_waits(s, c);
		kp_sort(c->samples, c->nsamples, sizeof(*c->samples), cmp_sample);
		kp_sort(c->readies, c->nreadies, sizeof(*c->readies), cmp_ready);
		count_cpu(s, c);
	}
	free(g);
	build_threads(s, names, nnames, capnames);
	return true;
}

void kp_sched_free(struct kp_sched *s)
{
	for (uint32_t i = 0; i < s->ncpus; i++) {
		free(s->cpu[i].runs);
		free(s->cpu[i].waits);
		free(s->cpu[i].samples);
		free(s->cpu[i].readies);
	}
	free(s->cpu);
	free(s->threads);
	*s = (struct kp_sched){ 0 };
}

/* ---------------------------------------------------------------- lookups */

const struct kp_thread *kp_sched_thread(const struct kp_sched *s, uint32_t tid)
{
	if (!s->nthreads)
		return NULL;
	return bsearch(&tid, s->threads, s->nthreads, sizeof(*s->threads), cmp_thread_tid);
}

const char *kp_thread_label(const struct kp_sched *s, uint32_t tid, char *buf, size_t size)
{
	const struct kp_thread *t = kp_sched_thread(s, tid);

	if (t && t->named && t->name[0])
		snprintf(buf, size, "%s (%" PRIu32 ")", t->name, tid);
	else if (tid == 0)
		snprintf(buf, size, "Idle");
	else
		snprintf(buf, size, "thread %" PRIu32, tid);
	return buf;
}

double kp_sched_us(const struct kp_sched *s, uint64_t ts)
{
	return ts >= s->origin ? (double)(ts - s->origin) * 1e6 / s->hz : -(double)(s->origin - ts) * 1e6 / s->hz;
}

double kp_sched_ms(const struct kp_sched *s, uint64_t ts)
{
	return kp_sched_us(s, ts) / 1000.0;
}

double kp_cycles_us(const struct kp_sched *s, uint64_t cycles)
{
	return (double)cycles * 1e6 / s->hz;
}
