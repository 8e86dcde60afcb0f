/*
 * finish.c - the checks made once every frame of a log is in (after the
 * scan, log.c): gaps placed in time, then everything that must agree
 * across frames, each reported with its CPU and offset while the rest
 * decodes:
 *   - time stamps: a CPU's records, in sequence order, never go back in
 *     time (the kernel clamps them as it writes them; an older kernel did
 *     not, and its steps back are counted and reported, time-back), and
 *     the kernel's own clock-step records are counted;
 *   - the CPU end frame: no more records decoded than it says were
 *     written, no more chunks received than it says were sent;
 *   - the frames the end frames count that never arrived.
 * One walk of each CPU's records does all of it, linear in the buffers,
 * records and gaps (the gaps, sorted, placed as the walk passes them);
 * nothing is kept per buffer for it.
 */
#include "tools/kprof/read/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/frames.h"
#include "tools/kprof/read/store.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#include "include/kprof/wmi.h"

/* One walk of a CPU's records: their number, where the time goes back
 * (back: how often, back_at: the first, log offset, back_ts / prev: its
 * stamp and the one before), ts: the last stamp so far as the cursor
 * clamps it (0: none), raw: the last as recorded; and the CPU's gaps
 * (indices in log->gaps, by sequence) placed in time as the walk passes
 * them: from gap `next` on, none placed yet; from `open`, the last record
 * before them met but not yet the first after. */
struct cpu_walk {
	uint64_t ts, raw, records, back, back_at, back_ts, prev;
	const size_t *gaps;
	size_t ngaps, next, open;
	bool any;
};

/* A kernel's own clock-step record (KPROF_CLOCK_STEP): its count so far
 * and its size; a watchdog verdict (KPROF_CLOCK_CHECK) that found the
 * TSC unstable. */
static void clock_step(struct kp_cpu *c, const PERFINFO_TRACE_HEADER *r, const uint8_t *payload)
{
	KPROF_CLOCK_STEP k;
	KPROF_CLOCK_CHECK w;

	if (r->HookId == KPROF_LOG_TYPE_CLOCK_CHECK && r->Size >= sizeof(*r) + sizeof(w)) {
		memcpy(&w, payload, sizeof(w));
		c->clock_unstable += (w.Flags & KPROF_CLOCK_CHECK_UNSTABLE) != 0;
		return;
	}
	if (r->HookId != KPROF_LOG_TYPE_CLOCK_STEP || PERFINFO_MARKER_VERSION(r->Marker) != CLOCK_STEP_VERSION ||
	    r->Size < sizeof(*r) + sizeof(k))
		return;
	memcpy(&k, payload, sizeof(k));
	c->clock_steps = k.Steps > c->clock_steps ? k.Steps : c->clock_steps + 1;
	c->clock_step_max = k.BackCycles > c->clock_step_max ? k.BackCycles : c->clock_step_max;
}

/* The gaps before buffer k (those whose frames come before its
 * sequence number) meet the last record before them. */
static void gaps_before(struct kp_log *log, const struct kp_cpu *c, size_t k, struct cpu_walk *w)
{
	while (w->next < w->ngaps &&
	       (k == c->nbuffers || log->gaps[w->gaps[w->next]].seq_first < c->buffers[k].frame_seq))
		log->gaps[w->gaps[w->next++]].ts_before = w->any ? w->raw : 0;
}

static void walk_buffer(struct kp_log *log, struct kp_cpu *c, struct kp_buffer *b, struct cpu_walk *w)
{
	PERFINFO_TRACE_HEADER r;
	const uint8_t *data = kp_buffer_records(log, b);

	for (uint32_t off = 0; off + sizeof(r) <= b->used; off += (r.Size + 7u) & ~7u) {
		memcpy(&r, data + off, sizeof(r));
		if ((r.Marker & 0xFFFF0000u) != PERFINFO_MARKER_64 || r.Size < sizeof(r) || off + r.Size > b->used)
			break;
		for (; w->open < w->next; w->open++) /* the first record after them */
			log->gaps[w->gaps[w->open]].ts_after = r.TimeStamp;
		w->raw = r.TimeStamp;
		w->any = true;
		w->records++;
		clock_step(c, &r, data + off + sizeof(r));
		if (w->records > 1 && r.TimeStamp < w->ts) {
			c->back_max = w->ts - r.TimeStamp > c->back_max ? w->ts - r.TimeStamp : c->back_max;
			if (!w->back++) {
				w->back_at = kp_buffer_log_offset(b, off);
				w->back_ts = r.TimeStamp;
				w->prev = w->ts;
			}
			continue; /* as the cursor does: the stamp stays the one before */
		}
		w->ts = r.TimeStamp;
	}
}

/* Every CPU's records walked once, against time and its end frame. */
static void check_records(struct kp_log *log, const size_t *gaps, size_t ngaps)
{
	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu *c = &log->cpus[i];
		struct cpu_walk w = { .gaps = gaps };
		while (w.ngaps < ngaps && log->gaps[gaps[w.ngaps]].cpu == i)
			w.ngaps++;
		gaps += w.ngaps;
		ngaps -= w.ngaps;
		for (size_t k = 0; k < c->nbuffers; k++) {
			gaps_before(log, c, k, &w);
			walk_buffer(log, c, &c->buffers[k], &w);
			if (!((k + 1) % (KP_LOG_RELEASE_BYTES / KPROF_CHUNK_BYTES)))
				kp_log_release(log); /* a bounded part of a mapped log */
		}
		gaps_before(log, c, c->nbuffers, &w);
		c->steps_back = w.back;
		if (w.back)
			kp_issue_add(log, KP_ISSUE_TIME_BACK, w.back_at, i, 0, 0,
				     "cpu %u: time goes back %llu time%s (largest %llu cycles), first at offset %llu "
				     "(%llu after %llu): not clamped by the kernel; clamped in every output", i, (unsigned long long)w.back,
				     w.back == 1 ? "" : "s", (unsigned long long)c->back_max,
				     (unsigned long long)w.back_at, (unsigned long long)w.back_ts,
				     (unsigned long long)w.prev);
		if (!c->have_end)
			continue;
		if (w.records > c->end.records)
			kp_issue_add(log, KP_ISSUE_LOSS_MISMATCH, log->size, i, 0, 0,
				     "cpu %u: its end frame says %llu records written, %llu decoded", i,
				     (unsigned long long)c->end.records, (unsigned long long)w.records);
		if (c->nbuffers > c->end.buffers)
			kp_issue_add(log, KP_ISSUE_LOSS_MISMATCH, log->size, i, 0, 0,
				     "cpu %u: its end frame says %u %s sent, %zu received", i, c->end.buffers,
				     log->version == KPROF_FRAME_VERSION_1 ? "buffer frames" : "chunks", c->nbuffers);
	}
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
		kp_gap_add(log, cpu, t->frames, last, offset); /* may move log->gaps */
		log->gaps[log->ngaps - 1].not_in_file = true;
	}
}

/* One gap as an issue (frames not in a trace file: none). */
static void report_gap(struct kp_log *log, const struct kp_gap *g)
{
	char before[40], after[40];

	if (g->not_in_file)
		return;
	if (g->cpu == KPROF_FRAME_CPU_NONE) {
		kp_issue_add(log, KP_ISSUE_MISSING, g->offset, g->cpu, g->seq_first, g->seq_last,
			     "run: frames %u..%u missing before offset %llu", g->seq_first, g->seq_last,
			     (unsigned long long)g->offset);
		return;
	}
	format_when(log, g->ts_before, before, sizeof(before));
	format_when(log, g->ts_after, after, sizeof(after));
	kp_issue_add(log, KP_ISSUE_MISSING, g->offset, g->cpu, g->seq_first, g->seq_last,
		     "cpu %u: %s %u..%u missing before offset %llu (between %s and %s)", g->cpu,
		     log->version == KPROF_FRAME_VERSION_1 ? "frames" : "chunks", g->seq_first, g->seq_last,
		     (unsigned long long)g->offset, before, after);
}

static const struct kp_gap *sort_gaps; /* the gaps by_cpu orders (indices) */

static int by_cpu(const void *a, const void *b)
{
	const struct kp_gap *x = &sort_gaps[*(const size_t *)a], *y = &sort_gaps[*(const size_t *)b];
	return x->cpu != y->cpu ? kp_cmp_u64(x->cpu, y->cpu) : kp_cmp_u64(x->seq_first, y->seq_first);
}

/* The CPUs' gaps (indices in log->gaps), by CPU and sequence, for the
 * walk to place in time (check_records): each between the last record
 * before it and the first record after it on its CPU. */
static size_t *gaps_by_cpu(struct kp_log *log, size_t *n)
{
	size_t *order = kp_xcalloc(log->ngaps + 1, sizeof(*order));

	*n = 0;
	for (size_t i = 0; i < log->ngaps; i++)
		if (log->gaps[i].cpu != KPROF_FRAME_CPU_NONE)
			order[(*n)++] = i;
	sort_gaps = log->gaps;
	kp_sort(order, *n, sizeof(*order), by_cpu);
	for (size_t i = 0; i < *n; i++) {
		struct kp_gap *g = &log->gaps[order[i]];
		struct kp_cpu *c = &log->cpus[g->cpu];
		g->ts_before = g->ts_after = 0;
		c->gaps++;
		c->link_gaps += !g->not_in_file;
	}
	return order;
}

/* Final checks once every frame is in. */
void kp_log_finish(struct kp_log *log)
{
	size_t ngaps;

	kp_store_finish(log);
	mark_not_in_file(log);
	size_t *gaps = gaps_by_cpu(log, &ngaps);
	check_records(log, gaps, ngaps);
	free(gaps);
	/* Gaps become "missing" issues, in log order, placed in time; frames
	 * a trace file had no room for are placed the same way but are no
	 * issue (the summary counts their records, from the file's end frames). */
	for (size_t i = 0; i < log->ngaps; i++)
		report_gap(log, &log->gaps[i]);
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

