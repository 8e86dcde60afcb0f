/*
 * tracebuf.c - the per-CPU trace buffer (after LTTng's ring buffer).
 *
 * Positions are absolute: offset = (sub-buffer number << shift) | pos, and
 * sub-buffer number n lives in ring slot n % nsub.
 *
 * Writer, on the owning CPU, at any IRQL:
 *   loop: ts = TSC; old = offset; if the record fits at pos, begin = old,
 *         else begin = start of the next sub-buffer ("switch");
 *         entering a fresh sub-buffer requires it to be free:
 *         number - consumed < nsub, else drop (BUFFERS_FULL);
 *         local CAS offset old -> begin + size; on failure an interrupt
 *         wrote in between: retry, taking a new timestamp.
 *   switch: the old sub-buffer's used = pos and its commit += size - pos
 *           (the padding counts as committed).
 *   fill the record; commit: records += 1, then commit += size.
 * Because the timestamp is taken inside the CAS loop, a record's time is
 * never earlier than that of a record before it in the buffer.
 *
 * Invariants (per sub-buffer, between release and the next release):
 *   commit <= sub-buffer size; commit == size exactly when the writer has
 *   moved on and every record in it is committed; only the owning CPU
 *   changes offset, commit, used and records; only the reader changes
 *   consumed, and only after resetting the slot.
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

#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))

void tracebuf_init(struct trace_cpu *tc, uint32_t cpu, uint8_t *data, struct trace_subbuf *sub, uint32_t shift,
		   uint32_t nsub)
{
	*tc = (struct trace_cpu){ .data = data, .sub = sub, .shift = shift, .nsub = nsub, .cpu = cpu };
	for (uint32_t i = 0; i < nsub; i++)
		sub[i] = (struct trace_subbuf){ .used = 1u << shift };
}

void tracebuf_count_loss(struct trace_cpu *tc, enum kprof_loss_cause cause)
{
	arch_local_add64(&tc->lost[cause], 1);
	tc->lost_since_sent = 1;
}

bool tracebuf_reserve(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r)
{
	const uint32_t sbsize = 1u << tc->shift, mask = sbsize - 1;
	uint64_t old, begin, ts;
	uint32_t pos;

	if (size > sbsize) {
		tracebuf_count_loss(tc, KPROF_LOSS_TOO_LARGE);
		return false;
	}
	do {
		ts = arch_rdtsc();
		old = READ_ONCE(tc->offset);
		pos = (uint32_t)(old & mask);
		begin = pos + size > sbsize ? (old | mask) + 1 : old;
		if ((begin & mask) == 0 &&
		    (begin >> tc->shift) - __atomic_load_n(&tc->consumed, __ATOMIC_ACQUIRE) >= tc->nsub) {
			tracebuf_count_loss(tc, KPROF_LOSS_BUFFERS_FULL);
			return false;
		}
	} while (!arch_local_cmpxchg64(&tc->offset, old, begin + size));

	r->switched = begin != old || (begin & mask) == 0;
	if (begin != old) {
		/* Switched: close the old sub-buffer at pos. */
		struct trace_subbuf *s = &tc->sub[(old >> tc->shift) % tc->nsub];
		s->used = pos;
		arch_smp_wmb(); /* used before the commit that completes it */
		arch_local_add32(&s->commit, sbsize - pos);
	}
	r->tc = tc;
	r->sub = (uint32_t)((begin >> tc->shift) % tc->nsub);
	r->size = size;
	r->hdr = (PERFINFO_TRACE_HEADER *)(tc->data + ((uint64_t)r->sub << tc->shift) + (begin & mask));
	r->hdr->TimeStamp = ts;
	return true;
}

void tracebuf_commit(const struct trace_reservation *r)
{
	struct trace_cpu *tc = r->tc;
	struct trace_subbuf *s = &tc->sub[r->sub];

	arch_local_add32(&s->records, 1);
	arch_local_add64(&tc->records, 1);
	arch_local_add64(&tc->bytes, r->size);
	arch_smp_wmb(); /* the record and the counts before the commit */
	arch_local_add32(&s->commit, r->size); /* last: makes the record visible */
}

bool tracebuf_peek_full(struct trace_cpu *tc, struct trace_view *v)
{
	uint64_t n = READ_ONCE(tc->consumed);
	struct trace_subbuf *s = &tc->sub[n % tc->nsub];

	if (n >= (READ_ONCE(tc->offset) >> tc->shift))
		return false; /* the writer is still in it */
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

	*s = (struct trace_subbuf){ .used = 1u << tc->shift };
	__atomic_store_n(&tc->consumed, n + 1, __ATOMIC_RELEASE);
}
