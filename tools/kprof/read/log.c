/*
 * log.c - the frame scanner (the wire format is in include/kprof/wire.h
 * and docs/wire-format.md).
 *
 * Scan: find the next 0xFE byte; if the four magic bytes follow and the
 * 24-byte header's CRC holds, it is a frame header.  A header whose payload
 * would run past the end of the log is a truncated frame.  A payload whose
 * CRC fails is a corrupt frame: its length is not trusted and the scan goes
 * on right after the header, so a frame whose tail was lost still lets the
 * next one be found.  Bytes outside frames are console text.
 */
#include "tools/kprof/read/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#include "kernel/lib/crc32.h"

#define KP_MAX_CPUS 4096 /* frames naming a higher CPU are treated as damaged */

static const char *const kind_names[KP_ISSUE_KINDS] = {
	[KP_ISSUE_CORRUPT] = "corrupt",       [KP_ISSUE_BAD_HEADER] = "bad-header",
	[KP_ISSUE_TRUNCATED] = "truncated",   [KP_ISSUE_MISSING] = "missing",
	[KP_ISSUE_DUPLICATE] = "duplicate",   [KP_ISSUE_BAD_RECORD] = "bad-record",
	[KP_ISSUE_INCOMPLETE] = "incomplete",
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

static void console_append(struct kp_log *log, const uint8_t *p, size_t n)
{
	memcpy(log->console + log->console_len, p, n);
	log->console_len += n;
	log->console[log->console_len] = '\0';
}

/* Sequence bookkeeping for frames of one CPU (or the run frames). */
static void check_seq(struct kp_log *log, uint32_t *next, bool *seen, uint64_t offset, uint32_t cpu, uint32_t seq)
{
	if (*seen && seq > *next)
		kp_issue_add(log, KP_ISSUE_MISSING, offset, cpu, *next, seq - 1,
			     "%s: frames %u..%u missing before offset %llu", cpu == KPROF_FRAME_CPU_NONE ? "run" : "cpu",
			     *next, seq - 1, (unsigned long long)offset);
	else if (!*seen && seq > 0)
		kp_issue_add(log, KP_ISSUE_MISSING, offset, cpu, 0, seq - 1,
			     "frames 0..%u missing before offset %llu (first seen)", seq - 1,
			     (unsigned long long)offset);
	else if (*seen && seq < *next)
		kp_issue_add(log, KP_ISSUE_DUPLICATE, offset, cpu, seq, seq,
			     "frame %u seen again (or out of order) at offset %llu", seq, (unsigned long long)offset);
	if (!*seen || seq >= *next)
		*next = seq + 1;
	*seen = true;
}

static void take_frame(struct kp_log *log, const struct kprof_frame_header *h, const uint8_t *payload,
		       uint64_t offset)
{
	if (h->cpu == KPROF_FRAME_CPU_NONE) {
		check_seq(log, &log->run_next_seq, &log->run_seen, offset, KPROF_FRAME_CPU_NONE, h->seq);
	} else {
		struct kp_cpu *c = cpu_slot(log, h->cpu);
		check_seq(log, &c->next_seq, &c->seen, offset, h->cpu, h->seq);
	}
	log->frames++;

	switch (h->type) {
	case KPROF_FRAME_RUN_HEADER:
		if (h->length < sizeof(struct kprof_run_header))
			goto short_payload;
		memcpy(&log->header, payload, sizeof(log->header));
		log->have_header = true;
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
	case KPROF_FRAME_BUFFER: {
		if (h->length < sizeof(struct kprof_buffer_header) || h->cpu == KPROF_FRAME_CPU_NONE)
			goto short_payload;
		struct kp_cpu *c = cpu_slot(log, h->cpu);
		c->buffers = kp_grow(c->buffers, &c->cap, c->nbuffers + 1, sizeof(*c->buffers));
		struct kp_buffer *b = &c->buffers[c->nbuffers++];
		b->cpu = h->cpu;
		b->frame_seq = h->seq;
		b->bad_reported = false;
		b->offset = offset;
		memcpy(&b->hdr, payload, sizeof(b->hdr));
		b->data = payload + sizeof(b->hdr);
		if (b->hdr.used > h->length - sizeof(b->hdr)) {
			kp_issue_add(log, KP_ISSUE_BAD_RECORD, offset, h->cpu, h->seq, h->seq,
				     "buffer frame at offset %llu says %u bytes of records but carries %u",
				     (unsigned long long)offset, b->hdr.used, (unsigned)(h->length - sizeof(b->hdr)));
			b->hdr.used = h->length - sizeof(b->hdr);
		}
		return;
	}
	case KPROF_FRAME_CPU_END:
		if (h->length < sizeof(struct kprof_cpu_end) || h->cpu == KPROF_FRAME_CPU_NONE)
			goto short_payload;
		memcpy(&cpu_slot(log, h->cpu)->end, payload, sizeof(struct kprof_cpu_end));
		log->cpus[h->cpu].have_end = true;
		return;
	case KPROF_FRAME_RUN_END:
		if (h->length < sizeof(struct kprof_run_end))
			goto short_payload;
		memcpy(&log->run_end, payload, sizeof(log->run_end));
		log->have_run_end = true;
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

/* Final checks once every frame is in. */
static void check_complete(struct kp_log *log)
{
	if (!log->have_header)
		kp_issue_add(log, KP_ISSUE_INCOMPLETE, 0, KPROF_FRAME_CPU_NONE, 0, 0, "no run header frame in the log");
	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu *c = &log->cpus[i];
		if (!c->have_end) {
			kp_issue_add(log, KP_ISSUE_INCOMPLETE, log->size, i, 0, 0,
				     "cpu %u: no end frame (the log stops before the run ended)", i);
			continue;
		}
		/* Buffer frames that never arrived at the end: the end frame counts them. */
		if (c->end.buffers > c->nbuffers && c->next_seq <= c->end.buffers)
			kp_issue_add(log, KP_ISSUE_MISSING, log->size, i, c->next_seq, c->end.buffers,
				     "cpu %u: %u buffer frames sent, %zu received", i, c->end.buffers, c->nbuffers);
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
		if (crc32_update(0, &h, 20) != h.header_crc || h.version != KPROF_FRAME_VERSION ||
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
	}
	if (text_from < size)
		console_append(log, bytes + text_from, size - text_from);
	check_complete(log);
}

int kp_log_read(const char *path, struct kp_log *log)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 1 << 20, len = 0, n;
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
	free(log->issues);
	free(log->console);
	free(log->bytes);
	memset(log, 0, sizeof(*log));
}
