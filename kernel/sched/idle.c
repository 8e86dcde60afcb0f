/*
 * idle.c - idle processors: the idle summary, the idle CPU a ready thread
 * is given to, the hand-over of a kick that is not answered, and an idle
 * CPU's look for work when it comes online.
 *
 * KiIdleSummary (NT's KiIdleSummary) has bit n set while CPU n runs its
 * idle thread and no thread has been given to it since.  A thread made
 * ready goes to an idle CPU of its affinity when there is one (its ideal
 * processor first, then the one it last ran on, then the lowest-numbered),
 * whose bit is cleared at once (the CPU is claimed) and which is kicked by
 * the caller (dispatch.c); so two threads made ready together go to two
 * idle CPUs, not both to the first.  The claim notes when the kick was
 * sent (KPRCB.IdleKickTsc); the kicked CPU's dispatch records an answer
 * more than 200 us late as a stall (dispatch.c, as it does for other
 * requests to reschedule): on a virtual machine, the host not running
 * that CPU.  So that a thread does not wait
 * for such a CPU while another idles (which would find it only at its next
 * clock tick), the kicking CPU also sets a timer (IdleKickTimer, 200 us):
 * if the kick is still unanswered then, the best thread queued on the
 * kicked CPU is offered to another idle CPU that may run it, which is
 * claimed and kicked in turn and takes the thread from that queue, and
 * the timer is set again for the next idle CPU, until the kicked CPU
 * answers or no idle CPU is left.  An answer cancels the timer.  (NT has
 * no such hand-over: a physical CPU answers an IPI at once.)
 *
 * Invariant (dispatcher lock): while bit n is set, CPU n's CurrentThread
 * is its idle thread and no Ready thread that may run on CPU n is queued
 * anywhere: a CPU enters the summary only when its look through every
 * queue (ki_find_ready_thread) found nothing for it (ki_block_current, or
 * ki_dispatch_interrupt when a claim came to nothing), and every thread
 * made ready while the bit is set takes an idle CPU first.  The one
 * exception is a CPU coming online, whose summary bit is set while
 * threads created earlier may wait for it: its idle thread's first look
 * (ki_idle_look_for_work) takes those.  (Looking before every halt was
 * tried: with 64 CPUs under TCG, every idle CPU taking the dispatcher lock
 * at each wake-up made their clock interrupts come hundreds of
 * milliseconds late.)  The clock tick of an idle CPU still looks, as a
 * last resort (dispatch.c).
 *
 * Lock: KiIdleSummary, IdleKickTsc and IdleKickTimer are [D], read and
 * written under the dispatcher lock (the kick timer sits in the kicking
 * CPU's timer queue: dispatcher lock, then timer queue, as a wait's
 * time-out; its callback takes the dispatcher lock at CLOCK_LEVEL).
 * ki_idle_look_for_work takes the lock itself (at DISPATCH_LEVEL, from
 * the idle thread at PASSIVE_LEVEL) after a lock-free look at the ready
 * summaries says something is queued somewhere.
 */
#include "kernel/sched/ki.h"

#include <arch/cpu.h>

#include "kernel/ke/time/clock.h"
#include "kernel/ke/time/time.h"

/* How long a kicked idle CPU may take to answer before its work is
 * offered to another idle CPU: the clock's lateness threshold, so every
 * hand-over has a late-kick record (a stall) behind it. */
#define KICK_PATIENCE_US 200

KAFFINITY_EX KiIdleSummary;

void ki_idle_summary_update(uint32_t cpu, bool idle)
{
	ki_assert_dispatcher_locked();
	if (idle)
		affinity_add(&KiIdleSummary, cpu);
	else
		affinity_remove(&KiIdleSummary, cpu);
}

/* The kicked CPU p has not answered within KICK_PATIENCE_US (CLOCK_LEVEL,
 * on the CPU that kicked it): the best thread queued there goes to
 * another idle CPU that may run it, kicked in turn.  Stale when p has
 * answered meanwhile (IdleKickTsc 0), or answered and was kicked again
 * (the entry is queued again, for the new kick). */
static void idle_kick_unanswered(KTIMER_ENTRY *e, KTRAP_FRAME *tf, void *context)
{
	KPRCB *p = context;
	unsigned long flags = ki_lock_dispatcher();
	uint64_t sent = p->IdleKickTsc;

	/* Queued again: p answered and was kicked anew while this ran. */
	if (sent && !__atomic_load_n(&e->Queued, __ATOMIC_RELAXED) && p->ReadySummary) {
		int prio = 31 - __builtin_clz(p->ReadySummary);
		KTHREAD *t = CONTAINING_RECORD(p->DispatcherReadyListHead[prio].Flink, KTHREAD, ReadyListEntry);
		uint32_t other = ki_select_idle_processor(t);
		if (other < ke_number_processors) {
			ki_idle_claim(other);
			ki_request_dispatch(other);
			/* Still unanswered later, with more queued there: the
			 * next idle CPU then. */
			ke_set_timer_current(e, arch_rdtsc() + ke_us_to_tsc(KICK_PATIENCE_US), 0);
		}
	}
	ki_unlock_dispatcher(flags);
}

void ki_idle_claim(uint32_t cpu)
{
	KPRCB *p = KiProcessorBlock[cpu];

	ki_assert_dispatcher_locked();
	if (!affinity_test(&KiIdleSummary, cpu))
		return;
	affinity_remove(&KiIdleSummary, cpu);
	if (p == ke_get_current_prcb() || p->IdleKickTsc)
		return;
	p->IdleKickTsc = arch_rdtsc();
	if (!p->IdleKickTimer.Callback)
		ke_timer_entry_init(&p->IdleKickTimer, idle_kick_unanswered, p);
	ke_set_timer_current(&p->IdleKickTimer, p->IdleKickTsc + ke_us_to_tsc(KICK_PATIENCE_US), 0);
}

uint64_t ki_idle_kick_answered(KPRCB *prcb)
{
	uint64_t sent = prcb->IdleKickTsc;

	ki_assert_dispatcher_locked();
	if (!sent)
		return 0;
	prcb->IdleKickTsc = 0;
	ke_cancel_timer(&prcb->IdleKickTimer);
	return sent;
}

uint32_t ki_select_idle_processor(const KTHREAD *t)
{
	uint32_t n = ke_number_processors;
	const uint32_t prefer[2] = { t->IdealProcessor, t->NextProcessor };

	ki_assert_dispatcher_locked();
	for (int i = 0; i < 2; i++)
		if (prefer[i] < n && affinity_test(&t->Affinity, prefer[i]) && affinity_test(&KiIdleSummary, prefer[i]))
			return prefer[i];
	for (unsigned w = 0; w < KAFFINITY_WORDS && w * 64 < n; w++) {
		uint64_t both = t->Affinity.Bitmap[w] & KiIdleSummary.Bitmap[w];
		if (both) {
			uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(both);
			return c < n ? c : n;
		}
	}
	return n;
}

bool ki_idle_look_for_work(void)
{
	unsigned long flags;

	if (!ki_ready_hint(0))
		return false;
	KIRQL old = ki_enter(&flags);
	KPRCB *prcb = ke_get_current_prcb();
	bool found = ki_find_ready_thread(prcb->Number, 0, false) != NULL;
	if (found) {
		ki_idle_summary_update(prcb->Number, false);
		ki_note_dispatch_request(prcb);
	}
	ki_leave(old, flags); /* lowering the IRQL runs the dispatch: it switches */
	return found;
}
