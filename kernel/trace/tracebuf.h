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

#include <arch/cpu.h>

#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
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
	                      /* correction, tracebuf_set_adjust), else 0      */
	uint64_t consumed;    /* sub-buffers released by the reader (absolute) */
	uint8_t *data;        /* nsub << shift bytes                           */
	struct trace_subbuf *sub; /* nsub entries                              */
	uint32_t shift;       /* log2 of the sub-buffer size                   */
	uint32_t nsub;        /* sub-buffers in the ring                       */
	uint32_t cpu;         /* owner                                         */
	uint32_t reserved;
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

/* A clock read taken ahead of a record whose payload needs it too (a
 * SpinLock record's ReleaseTime, taken before the lock is released): the
 * buffer position read first, then the clock, as reserve reads them.  A
 * reservation made with it is stamped with that read (clamped as every
 * stamp) unless a writer on this CPU has reserved since the position was
 * read; then the CAS fails and it reads the clock again, as ever (see
 * tracebuf.c).  tsc 0: no read taken (the reservation reads its own);
 * on a CPU whose correction (tracebuf_set_adjust) is below 0 the
 * reservation reads its own too, so that a payload's raw read is never
 * above its record's stamp.
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
/* The correction added to every later clock read on tc's CPU (kernel/
 * timekeep/watchdog.c); stamps still never go back. */
void tracebuf_set_adjust(struct trace_cpu *tc, int64_t adjust);
void tracebuf_commit(const struct trace_reservation *r);
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
