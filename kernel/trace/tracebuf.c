/*
 * tracebuf.c - the per-CPU trace buffer (after LTTng's ring buffer).
 *
 * Positions are absolute: offset = (sub-buffer number << shift) | pos, and
 * sub-buffer number n lives in ring slot n % nsub.  The writer keeps the
 * last number it placed with its slot (slot_at, one word), so a record
 * costs no division: a 64-bit divide on the path to the record's address
 * cost about 6 cycles a record (59 to 53 in bench_trace).  Every
 * value slot_at holds is a true pair (a writer nested between the load
 * and the store of another stores its own true pair); the low 32 bits of
 * n tell two numbers apart, since it is stored again at every switch.
 *
 * Writer, on the owning CPU, at any IRQL (these steps are the slow path,
 * tracebuf_reserve_slow; the common case takes the same ones inline,
 * tracebuf_reserve_inline in tracebuf.h, with nothing to decide):
 *   loop: old = offset; ts = max(TSC + adjust, last_ts); last_ts = ts
 *         (local CAS, retry on failure); need = size, plus a records-lost
 *         record when drops are pending (pending_tsc != 0);
 *         if need fits at pos, begin = old,
 *         else begin = start of the next sub-buffer ("switch");
 *         entering a fresh sub-buffer requires it to be free:
 *         number - consumed < nsub, else drop (BUFFERS_FULL);
 *         local CAS offset old -> begin + need; on failure an interrupt
 *         wrote in between: retry, taking a new timestamp.
 *   switch: the old sub-buffer's used = pos and its commit += size - pos
 *           (the padding counts as committed).
 *   with a records-lost record: take pending_tsc, then each pending[]
 *         count (local atomics: read, CAS to 0) and fill it at begin, with
 *         the record's own timestamp; the record goes after it.
 *   fill the record; commit: records += 1 (2), then commit += need.
 * Time order.  offset is read before the clock, so a writer nested
 * anywhere between that read and the CAS (an interrupt that writes
 * records) makes the CAS fail and the outer writer reads the clock again.
 * (Kernels before this read the clock first: a profile interrupt taken
 * between the clock read and the offset read left its records before a
 * record stamped earlier, a "step back" of the interrupt's length, which
 * the decoder now reports for old logs: 3 of them, 2.4 to 3.1 ms, in a
 * KVM run whose interrupts took about 2 ms.)  And the clock itself may go
 * back (a hypervisor moving a virtual CPU between host CPUs whose TSCs
 * differ), so the stamp is the clock read (plus the watchdog's adjust,
 * normally 0) clamped to at least last_ts, the CPU's last stamp, and
 * last_ts is advanced by a local CAS before the offset's: a writer nested
 * between the two stamps at or after it (and the outer offset CAS fails);
 * one nested before the last_ts CAS changes it or the offset, and the
 * outer writer reads again.  So in buffer order stamps never decrease,
 * whatever the clock does.  A writer may bring a read taken earlier with
 * the position read before it (tracebuf_stamp_take: a SpinLock record's
 * ReleaseTime is its stamp): the same order, the position then the clock,
 * with more instructions between them and the CAS; a writer nested in
 * between makes the CAS fail and the next pass reads the clock itself.
 * A read below the previous read (prev_tsc) is a step back:
 * counted (steps_back, back_max) and returned in the reservation, for
 * the writer to record (KPROF_CLOCK_STEP, writer.c).
 *
 * Drops (any cause): lost[cause] += 1 (the run's totals, for the CPU end
 * frame); pending[cause] += 1; then pending_tsc = ts if it was 0 (local
 * CAS), the signal writers test.  The take clears pending_tsc before the
 * counts, so a count is never left pending without the signal: every drop
 * is in exactly one records-lost record or, at the end of the run, still
 * pending (the end frame's `pending`): sum of the lost records + pending
 * == lost.
 * The one benign race: a writer nested (an interrupt) in a window of a few
 * instructions - between a reservation's CAS and the end of its take, or
 * between a drop's count and its signal.  A drop nested in a take is
 * reported in the outer records-lost record, one record before where it
 * happened (or, landing between the take of pending_tsc and of the counts,
 * leaves pending_tsc set with no count, which yields a later records-lost
 * record with every count zero); a reservation nested in a take sees the
 * drops still pending and takes some or all of the counts itself, leaving
 * the outer records-lost record with fewer or none; a reservation nested
 * in a drop, before its signal, goes without a records-lost record, and
 * the drop is reported one record later.  No drop is counted twice or
 * lost; a records-lost record with every count zero says nothing and
 * decoders skip it.  A record for which the records-lost record would not
 * fit a sub-buffer goes without one (the drops stay pending).
 *
 * Invariants (per sub-buffer, between release and the next release):
 *   commit <= sub-buffer size; commit == size exactly when the writer has
 *   moved on and every record in it is committed; only the owning CPU
 *   changes offset, commit, used and records; only the reader changes
 *   consumed, and only after resetting the slot.
 * Asserted (KASSERT_OP, kernel/debug/kassert.h; tests/unit/
 * test_tracebuf_assert.c breaks each):
 *   - a reservation is whole 8-byte units (PERFINFO_RECORD_ALIGN) and at
 *     least a header, which reserve stamps (sizes over a sub-buffer are a
 *     drop, TOO_LARGE, not a bug);
 *   - consumed <= produced: a writer entering sub-buffer number N finds
 *     consumed <= N; the reader releases only a sub-buffer the writer has
 *     written in (consumed < offset rounded up to a sub-buffer), and sees
 *     at most nsub of them unreleased (offset >> shift) - consumed <= nsub;
 *   - commit never passes what was reserved: at a switch, the old
 *     sub-buffer's commit <= pos; at a commit, commit + size <= the
 *     sub-buffer size (a record committed twice trips one or the other).
 * Ordering (the reader runs on another CPU):
 *   writer: fill record / set used  -> arch_smp_wmb() -> commit += size
 *   reader: read commit == size     -> arch_smp_rmb() -> read used, records,
 *                                      data
 *   reader: reset slot -> consumed = n + 1 (store-release)
 *   writer: consumed (load-acquire) -> write into the slot it frees
 * so a reader that sees a sub-buffer fully committed also sees its records
 * and `used`, and the writer never writes into a slot before the reader's
 * reset of it is visible.  The local atomics order nothing between CPUs
 * on their own; on x86 (TSO) the barriers cost nothing but the compiler's
 * freedom.
 */
#include "kernel/trace/tracebuf.h"

#include <arch/barrier.h>
#include <arch/cpu.h>
#include <arch/local.h>
#include <stddef.h>

#include "kernel/debug/kassert.h"
#include "kernel/lib/compiler.h"

void tracebuf_init(struct trace_cpu *tc, uint32_t cpu, uint8_t *data, struct trace_subbuf *sub, uint32_t shift,
		   uint32_t nsub)
{
	*tc = (struct trace_cpu){ .data = data, .sub = sub, .shift = shift, .nsub = nsub, .cpu = cpu };
	for (uint32_t i = 0; i < nsub; i++)
		sub[i] = (struct trace_subbuf){ .used = 1u << shift };
}

_Static_assert(offsetof(KPROF_RECORDS_LOST, BuffersFull) == 8 + 8 * KPROF_LOSS_BUFFERS_FULL &&
		       offsetof(KPROF_RECORDS_LOST, TooLarge) == 8 + 8 * KPROF_LOSS_TOO_LARGE &&
		       offsetof(KPROF_RECORDS_LOST, NotStarted) == 8 + 8 * KPROF_LOSS_NOT_STARTED &&
		       sizeof(KPROF_RECORDS_LOST) == 8 + 8 * KPROF_LOSS_CAUSES,
	       "records-lost counts follow enum kprof_loss_cause");

void tracebuf_count_loss(struct trace_cpu *tc, enum kprof_loss_cause cause, uint64_t tsc)
{
	arch_local_add64(&tc->lost[cause], 1);
	arch_local_add64(&tc->pending[cause], 1);
	/* Then the signal, so that no count is ever pending without it once
	 * this returns (see top); set by the first drop since the last take. */
	arch_local_cmpxchg64(&tc->pending_tsc, 0, tsc ? tsc : 1);
}

/* Read *p and set it to 0, atomic with respect to this CPU's interrupts. */
static uint64_t take(uint64_t *p)
{
	uint64_t v;
	do
		v = READ_ONCE(*p);
	while (v && !arch_local_cmpxchg64(p, v, 0));
	return v;
}

/* The records-lost record at h, reporting what is pending (see top). */
static void fill_lost(struct trace_cpu *tc, PERFINFO_TRACE_HEADER *h, uint64_t ts)
{
	KPROF_RECORDS_LOST *p = (KPROF_RECORDS_LOST *)(h + 1);
	uint64_t counts[KPROF_LOSS_CAUSES], any = 0;

	p->FirstLossTime = take(&tc->pending_tsc);
	for (int c = 0; c < KPROF_LOSS_CAUSES; c++)
		any |= counts[c] = take(&tc->pending[c]);
	__builtin_memcpy(&p->BuffersFull, counts, sizeof(counts));
	if (!any)
		p->FirstLossTime = 0;
	h->Marker = perfinfo_marker(RECORDS_LOST_VERSION);
	h->Size = TRACEBUF_LOST_RECORD_SIZE;
	h->HookId = KPROF_LOG_TYPE_RECORDS_LOST;
	h->TimeStamp = ts;
}

/* Whether sub-buffer number `number`, which a writer is about to enter, is
 * free: the reader has released its slot's previous use. */
static inline bool sub_free(struct trace_cpu *tc, uint64_t number)
{
	uint64_t consumed = __atomic_load_n(&tc->consumed, __ATOMIC_ACQUIRE);

	KASSERT_OP(consumed, <=, number); /* the reader never passes the writer */
	return number - consumed < tc->nsub;
}

/* The stamp for a clock read: the read on the trace's clock (the same
 * function a payload's times go through), never below the CPU's last
 * stamp (see top). */
static inline uint64_t stamp_of(const struct trace_cpu *tc, uint64_t tsc, uint64_t last)
{
	uint64_t t = trace_clock_at(tc, tsc);

	return (int64_t)(t - last) < 0 ? last : t;
}

/* The whole reservation: every case, a pass again after a nested writer
 * (tracebuf_reserve_inline, tracebuf.h, is the common case's few steps). */
bool tracebuf_reserve_slow(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r, uint64_t (*clock)(void),
			   const struct trace_stamp *given)
{
	const uint32_t sbsize = 1u << tc->shift, mask = sbsize - 1;
	uint64_t old, begin, ts, tsc, last, prev;
	uint32_t pos, lost;

	if (size > sbsize) { /* the read taken ahead, if any: the clock read once */
		tracebuf_count_loss(tc, KPROF_LOSS_TOO_LARGE, given && given->tsc ? given->tsc : clock());
		return false;
	}
	KASSERT_OP(size % PERFINFO_RECORD_ALIGN, ==, 0u);
	KASSERT_OP(size, >=, (uint32_t)sizeof(PERFINFO_TRACE_HEADER)); /* stamped below */
	/* A payload that carries the read (ReleaseTime) carries it with the
	 * same correction (trace_clock.h), so it never lies above its own
	 * record's stamp, whatever the correction's sign. */
	for (bool ahead = given && given->tsc;; ahead = false) {
		/* The position before the clock: a writer nested after this
		 * read moves offset, and the CAS below fails (see top).  A read
		 * taken ahead (tracebuf_stamp_take) came with its position: the
		 * first pass uses both, the CAS fails if any writer reserved
		 * since, and the next pass reads afresh. */
		old = ahead ? given->offset : READ_ONCE(tc->offset);
		last = READ_ONCE(tc->last_ts);
		prev = READ_ONCE(tc->prev_tsc);
		tsc = ahead ? given->tsc : clock();
		ts = stamp_of(tc, tsc, last);
		/* last_ts before offset: a writer nested after this sees our
		 * stamp and stamps at or after it. */
		if (ts != last && !arch_local_cmpxchg64(&tc->last_ts, last, ts))
			continue;
		lost = READ_ONCE(tc->pending_tsc) && size + TRACEBUF_LOST_RECORD_SIZE <= sbsize
			       ? TRACEBUF_LOST_RECORD_SIZE : 0;
		pos = (uint32_t)(old & mask);
		begin = pos + lost + size > sbsize ? (old | mask) + 1 : old;
		if ((begin & mask) == 0 && !sub_free(tc, begin >> tc->shift)) {
			tracebuf_count_loss(tc, KPROF_LOSS_BUFFERS_FULL, ts);
			return false;
		}
		if (arch_local_cmpxchg64(&tc->offset, old, begin + lost + size))
			break;
	}
	/* A read below the one before is a step back of the clock (not of
	 * the stamps): counted once, where it happened.  A writer nested
	 * between the read and here sees the step too, or not (counted by
	 * one of the two, or both when it stepped again). */
	tc->prev_tsc = tsc;
	r->back = prev && (int64_t)(prev - tsc) > 0 ? prev - tsc : 0;
	if (r->back) {
		r->raw = tsc;
		r->last = last;
		arch_local_add64(&tc->steps_back, 1);
		if (r->back > tc->back_max)
			tc->back_max = r->back;
	}

	r->switched = begin != old || (begin & mask) == 0;
	if (begin != old) {
		/* Switched: close the old sub-buffer at pos. */
		struct trace_subbuf *s = &tc->sub[tracebuf_slot(tc, old >> tc->shift)];
		KASSERT_OP(s->commit, <=, pos); /* nothing committed but what was reserved */
		s->used = pos;
		arch_smp_wmb(); /* used before the commit that completes it */
		arch_local_add32(&s->commit, sbsize - pos);
	}
	r->tc = tc;
	r->sub = tracebuf_slot(tc, begin >> tc->shift);
	r->size = lost + size;
	r->records = lost ? 2 : 1;
	r->hdr = (PERFINFO_TRACE_HEADER *)(tc->data + ((uint64_t)r->sub << tc->shift) + (begin & mask));
	if (lost) {
		fill_lost(tc, r->hdr, ts);
		r->hdr = (PERFINFO_TRACE_HEADER *)((uint8_t *)r->hdr + lost);
	}
	r->hdr->TimeStamp = ts;
	return true;
}

bool tracebuf_reserve(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r)
{
	return tracebuf_reserve_inline(tc, size, r, tracebuf_clock, NULL);
}

bool tracebuf_reserve_at(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r, uint64_t (*clock)(void))
{
	return tracebuf_reserve_inline(tc, size, r, clock, NULL);
}

bool tracebuf_reserve_stamped(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r,
			      const struct trace_stamp *given)
{
	return tracebuf_reserve_inline(tc, size, r, tracebuf_clock, given);
}

void tracebuf_set_line(struct trace_cpu *tc, const struct trace_clock_line *l, int64_t offset)
{
	unsigned long flags = arch_irq_save(); /* no writer of this CPU sees half of it */

	WRITE_ONCE(tc->clock_slope, 0);
	WRITE_ONCE(tc->tsc_adjust, l->base + offset); /* read by this CPU's writers only */
	WRITE_ONCE(tc->clock_from, l->from);
	WRITE_ONCE(tc->clock_span, l->span);
	WRITE_ONCE(tc->clock_slope, l->slope);
	arch_irq_restore(flags);
}

void tracebuf_set_adjust(struct trace_cpu *tc, int64_t adjust)
{
	tracebuf_set_line(tc, &(struct trace_clock_line){ .base = adjust }, 0);
}

struct trace_clock_line trace_clock_slew(const struct trace_clock_line *l, int64_t target, uint64_t start,
					 uint64_t span)
{
	int64_t from = trace_clock_line_at(l->base, l->from, l->span, l->slope, start);
	int64_t change = target - from;
	uint64_t mag = change < 0 ? -(uint64_t)change : (uint64_t)change;

	if (span > UINT32_MAX)
		span = UINT32_MAX;
	if (!change || !span || mag > span / 2)
		return (struct trace_clock_line){ .base = target }; /* at once */
	/* |change| <= span / 2 < 2^31: the shift fits, and |slope| <= 2^31 */
	int64_t slope = (int64_t)((mag << 32) / span);
	return (struct trace_clock_line){ .base = from, .from = start, .span = span, .slope = change < 0 ? -slope : slope };
}

bool tracebuf_peek_full(struct trace_cpu *tc, struct trace_view *v)
{
	uint64_t n = READ_ONCE(tc->consumed);
	struct trace_subbuf *s = &tc->sub[n % tc->nsub];

	if (n >= (READ_ONCE(tc->offset) >> tc->shift))
		return false; /* the writer is still in it */
	KASSERT_OP((READ_ONCE(tc->offset) >> tc->shift) - n, <=, tc->nsub);
	if (READ_ONCE(s->commit) != (1u << tc->shift))
		return false; /* a record in it is not committed yet */
	arch_smp_rmb(); /* the commit before what it publishes */
	v->data = tc->data + ((n % tc->nsub) << tc->shift);
	v->used = READ_ONCE(s->used);
	v->records = READ_ONCE(s->records);
	v->seq = n;
	v->unsettled = 0;
	return true;
}

bool tracebuf_peek_final(struct trace_cpu *tc, struct trace_view *v)
{
	uint64_t off = READ_ONCE(tc->offset), n = READ_ONCE(tc->consumed);
	struct trace_subbuf *s = &tc->sub[n % tc->nsub];
	uint32_t pos = (uint32_t)(off & ((1u << tc->shift) - 1));

	if (n != (off >> tc->shift) || pos == 0)
		return false; /* full sub-buffers still unsent, or nothing here */
	v->data = tc->data + ((n % tc->nsub) << tc->shift);
	v->used = pos;
	v->records = READ_ONCE(s->records);
	v->seq = n;
	uint32_t commit = READ_ONCE(s->commit);
	arch_smp_rmb(); /* the commit before the records it publishes */
	v->unsettled = commit < pos ? pos - commit : 0;
	return true;
}

void tracebuf_release(struct trace_cpu *tc)
{
	uint64_t n = tc->consumed;
	struct trace_subbuf *s = &tc->sub[n % tc->nsub];

	/* Only what a peek returned: a sub-buffer with records in it. */
	KASSERT_OP(n, <, (READ_ONCE(tc->offset) + (1u << tc->shift) - 1) >> tc->shift);
	*s = (struct trace_subbuf){ .used = 1u << tc->shift };
	__atomic_store_n(&tc->consumed, n + 1, __ATOMIC_RELEASE);
}

uint64_t tracebuf_held(const struct trace_cpu *tc)
{
	return READ_ONCE(tc->offset) - (READ_ONCE(tc->consumed) << tc->shift);
}
