/*
 * records.c - walking records in buffers, merging CPUs by time, and the
 * totals of a log.
 *
 * A record is valid when its header has the PERFINFO flags and type, a
 * Size of at least the header, and fits the buffer; records follow each
 * other at 8-byte alignment.  An invalid one ends the walk of its buffer
 * (with an issue), since its Size cannot be trusted to find the next.
 */
#include "tools/kprof/read/records.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/progress/progress.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define ALIGN8(x) (((x) + 7u) & ~7u)

void kp_cursor_init(struct kp_cpu_cursor *c, struct kp_log *log, uint32_t cpu)
{
	*c = (struct kp_cpu_cursor){ .log = log, .cpu = cpu };
}

static bool header_ok(const PERFINFO_TRACE_HEADER *h)
{
	return (h->Marker & 0xFFFF0000u) == PERFINFO_MARKER_64 && h->Size >= sizeof(*h) &&
	       PERFINFO_MARKER_PMC_COUNT(h->Marker) == 0;
}

bool kp_cursor_next(struct kp_cpu_cursor *c, struct kp_record *r)
{
	struct kp_cpu *cpu = &c->log->cpus[c->cpu];

	while (c->buffer < cpu->nbuffers) {
		struct kp_buffer *b = &cpu->buffers[c->buffer];
		uint32_t used = b->used;
		if (c->offset + sizeof(PERFINFO_TRACE_HEADER) > used) {
			c->buffer++;
			c->offset = 0;
			continue;
		}
		if (c->held != b || !kp_buffer_held(c->log, b, c->records)) {
			c->records = kp_buffer_records(c->log, b);
			c->held = b;
		}
		PERFINFO_TRACE_HEADER h;
		memcpy(&h, c->records + c->offset, sizeof(h));
		if (!header_ok(&h) || c->offset + h.Size > used) {
			if (!b->bad_reported) /* once, however often the records are walked */
				kp_issue_add(c->log, KP_ISSUE_BAD_RECORD,
				     kp_buffer_log_offset(b, c->offset), c->cpu, b->frame_seq, b->frame_seq,
				     "cpu %u buffer %u: malformed record at byte %u (marker 0x%08x size %u); rest of the "
				     "buffer skipped", c->cpu, b->buffer_seq, c->offset, h.Marker, h.Size);
			b->bad_reported = true;
			c->buffer++;
			c->offset = 0;
			continue;
		}
		r->cpu = c->cpu;
		r->h = h;
		r->raw = c->records + c->offset;
		r->payload = c->records + c->offset + sizeof(h);
		r->payload_size = (uint16_t)(h.Size - sizeof(h));
		r->version = (uint8_t)PERFINFO_MARKER_VERSION(h.Marker);
		r->log_offset = kp_buffer_log_offset(b, c->offset);
		r->buffer = b;
		r->at = c->offset;
		r->back = c->timed && h.TimeStamp < c->last_ts ? c->last_ts - h.TimeStamp : 0;
		if (r->back)
			r->h.TimeStamp = c->last_ts;
		c->last_ts = r->h.TimeStamp;
		c->timed = true;
		c->offset += ALIGN8(h.Size);
		kp_progress_record(r->log_offset);
		if (!(++c->log->walked % KP_LOG_RELEASE_RECORDS))
			kp_log_release(c->log);
		return true;
	}
	return false;
}

/* Whether CPU a's head comes before CPU b's (heap entries: CPUs). */
static bool merge_before(const void *pa, const void *pb, const void *ctx)
{
	const struct kp_merge *m = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t ta = m->heads[a].h.TimeStamp, tb = m->heads[b].h.TimeStamp;
	return ta != tb ? ta < tb : a < b;
}

/* The heap's entry at i moved down to where it belongs. */
static void merge_sift_down(struct kp_merge *m, uint32_t i)
{
	kp_heap_down(m->heap, m->nheap, i, sizeof(*m->heap), merge_before, m);
}

void kp_merge_init(struct kp_merge *m, struct kp_log *log)
{
	m->n = log->ncpus;
	m->cursors = kp_xcalloc(m->n, sizeof(*m->cursors));
	m->heads = kp_xcalloc(m->n, sizeof(*m->heads));
	m->have = kp_xcalloc(m->n, sizeof(*m->have));
	m->heap = kp_xcalloc(m->n, sizeof(*m->heap));
	m->nheap = 0;
	for (uint32_t i = 0; i < m->n; i++) {
		kp_cursor_init(&m->cursors[i], log, i);
		m->have[i] = kp_cursor_next(&m->cursors[i], &m->heads[i]);
		if (m->have[i])
			m->heap[m->nheap++] = i;
	}
	for (uint32_t i = m->nheap / 2; i-- > 0;)
		merge_sift_down(m, i);
}

bool kp_merge_next(struct kp_merge *m, struct kp_record *r)
{
	if (!m->nheap)
		return false;
	uint32_t best = m->heap[0];
	struct kp_log *log = m->cursors[best].log;
	*r = m->heads[best];
	m->have[best] = kp_cursor_next(&m->cursors[best], &m->heads[best]);
	/* After the step (which may decode a chunk into the ring's oldest
	 * slot): a record that waited while the ring let its chunk go is
	 * decoded again. */
	if (!kp_buffer_held(log, r->buffer, r->raw - r->at)) {
		r->raw = kp_buffer_records(log, r->buffer) + r->at;
		r->payload = r->raw + sizeof(r->h);
	}
	if (!m->have[best])
		m->heap[0] = m->heap[--m->nheap];
	merge_sift_down(m, 0);
	return true;
}

void kp_merge_free(struct kp_merge *m)
{
	free(m->cursors);
	free(m->heads);
	free(m->have);
	free(m->heap);
}

void kp_totals(struct kp_log *log, struct kp_totals *t, uint64_t *per_cpu)
{
	*t = (struct kp_totals){ 0 };
	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		uint64_t n = 0;
		kp_cursor_init(&c, log, i);
		while (kp_cursor_next(&c, &r)) {
			n++;
			t->record_bytes += r.h.Size;
		}
		if (per_cpu)
			per_cpu[i] = n;
		t->records += n;
		t->cpus_with_records += n != 0;
		if (log->cpus[i].have_end) {
			for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
				t->lost[k] = kp_sat_add(t->lost[k], log->cpus[i].end.lost[k]);
			t->lost_total = kp_sat_add(t->lost_total, kp_cpu_lost(&log->cpus[i]));
			t->stuck = kp_sat_add(t->stuck, log->cpus[i].end.stuck);
			uint64_t not_in_file = kp_cpu_lost_file(&log->cpus[i]);
			t->lost_file = kp_sat_add(t->lost_file, not_in_file);
			t->lost_link = kp_sat_add(t->lost_link,
						  kp_sat_sub(log->cpus[i].end.records, kp_sat_add(n, not_in_file)));
		} else {
			t->cpus_without_end++;
		}
	}
}
