/*
 * decode.c - `kprof decode` (and `kprof check`: the summary alone):
 * every record as a line of text or a JSON object, in time order across
 * CPUs, field names as Windows' (docs/etw-records.md).
 *
 *   [+0.000012345] cpu 1 SpinLock v2 ts=123456789 SpinLockAddress=0x... AcquireMode=1 (QueuedSpinLock) ...
 *   {"cpu":1,"event":"SpinLock","hook":1321,"version":2,"TimeStamp":123456789,"t":0.000012345,...}
 *
 * Losses are lines of their own, not records, in time order before the
 * first record after them: frames lost on the link (log->gaps) and records
 * the kernel dropped (log->drops: before the KprofRecordsLost record that
 * places them, or at the end for those after a CPU's last record).  Each
 * names its CPU, count (a gap's when the CPU has only that one), cause
 * and source ("loss": "link" or "kernel" in JSON):
 *   [+0.012401000] cpu 1 LostOnLink chunks 8..9 missing (37 records): no trace from +0.012345000 to +0.012401000
 *   {"cpu":1,"event":"LostOnLink","loss":"link","count":37,"chunks":[8,9],"after_ts":...,"before_ts":...}
 *   [+0.332809128] cpu 1 LostInKernel 3 records (buffers_full 3): no trace from +0.329 to +0.332809128
 *   {"cpu":1,"event":"LostInKernel","loss":"kernel","count":3,"tail":false,"from_ts":...,"to_ts":...,
 *    "t":...,"cause":{"buffers_full":3,"too_large":0,"not_started":0}}
 */
#include "tools/kprof/export/decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/json.h"
#include "tools/kprof/util/outfile.h"

/* A record's text, made in a buffer and written in one call: fprintf
 * for each field took over half of decode's time (its format parsing and
 * the stream's lock on every call).  The same bytes as the printf
 * formats the comments name. */
struct line {
	FILE *f;
	size_t n;
	char b[4096];
};

static void l_flush(struct line *l)
{
	fwrite(l->b, 1, l->n, l->f);
	l->n = 0;
}

/* Room for k more bytes (k at most the buffer). */
static char *l_room(struct line *l, size_t k)
{
	if (l->n + k > sizeof(l->b))
		l_flush(l);
	return l->b + l->n;
}

static void l_mem(struct line *l, const char *s, size_t k)
{
	if (k > sizeof(l->b) / 2) {
		l_flush(l);
		fwrite(s, 1, k, l->f);
		return;
	}
	memcpy(l_room(l, k), s, k);
	l->n += k;
}

static void l_str(struct line *l, const char *s)
{
	l_mem(l, s, strlen(s));
}

static void l_chr(struct line *l, char c)
{
	*l_room(l, 1) = c;
	l->n++;
}

/* %llu into t (20 bytes at least); returns its length. */
static size_t dec(char *t, uint64_t v)
{
	char d[20];
	size_t k = sizeof(d);

	do
		d[--k] = (char)('0' + v % 10);
	while (v /= 10);
	memcpy(t, d + k, sizeof(d) - k);
	return sizeof(d) - k;
}

/* %llu */
static void l_u64(struct line *l, uint64_t v)
{
	l->n += dec(l_room(l, 20), v);
}

/* %lld */
static void l_i64(struct line *l, int64_t v)
{
	if (v < 0) {
		l_chr(l, '-');
		l_u64(l, 0 - (uint64_t)v);
	} else {
		l_u64(l, (uint64_t)v);
	}
}

/* %0<width>llx: lowercase, at least width digits */
static void l_hex(struct line *l, uint64_t v, unsigned width)
{
	char t[16];
	size_t k = sizeof(t);

	do
		t[--k] = "0123456789abcdef"[v & 15];
	while ((v >>= 4) || sizeof(t) - k < width);
	l_mem(l, t + k, sizeof(t) - k);
}

/* "%c%llu.%09llu": ts as seconds since the run started, with its sign
 * (or "%llu", the raw ticks, with no run header or clock rate), into t
 * (40 bytes at least); returns its length.  By hand, as the records'
 * other numbers: every record's line has one. */
static size_t format_time(char *t, const struct kp_log *log, uint64_t ts)
{
	size_t n = 0;

	if (!log->have_header || !log->header.tsc_hz)
		return dec(t, ts);
	uint64_t hz = log->header.tsc_hz, start = log->header.start_tsc;
	uint64_t rel = ts >= start ? ts - start : start - ts;
	uint64_t sec = rel / hz, ns = (uint64_t)((unsigned __int128)(rel % hz) * 1000000000u / hz);
	t[n++] = ts >= start ? '+' : '-';
	n += dec(t + n, sec);
	t[n++] = '.';
	for (int i = 8; i >= 0; i--, ns /= 10)
		t[n + (size_t)i] = (char)('0' + ns % 10);
	return n + 9;
}

/* The time as format_time makes it; without its '+' unless sign. */
static void l_time(struct line *l, const struct kp_log *log, uint64_t ts, bool sign)
{
	char t[40];
	size_t n = format_time(t, log, ts);

	if (!sign && t[0] == '+')
		l_mem(l, t + 1, n - 1);
	else
		l_mem(l, t, n);
}

void kp_format_time(char *buf, size_t size, const struct kp_log *log, uint64_t ts)
{
	char t[40];
	size_t n = format_time(t, log, ts);

	snprintf(buf, size, "%.*s", (int)n, t);
}

static void print_value(struct line *l, const struct kp_field *fl, uint64_t v, bool json)
{
	switch (fl->kind) {
	case KP_POINTER: /* "0x%016llx", quoted in JSON */
		l_str(l, json ? "\"0x" : "0x");
		l_hex(l, v, 16);
		if (json)
			l_chr(l, '"');
		break;
	case KP_HEX: /* JSON %llu, text 0x%08llx */
		if (json) {
			l_u64(l, v);
		} else {
			l_str(l, "0x");
			l_hex(l, v, 8);
		}
		break;
	case KP_SIGNED:
		l_i64(l, (int64_t)v);
		break;
	default:
		l_u64(l, v);
		break;
	}
	if (!json) {
		const char *name = kp_field_value_name(fl, v);
		if (name) {
			l_str(l, " (");
			l_str(l, name);
			l_chr(l, ')');
		}
	}
}

/* A KP_CHARS field: the text up to the first NUL, quoted; in text, bytes
 * outside printable ASCII as \xNN; in JSON, as the JSON writer escapes. */
static void print_chars(struct line *l, const uint8_t *p, size_t n, bool json)
{
	if (json) {
		l_flush(l);
		kp_json_chars(l->f, (const char *)p, n);
		return;
	}
	l_chr(l, '"');
	for (size_t i = 0; i < n && p[i]; i++) {
		uint8_t c = p[i];
		if (c == '"' || c == '\\') {
			l_chr(l, '\\');
			l_chr(l, (char)c);
		} else if (c < 0x20 || c >= 0x7F) {
			l_str(l, "\\x");
			l_hex(l, c, 2);
		} else {
			l_chr(l, (char)c);
		}
	}
	l_chr(l, '"');
}

static void print_field(struct line *l, const struct kp_field *fl, const uint8_t *payload, bool json)
{
	if (fl->kind == KP_CHARS)
		print_chars(l, payload + fl->offset, fl->size, json);
	else
		print_value(l, fl, kp_field_value(fl, payload), json);
}

/* ",\"NAME\":" in JSON, " NAME=" in text */
static void field_name(struct line *l, const char *name, bool json)
{
	l_str(l, json ? ",\"" : " ");
	l_str(l, name);
	l_str(l, json ? "\":" : "=");
}

static void bytes(struct line *l, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		l_hex(l, p[i], 2);
}

static void print_tail(struct line *l, const struct kp_event *e, const struct kp_record *r, bool json)
{
	const uint8_t *p = r->payload + e->fixed_size;
	size_t n = r->payload_size > e->fixed_size ? r->payload_size - e->fixed_size : 0;

	if (e->tail == KP_TAIL_ADDRESSES) { /* [0x%016llx ...], quoted and with commas in JSON */
		field_name(l, e->tail_name, json);
		l_chr(l, '[');
		for (size_t i = 0; i + 8 <= n; i += 8) {
			uint64_t a;
			memcpy(&a, p + i, 8);
			if (i)
				l_chr(l, json ? ',' : ' ');
			l_str(l, json ? "\"0x" : "0x");
			l_hex(l, a, 16);
			if (json)
				l_chr(l, '"');
		}
		l_chr(l, ']');
	} else if (e->tail == KP_TAIL_COUNTS) { /* [%u ...] */
		field_name(l, e->tail_name, json);
		l_chr(l, '[');
		for (size_t i = 0; i + 4 <= n; i += 4) {
			uint32_t c;
			memcpy(&c, p + i, 4);
			if (i)
				l_chr(l, json ? ',' : ' ');
			l_u64(l, c);
		}
		l_chr(l, ']');
	} else if (e->tail == KP_TAIL_BYTES) { /* %02x each, quoted in JSON */
		field_name(l, e->tail_name, json);
		if (json)
			l_chr(l, '"');
		bytes(l, p, n);
		if (json)
			l_chr(l, '"');
	}
}

/* "[+S.NNNNNNNNN] cpu C NAME vV ts=T" and " FIELD=VALUE" each; a record
 * of no known event or too short for its fields: "Unknown hook=0x%04x"
 * and its bytes. */
void kp_print_record_text(FILE *f, const struct kp_log *log, const struct kp_record *r)
{
	struct line l;
	const struct kp_event *e = kp_record_event(log, r);
	bool known = e && r->payload_size >= e->fixed_size;

	l.f = f;
	l.n = 0;
	l_chr(&l, '[');
	l_time(&l, log, r->h.TimeStamp, true);
	l_str(&l, "] cpu ");
	l_u64(&l, r->cpu);
	if (known) {
		l_chr(&l, ' ');
		l_str(&l, e->name);
	} else {
		l_str(&l, " Unknown hook=0x");
		l_hex(&l, r->h.HookId, 4);
	}
	l_str(&l, " v");
	l_u64(&l, r->version);
	l_str(&l, " ts=");
	l_u64(&l, r->h.TimeStamp);
	if (!known) {
		l_str(&l, " bytes=");
		bytes(&l, r->payload, r->payload_size);
		l_flush(&l);
		return;
	}
	for (unsigned i = 0; i < e->nfields; i++) {
		field_name(&l, e->fields[i].name, false);
		print_field(&l, &e->fields[i], r->payload, false);
	}
	print_tail(&l, e, r, false);
	l_flush(&l);
}

/* {"cpu":C,"event":"NAME","hook":H,"version":V,"TimeStamp":T,"t":S.N,
 * "FIELD":VALUE...}; a record of no known event: "Unknown" and its
 * "bytes". */
void kp_print_record_json(FILE *f, const struct kp_log *log, const struct kp_record *r)
{
	struct line l;
	const struct kp_event *e = kp_record_event(log, r);
	bool known = e && r->payload_size >= e->fixed_size;

	l.f = f;
	l.n = 0;
	l_str(&l, "{\"cpu\":");
	l_u64(&l, r->cpu);
	l_str(&l, ",\"event\":\"");
	l_str(&l, known ? e->name : "Unknown");
	l_str(&l, "\",\"hook\":");
	l_u64(&l, r->h.HookId);
	l_str(&l, ",\"version\":");
	l_u64(&l, r->version);
	l_str(&l, ",\"TimeStamp\":");
	l_u64(&l, r->h.TimeStamp);
	l_str(&l, ",\"t\":");
	l_time(&l, log, r->h.TimeStamp, false);
	if (!known) {
		l_str(&l, ",\"bytes\":\"");
		bytes(&l, r->payload, r->payload_size);
		l_str(&l, "\"}");
		l_flush(&l);
		return;
	}
	for (unsigned i = 0; i < e->nfields; i++) {
		field_name(&l, e->fields[i].name, true);
		print_field(&l, &e->fields[i], r->payload, true);
	}
	print_tail(&l, e, r, true);
	l_chr(&l, '}');
	l_flush(&l);
}

/* A loss line among the records: frames of one CPU lost on the link
 * (a gap) or records its kernel dropped (a drop, read/drops.c). */
struct loss_line {
	uint64_t key;              /* printed before the first record at or  */
	                           /* after it; UINT64_MAX: at the very end  */
	const struct kp_gap *g;
	const struct kp_drop *d;
};

static int loss_order(const void *a, const void *b)
{
	const struct loss_line *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* Records of the CPU lost on the link in its one gap (written minus
 * decoded, less those a trace file had no room for), or -1 when it has
 * several gaps or no end frame: not known.  A trace file's cut: the
 * records its end frame says it lacks. */
static int64_t gap_count(const struct kp_log *log, const struct kp_gap *g, const uint64_t *per_cpu)
{
	const struct kp_cpu *c = &log->cpus[g->cpu];

	if (g->not_in_file) /* the cut of a trace file: its end frame counts them */
		return c->have_end ? (int64_t)kp_cpu_lost_file(c) : -1;
	if (c->link_gaps != 1 || !c->have_end)
		return -1;
	uint64_t lost = kp_sat_sub(c->end.records, kp_sat_add(per_cpu[g->cpu], kp_cpu_lost_file(c)));
	return lost > INT64_MAX ? INT64_MAX : (int64_t)lost;
}

/* A gap: between the CPU's last record before and its first after. */
static void print_gap(FILE *f, const struct kp_log *log, const struct kp_gap *g, int64_t count, bool json)
{
	char before[40], after[40], n[24] = "?";
	const char *what = log->version == KPROF_FRAME_VERSION_1 ? "frames" : "chunks";

	kp_format_time(before, sizeof(before), log, g->ts_before);
	kp_format_time(after, sizeof(after), log, g->ts_after);
	/* Frames a trace file had no room for (its end frames count them), or lost on the link. */
	const char *event = g->not_in_file ? "NotInFile" : "LostOnLink", *loss = g->not_in_file ? "file" : "link";
	if (count >= 0)
		snprintf(n, sizeof(n), "%" PRId64, count);
	if (json)
		fprintf(f, "{\"cpu\":%u,\"event\":\"%s\",\"loss\":\"%s\",\"count\":%s,\"%s\":[%u,%u],"
			   "\"after_ts\":%" PRIu64 ",\"before_ts\":%" PRIu64 "}\n",
			g->cpu, event, loss, count >= 0 ? n : "null", what, g->seq_first, g->seq_last, g->ts_before,
			g->ts_after);
	else
		fprintf(f, "[%s] cpu %u %s %s %u..%u missing (%s records): no trace from %s to %s\n",
			g->ts_after ? after : "end", g->cpu, event, what, g->seq_first, g->seq_last, n,
			g->ts_before ? before : "the start", g->ts_after ? after : "the end");
}

/* A drop: records the kernel could not store, from the first drop (or the
 * CPU's last record before) to the records-lost record (or the end). */
static void print_drop(FILE *f, const struct kp_log *log, const struct kp_drop *d, bool json)
{
	char from[40], to[40];
	uint64_t start = kp_drop_start(d);

	kp_format_time(from, sizeof(from), log, start);
	kp_format_time(to, sizeof(to), log, d->ts);
	if (json) {
		fprintf(f, "{\"cpu\":%u,\"event\":\"LostInKernel\",\"loss\":\"kernel\",\"count\":%" PRIu64
			   ",\"tail\":%s,\"from_ts\":%" PRIu64 ",\"to_ts\":%" PRIu64 ",\"t\":%s,\"cause\":{",
			d->cpu, d->total, d->tail ? "true" : "false", start, d->ts, to[0] == '+' ? to + 1 : to);
		for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
			fprintf(f, "%s\"%s\":%" PRIu64, k ? "," : "", kp_loss_cause_key(k), d->lost[k]);
		fputs("}}\n", f);
		return;
	}
	fprintf(f, "[%s] cpu %u LostInKernel %" PRIu64 " records (", d->tail ? "end" : to, d->cpu, d->total);
	const char *sep = "";
	for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
		if (d->lost[k]) {
			fprintf(f, "%s%s %" PRIu64, sep, kp_loss_cause_key(k), d->lost[k]);
			sep = ", ";
		}
	fprintf(f, "): no trace from %s to %s%s\n", start ? from : "the start", to,
		d->tail ? " (after its last record: the end of the trace)" : "");
}

int kp_cmd_decode(struct kp_log *log, const struct kp_options *o)
{
	struct kp_merge m;
	struct kp_record r;
	struct kp_totals t;
	FILE *out = kp_out_open(o->output);
	struct loss_line *lines = kp_xcalloc(log->ngaps + log->ndrops + 1, sizeof(*lines));
	uint64_t *per_cpu = kp_xcalloc(log->ncpus + 1, sizeof(*per_cpu));
	size_t nlines = 0, next = 0;

	if (!out) {
		free(lines);
		free(per_cpu);
		return 3;
	}
	kp_totals(log, &t, per_cpu);
	for (size_t i = 0; i < log->ngaps; i++)
		if (log->gaps[i].cpu != KPROF_FRAME_CPU_NONE)
			lines[nlines++] = (struct loss_line){ .key = log->gaps[i].ts_after ? log->gaps[i].ts_after : UINT64_MAX,
							      .g = &log->gaps[i] };
	for (size_t i = 0; i < log->ndrops; i++)
		lines[nlines++] = (struct loss_line){ .key = log->drops[i].tail ? UINT64_MAX : log->drops[i].ts,
						      .d = &log->drops[i] };
	qsort(lines, nlines, sizeof(*lines), loss_order);
	kp_merge_init(&m, log);
	for (;;) {
		bool have = kp_merge_next(&m, &r);
		for (; next < nlines && (!have || lines[next].key <= r.h.TimeStamp); next++) {
			if (lines[next].g)
				print_gap(out, log, lines[next].g, gap_count(log, lines[next].g, per_cpu), o->json);
			else
				print_drop(out, log, lines[next].d, o->json);
		}
		if (!have)
			break;
		if (o->json)
			kp_print_record_json(out, log, &r);
		else
			kp_print_record_text(out, log, &r);
		fputc('\n', out);
	}
	free(lines);
	free(per_cpu);
	kp_merge_free(&m);
	int rc = kp_out_close(out, o->output);
	return rc ? rc : kp_summary(log, o, o->output);
}

int kp_cmd_check(struct kp_log *log, const struct kp_options *o)
{
	return kp_summary(log, o, NULL);
}
