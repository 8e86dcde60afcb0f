/*
 * tracebuf.h - one CPU's trace buffer: lock-free writer, flushing reader.
 *
 * A CPU's buffer is a ring of nsub sub-buffers of 2^shift bytes.  Writers
 * on that CPU (at any IRQL, nested in each other by interrupts) reserve
 * space by advancing `offset` with a CPU-local compare-and-swap, fill the
 * record, and commit it by adding its size to the sub-buffer's commit
 * count.  A reader (on any CPU) takes a sub-buffer once the writer has
 * moved past it and every byte of it is committed, sends it, and releases
 * it for reuse.  Nothing blocks: with no free sub-buffer a record is
 * dropped and counted by cause, and the next record stored on the CPU is
 * preceded by a records-lost record (KPROF_RECORDS_LOST) saying how many
 * were dropped there and when the first was.  See tracebuf.c for the
 * invariants.
 */
#ifndef KPROF_KERNEL_TRACEBUF_H
#define KPROF_KERNEL_TRACEBUF_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/barrier.h>
#include <arch/cpu.h>
#include <arch/local.h>

#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/debug/kassert.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/libk.h"

struct trace_subbuf {
	uint32_t commit;   /* bytes committed, switch padding included      */
	uint32_t used;     /* end of the records (less than the size when a */
	                   /* record did not fit and the writer moved on)   */
	uint32_t records;  /* records committed                             */
	uint32_t reserved;
};

struct trace_cpu {
	uint64_t offset;      /* writer position: sub-buffer number << shift | pos */
	uint64_t pending_tsc; /* TSC of the first drop not yet in a records-   */
	                      /* lost record, 0 if none (next to offset: the */
	                      /* writer reads both every time)               */
	uint64_t last_ts;     /* the last stamp given: none is ever below it   */
	uint64_t prev_tsc;    /* the last clock read (a lower one is a step)   */
	int64_t tsc_adjust;   /* added to each clock read (the TSC watchdog's  */
	                      /* correction), else 0; with clock_slope, what   */
	                      /* it is at clock_from (trace_clock_adjust_at)   */
	uint64_t clock_from;  /* TSC the correction's slew starts at           */
	uint8_t *data;        /* nsub << shift bytes                           */
	struct trace_subbuf *sub; /* nsub entries                              */
	uint32_t shift;       /* log2 of the sub-buffer size                   */
	uint32_t nsub;        /* sub-buffers in the ring                       */
	uint32_t cpu;         /* owner                                         */
	uint32_t reserved;
	uint64_t slot_at;     /* writer: a recent sub-buffer number n (low 32  */
	                      /* bits) << 32 | its ring slot n % nsub, so the  */
	                      /* writer divides only when n is a new one       */
	int64_t clock_slope;  /* the correction's change a TSC cycle, x 2^32,  */
	                      /* for clock_span cycles; 0: it stays tsc_adjust */
	uint64_t clock_span;
	uint64_t consumed;    /* sub-buffers released by the reader (absolute) */
	uint64_t lost[KPROF_LOSS_CAUSES]; /* records dropped, by cause         */
	uint64_t pending[KPROF_LOSS_CAUSES]; /* ... not yet in a lost record  */
	uint64_t records;     /* records committed, records-lost ones included */
	uint64_t lost_records; /* records-lost records among them            */
	uint64_t bytes;       /* bytes committed, alignment padding included   */
	uint64_t steps_back;  /* clock reads below the one before (clamped)    */
	uint64_t back_max;    /* the largest such step, in cycles              */
	uint32_t frame_seq;   /* reader: next frame sequence number            */
	uint32_t sent;        /* reader: buffer frames sent                    */
} __attribute__((aligned(64)));

struct trace_reservation {
	struct trace_cpu *tc;
	PERFINFO_TRACE_HEADER *hdr; /* where the record goes                   */
	uint32_t sub;               /* its sub-buffer (index in the ring)      */
	uint32_t size;              /* bytes reserved (8-byte aligned), a      */
	                            /* records-lost record before it included  */
	uint32_t records;           /* 2 with a records-lost record, else 1    */
	bool switched;              /* it filled a sub-buffer: one is ready    */
	uint64_t back;              /* > 0: the clock read went back this far  */
	uint64_t raw;               /* with back: that read                    */
	uint64_t last;              /* with back: the stamp before it          */
};

/* What the reader gets: one sub-buffer's records. */
struct trace_view {
	const uint8_t *data;
	uint32_t used;      /* bytes of records                                */
	uint32_t records;
	uint64_t seq;       /* absolute sub-buffer number on its CPU           */
	uint32_t unsettled; /* final view only: bytes reserved, not committed  */
};

/* Set up over `data` (nsub << shift bytes) and `sub` (nsub entries). */
void tracebuf_init(struct trace_cpu *tc, uint32_t cpu, uint8_t *data, struct trace_subbuf *sub, uint32_t shift,
		   uint32_t nsub);

/* Writer (on the owning CPU only): reserve `size` bytes (a multiple of 8)
 * and stamp the header with the TSC read in the same step, never below
 * the CPU's last stamp, so records are in time order within the buffer
 * whatever the TSC does (a read below the previous one is a step back:
 * counted, and r->back says how far).  False when dropped (counted, and
 * pending for the next records-lost record).  When drops are pending the
 * reservation also holds, just before hdr, the records-lost record that
 * reports them, already filled; commit publishes both. */
bool tracebuf_reserve(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r);
/* Stamp a reservation with clock reading `tsc`: what tracebuf_reserve()
 * does with arch_rdtsc() (the unit tests drive it with a TSC model). */
bool tracebuf_reserve_at(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r, uint64_t (*clock)(void));

/* A slew of the trace's clock correction, as NTP slews a clock: the
 * correction at TSC t is
 *     base + clamp(t - from, 0, span) * slope / 2^32,
 * base before `from`, base + the whole change from `from + span` on.
 * |slope| <= 2^31 (trace_clock_slew), so t + correction rises at least
 * half as fast as the TSC: stamps never stand still; span < 2^32, so the
 * product fits in 64 bits.  slope 0: the constant base. */
struct trace_clock_line {
	int64_t base;
	uint64_t from;
	uint64_t span;
	int64_t slope;
};

static inline int64_t trace_clock_line_at(int64_t base, uint64_t from, uint64_t span, int64_t slope, uint64_t tsc)
{
	if (__builtin_expect(slope != 0, 0)) {
		int64_t d = (int64_t)(tsc - from);
		if (d < 0)
			d = 0;
		if ((uint64_t)d > span)
			d = (int64_t)span;
		base += (d * slope) >> 32;
	}
	return base;
}

/* Has `l` done changing by TSC `now` (constant, or its slew ended)?  Only
 * then may a new line replace it (trace_clock_slew): the new one is the
 * old one's last value up to its own start, so it agrees with `l` from
 * `now` on, and a CPU that takes it at once and one that takes it ticks
 * later stamp alike.  A line replaced mid-slew jumped to that last value
 * on each CPU as it took the new one, the others still slewing. */
static inline bool trace_clock_line_settled(const struct trace_clock_line *l, uint64_t now)
{
	return !l->slope || (int64_t)(l->from + l->span - now) <= 0;
}

/* The slew from where `l` stands at TSC `start` to `target`, over `span`
 * TSC cycles from there (before `start` the new line is l's value there:
 * the same as l wherever l has ended by then); a change of more than half
 * the span is made at once (a step: the writer's clamp holds the stamps). */
struct trace_clock_line trace_clock_slew(const struct trace_clock_line *l, int64_t target, uint64_t start,
					 uint64_t span);

/* The correction a read of the TSC at `tsc` gets on tc's CPU: its copy of
 * the watchdog's line, plus its own boot skew correction in tsc_adjust.
 * The fields are this CPU's and change only from its clock tick with
 * interrupts off; a writer the tick interrupts between two of its loads
 * may mix an old line with a new one (a stamp retries then: the tick
 * writes a record, tracebuf.c), off by at most the two lines' difference
 * there, which is 0 where the new one starts. */
static inline int64_t trace_clock_adjust_at(const struct trace_cpu *tc, uint64_t tsc)
{
	int64_t slope = READ_ONCE(tc->clock_slope), base = READ_ONCE(tc->tsc_adjust);

	if (__builtin_expect(slope != 0, 0)) /* a slew: its start and span too */
		return trace_clock_line_at(base, READ_ONCE(tc->clock_from), READ_ONCE(tc->clock_span), slope, tsc);
	return base;
}

/* A read of the TSC at `tsc` on the trace's clock of tc's CPU: what the
 * writer stamps a header with (before its clamp) and a payload's times
 * carry (kernel/trace/trace_clock.h). */
static inline uint64_t trace_clock_at(const struct trace_cpu *tc, uint64_t tsc)
{
	return tsc + (uint64_t)trace_clock_adjust_at(tc, tsc);
}

/* A clock read taken ahead of a record whose payload needs it too (a
 * SpinLock record's ReleaseTime, taken before the lock is released): the
 * buffer position read first, then the clock, as reserve reads them.  A
 * reservation made with it is stamped with that read (clamped as every
 * stamp) unless a writer on this CPU has reserved since the position was
 * read; then the CAS fails and it reads the clock again, as ever (see
 * tracebuf.c).  tsc 0: no read taken (the reservation reads its own).
 * A payload that carries the read carries it on the trace's clock
 * (trace_clock.h), so it never lies above its record's stamp.
 * Take it and reserve on the same CPU (at DISPATCH_LEVEL or above). */
struct trace_stamp {
	uint64_t offset; /* tc->offset before the read               */
	uint64_t tsc;    /* the clock read                            */
};

static inline void tracebuf_stamp_take(const struct trace_cpu *tc, struct trace_stamp *s)
{
	s->offset = tc ? *(const volatile uint64_t *)&tc->offset : 0;
	compiler_barrier(); /* the position before the clock (the order the writer reads them in) */
	s->tsc = arch_rdtsc();
}

bool tracebuf_reserve_stamped(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r,
			      const struct trace_stamp *given);

/* The writer's path, inline (writer.c, and the functions above): the
 * common case here, everything else in tracebuf_reserve_slow (tracebuf.c),
 * which does every step of every case and a pass again after a nested
 * writer.  `clock` reads the clock (tracebuf_clock, or a test's model);
 * `given` a read taken ahead, or NULL. */
bool tracebuf_reserve_slow(struct trace_cpu *tc, uint32_t size, struct trace_reservation *r, uint64_t (*clock)(void),
			   const struct trace_stamp *given);

static inline uint64_t tracebuf_clock(void)
{
	return arch_rdtsc();
}

/* Ring slot of sub-buffer number n, n % nsub, without a division but for
 * a new n (tracebuf.c: slot_at). */
static inline uint32_t tracebuf_slot(struct trace_cpu *tc, uint64_t n)
{
	uint64_t at = READ_ONCE(tc->slot_at);

	if (__builtin_expect((uint32_t)(at >> 32) == (uint32_t)n, 1))
		return (uint32_t)at;
	uint32_t slot = (uint32_t)(n % tc->nsub);
	WRITE_ONCE(tc->slot_at, (uint64_t)(uint32_t)n << 32 | slot);
	return slot;
}

/* The common case: the slow path's steps in the same order with nothing
 * to decide: no drop pending, the stamp (the read on the trace's clock,
 * trace_clock_at, during a slew of its correction too) not
 * below the last nor the read below the one before, the record after
 * another in the current sub-buffer.  Anything else, or a failed CAS (a
 * writer nested since the position was read), takes the slow path with
 * this pass's position and clock read, as a read taken ahead: its first
 * pass decides on them (so a step back is measured on the read that
 * stepped, and the clock is read once), and its CAS fails if a writer has
 * reserved since, and it reads both afresh.  A last_ts advanced here
 * before a failed offset CAS is a true stamp of this CPU: the next pass
 * stamps at or after it.  The size is checked once the common case is
 * known (a size over a sub-buffer is the slow path's drop, not a bug). */
static inline __attribute__((always_inline)) bool tracebuf_reserve_inline(struct trace_cpu *tc, uint32_t size,
									   struct trace_reservation *r,
									   uint64_t (*clock)(void),
									   const struct trace_stamp *given)
{
	const uint32_t shift = tc->shift, mask = (1u << shift) - 1;
	const bool ahead = given && given->tsc;
	uint64_t old = ahead ? given->offset : READ_ONCE(tc->offset);
	uint64_t last = READ_ONCE(tc->last_ts), prev = READ_ONCE(tc->prev_tsc);
	uint64_t tsc = ahead ? given->tsc : clock();
	uint64_t ts = trace_clock_at(tc, tsc);
	uint32_t pos = (uint32_t)(old & mask);

	if (__builtin_expect(READ_ONCE(tc->pending_tsc) != 0 || (int64_t)(ts - last) < 0 || (int64_t)(tsc - prev) < 0 ||
				     pos == 0 || pos + size > mask + 1,
			     0) ||
	    (ts != last && !arch_local_cmpxchg64(&tc->last_ts, last, ts)) ||
	    !arch_local_cmpxchg64(&tc->offset, old, old + size)) {
		/* the slow path fills a copy: r's address never leaves the
		 * inline path, so the compiler keeps r in registers */
		struct trace_reservation slow;
		bool ok = tracebuf_reserve_slow(tc, size, &slow, clock, &(struct trace_stamp){ .offset = old, .tsc = tsc });
		*r = slow;
		return ok;
	}
	KASSERT_OP(size % PERFINFO_RECORD_ALIGN, ==, 0u);
	KASSERT_OP(size, >=, (uint32_t)sizeof(PERFINFO_TRACE_HEADER)); /* stamped below */
	tc->prev_tsc = tsc;
	r->back = 0;
	r->switched = false;
	r->tc = tc;
	r->sub = tracebuf_slot(tc, old >> shift);
	r->size = size;
	r->records = 1;
	r->hdr = (PERFINFO_TRACE_HEADER *)(tc->data + ((uint64_t)r->sub << shift) + pos);
	r->hdr->TimeStamp = ts;
	return true;
}
/* The correction added to every later clock read on tc's CPU (kernel/
 * timekeep/watchdog.c), at once; stamps still never go back. */
void tracebuf_set_adjust(struct trace_cpu *tc, int64_t adjust);
/* The correction on tc's CPU becomes line `l` plus `offset` (the CPU's own
 * boot skew correction): the watchdog's slew (kernel/timekeep/watchdog.c).
 * Called on tc's CPU (its clock tick). */
void tracebuf_set_line(struct trace_cpu *tc, const struct trace_clock_line *l, int64_t offset);
/* Publish a reservation: its counts, then its bytes (the reader takes a
 * sub-buffer once all of them are committed: tracebuf.c). */
static inline void tracebuf_commit(const struct trace_reservation *r)
{
	struct trace_cpu *tc = r->tc;
	struct trace_subbuf *s = &tc->sub[r->sub];

	KASSERT_OP(s->commit + r->size, <=, 1u << tc->shift); /* committed once */
	arch_local_add32(&s->records, r->records);
	arch_local_add64(&tc->records, r->records);
	if (r->records > 1)
		arch_local_add64(&tc->lost_records, 1);
	arch_local_add64(&tc->bytes, r->size);
	arch_smp_wmb(); /* the record and the counts before the commit */
	arch_local_add32(&s->commit, r->size); /* last: makes the record visible */
}
void tracebuf_count_loss(struct trace_cpu *tc, enum kprof_loss_cause cause, uint64_t tsc);
/* Size of a records-lost record (header and payload). */
#define TRACEBUF_LOST_RECORD_SIZE ((uint32_t)(sizeof(PERFINFO_TRACE_HEADER) + sizeof(KPROF_RECORDS_LOST)))

/* Reader (any CPU): the oldest full, fully committed sub-buffer. */
bool tracebuf_peek_full(struct trace_cpu *tc, struct trace_view *v);
/* The partly filled current sub-buffer, once writers have stopped. */
bool tracebuf_peek_final(struct trace_cpu *tc, struct trace_view *v);
/* Release what the last peek returned. */
void tracebuf_release(struct trace_cpu *tc);
/* Ring bytes written and not yet released: each full sub-buffer whole
 * (its unused tail included), the current one up to the writer. */
uint64_t tracebuf_held(const struct trace_cpu *tc);

#endif /* KPROF_KERNEL_TRACEBUF_H */
