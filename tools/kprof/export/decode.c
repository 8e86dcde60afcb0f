/*
 * decode.c - `kprof decode` (and `kprof check`: the summary alone):
 * every record as a line of text or a JSON object, in time order across
 * CPUs, field names as in the seeds.
 *
 *   [+0.000012345] cpu 1 SpinLock v2 ts=123456789 SpinLockAddress=0x... AcquireMode=1 (QueuedSpinLock) ...
 *   {"cpu":1,"event":"SpinLock","hook":1321,"version":2,"TimeStamp":123456789,"t":0.000012345,...}
 *
 * Frames lost on the link (log->gaps) are lines of their own, in time
 * order before the first record after them:
 *   [+0.012401000] cpu 1 LostOnLink chunks 8..9 missing: no trace from +0.012345000 to +0.012401000
 *   {"cpu":1,"event":"LostOnLink","chunks":[8,9],"after_ts":...,"before_ts":...}
 */
#include "tools/kprof/export/decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/read/fields.h"
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
	const struct kp_event *e = kp_event_find(r->h.HookId, r->version);

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
	const struct kp_event *e = kp_event_find(r->h.HookId, r->version);

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

/* Where a gap goes in time: before the first record after it (a gap at
 * the very end of its CPU goes last). */
static uint64_t gap_key(const struct kp_gap *g)
{
	return g->ts_after ? g->ts_after : UINT64_MAX;
}

static int gap_order(const void *a, const void *b)
{
	uint64_t x = gap_key(*(const struct kp_gap *const *)a), y = gap_key(*(const struct kp_gap *const *)b);
	return x < y ? -1 : x > y;
}

/* A gap as a line among the records: frames of one CPU lost on the link,
 * between its last record before and its first record after. */
static void print_gap(FILE *f, const struct kp_log *log, const struct kp_gap *g, bool json)
{
	char before[40], after[40];
	const char *what = log->version == KPROF_FRAME_VERSION_1 ? "frames" : "chunks";

	kp_format_time(before, sizeof(before), log, g->ts_before);
	kp_format_time(after, sizeof(after), log, g->ts_after);
	const char *event = g->not_in_file ? "NotInFile" : "LostOnLink"; /* the trace file was full */
	if (json)
		fprintf(f, "{\"cpu\":%u,\"event\":\"%s\",\"%s\":[%u,%u],\"after_ts\":%" PRIu64
			   ",\"before_ts\":%" PRIu64 "}\n",
			g->cpu, event, what, g->seq_first, g->seq_last, g->ts_before, g->ts_after);
	else
		fprintf(f, "[%s] cpu %u %s %s %u..%u missing: no trace from %s to %s\n", g->ts_after ? after : "end",
			g->cpu, event, what, g->seq_first, g->seq_last, g->ts_before ? before : "the start",
			g->ts_after ? after : "the end");
}

int kp_cmd_decode(struct kp_log *log, const struct kp_options *o)
{
	struct kp_merge m;
	struct kp_record r;
	FILE *out = kp_out_open(o->output);
	const struct kp_gap **gaps = kp_xcalloc(log->ngaps + 1, sizeof(*gaps));
	size_t ngaps = 0, next_gap = 0;

	if (!out) {
		free(gaps);
		return 3;
	}
	for (size_t i = 0; i < log->ngaps; i++)
		if (log->gaps[i].cpu != KPROF_FRAME_CPU_NONE)
			gaps[ngaps++] = &log->gaps[i];
	qsort(gaps, ngaps, sizeof(*gaps), gap_order);
	kp_merge_init(&m, log);
	while (kp_merge_next(&m, &r)) {
		while (next_gap < ngaps && gap_key(gaps[next_gap]) <= r.h.TimeStamp)
			print_gap(out, log, gaps[next_gap++], o->json);
		if (o->json)
			kp_print_record_json(out, log, &r);
		else
			kp_print_record_text(out, log, &r);
		fputc('\n', out);
	}
	while (next_gap < ngaps)
		print_gap(out, log, gaps[next_gap++], o->json);
	free(gaps);
	kp_merge_free(&m);
	int rc = kp_out_close(out, o->output);
	return rc ? rc : kp_summary(log, o, o->output);
}

int kp_cmd_check(struct kp_log *log, const struct kp_options *o)
{
	return kp_summary(log, o, NULL);
}
