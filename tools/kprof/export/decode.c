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

void kp_format_time(char *buf, size_t size, const struct kp_log *log, uint64_t ts)
{
	if (!log->have_header || !log->header.tsc_hz) {
		snprintf(buf, size, "%" PRIu64, ts);
		return;
	}
	uint64_t hz = log->header.tsc_hz, start = log->header.start_tsc;
	uint64_t rel = ts >= start ? ts - start : start - ts;
	uint64_t sec = rel / hz, ns = (uint64_t)((unsigned __int128)(rel % hz) * 1000000000u / hz);
	snprintf(buf, size, "%c%" PRIu64 ".%09" PRIu64, ts >= start ? '+' : '-', sec, ns);
}

static void print_value(FILE *f, const struct kp_field *fl, uint64_t v, bool json)
{
	switch (fl->kind) {
	case KP_POINTER:
		fprintf(f, json ? "\"0x%016" PRIx64 "\"" : "0x%016" PRIx64, v);
		break;
	case KP_HEX:
		fprintf(f, json ? "%" PRIu64 : "0x%08" PRIx64, v);
		break;
	case KP_SIGNED:
		fprintf(f, "%" PRId64, (int64_t)v);
		break;
	default:
		fprintf(f, "%" PRIu64, v);
		break;
	}
	if (!json) {
		const char *name = kp_field_value_name(fl, v);
		if (name)
			fprintf(f, " (%s)", name);
	}
}

/* A KP_CHARS field: the text up to the first NUL, quoted; in text, bytes
 * outside printable ASCII as \xNN; in JSON, as the JSON writer escapes. */
static void print_chars(FILE *f, const uint8_t *p, size_t n, bool json)
{
	if (json) {
		kp_json_chars(f, (const char *)p, n);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < n && p[i]; i++) {
		uint8_t c = p[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7F)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void print_field(FILE *f, const struct kp_field *fl, const uint8_t *payload, bool json)
{
	if (fl->kind == KP_CHARS)
		print_chars(f, payload + fl->offset, fl->size, json);
	else
		print_value(f, fl, kp_field_value(fl, payload), json);
}

static void print_tail(FILE *f, const struct kp_event *e, const struct kp_record *r, bool json)
{
	const uint8_t *p = r->payload + e->fixed_size;
	size_t n = r->payload_size > e->fixed_size ? r->payload_size - e->fixed_size : 0;

	if (e->tail == KP_TAIL_ADDRESSES) {
		fprintf(f, json ? ",\"%s\":[" : " %s=[", e->tail_name);
		for (size_t i = 0; i + 8 <= n; i += 8) {
			uint64_t a;
			memcpy(&a, p + i, 8);
			fprintf(f, json ? "%s\"0x%016" PRIx64 "\"" : "%s0x%016" PRIx64, i ? (json ? "," : " ") : "", a);
		}
		fputc(']', f);
	} else if (e->tail == KP_TAIL_COUNTS) {
		fprintf(f, json ? ",\"%s\":[" : " %s=[", e->tail_name);
		for (size_t i = 0; i + 4 <= n; i += 4) {
			uint32_t c;
			memcpy(&c, p + i, 4);
			fprintf(f, "%s%" PRIu32, i ? (json ? "," : " ") : "", c);
		}
		fputc(']', f);
	} else if (e->tail == KP_TAIL_BYTES) {
		fprintf(f, json ? ",\"%s\":\"" : " %s=", e->tail_name);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%02x", p[i]);
		if (json)
			fputc('"', f);
	}
}

void kp_print_record_text(FILE *f, const struct kp_log *log, const struct kp_record *r)
{
	char t[40];
	const struct kp_event *e = kp_record_event(log, r);

	kp_format_time(t, sizeof(t), log, r->h.TimeStamp);
	if (!e || r->payload_size < e->fixed_size) {
		fprintf(f, "[%s] cpu %u Unknown hook=0x%04x v%u ts=%" PRIu64 " bytes=", t, r->cpu, r->h.HookId, r->version,
			(uint64_t)r->h.TimeStamp);
		for (uint16_t i = 0; i < r->payload_size; i++)
			fprintf(f, "%02x", r->payload[i]);
		return;
	}
	fprintf(f, "[%s] cpu %u %s v%u ts=%" PRIu64, t, r->cpu, e->name, r->version, (uint64_t)r->h.TimeStamp);
	for (unsigned i = 0; i < e->nfields; i++) {
		fprintf(f, " %s=", e->fields[i].name);
		print_field(f, &e->fields[i], r->payload, false);
	}
	print_tail(f, e, r, false);
}

void kp_print_record_json(FILE *f, const struct kp_log *log, const struct kp_record *r)
{
	char t[40];
	const struct kp_event *e = kp_record_event(log, r);

	kp_format_time(t, sizeof(t), log, r->h.TimeStamp);
	fprintf(f, "{\"cpu\":%u,\"event\":\"%s\",\"hook\":%u,\"version\":%u,\"TimeStamp\":%" PRIu64 ",\"t\":%s",
		r->cpu, e && r->payload_size >= e->fixed_size ? e->name : "Unknown", r->h.HookId, r->version,
		(uint64_t)r->h.TimeStamp, t[0] == '+' ? t + 1 : t);
	if (!e || r->payload_size < e->fixed_size) {
		fputs(",\"bytes\":\"", f);
		for (uint16_t i = 0; i < r->payload_size; i++)
			fprintf(f, "%02x", r->payload[i]);
		fputs("\"}", f);
		return;
	}
	for (unsigned i = 0; i < e->nfields; i++) {
		fprintf(f, ",\"%s\":", e->fields[i].name);
		print_field(f, &e->fields[i], r->payload, true);
	}
	print_tail(f, e, r, true);
	fputc('}', f);
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
