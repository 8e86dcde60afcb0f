/*
 * trace.h - writing NT Kernel Logger records (include/kprof/wmi.h).
 *
 * Every event write is the same short sequence:
 *     if (!trace_enabled(PERF_SPINLOCK)) return;       group mask
 *     p = trace_record_begin(&rec, HOOK, VERSION, sizeof(*p));
 *     if (!p) return;                                   dropped, counted
 *     ... fill *p ...
 *     trace_record_commit(&rec);
 * or trace_log() with a payload built beforehand.  The time stamp is taken
 * when space is reserved.  Any IRQL; no locks; a writer below
 * DISPATCH_LEVEL is raised to it for the write so it stays on its CPU.
 */
#ifndef KPROF_KERNEL_TRACE_H
#define KPROF_KERNEL_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/exit_status.h"
#include "include/kprof/wmi.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/lib/libk.h"
#include "kernel/trace/tracebuf.h"

/* A CPU's ring holds at least this many sub-buffers (trace.buffer_kb /
 * trace.subbuf_kb): one the writers fill while another is sent.  The
 * command line is refused otherwise (kernel/init/cmdline_rules.c). */
#define TRACE_MIN_SUBBUFS 2u

/* Groups being traced; all zero before trace_start() and after the end. */
extern PERFINFO_GROUPMASK trace_groups;

static inline bool trace_enabled(uint32_t group_mask)
{
	return perfinfo_is_group_on(&trace_groups, group_mask);
}

struct trace_record {
	struct trace_reservation r; /* where it goes              */
	KIRQL old_irql;             /* to lower back to           */
	bool raised;                /* raised to DISPATCH_LEVEL   */
};

#ifdef KPROF_TRACE_WRITER_CAPTURE
/* A unit test's own writer, which captures the records (the test's
 * program is built with -DKPROF_TRACE_WRITER_CAPTURE, tests/unit/...
 * unit.mk), in place of the one below. */
void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size);
void *trace_record_begin_stamped(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size,
				 const struct trace_stamp *stamp);
void trace_record_commit(struct trace_record *rec);
#else
/* The writer's path is inline (LTTng's ring buffer's reserve and commit
 * are too): the calls into it and out again were 5 of the trace write's
 * 45 cycles (docs/testing.md).  Its rare cases are out of line
 * (writer.c, tracebuf.c): the reservation's slow path, a filled
 * sub-buffer and a clock step. */
void trace_record_after_commit(const struct trace_reservation *r, uint16_t hook);

static inline __attribute__((always_inline)) void *trace_record_begin_at(struct trace_record *rec, uint16_t hook,
									  uint8_t version, uint16_t payload_size,
									  const struct trace_stamp *given)
{
	uint32_t size = ALIGN_UP((uint32_t)sizeof(PERFINFO_TRACE_HEADER) + payload_size, PERFINFO_RECORD_ALIGN);

	rec->old_irql = ke_get_current_irql();
	rec->raised = rec->old_irql < DISPATCH_LEVEL;
	if (rec->raised)
		ke_raise_irql(DISPATCH_LEVEL); /* stay on this CPU until commit */
	struct trace_cpu *tc = ke_get_current_prcb()->TraceCpu;
	if (!tc || !tracebuf_reserve_inline(tc, size, &rec->r, tracebuf_clock, given)) {
		if (rec->raised)
			ke_lower_irql(rec->old_irql);
		return NULL;
	}
	PERFINFO_TRACE_HEADER *h = rec->r.hdr;
	h->Marker = perfinfo_marker(version);
	h->Size = (uint16_t)(sizeof(*h) + payload_size);
	h->HookId = hook;
	return h + 1;
}

/* Reserve a record with `payload_size` payload bytes and fill its header;
 * returns the payload to fill, or NULL if it was dropped (counted). */
static inline __attribute__((always_inline)) void *trace_record_begin(struct trace_record *rec, uint16_t hook,
								       uint8_t version, uint16_t payload_size)
{
	return trace_record_begin_at(rec, hook, version, payload_size, NULL);
}

/* The same, stamped with a clock read the caller took ahead on this CPU
 * (tracebuf_stamp_take) and put in its payload too: one read for both,
 * unless a record was written on this CPU since (then the header has a
 * read of its own, later). */
static inline __attribute__((always_inline)) void *trace_record_begin_stamped(struct trace_record *rec, uint16_t hook,
									       uint8_t version,
									       uint16_t payload_size,
									       const struct trace_stamp *stamp)
{
	return trace_record_begin_at(rec, hook, version, payload_size, stamp);
}

static inline __attribute__((always_inline)) void trace_record_commit(struct trace_record *rec)
{
	uint16_t hook = rec->r.hdr->HookId; /* before the reader may take it */

	tracebuf_commit(&rec->r);
	if (__builtin_expect(rec->r.switched || rec->r.back, 0)) {
		struct trace_reservation after = rec->r; /* a copy: rec stays in registers */
		trace_record_after_commit(&after, hook);
	}
	if (rec->raised)
		ke_lower_irql(rec->old_irql);
}
#endif /* KPROF_TRACE_WRITER_CAPTURE */

/* Write a whole record; false if dropped or the group is off.  Inline, so
 * that the copy of a payload of a size known where it is called is a few
 * moves, not a call (every caller passes sizeof its payload). */
static inline __attribute__((always_inline)) bool trace_log(uint32_t group_mask, uint16_t hook, uint8_t version,
							    const void *payload, uint16_t payload_size)
{
	struct trace_record rec;

	if (!trace_enabled(group_mask))
		return false;
	void *p = trace_record_begin(&rec, hook, version, payload_size);
	if (!p)
		return false;
	__builtin_memcpy(p, payload, payload_size);
	trace_record_commit(&rec);
	return true;
}

/* Session: allocate buffers on every online CPU, as trace_configure()
 * settled them, and send the run header, which names the scenario (after
 * the CPUs are up); at the end stop, flush everything, and send
 * the per-CPU and run end frames.  trace_poll() runs on CPU 0's clock tick
 * and schedules the streaming flush. */
void trace_start(const char *cmdline, uint32_t scenario, const char *scenario_name);
void trace_finish(enum kprof_exit_status status);
void trace_poll(void);
/* After a bug check: send what is committed, without waiting for anyone. */
void trace_panic_flush(void);

/* Pause / resume sending in stream mode, for a short measurement whose
 * records fit the buffers: sending competes with the measured code (under
 * QEMU every serial byte takes the emulator's global lock). */
void trace_hold_stream(bool hold);

/* The writer filled a sub-buffer (session side: wakes the flusher). */
void trace_subbuffer_filled(void);

/* Totals over all CPUs so far (for reports). */
void trace_totals(uint64_t *records, uint64_t *lost);

#endif /* KPROF_KERNEL_TRACE_H */
