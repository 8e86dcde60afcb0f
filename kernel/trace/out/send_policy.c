/*
 * send_policy.c - when the stream-mode trace logger sends, and at which
 * priority.
 *
 * Sending costs CPU time, a lot of it where the port is slow to reach (a
 * QEMU 16550 takes 1.3 to 2 us of host time per byte: the emulator writes
 * each byte to its character device on its own), and that time is taken
 * from whatever would have run instead: the very workload being traced.
 * So the logger thread normally runs at SEND_PRIORITY_IDLE, below every
 * workload thread.  The dispatcher then runs it only where no workload
 * thread wants the CPU: it goes to an idle CPU when it is made ready, any
 * workload thread made ready on its CPU preempts it, and the preempted
 * logger moves on to another idle CPU if there is one (dispatch.c:
 * choose_processor).  It sends from the CPUs that have the least to do,
 * and does not show up in the workload's own time.
 *
 * When no CPU is idle for long, the rings fill.  Once some CPU's ring has
 * half its sub-buffers waiting (SEND_URGENT), the logger takes priority 31
 * and preempts; it keeps it for a turn of at least a clock tick and then
 * rests (SEND_REST, idle priority again) for as long as the turn took, so
 * that at most half of one CPU is taken from threads that can run only
 * there, and a resting logger still sends wherever a CPU falls idle.  Back
 * under a quarter waiting, it is calm again (hysteresis: no priority flip
 * per sub-buffer).  The logger decides this after each sub-buffer it
 * sends; while workload threads keep an idle-priority logger from running
 * at all, the flush DPC (queued whenever a sub-buffer fills, and on CPU
 * 0's clock tick while any waits) asks the same question and raises its
 * priority for it (send_policy_wants_urgent).
 *
 * Where even that is not enough (a configuration that records more than
 * the port carries) the rings overflow and writers count the records they
 * drop, by CPU: the decoder's summary says how many and which keys help.
 *
 * Measured (tests/bench/sender.py, scenario=resources on 4 CPUs under
 * QEMU): the old logger, always at 31, spent 7.4% of all profile samples
 * outranking workload threads and lost records in half the runs; this one
 * spends about as many samples sending, none of them at 31, and loses
 * none.  Costs: a logger preempted in the middle of a frame keeps the
 * console claimed, so text from other CPUs waits in the console's deferred
 * buffer until it runs again (console.c); and under QEMU on a host with
 * fewer cores than virtual CPUs, an "idle" virtual CPU that sends still
 * takes host time the others could have used.
 */
#include "kernel/trace/out/send_policy.h"

uint64_t send_policy_waiting(const struct trace_cpu *tc)
{
	uint64_t writing = __atomic_load_n(&tc->offset, __ATOMIC_RELAXED) >> tc->shift;
	uint64_t released = __atomic_load_n(&tc->consumed, __ATOMIC_RELAXED);

	return writing > released ? writing - released : 0;
}

static bool sp_high(uint64_t most, uint32_t nsub)
{
	return most * 2 >= nsub && most > 0; /* half the ring waits */
}

static bool sp_low(uint64_t most, uint32_t nsub)
{
	return most * 4 <= nsub;             /* a quarter or less waits */
}

int8_t send_policy_update(struct send_policy *p, uint64_t most, uint32_t nsub, uint64_t now, uint64_t turn)
{
	bool high = sp_high(most, nsub), low = sp_low(most, nsub);

	switch (p->mode) {
	case SEND_CALM:
		if (high) {
			p->mode = SEND_URGENT;
			p->since = now;
		}
		break;
	case SEND_URGENT:
		if (low) {
			p->mode = SEND_CALM;
		} else if (now - p->since > turn) {
			p->mode = SEND_REST;
			p->rest_end = now + (now - p->since);
		}
		break;
	case SEND_REST:
		if (low) {
			p->mode = SEND_CALM;
		} else if ((int64_t)(now - p->rest_end) >= 0) {
			p->mode = SEND_URGENT;
			p->since = now;
		}
		break;
	}
	return p->mode == SEND_URGENT ? SEND_PRIORITY_URGENT : SEND_PRIORITY_IDLE;
}

bool send_policy_wants_urgent(const struct send_policy *p, uint64_t most, uint32_t nsub, uint64_t now)
{
	switch (__atomic_load_n(&p->mode, __ATOMIC_RELAXED)) {
	case SEND_CALM:
		return sp_high(most, nsub);
	case SEND_REST:
		return !sp_low(most, nsub) && (int64_t)(now - __atomic_load_n(&p->rest_end, __ATOMIC_RELAXED)) >= 0;
	default:
		return false; /* urgent already */
	}
}
