/*
 * store.c - the buffers and chunks of each CPU, kept in linear time.
 *
 * Frames normally arrive in sequence order and are appended.  One that
 * arrives late (after a higher sequence number: reordered, or seen again)
 * is looked up among the CPU's stored sequence numbers: by binary search
 * while they are in order, then, from the first late frame that is new, in
 * a hash set of them (made then, kept from then on).  Seen again, it is
 * dropped and reported; new, it is appended too and the CPU is sorted once
 * when the scan ends (kp_store_finish).  So n frames cost O(n) expected
 * time and, reordered, O(n log n) once, never O(n^2); and a CPU whose
 * frames came in order holds no set (a 4 GiB log has millions of frames).
 *
 * The scan records a gap when a sequence number jumps (log.c); a late
 * frame that fills part of it takes that part back here, so two chunks
 * swapped are no loss and the CPU keeps its loss check (drops.c checks
 * only CPUs without gaps).  Invariants after kp_store_finish: each CPU's
 * buffers are sorted by frame_seq, no two equal; no gap holds the sequence
 * number of a stored buffer.
 */
#include "tools/kprof/read/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

/* Open addressing, linear probing, slots hold seq + 1 (0: empty), at most
 * half full. */
static size_t slot_of(uint32_t seq, size_t cap)
{
	return (size_t)(((uint64_t)seq * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* The index of c's first buffer whose frame_seq is >= seq (nbuffers:
 * none), while they are in sequence order. */
static size_t first_at(const struct kp_cpu *c, uint32_t seq)
{
	size_t lo = 0, hi = c->nbuffers;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->buffers[mid].frame_seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool kp_store_has(const struct kp_cpu *c, uint32_t seq)
{
	if (!c->unsorted) { /* in order: a binary search */
		size_t k = first_at(c, seq);
		return k < c->nbuffers && c->buffers[k].frame_seq == seq;
	}
	for (size_t i = slot_of(seq, c->seq_cap);; i = (i + 1) & (c->seq_cap - 1)) {
		if (!c->seq_set[i])
			return false;
		if (c->seq_set[i] == (uint64_t)seq + 1)
			return true;
	}
}

static void set_put(struct kp_cpu *c, uint32_t seq)
{
	if (2 * (c->seq_n + 1) > c->seq_cap) {
		size_t old = c->seq_cap;
		uint64_t *slots = c->seq_set;
		c->seq_cap = old ? 2 * old : 64;
		c->seq_set = kp_xcalloc(c->seq_cap, sizeof(*c->seq_set));
		for (size_t i = 0; i < old; i++) {
			size_t j = slots[i] ? slot_of((uint32_t)(slots[i] - 1), c->seq_cap) : 0;
			while (slots[i] && c->seq_set[j])
				j = (j + 1) & (c->seq_cap - 1);
			if (slots[i])
				c->seq_set[j] = slots[i];
		}
		free(slots);
	}
	size_t i = slot_of(seq, c->seq_cap);
	while (c->seq_set[i])
		i = (i + 1) & (c->seq_cap - 1);
	c->seq_set[i] = (uint64_t)seq + 1;
	c->seq_n++;
}

/* One seen before: a run of them (consecutive sequence numbers, nothing
 * else reported between) is one issue. */
static void report_again(struct kp_log *log, const struct kp_buffer *nb)
{
	struct kp_issue *last = log->nissues ? &log->issues[log->nissues - 1] : NULL;

	log->duplicates++;
	if (last && last->kind == KP_ISSUE_DUPLICATE && last->cpu == nb->cpu && last->seq_last + 1 == nb->frame_seq) {
		last->seq_last = nb->frame_seq;
		snprintf(last->what, sizeof(last->what), "cpu %u: %s %u..%u seen again from offset %llu, decoded once",
			 nb->cpu, nb->chunk ? "chunks" : "frames", last->seq_first, last->seq_last,
			 (unsigned long long)last->offset);
		return;
	}
	kp_issue_add(log, KP_ISSUE_DUPLICATE, nb->offset, nb->cpu, nb->frame_seq, nb->frame_seq,
		     "cpu %u: %s %u seen again at offset %llu, decoded once", nb->cpu, nb->chunk ? "chunk" : "frame",
		     nb->frame_seq, (unsigned long long)nb->offset);
}

void kp_store_add(struct kp_log *log, struct kp_cpu *c, const struct kp_buffer *nb, bool late)
{
	if (late && kp_store_has(c, nb->frame_seq)) {
		report_again(log, nb);
		return;
	}
	if (late && !c->unsorted) { /* the first out of order: the set from now on */
		c->unsorted = true;
		for (size_t k = 0; k < c->nbuffers; k++)
			set_put(c, c->buffers[k].frame_seq);
	}
	if (c->unsorted)
		set_put(c, nb->frame_seq);
	KP_PUSH(c->buffers, c->nbuffers, c->cap, *nb);
}

static int by_seq(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_buffer *)a)->frame_seq, ((const struct kp_buffer *)b)->frame_seq);
}


/* Gap g less the stored buffers inside it, appended to out as the pieces
 * left (none when late frames filled it all). */
static void split_gap(const struct kp_log *log, const struct kp_gap *g, struct kp_gap **out, size_t *n, size_t *cap)
{
	const struct kp_cpu *c = &log->cpus[g->cpu];
	size_t k = first_at(c, g->seq_first);
	uint64_t from = g->seq_first;

	for (; k < c->nbuffers && c->buffers[k].frame_seq <= g->seq_last; k++) {
		if (c->buffers[k].frame_seq > from) {
			struct kp_gap piece = *g;
			piece.seq_first = (uint32_t)from;
			piece.seq_last = c->buffers[k].frame_seq - 1;
			KP_PUSH(*out, *n, *cap, piece);
		}
		from = (uint64_t)c->buffers[k].frame_seq + 1;
	}
	if (from <= g->seq_last) {
		struct kp_gap piece = *g;
		piece.seq_first = (uint32_t)from;
		KP_PUSH(*out, *n, *cap, piece);
	}
}

void kp_store_finish(struct kp_log *log)
{
	bool any = false;

	for (uint32_t i = 0; i < log->ncpus; i++) {
		struct kp_cpu *c = &log->cpus[i];
		if (!c->unsorted)
			continue;
		kp_sort(c->buffers, c->nbuffers, sizeof(*c->buffers), by_seq);
		any = true;
	}
	if (!any)
		return;
	struct kp_gap *gaps = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < log->ngaps; i++) {
		const struct kp_gap *g = &log->gaps[i];
		if (g->cpu == KPROF_FRAME_CPU_NONE || !log->cpus[g->cpu].unsorted)
			KP_PUSH(gaps, n, cap, *g);
		else
			split_gap(log, g, &gaps, &n, &cap);
	}
	free(log->gaps);
	log->gaps = gaps;
	log->ngaps = n;
	log->gaps_cap = cap;
}

void kp_store_free(struct kp_cpu *c)
{
	free(c->seq_set);
	free(c->buffers);
}
