/*
 * drops.c - the records the kernel dropped, placed in time (log.h's
 * struct kp_drop), from two sources:
 *
 *   - each KprofRecordsLost record (KPROF_RECORDS_LOST, written by the
 *     trace buffer just before the first record a CPU stored after drops):
 *     its counts by cause, dropped between the CPU's last record before it
 *     (from FirstLossTime, the first drop) and its own TimeStamp.  A record
 *     with every count zero says nothing (kernel/trace/tracebuf.c's benign
 *     race) and is skipped;
 *   - the CPU end frame: lost[] by cause counts every drop; what no
 *     records-lost record holds (the tail, dropped after the CPU's last
 *     record was stored) is placed from that last record to the end of the
 *     trace (the last record of any CPU).
 *
 * The accounting rule (docs/wire-format.md): per CPU and cause, the drops
 * in records-lost records plus the tail equal the end frame's lost[], and
 * the tail's total equals the end frame's `pending`.  A difference is a
 * loss-mismatch issue, unless the CPU lost chunks on the link, whose
 * records-lost records are then missing too: their drops are counted with
 * the tail and the summary says so.
 *
 * Old logs: kernels before KPROF_RECORDS_LOST flagged the first buffer
 * (chunk) sent after drops instead (KPROF_BUFFER_LOSSES); such a log's
 * drops are not placed (drops_flagged), and a log with no records-lost
 * record whose end frames all say pending 0 is taken as old too (every
 * drop then goes to the tail, unchecked).
 */
#include "tools/kprof/read/log.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

static const char *const cause_names[KPROF_LOSS_CAUSES] = {
	[KPROF_LOSS_BUFFERS_FULL] = "buffers full",
	[KPROF_LOSS_TOO_LARGE] = "too large",
	[KPROF_LOSS_NOT_STARTED] = "not started",
};
static const char *const cause_keys[KPROF_LOSS_CAUSES] = {
	[KPROF_LOSS_BUFFERS_FULL] = "buffers_full",
	[KPROF_LOSS_TOO_LARGE] = "too_large",
	[KPROF_LOSS_NOT_STARTED] = "not_started",
};

const char *kp_loss_cause_text(int cause)
{
	return cause >= 0 && cause < KPROF_LOSS_CAUSES ? cause_names[cause] : "?";
}

const char *kp_loss_cause_key(int cause)
{
	return cause >= 0 && cause < KPROF_LOSS_CAUSES ? cause_keys[cause] : "?";
}

static void push(struct kp_log *log, const struct kp_drop *d)
{
	log->drops = kp_grow(log->drops, &log->drops_cap, log->ndrops + 1, sizeof(*log->drops));
	log->drops[log->ndrops++] = *d;
}

/* What one CPU's records say: its drops pushed, their counts by cause in
 * placed[], its last record's time (0: none). */
static void cpu_records(struct kp_log *log, uint32_t cpu, uint64_t placed[KPROF_LOSS_CAUSES], uint64_t *last)
{
	struct kp_cpu_cursor c;
	struct kp_record r;
	uint64_t before = 0;

	kp_cursor_init(&c, log, cpu);
	while (kp_cursor_next(&c, &r)) {
		if (r.h.HookId != KPROF_LOG_TYPE_RECORDS_LOST || r.version != RECORDS_LOST_VERSION ||
		    r.payload_size < sizeof(KPROF_RECORDS_LOST)) {
			before = r.h.TimeStamp;
			continue;
		}
		KPROF_RECORDS_LOST l;
		memcpy(&l, r.payload, sizeof(l));
		struct kp_drop d = { .cpu = cpu, .ts_before = before, .first_ts = l.FirstLossTime, .ts = r.h.TimeStamp,
				     .buffer = r.buffer, .log_offset = r.log_offset, .at = r.at };
		memcpy(d.lost, &l.BuffersFull, sizeof(d.lost));
		for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
			d.total = kp_sat_add(d.total, d.lost[k]);
		if (!d.total)
			continue;
		for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
			placed[k] = kp_sat_add(placed[k], d.lost[k]);
		push(log, &d);
	}
	*last = before;
}

/* The tail of one CPU, checked against its end frame. */
static void cpu_tail(struct kp_log *log, uint32_t cpu, const uint64_t placed[KPROF_LOSS_CAUSES], uint64_t last,
		     uint64_t end, bool old)
{
	const struct kp_cpu *c = &log->cpus[cpu];
	struct kp_drop d = { .cpu = cpu, .tail = true, .ts_before = last, .first_ts = last,
			     .ts = end > last ? end : last };

	for (int k = 0; k < KPROF_LOSS_CAUSES; k++) {
		if (placed[k] > c->end.lost[k]) {
			kp_issue_add(log, KP_ISSUE_LOSS_MISMATCH, log->size, cpu, 0, 0,
				     "cpu %u: records-lost records count %llu records dropped (%s), its end frame "
				     "only %llu", cpu, (unsigned long long)placed[k], cause_names[k],
				     (unsigned long long)c->end.lost[k]);
			continue;
		}
		d.lost[k] = c->end.lost[k] - placed[k];
		d.total = kp_sat_add(d.total, d.lost[k]);
	}
	if (!old && d.total != c->end.pending && !c->gaps)
		kp_issue_add(log, KP_ISSUE_LOSS_MISMATCH, log->size, cpu, 0, 0,
			     "cpu %u: %llu records dropped are in no records-lost record, but its end frame says "
			     "%u dropped after the last one", cpu, (unsigned long long)d.total, c->end.pending);
	if (d.total)
		push(log, &d);
}

/* A drop's record against the record at `at` of buffer b. */
static int place_cmp(const struct kp_drop *d, const struct kp_buffer *b, uint32_t at)
{
	if (d->buffer != b)
		return (uintptr_t)d->buffer < (uintptr_t)b ? -1 : 1;
	return kp_cmp_u64(d->at, at);
}

const struct kp_drop *kp_drop_at(const struct kp_log *log, const struct kp_record *r)
{
	size_t lo = 0, hi = log->ndrop_index;

	if (r->h.HookId != KPROF_LOG_TYPE_RECORDS_LOST)
		return NULL;
	while (lo < hi) { /* drop_index: by the record's buffer, then place in it */
		size_t mid = lo + (hi - lo) / 2;
		if (place_cmp(&log->drops[log->drop_index[mid]], r->buffer, r->at) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < log->ndrop_index && !place_cmp(&log->drops[log->drop_index[lo]], r->buffer, r->at)
		       ? &log->drops[log->drop_index[lo]]
		       : NULL;
}

static const struct kp_drop *index_of; /* the drops by_place orders */

static int by_place(const void *a, const void *b)
{
	const struct kp_drop *y = &index_of[*(const size_t *)b];
	return place_cmp(&index_of[*(const size_t *)a], y->buffer, y->at);
}

/* The drops placed by a record, sorted by the record's buffer and place
 * in it (unique, unlike a decoded chunk's log offsets; and a compressed
 * chunk's records have no lasting place in memory), for kp_drop_at: one
 * look-up is a binary search, not a walk of every drop. */
static void index_drops(struct kp_log *log)
{
	log->ndrop_index = 0;
	log->drop_index = kp_xrealloc(log->drop_index, log->ndrops, sizeof(*log->drop_index));
	for (size_t i = 0; i < log->ndrops; i++)
		if (!log->drops[i].tail)
			log->drop_index[log->ndrop_index++] = i;
	index_of = log->drops;
	kp_sort(log->drop_index, log->ndrop_index, sizeof(*log->drop_index), by_place);
}

void kp_drops_find(struct kp_log *log)
{
	uint64_t (*placed)[KPROF_LOSS_CAUSES] = kp_xcalloc(log->ncpus + 1, sizeof(*placed));
	uint64_t *last = kp_xcalloc(log->ncpus + 1, sizeof(*last)), end = 0;
	bool any_pending = false;

	for (uint32_t i = 0; i < log->ncpus; i++) {
		const struct kp_cpu *c = &log->cpus[i];
		for (size_t k = 0; k < c->nbuffers; k++)
			log->drops_flagged |= (c->buffers[k].flags & KPROF_BUFFER_LOSSES) != 0;
		any_pending |= c->have_end && c->end.pending;
		cpu_records(log, i, placed[i], &last[i]);
		end = last[i] > end ? last[i] : end;
	}
	if (!log->drops_flagged) {
		bool old = !log->ndrops && !any_pending;
		for (uint32_t i = 0; i < log->ncpus; i++)
			if (log->cpus[i].have_end)
				cpu_tail(log, i, placed[i], last[i], end, old);
	} else {
		log->ndrops = 0; /* an old log's zero-count records, if any: nothing to place */
	}
	free(placed);
	free(last);
	index_drops(log);
}
