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

/* Reserve a record with `payload_size` payload bytes and fill its header;
 * returns the payload to fill, or NULL if it was dropped (counted). */
void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size);
void trace_record_commit(struct trace_record *rec);
/* The same, stamped with a clock read the caller took ahead on this CPU
 * (tracebuf_stamp_take) and put in its payload too: one read for both,
 * unless a record was written on this CPU since (then the header has a
 * read of its own, later). */
void *trace_record_begin_stamped(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size,
				 const struct trace_stamp *stamp);

/* Write a whole record; false if dropped or the group is off.  Inline, so
 * that the copy of a payload of a size known where it is called is a few
 * moves, not a call (every caller passes sizeof its payload). */
static inline bool trace_log(uint32_t group_mask, uint16_t hook, uint8_t version, const void *payload,
			     uint16_t payload_size)
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
