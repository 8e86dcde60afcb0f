/*
 * frames.c - what each valid frame adds to the log (frames.h): the run it
 * belongs to and its sequence number first (a jump is a gap, a number seen
 * again a duplicate), then one function per frame kind.
 *
 * Every field the sender wrote is checked against what the wire format
 * allows (docs/wire-format.md) and against the frame's own contents; a
 * frame that disagrees is reported with its CPU and offset (and so fails
 * --strict) while the rest decodes:
 *   - a run header or run info with a TSC rate of 0 Hz;
 *   - a chunk whose `records` differs from the whole records it holds, or
 *     a raw chunk whose raw_bytes differs from its record bytes;
 *   - a compressed chunk claiming more than KPROF_CHUNK_BYTES decoded (the
 *     kernel sends larger ones raw): dropped, like one that does not
 *     decode, so no chunk inflates past what the format allows.
 * A chunk of encoding 1 or 2 (delta + LZ4) is decoded as it is taken, to
 * check it and count its records: LZ4_decompress_safe into exactly its
 * raw_bytes, then trace_delta_decode_rules(), the kernel's own inverse.
 * A log's decoded records are kept when all of them fit in
 * KP_DECODED_KEEP_MB MiB, so a small log is decoded once; a bigger one
 * keeps none (kp_kept_settle lets go of the first ones once the log is
 * read: they would spare each walk only its first chunks, and hold 64
 * MiB all along): a walk that reaches a chunk decodes it again
 * (kp_buffer_records) into the
 * next slot of a ring of KP_CHUNK_RING, which holds it until that many
 * other chunks are decoded after it.  So a big compressed log costs what a
 * raw one does, not 2.2 times its wire bytes held decoded; a record a
 * walk gave stays whole while fewer chunks than that were decoded since
 * (a cursor and the CPU merge check their chunk is still held, and decode
 * it again if not).
 */
#include "tools/kprof/read/frames.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/store.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/kpassert.h"

#include "include/kprof/wmi.h"
#include "kernel/trace/trace_delta.h"

#include <lz4.h>

struct kp_cpu *kp_cpu_slot(struct kp_log *log, uint32_t cpu)
{
	if (cpu >= log->ncpus) {
		struct kp_cpu *c = kp_xrealloc(log->cpus, (size_t)cpu + 1, sizeof(*c));
		memset(c + log->ncpus, 0, (cpu + 1 - log->ncpus) * sizeof(*c));
		log->cpus = c;
		log->ncpus = cpu + 1;
	}
	return &log->cpus[cpu];
}

void kp_gap_add(struct kp_log *log, uint32_t cpu, uint32_t first, uint32_t last, uint64_t offset)
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
		kp_gap_add(log, cpu, (uint32_t)*next, seq - 1, offset);
	else if (!*seen && seq > 0)
		kp_gap_add(log, cpu, 0, seq - 1, offset);
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
	    log->version == KPROF_FRAME_VERSION_1 && h->length >= KPROF_RUN_HEADER_V3_SIZE) {
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

/* Whole records at the start of n bytes (the rule records.c walks by). */
static uint32_t count_records(const uint8_t *p, uint32_t n)
{
	PERFINFO_TRACE_HEADER r;
	uint32_t count = 0;

	for (uint32_t off = 0; off + sizeof(r) <= n; off += (r.Size + 7u) & ~7u, count++) {
		memcpy(&r, p + off, sizeof(r));
		if ((r.Marker & 0xFFFF0000u) != PERFINFO_MARKER_64 || r.Size < sizeof(r) || off + r.Size > n)
			break;
	}
	return count;
}

static void no_clock(struct kp_log *log, const struct kprof_frame_header *h, uint64_t offset, const char *what)
{
	kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, KPROF_FRAME_CPU_NONE, h->seq, h->seq,
		     "%s at offset %llu gives a TSC rate of 0 Hz (it must give the rate the time stamps count at): "
		     "times are not known", what, (unsigned long long)offset);
}

static void take_run_header(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload,
			    uint64_t offset)
{
	struct kprof_run_header fixed;
	size_t n = h->length < sizeof(fixed) ? h->length : sizeof(fixed);

	memcpy(&fixed, payload, KPROF_RUN_HEADER_V3_SIZE);
	/* Version 4 grew the fixed part: take what its size says, zero the
	 * rest (a v3 header's strings follow its 104 bytes). */
	if (fixed.size < n)
		n = fixed.size < KPROF_RUN_HEADER_V3_SIZE ? KPROF_RUN_HEADER_V3_SIZE : fixed.size;
	memset(&log->header, 0, sizeof(log->header));
	memcpy(&log->header, payload, n);
	log->have_header = log->header_frame = true;
	if (log->header.build_id_offset < h->length)
		snprintf(log->build_id, sizeof(log->build_id), "%.*s", (int)(h->length - log->header.build_id_offset),
			 (const char *)payload + log->header.build_id_offset);
	if (log->header.cmdline_offset < h->length)
		snprintf(log->cmdline, sizeof(log->cmdline), "%.*s", (int)(h->length - log->header.cmdline_offset),
			 (const char *)payload + log->header.cmdline_offset);
	if (!log->header.tsc_hz)
		no_clock(log, h, offset, "the run header");
	if (log->header.cpu_count > KP_MAX_CPUS) {
		kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, h->cpu, h->seq, h->seq,
			     "run header at offset %llu claims %u CPUs, more than the %u a decoder accepts",
			     (unsigned long long)offset, log->header.cpu_count, KP_MAX_CPUS);
		log->header.cpu_count = 0;
	}
	if (log->header.cpu_count)
		kp_cpu_slot(log, log->header.cpu_count - 1);
}

static void take_run_info(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload,
			  uint64_t offset)
{
	struct kprof_run_info ri;

	memset(&ri, 0, sizeof(ri));
	memcpy(&ri, payload, h->length < sizeof(ri) ? h->length : sizeof(ri));
	/* Version 3: the workload's name, which the run header has not. */
	if (h->length >= sizeof(ri) && ri.scenario_name[0])
		snprintf(log->scenario_name, sizeof(log->scenario_name), "%.*s", (int)sizeof(ri.scenario_name),
			 ri.scenario_name);
	if (log->header_frame)
		return;
	/* A capture that started after the run header: the run info carries
	 * what decoding needs (no masks, build id, command line). */
	log->header = (struct kprof_run_header){
		.version = KPROF_RUN_HEADER_VERSION, .size = sizeof(log->header),
		.cpu_count = ri.cpu_count < KP_MAX_CPUS ? ri.cpu_count : 0, .pointer_size = 8,
		.tsc_hz = ri.tsc_hz, .start_tsc = ri.start_tsc, .boot_unix_s = ri.boot_unix_s,
		.clock_type = KPROF_CLOCK_CYCLES, .trace_mode = ri.trace_mode,
		.buffer_size = ri.buffer_size, .buffers_per_cpu = ri.buffers_per_cpu,
		.scenario = ri.scenario, .run_id = ri.run_id,
	};
	log->have_header = true;
	if (!ri.tsc_hz)
		no_clock(log, h, offset, "the run info frame");
	if (log->header.cpu_count)
		kp_cpu_slot(log, log->header.cpu_count - 1);
}

/* A chunk dropped (not decodable): reported (what: the reason), and
 * unless it came late its sequence number becomes a gap (its records
 * lost on the link). */
static void drop_chunk(struct kp_log *log, const struct kprof_frame_header *h, uint64_t offset, bool late,
		       enum kp_issue_kind kind, const char *what)
{
	kp_issue_add(log, kind, offset, h->cpu, h->seq, h->seq, "frame %u of cpu %u at offset %llu: %s, frame dropped",
		     h->seq, h->cpu, (unsigned long long)offset, what);
	if (!late)
		kp_gap_add(log, h->cpu, h->seq, h->seq, offset);
}

/* The records of compressed chunk b (wire_bytes of LZ4 at its payload in
 * the log) decoded into out, b->used bytes; false if they do not decode to
 * that. */
static bool inflate(const struct kp_log *log, const struct kp_buffer *b, uint8_t *out)
{
	const uint8_t *lz4 = log->bytes + kp_buffer_payload_at(b);
	int got = LZ4_decompress_safe((const char *)lz4, (char *)out, (int)b->wire_bytes, (int)b->used);
	if (got != (int)b->used)
		return false;
	trace_delta_decode_rules(out, b->used, b->rules1 ? TD_RULES_1 : TD_RULES_2);
	return true;
}

size_t kp_env_number(const char *name, size_t dflt, size_t min, size_t max)
{
	const char *e = getenv(name);
	char *end;

	if (!e || !*e)
		return dflt;
	errno = 0;
	unsigned long long v = strtoull(e, &end, 10);
	if (*end || errno || *e == '-' || v < min || v > max) {
		fprintf(stderr, "kprof: %s=%s ignored: not a whole number from %zu to %zu; using %zu\n", name, e, min,
			max, dflt);
		return dflt;
	}
	return (size_t)v;
}

static uint64_t keep_budget(void)
{
	static uint64_t bytes = UINT64_MAX;

	if (bytes == UINT64_MAX)
		bytes = (uint64_t)kp_env_number("KPROF_DECODED_KEEP_MB", KP_DECODED_KEEP_MB, 0, 1u << 20) << 20;
	return bytes;
}

static size_t ring_slots(void)
{
	static size_t n;

	if (!n)
		n = kp_env_number("KPROF_CHUNK_RING", KP_CHUNK_RING, 2, 1u << 20);
	return n;
}

struct kp_chunk_ring {
	uint8_t (*slot)[KPROF_CHUNK_BYTES];
	const struct kp_buffer **owner; /* whose records each slot holds   */
	size_t n;                       /* slots                           */
	size_t next;                    /* the slot decoded into next      */
};

const uint8_t *kp_buffer_records(struct kp_log *log, const struct kp_buffer *b)
{
	if (!b->decoded)
		return log->bytes + kp_buffer_payload_at(b);
	if (b->kept) {
		uint64_t h = kp_hash_u64(b->offset, 0);
		size_t it;
		for (size_t at = kp_index_first(&log->kept_ix, h, &it); at != KP_INDEX_NONE;
		     at = kp_index_next(&log->kept_ix, h, &it))
			if (log->kept_offset[at] == b->offset)
				return log->kept[at];
		KP_ASSERT(false, "chunk %u of cpu %u was kept decoded", b->frame_seq, b->cpu);
	}
	struct kp_chunk_ring *r = log->ring;
	if (!r) {
		r = log->ring = kp_xcalloc(1, sizeof(*r));
		r->n = ring_slots();
		r->slot = kp_xcalloc(r->n, sizeof(*r->slot));
		r->owner = kp_xcalloc(r->n, sizeof(*r->owner));
	}
	size_t s = r->next;
	r->next = (s + 1) % r->n;
	bool ok = inflate(log, b, r->slot[s]);
	KP_ASSERT(ok, "chunk %u of cpu %u decodes as it did when the log was read", b->frame_seq, b->cpu);
	r->owner[s] = b;
	return r->slot[s];
}

bool kp_buffer_held(const struct kp_log *log, const struct kp_buffer *b, const uint8_t *records)
{
	if (!b->decoded || b->kept)
		return true;
	const struct kp_chunk_ring *r = log->ring;
	if (!r || records < r->slot[0] || records >= r->slot[r->n])
		return false;
	size_t s = (size_t)(records - r->slot[0]) / KPROF_CHUNK_BYTES;
	return r->owner[s] == b && records == r->slot[s];
}

void kp_chunk_ring_free(struct kp_log *log)
{
	if (!log->ring)
		return;
	free(log->ring->slot);
	free(log->ring->owner);
	free(log->ring);
	log->ring = NULL;
}

/* A compressed chunk taken: it must decode to its raw_bytes, no more than
 * a chunk holds; its records counted (*n) from the decoded bytes, which
 * are then kept (the log's first KP_DECODED_KEEP_MB MiB of them) or let
 * go.  False: dropped and reported. */
static bool inflate_chunk(struct kp_log *log, const struct kprof_frame_header *h, const struct kprof_chunk_header *ch,
			  struct kp_buffer *b, uint32_t wire, uint64_t offset, bool late, uint32_t *n)
{
	static uint8_t raw[KPROF_CHUNK_BYTES];
	char what[120];

	if (ch->raw_bytes > KPROF_CHUNK_BYTES) {
		log->damaged_chunks++;
		snprintf(what, sizeof(what), "compressed chunk claims %u bytes of records, more than the %u a chunk holds",
			 ch->raw_bytes, KPROF_CHUNK_BYTES);
		drop_chunk(log, h, offset, late, KP_ISSUE_BAD_RECORD, what);
		return false;
	}
	b->decoded = true;
	b->rules1 = ch->encoding == KPROF_CHUNK_DELTA_LZ4;
	b->wire_bytes = wire;
	b->used = ch->raw_bytes;
	if (!ch->raw_bytes || !inflate(log, b, raw)) {
		log->damaged_chunks++;
		snprintf(what, sizeof(what), "LZ4 chunk does not decode to its %u bytes", ch->raw_bytes);
		drop_chunk(log, h, offset, late, KP_ISSUE_CORRUPT, what);
		return false;
	}
	*n = count_records(raw, b->used);
	if (!log->kept_partial && log->kept_bytes + b->used <= keep_budget()) { /* a small log: decoded once */
		uint8_t *copy = kp_xrealloc(NULL, b->used, 1);
		memcpy(copy, raw, b->used);
		KP_PUSH(log->kept, log->nkept, log->kept_cap, copy);
		log->kept_offset = kp_grow(log->kept_offset, &log->kept_offset_cap, log->nkept, sizeof(*log->kept_offset));
		log->kept_offset[log->nkept - 1] = offset;
		kp_index_add(&log->kept_ix, kp_hash_u64(offset, 0), log->nkept - 1);
		log->kept_bytes += b->used;
		b->kept = true;
	} else {
		log->kept_partial = true;
	}
	return true;
}

void kp_kept_plan(struct kp_log *log, uint64_t log_bytes)
{
	/* a chunk decodes to at least its wire bytes: a log bigger than the
	 * budget cannot fit it, so none is kept from the start */
	log->kept_partial = log_bytes > keep_budget();
}

void kp_kept_settle(struct kp_log *log)
{
	if (!log->kept_partial || !log->nkept)
		return;
	for (uint32_t c = 0; c < log->ncpus; c++)
		for (size_t i = 0; i < log->cpus[c].nbuffers; i++)
			log->cpus[c].buffers[i].kept = false;
	for (size_t i = 0; i < log->nkept; i++)
		free(log->kept[i]);
	free(log->kept);
	free(log->kept_offset);
	kp_index_free(&log->kept_ix);
	log->kept = NULL;
	log->kept_offset = NULL;
	log->nkept = log->kept_cap = log->kept_offset_cap = 0;
	log->kept_bytes = 0;
}

static void take_chunk(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload,
		       uint64_t offset, bool late)
{
	struct kprof_chunk_header ch;
	struct kp_cpu *c = kp_cpu_slot(log, h->cpu);
	struct kp_buffer b = { .cpu = h->cpu, .frame_seq = h->seq, .offset = (uint32_t)offset, .chunk = true };
	uint32_t used = (uint32_t)(h->length - sizeof(ch)), n = 0;

	memcpy(&ch, payload, sizeof(ch));
	if (KPROF_CHUNK_COMPRESSED(ch.encoding)) {
		if (late && kp_store_has(c, h->seq)) {
			kp_store_add(log, c, &b, late); /* seen again: reported, not decoded twice */
			return;
		}
		if (!inflate_chunk(log, h, &ch, &b, used, offset, late, &n))
			return;
		used = ch.raw_bytes;
	} else if (ch.encoding != KPROF_CHUNK_RAW) {
		char what[120];
		snprintf(what, sizeof(what), "encoding %u, which this decoder does not know (0, 1, 2); its %u records "
			 "skipped", ch.encoding, ch.records);
		drop_chunk(log, h, offset, late, KP_ISSUE_BAD_RECORD, what);
		return;
	} else if (ch.raw_bytes && ch.raw_bytes != used) {
		kp_issue_add(log, KP_ISSUE_BAD_RECORD, offset, h->cpu, h->seq, h->seq,
			     "cpu %u: chunk %u at offset %llu says %u bytes of records (raw_bytes) but carries %u",
			     h->cpu, h->seq, (unsigned long long)offset, ch.raw_bytes, used);
	}
	if (!b.decoded)
		n = count_records(payload + sizeof(ch), used);
	if (n != ch.records)
		kp_issue_add(log, KP_ISSUE_BAD_RECORD, offset, h->cpu, h->seq, h->seq,
			     "cpu %u: chunk %u at offset %llu says %u records but holds %u", h->cpu, h->seq,
			     (unsigned long long)offset, ch.records, n);
	b.buffer_seq = ch.buffer_seq;
	b.used = used;
	b.records = ch.records;
	b.flags = ((ch.flags & KPROF_CHUNK_FINAL) ? KPROF_BUFFER_FINAL : 0) |
		  ((ch.flags & KPROF_CHUNK_LOSSES) ? KPROF_BUFFER_LOSSES : 0);
	kp_store_add(log, c, &b, late);
}

static void take_buffer(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload,
			uint64_t offset, bool late)
{
	size_t hsize = sizeof(struct kprof_buffer_header);
	struct kprof_buffer_header bh;

	memcpy(&bh, payload, sizeof(bh));
	uint32_t used = bh.used; /* as it says, before it is held to what the frame carries */
	if (used > h->length - hsize) {
		kp_issue_add(log, KP_ISSUE_BAD_RECORD, offset, h->cpu, h->seq, h->seq,
			     "buffer frame at offset %llu says %u bytes of records but carries %u",
			     (unsigned long long)offset, used, (unsigned)(h->length - hsize));
		used = (uint32_t)(h->length - hsize);
	}
	struct kp_buffer b = { .cpu = h->cpu, .frame_seq = h->seq, .offset = (uint32_t)offset,
			       .buffer_seq = bh.buffer_seq, .used = used, .records = bh.records,
			       .flags = bh.flags & (KPROF_BUFFER_FINAL | KPROF_BUFFER_LOSSES) };
	kp_store_add(log, kp_cpu_slot(log, h->cpu), &b, late);
}

static void take_cpu_end(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload)
{
	struct kp_cpu *c = kp_cpu_slot(log, h->cpu);

	/* v1: 56 bytes; v2: run_id and pending after them */
	memcpy(&c->end, payload,
	       h->length < sizeof(struct kprof_cpu_end) ? KPROF_CPU_END_V1_SIZE : sizeof(struct kprof_cpu_end));
	c->have_end = true;
	if (file_tail(h, payload, sizeof(struct kprof_cpu_end), &c->file_tail))
		c->have_file_tail = log->file_form = true;
}

static void take_run_end(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload)
{
	memcpy(&log->run_end, payload, KPROF_RUN_END_V1_SIZE);
	log->have_run_end = true;
	if (file_tail(h, payload, sizeof(struct kprof_run_end), &log->run_file_tail))
		log->have_run_file_tail = log->file_form = true;
}

/* The payload a frame kind needs at least (0: any; SIZE_MAX: unknown kind). */
static size_t min_payload(const struct kprof_frame_header *h)
{
	switch (h->type) {
	case KPROF_FRAME_RUN_HEADER: return KPROF_RUN_HEADER_V3_SIZE;
	case KPROF_FRAME_RUN_INFO: return KPROF_RUN_INFO_V2_SIZE;
	case KPROF_FRAME_BUFFER: return sizeof(struct kprof_buffer_header);
	case KPROF_FRAME_CHUNK: return sizeof(struct kprof_chunk_header);
	case KPROF_FRAME_CPU_END: return KPROF_CPU_END_V1_SIZE;
	case KPROF_FRAME_RUN_END: return KPROF_RUN_END_V1_SIZE;
	default: return SIZE_MAX;
	}
}

/* Frames about one CPU must name one. */
static bool needs_cpu(const struct kprof_frame_header *h)
{
	return h->type == KPROF_FRAME_BUFFER || h->type == KPROF_FRAME_CHUNK || h->type == KPROF_FRAME_CPU_END;
}

void kp_take_frame(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload, uint64_t offset)
{
	bool data_frame = h->type == KPROF_FRAME_BUFFER || h->type == KPROF_FRAME_CHUNK, late;

	if (!in_run(log, h, payload))
		return;
	if (h->cpu == KPROF_FRAME_CPU_NONE) {
		late = check_seq(log, &log->run_next_seq, &log->run_seen, offset, KPROF_FRAME_CPU_NONE, h->seq, false);
	} else {
		struct kp_cpu *c = kp_cpu_slot(log, h->cpu);
		late = check_seq(log, &c->next_seq, &c->seen, offset, h->cpu, h->seq, data_frame);
	}
	log->frames++;
	if (min_payload(h) == SIZE_MAX) {
		kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, h->cpu, h->seq, h->seq,
			     "frame of unknown type %u at offset %llu ignored", h->type, (unsigned long long)offset);
		return;
	}
	if (h->length < min_payload(h) || (needs_cpu(h) && h->cpu == KPROF_FRAME_CPU_NONE)) {
		kp_issue_add(log, KP_ISSUE_BAD_HEADER, offset, h->cpu, h->seq, h->seq,
			     "frame of type %u at offset %llu has a %u-byte payload, too short", h->type,
			     (unsigned long long)offset, h->length);
		return;
	}
	switch (h->type) {
	case KPROF_FRAME_RUN_HEADER: take_run_header(log, h, payload, offset); return;
	case KPROF_FRAME_RUN_INFO: take_run_info(log, h, payload, offset); return;
	case KPROF_FRAME_BUFFER: take_buffer(log, h, payload, offset, late); return;
	case KPROF_FRAME_CHUNK: take_chunk(log, h, payload, offset, late); return;
	case KPROF_FRAME_CPU_END: take_cpu_end(log, h, payload); return;
	case KPROF_FRAME_RUN_END: take_run_end(log, h, payload); return;
	}
}
