/*
 * send_policy.h - when the stream-mode trace logger sends, and at which
 * priority (kernel/trace/out/send_policy.c).
 */
#ifndef KPROF_KERNEL_TRACE_SEND_POLICY_H
#define KPROF_KERNEL_TRACE_SEND_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/trace/tracebuf.h"

#define SEND_PRIORITY_IDLE   1   /* below every workload thread: idle CPUs only */
#define SEND_PRIORITY_URGENT 31  /* HIGH_PRIORITY, as ETW's logger thread       */

enum send_mode {
	SEND_CALM,    /* rings under the high-water mark: idle priority         */
	SEND_URGENT,  /* a ring filled past it: urgent priority, for a while    */
	SEND_REST,    /* urgent, but had its turn: idle priority until rest_end */
};

/* The logger's own state: written by the logger thread only; the flush
 * DPC reads mode and rest_end (send_policy_wants_urgent) without a lock:
 * a stale value costs at most one wrong priority until the logger's next
 * update, which sets it right. */
struct send_policy {
	enum send_mode mode;
	uint64_t since;      /* TSC: when SEND_URGENT began                 */
	uint64_t rest_end;   /* TSC: when SEND_REST ends                    */
};

/* Full sub-buffers of tc waiting for the sender: written past by its
 * CPU, not yet released.  Read without a lock (a moment's estimate). */
uint64_t send_policy_waiting(const struct trace_cpu *tc);

/*
 * After each sub-buffer sent (and on each wake-up): the mode from the
 * largest backlog of any CPU (`most` of `nsub` sub-buffers) and the time
 * `now`, and the priority the logger is to run at.  `turn` is how long an
 * urgent turn lasts at least (a clock tick): a turn that ran longer than
 * that rests as long as it ran.
 */
int8_t send_policy_update(struct send_policy *p, uint64_t most, uint32_t nsub, uint64_t now, uint64_t turn);

/* From the flush DPC, with the same backlog: true when the logger is to
 * have urgent priority now but is calm or resting (it cannot raise itself
 * while workload threads keep it from running). */
bool send_policy_wants_urgent(const struct send_policy *p, uint64_t most, uint32_t nsub, uint64_t now);

#endif
