/*
 * log.c - the frame scanner (the wire format is in include/kprof/wire.h
 * and docs/wire-format.md).
 *
 * Scan: find the next 0xFE byte; if the four magic bytes follow and the
 * 24-byte header's CRC holds, it is a frame header.  A header whose payload
 * would run past the end of the log is a truncated frame.  A payload whose
 * CRC fails is a corrupt frame: its length is not trusted and the scan goes
 * on right after the header, so a frame whose tail was lost still lets the
 * next one be found.  Bytes outside frames are console text, except NULs:
 * the zero fill after the stream in a trace file from the USB stick.
 *
 * Then, per valid frame: is it of the run being decoded (run_id, see
 * log.h)?  Its sequence number: a jump is a gap (frames missing, placed in
 * time once the whole log is read), a number seen again a duplicate that
 * is dropped.  Buffer (v1) and chunk (v2) frames are kept per CPU in
 * sequence order; records are read from them later (records.c).  A chunk
 * of encoding 1 or 2 (delta + LZ4) is decoded as it is taken: LZ4_decompress_safe
 * into exactly its raw_bytes, then trace_delta_decode(), the kernel's own
 * inverse; one that does not decode is dropped like a corrupt frame (its
 * sequence number becomes a gap, its records lost on the link), and one of
 * an unknown encoding likewise.
 */
#include "tools/kprof/read/log.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#include "include/kprof/wmi.h"
#include "kernel/lib/crc32.h"
#include "kernel/trace/trace_delta.h"

#include <lz4.h>

#define KP_MAX_CPUS 4096 /* frames naming a higher CPU are treated as damaged */

static const char *const kind_names[KP_ISSUE_KINDS] = {
	[KP_ISSUE_CORRUPT] = "corrupt",       [KP_ISSUE_BAD_HEADER] = "bad-header",
	[KP_ISSUE_TRUNCATED] = "truncated",   [KP_ISSUE_MISSING] = "missing",
	[KP_ISSUE_DUPLICATE] = "duplicate",   [KP_ISSUE_BAD_RECORD] = "bad-record",
	[KP_ISSUE_INCOMPLETE] = "incomplete", [KP_ISSUE_OTHER_RUN] = "other-run",
	[KP_ISSUE_LOSS_MISMATCH] = "loss-mismatch",
};

const char *kp_issue_kind_name(enum kp_issue_kind kind)
{
	return kind < KP_ISSUE_KINDS ? kind_names[kind] : "?";
}

void kp_issue_add(struct kp_log *log, enum kp_issue_kind kind, uint64_t offset, uint32_t cpu, uint32_t first,
		  uint32_t last, const char *fmt, ...)
{
	log->issues = kp_grow(log->issues, &log->issues_cap, log->nissues + 1, sizeof(*log->issues));
	struct kp_issue *is = &log->issues[log->nissues++];
	*is = (struct kp_issue){ .kind = kind, .offset = offset, .cpu = cpu, .seq_first = first, .seq_last = last };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(is->what, sizeof(is->what), fmt, ap);
	va_end(ap);
}

static struct kp_cpu *cpu_slot(struct kp_log *log, uint32_t cpu)
{
	if (cpu >= log->ncpus) {
		struct kp_cpu *c = kp_xrealloc(log->cpus, (size_t)cpu + 1, sizeof(*c));
		memset(c + log->ncpus, 0, (cpu + 1 - log->ncpus) * sizeof(*c));
		log->cpus = c;
		log->ncpus = cpu + 1;
	}
	return &log->cpus[cpu];
}

/* Bytes outside frames, less their NULs: console text never holds one,
 * and a trace file from the USB stick is the stream followed by the zero
 * fill of its unused space (docs/usb-stick.md), which is neither text nor
 * damage.  A zero run is skipped a word at a time: the fill may be
 * hundreds of MiB. */
static void console_append(struct kp_log *log, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;

	while (p < end) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		size_t k = (size_t)((z ? z : end) - p);

		memcpy(log->console + log->console_len, p, k);
		log->console_len += k;
		if (!z)
			break;
		p = z;
		while (p < end && ((uintptr_t)p & 7) && !*p)
			p++;
		while (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, sizeof(w));
			if (w)
				break;
			p += 8;
		}
		while (p < end && !*p)
			p++;
	}
	log->console[log->console_len] = '\0';
}

static void add_gap(struct kp_log *log, uint32_t cpu, uint32_t first, uint32_t last, uint64_t offset)
{
	log->gaps = kp_grow(log->gaps, &log->gaps_cap, log->ngaps + 1, sizeof(*log->gaps));
	log->gaps[log->ngaps++] = (struct kp_gap){ .cpu = cpu, .seq_first = first, .seq_last = last, .offset = offset };
}

/* Sequence bookkeeping for frames of one CPU (or the run frames).  Gaps
 * become issues at the end (finish_gaps), when they can be placed in time.
 * Returns true when seq goes back: a duplicate or a frame out of order;
 * `quiet` leaves reporting that to the caller (buffers and chunks). */
static bool check_seq(struct kp_log *log, uint64_t *next, bool *seen, uint64_t offset, uint32_t cpu, uint32_t seq,
		      bool quiet)
{
	bool back = *seen && seq < *next;

	if (*seen && seq > *next)
		add_gap(log, cpu, (uint32_t)*next, seq - 1, offset);
	else if (!*seen && seq > 0)
		add_gap(log, cpu, 0, seq - 1, offset);
	else if (back && !quiet) {
		log->duplicates++;
		if (cpu == KPROF_FRAME_CPU_NONE)
			kp_issue_add(log, KP_ISSUE_DUPLICATE, offset, cpu, seq, seq,
				     "run: frame %u seen again (or out of order) at offset %llu", seq,
				     (unsigned long long)offset);
		else
			kp_issue_add(log, KP_ISSUE_DUPLICATE, offset, cpu, seq, seq,
				     "cpu %u: frame %u seen again (or out of order) at offset %llu", cpu, seq,
				     (unsigned long long)offset);
	}
	if (!*seen || seq >= *next)
		*next = (uint64_t)seq + 1;
	*seen = true;
	return back;
}

/* The run a v2 frame names (v1 frames name none: 0). */
static uint32_t frame_run_id(const struct kprof_frame_header *h, const uint8_t *p)
{
	size_t at;
	uint32_t id = 0;

	if (h->version == KPROF_FRAME_VERSION_1)
		return 0;
	switch (h->type) {
	case KPROF_FRAME_RUN_HEADER: at = offsetof(struct kprof_run_header, run_id); break;
	case KPROF_FRAME_RUN_INFO: at = offsetof(struct kprof_run_info, run_id); break;
	case KPROF_FRAME_CHUNK: at = offsetof(struct kprof_chunk_header, run_id); break;
	case KPROF_FRAME_CPU_END: at = offsetof(struct kprof_cpu_end, run_id); break;
	case KPROF_FRAME_RUN_END: at = offsetof(struct kprof_run_end, run_id); break;
	default: return 0;
	}
	if (h->length >= at + sizeof(id))
		memcpy(&id, p + at, sizeof(id));
	return id;
}

/* Is the frame part of the run being decoded?  The first frame settles
 * which run that is. */
static bool in_run(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *p)
{
	uint32_t id = frame_run_id(h, p);

	if (h->version == KPROF_FRAME_VERSION_1 && h->type == KPROF_FRAME_RUN_HEADER && log->header_frame &&
	    log->version == KPROF_FRAME_VERSION_1 && h->length >= sizeof(struct kprof_run_header)) {
		uint64_t start;
		memcpy(&start, p + offsetof(struct kprof_run_header, start_tsc), sizeof(start));
		if (start != log->header.start_tsc)
			log->v1_later_run = true; /* v1 has no run id: a new header is a new run */
	}
	if (!log->run_chosen) {
		log->run_chosen = true;
		log->run_id = id;
		log->version = h->version;
	}
	if (h->version == log->version && id == log->run_id &&
	    !(h->version == KPROF_FRAME_VERSION_1 && log->v1_later_run))
		return true;
	if (!log->other_run_frames++)
		log->other_run_id = id;
	return false;
}

/* Keep a buffer or chunk in sequence order; one seen before is dropped,
 * and a run of them is one issue. */
static void store_buffer(struct kp_log *log, struct kp_cpu *c, const struct kp_buffer *nb, bool back)
{
	size_t at = c->nbuffers;

	if (back) {
		size_t lo = 0, hi = c->nbuffers;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (c->buffers[mid].frame_seq < nb->frame_seq)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < c->nbuffers && c->buffers[lo].frame_seq == nb->frame_seq) {
			struct kp_issue *last = log->nissues ? &log->issues[log->nissues - 1] : NULL;
			log->duplicates++;
			if (last && last->kind == KP_ISSUE_DUPLICATE && last->cpu == nb->cpu &&
			    last->seq_last + 1 == nb->frame_seq) {
				last->seq_last = nb->frame_seq;
				snprintf(last->what, sizeof(last->what),
					 "cpu %u: %s %u..%u seen again from offset %llu, decoded once", nb->cpu,
					 nb->chunk ? "chunks" : "frames", last->seq_first, last->seq_last,
					 (unsigned long long)last->offset);
			} else {
				kp_issue_add(log, KP_ISSUE_DUPLICATE, nb->offset, nb->cpu, nb->frame_seq, nb->frame_seq,
					     "cpu %u: %s %u seen again at offset %llu, decoded once", nb->cpu,
					     nb->chunk ? "chunk" : "frame", nb->frame_seq, (unsigned long long)nb->offset);
			}
			return;
		}
		at = lo;
	}
	c->buffers = kp_grow(c->buffers, &c->cap, c->nbuffers + 1, sizeof(*c->buffers));
	memmove(c->buffers + at + 1, c->buffers + at, (c->nbuffers - at) * sizeof(*c->buffers));
	c->buffers[at] = *nb;
	c->nbuffers++;
}

/* The file form's tail (wire_file.h): the last 24 bytes of an end frame
 * of a trace file, at least 24 bytes longer than the serial one. */
static bool file_tail(const struct kprof_frame_header *h, const uint8_t *p, size_t serial_size,
		      struct kprof_file_tail *t)
{
	if (h->version != KPROF_FRAME_VERSION || h->length < serial_size + sizeof(*t))
		return false;
	memcpy(t, p + h->length - sizeof(*t), sizeof(*t));
	return t->magic == KPROF_FILE_TAIL_MAGIC;
}

static void take_frame(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload,
		       uint64_t offset)
{
	bool data_frame = h->type == KPROF_FRAME_BUFFER || h->type == KPROF_FRAME_CHUNK, back;

	if (!in_run(log, h, payload))
		return;
	if (h->cpu == KPROF_FRAME_CPU_NONE) {
		back = check_seq(log, &log->run_next_seq, &log->run_seen, offset, KPROF_FRAME_CPU_NONE, h->seq, false);
	} else {
		struct kp_cpu *c = cpu_slot(log, h->cpu);
		back = check_seq(log, &c->next_seq, &c->seen, offset, h->cpu, h->seq, data_frame);
	}
	log->frames++;

	switch (h->type) {
	case KPROF_FRAME_RUN_HEADER:
		if (h->length < sizeof(struct kprof_run_header))
			goto short_payload;
		memcpy(&log->header, payload, sizeof(log->header));
		log->have_header = log->header_frame = true;
		if (log->header.build_id_offset < h->length)
			snprintf(log->build_id, sizeof(log->build_id), "%.*s",
				 (int)(h->length - log->header.build_id_offset),
				 (const char *)payload + log->header.build_id_offset);
		if (log->header.cmdline_offset < h->length)
			snprintf(log->cmdline, sizeof(log->cmdline), "%.*s",
				 (int)(h->length - log->header.cmdline_offset),
				 (const char *)payload + log->header.cmdline_offset);
		if (log->header.cpu_count > KP_MAX_CPUS) {
			kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, h->cpu, h->seq, h->seq,
				     "run header at offset %llu claims %u CPUs, more than the %u a decoder accepts",
				     (unsigned long long)offset, log->header.cpu_count, KP_MAX_CPUS);
			log->header.cpu_count = 0;
		}
		if (log->header.cpu_count)
			cpu_slot(log, log->header.cpu_count - 1);
		return;
	case KPROF_FRAME_BUFFER:
	case KPROF_FRAME_CHUNK: {
		size_t hsize = h->type == KPROF_FRAME_BUFFER ? sizeof(struct kprof_buffer_header)
							     : sizeof(struct kprof_chunk_header);
		if (h->length < hsize || h->cpu == KPROF_FRAME_CPU_NONE)
			goto short_payload;
		struct kp_buffer b = { .cpu = h->cpu, .frame_seq = h->seq, .offset = offset, .data = payload + hsize };
		if (h->type == KPROF_FRAME_BUFFER) {
			memcpy(&b.hdr, payload, sizeof(b.hdr));
		} else {
			struct kprof_chunk_header ch;
			memcpy(&ch, payload, sizeof(ch));
			uint32_t used = (uint32_t)(h->length - hsize);
			if (KPROF_CHUNK_COMPRESSED(ch.encoding)) {
				if (back) {
					/* A duplicate or a late frame: decode it only if it is not stored. */
					struct kp_cpu *c = cpu_slot(log, h->cpu);
					for (size_t i = 0; i < c->nbuffers; i++)
						if (c->buffers[i].frame_seq == h->seq) {
							store_buffer(log, c, &b, back); /* reports the duplicate */
							return;
						}
				}
				uint8_t *raw = ch.raw_bytes ? kp_xrealloc(NULL, ch.raw_bytes, 1) : NULL;
				int got = raw ? LZ4_decompress_safe((const char *)payload + hsize, (char *)raw, (int)used,
								    ch.raw_bytes)
					      : -1;
				if (got != (int)ch.raw_bytes) {
					free(raw);
					log->damaged_chunks++;
					kp_issue_add(log, KP_ISSUE_CORRUPT, offset, h->cpu, h->seq, h->seq,
						     "frame %u of cpu %u at offset %llu: LZ4 chunk does not decode to its %u "
						     "bytes, frame dropped", h->seq, h->cpu, (unsigned long long)offset,
						     ch.raw_bytes);
					if (!back)
						add_gap(log, h->cpu, h->seq, h->seq, offset); /* its records: lost on the link */
					return;
				}
				trace_delta_decode_rules(raw, ch.raw_bytes,
							 ch.encoding == KPROF_CHUNK_DELTA_LZ4 ? TD_RULES_1 : TD_RULES_2);
				log->decoded = kp_grow(log->decoded, &log->decoded_cap, log->ndecoded + 1,
						       sizeof(*log->decoded));
				log->decoded[log->ndecoded++] = raw;
				b.data = raw;
				b.decoded = true;
				b.wire_bytes = used;
				used = ch.raw_bytes;
			} else if (ch.encoding != KPROF_CHUNK_RAW) {
				kp_issue_add(log, KP_ISSUE_BAD_RECORD, offset, h->cpu, h->seq, h->seq,
					     "cpu %u: chunk %u at offset %llu has encoding %u, which this decoder does not "
					     "know; its %u records skipped", h->cpu, h->seq, (unsigned long long)offset,
					     ch.encoding, ch.records);
				if (!back)
					add_gap(log, h->cpu, h->seq, h->seq, offset); /* its records: lost */
				return;
			}
			b.chunk = true;
			b.chunk_flags = ch.flags;
			b.hdr = (struct kprof_buffer_header){
				.buffer_seq = ch.buffer_seq,
				.used = used,
				.records = ch.records,
				.flags = ((ch.flags & KPROF_CHUNK_FINAL) ? KPROF_BUFFER_FINAL : 0) |
					 ((ch.flags & KPROF_CHUNK_LOSSES) ? KPROF_BUFFER_LOSSES : 0),
			};
		}
		if (!b.chunk && b.hdr.used > h->length - hsize) {
			kp_issue_add(log, KP_ISSUE_BAD_RECORD, offset, h->cpu, h->seq, h->seq,
				     "buffer frame at offset %llu says %u bytes of records but carries %u",
				     (unsigned long long)offset, b.hdr.used, (unsigned)(h->length - hsize));
			b.hdr.used = (uint32_t)(h->length - hsize);
		}
		store_buffer(log, cpu_slot(log, h->cpu), &b, back);
		return;
	}
	case KPROF_FRAME_RUN_INFO: {
		struct kprof_run_info ri;
		if (h->length < sizeof(ri))
			goto short_payload;
		memcpy(&ri, payload, sizeof(ri));
		if (!log->header_frame) {
			/* A capture that started after the run header: the run info
			 * carries what decoding needs (no masks, build id, command line). */
			log->header = (struct kprof_run_header){
				.version = KPROF_RUN_HEADER_VERSION, .size = sizeof(log->header),
				.cpu_count = ri.cpu_count < KP_MAX_CPUS ? ri.cpu_count : 0, .pointer_size = 8,
				.tsc_hz = ri.tsc_hz, .start_tsc = ri.start_tsc, .boot_unix_s = ri.boot_unix_s,
				.clock_type = KPROF_CLOCK_CYCLES, .trace_mode = ri.trace_mode,
				.buffer_size = ri.buffer_size, .buffers_per_cpu = ri.buffers_per_cpu,
				.scenario = ri.scenario, .run_id = ri.run_id,
			};
			log->have_header = true;
			if (log->header.cpu_count)
				cpu_slot(log, log->header.cpu_count - 1);
		}
		return;
	}
	case KPROF_FRAME_CPU_END:
		if (h->length < KPROF_CPU_END_V1_SIZE || h->cpu == KPROF_FRAME_CPU_NONE)
			goto short_payload;
		/* v1: 56 bytes; v2: run_id and pending after them */
		memcpy(&cpu_slot(log, h->cpu)->end, payload,
		       h->length < sizeof(struct kprof_cpu_end) ? KPROF_CPU_END_V1_SIZE : sizeof(struct kprof_cpu_end));
		log->cpus[h->cpu].have_end = true;
		if (file_tail(h, payload, sizeof(struct kprof_cpu_end), &log->cpus[h->cpu].file_tail))
			log->cpus[h->cpu].have_file_tail = log->file_form = true;
		return;
	case KPROF_FRAME_RUN_END:
		if (h->length < KPROF_RUN_END_V1_SIZE)
			goto short_payload;
		memcpy(&log->run_end, payload, KPROF_RUN_END_V1_SIZE);
		log->have_run_end = true;
		if (file_tail(h, payload, sizeof(struct kprof_run_end), &log->run_file_tail))
			log->have_run_file_tail = log->file_form = true;
		return;
	default:
		kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, h->cpu, h->seq, h->seq,
			     "frame of unknown type %u at offset %llu ignored", h->type, (unsigned long long)offset);
		return;
	}
short_payload:
	kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, h->cpu, h->seq, h->seq,
		     "frame of type %u at offset %llu has a %u-byte payload, too short", h->type,
		     (unsigned long long)offset, h->length);
}

/* First and last record time stamps of a buffer or chunk. */
static bool buffer_times(const struct kp_buffer *b, uint64_t *first, uint64_t *last)
{
	PERFINFO_TRACE_HEADER r;
	bool any = false;

	for (uint32_t off = 0; off + sizeof(r) <= b->hdr.used; off += (r.Size + 7u) & ~7u) {
		memcpy(&r, b->data + off, sizeof(r));
		if ((r.Marker & 0xFFFF0000u) != PERFINFO_MARKER_64 || r.Size < sizeof(r) || off + r.Size > b->hdr.used)
			break;
		if (!any)
			*first = r.TimeStamp;
		*last = r.TimeStamp;
		any = true;
	}
	return any;
}

static void format_when(const struct kp_log *log, uint64_t ts, char *out, size_t n)
{
	if (!ts)
		snprintf(out, n, "%s", "?");
	else if (log->have_header && log->header.tsc_hz && ts >= log->header.start_tsc)
		snprintf(out, n, "+%.3f ms", (double)(ts - log->header.start_tsc) * 1e3 / (double)log->header.tsc_hz);
	else
		snprintf(out, n, "ts %llu", (unsigned long long)ts);
}

/* A trace file's end frames say from which frame on it had no room
 * (wire_file.h): the part of a gap from there is not in the file rather
 * than lost on the link, and a gap across that point is split in two. */
static void mark_not_in_file(struct kp_log *log)
{
	size_t n = log->ngaps;

	for (size_t i = 0; i < n; i++) {
		struct kp_gap *g = &log->gaps[i];
		const struct kprof_file_tail *t = NULL;
		if (g->cpu == KPROF_FRAME_CPU_NONE && log->have_run_file_tail)
			t = &log->run_file_tail;
		else if (g->cpu != KPROF_FRAME_CPU_NONE && log->cpus[g->cpu].have_file_tail)
			t = &log->cpus[g->cpu].file_tail;
		if (!t || g->seq_last < t->frames)
			continue;
		if (g->seq_first >= t->frames) {
			g->not_in_file = true;
			continue;
		}
		uint32_t cpu = g->cpu, last = g->seq_last;
		uint64_t offset = g->offset;
		g->seq_last = t->frames - 1;
		add_gap(log, cpu, t->frames, last, offset); /* may move log->gaps */
		log->gaps[log->ngaps - 1].not_in_file = true;
	}
}

/* Gaps become "missing" issues, each placed between the last record
 * before it and the first record after it on its CPU; frames a trace file
 * had no room for are placed the same way but are no issue (the summary
 * counts their records, from the file's end frames). */
static void finish_gaps(struct kp_log *log)
{
	mark_not_in_file(log);
	for (size_t i = 0; i < log->ngaps; i++) {
		struct kp_gap *g = &log->gaps[i];
		if (g->cpu == KPROF_FRAME_CPU_NONE) {
			if (g->not_in_file)
				continue;
			kp_issue_add(log, KP_ISSUE_MISSING, g->offset, g->cpu, g->seq_first, g->seq_last,
				     "run: frames %u..%u missing before offset %llu", g->seq_first, g->seq_last,
				     (unsigned long long)g->offset);
			continue;
		}
		const struct kp_cpu *c = &log->cpus[g->cpu];
		uint64_t first = 0, last = 0;
		size_t k = 0;
		while (k < c->nbuffers && c->buffers[k].frame_seq < g->seq_first)
			k++;
		for (size_t j = k; j-- > 0;)
			if (buffer_times(&c->buffers[j], &first, &g->ts_before))
				break;
		for (size_t j = k; j < c->nbuffers; j++)
			if (buffer_times(&c->buffers[j], &g->ts_after, &last))
				break;
		char before[40], after[40];
		if (g->not_in_file)
			continue;
		format_when(log, g->ts_before, before, sizeof(before));
		format_when(log, g->ts_after, after, sizeof(after));
		kp_issue_add(log, KP_ISSUE_MISSING, g->offset, g->cpu, g->seq_first, g->seq_last,
			     "cpu %u: %s %u..%u missing before offset %llu (between %s and %s)", g->cpu,
			     log->version == KPROF_FRAME_VERSION_1 ? "frames" : "chunks", g->seq_first, g->seq_last,
			     (unsigned long long)g->offset, before, after);
	}
}

/* Final checks once every frame is in. */
static void check_complete(struct kp_log *log)
{
	finish_gaps(log);
	if (log->other_run_frames)
		kp_issue_add(log, KP_ISSUE_OTHER_RUN, 0, KPROF_FRAME_CPU_NONE, 0, 0,
			     "%zu frames of another run (run id %08x%s) left out: this decodes run %08x, the first in "
			     "the log", log->other_run_frames, log->other_run_id, log->other_run_id ? "" : ", wire v1",
			     log->run_id);
	if (!log->header_frame)
		kp_issue_add(log, KP_ISSUE_INCOMPLETE, 0, KPROF_FRAME_CPU_NONE, 0, 0, "%s",
			     log->have_header ? "no run header frame in the log (it starts mid-run); clock and CPUs "
						"from a run info frame"
					      : "no run header frame in the log");

	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu *c = &log->cpus[i];
		if (!c->have_end) {
			kp_issue_add(log, KP_ISSUE_INCOMPLETE, log->size, i, 0, 0,
				     "cpu %u: no end frame (the log stops before the run ended)", i);
			continue;
		}
		/* Buffer frames that never arrived at the end: the end frame counts them. */
		if (c->end.buffers > c->nbuffers && c->next_seq <= c->end.buffers)
			kp_issue_add(log, KP_ISSUE_MISSING, log->size, i, (uint32_t)c->next_seq, c->end.buffers,
				     "cpu %u: %u %s sent, %zu received", i, c->end.buffers,
				     log->version == KPROF_FRAME_VERSION_1 ? "buffer frames" : "chunks", c->nbuffers);
	}
	if (!log->have_run_end)
		kp_issue_add(log, KP_ISSUE_INCOMPLETE, log->size, KPROF_FRAME_CPU_NONE, 0, 0,
			     "no run end frame (the log stops before the run ended)");
}

void kp_log_scan(struct kp_log *log, uint8_t *bytes, size_t size)
{
	memset(log, 0, sizeof(*log));
	log->bytes = bytes;
	log->size = size;
	log->console = kp_xrealloc(NULL, size + 1, 1);
	log->console[0] = '\0';

	size_t pos = 0, text_from = 0;
	while (pos < size) {
		uint8_t *m = memchr(bytes + pos, 0xFE, size - pos);
		if (!m)
			break;
		pos = (size_t)(m - bytes);
		struct kprof_frame_header h;
		size_t avail = size - pos < 4 ? size - pos : 4;
		if (memcmp(m, "\xFE" "KPF", avail) != 0) {
			pos++;
			continue;
		}
		if (size - pos < sizeof(h)) {
			console_append(log, bytes + text_from, pos - text_from);
			kp_issue_add(log, KP_ISSUE_TRUNCATED, pos, KPROF_FRAME_CPU_NONE, 0, 0,
				     "the log ends inside a frame header at offset %zu", pos);
			text_from = pos = size;
			break;
		}
		memcpy(&h, m, sizeof(h));
		if (crc32_update(0, &h, 20) != h.header_crc ||
		    (h.version != KPROF_FRAME_VERSION && h.version != KPROF_FRAME_VERSION_1) ||
		    h.length > KPROF_FRAME_MAX_PAYLOAD || (h.cpu >= KP_MAX_CPUS && h.cpu != KPROF_FRAME_CPU_NONE)) {
			kp_issue_add(log, KP_ISSUE_BAD_HEADER, pos, KPROF_FRAME_CPU_NONE, 0, 0,
				     "damaged frame header at offset %zu (header CRC, version or length wrong)", pos);
			pos++;
			continue;
		}
		console_append(log, bytes + text_from, pos - text_from);
		if (size - pos - sizeof(h) < h.length) {
			/* Cut short: by the end of the log, or bytes lost inside it.
			 * Either way, frames after it may still be whole. */
			kp_issue_add(log, KP_ISSUE_TRUNCATED, pos, h.cpu, h.seq, h.seq,
				     "frame %u of %s %u at offset %zu: %u payload bytes, the log ends after %zu", h.seq,
				     h.cpu == KPROF_FRAME_CPU_NONE ? "run" : "cpu", h.cpu == KPROF_FRAME_CPU_NONE ? 0 : h.cpu,
				     pos, h.length, size - pos - sizeof(h));
			text_from = pos = pos + sizeof(h);
			continue;
		}
		const uint8_t *payload = m + sizeof(h);
		if (crc32_update(0, payload, h.length) != h.payload_crc) {
			kp_issue_add(log, KP_ISSUE_CORRUPT, pos, h.cpu, h.seq, h.seq,
				     "frame %u of %s %u at offset %zu: payload CRC mismatch, frame dropped", h.seq,
				     h.cpu == KPROF_FRAME_CPU_NONE ? "run" : "cpu", h.cpu == KPROF_FRAME_CPU_NONE ? 0 : h.cpu,
				     pos);
			text_from = pos = pos + sizeof(h);
			continue;
		}
		take_frame(log, &h, payload, pos);
		text_from = pos = pos + sizeof(h) + h.length;
		if (log->have_run_file_tail) {
			/* A trace file's run end: what follows is its fill. */
			log->fill_bytes = size - pos;
			text_from = pos = size;
			break;
		}
	}
	if (text_from < size)
		console_append(log, bytes + text_from, size - text_from);
	check_complete(log);
	kp_drops_find(log);
}

int kp_log_read(const char *path, struct kp_log *log)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	/* Sized from the file when it says (a trace file from the stick is
	 * hundreds of MiB), grown otherwise (a pipe). */
	size_t cap = 1 << 20, len = 0, n;
	if (fseek(f, 0, SEEK_END) == 0) {
		long end = ftell(f);
		if (end > 0)
			cap = (size_t)end + 1; /* + 1: the read that sees end of file */
		rewind(f);
	}
	uint8_t *buf = kp_xrealloc(NULL, cap, 1);
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = kp_xrealloc(buf, cap *= 2, 1);
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		errno = EIO;
		return -1;
	}
	kp_log_scan(log, buf, len);
	return 0;
}

void kp_log_free(struct kp_log *log)
{
	for (uint32_t i = 0; i < log->ncpus; i++)
		free(log->cpus[i].buffers);
	free(log->cpus);
	for (size_t i = 0; i < log->ndecoded; i++)
		free(log->decoded[i]);
	free(log->decoded);
	free(log->issues);
	free(log->gaps);
	free(log->drops);
	free(log->console);
	free(log->bytes);
	memset(log, 0, sizeof(*log));
}
