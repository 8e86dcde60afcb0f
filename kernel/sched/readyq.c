/*
 * readyq.c - per-CPU ready queues by priority, with a summary bitmap.
 *
 * Each KPRCB has 32 lists (one per priority) and ReadySummary, whose bit
 * p says list p is not empty.  A thread is queued only on a CPU its
 * affinity allows.  Choosing the next thread for a CPU looks at its own
 * queue and at every other CPU's (threads allowed to run here), so a
 * ready thread is never passed over for a lower-priority one merely
 * because it was queued elsewhere; at equal priority the CPU's own queue
 * wins (cache affinity).
 *
 * Lock: the dispatcher lock for everything here (asserted) but
 * ki_ready_queue_init(), on a CPU not yet started, and ki_ready_hint(),
 * which reads the summaries without it (they are stored atomically for it).
 */
#include "kernel/sched/ki.h"

void ki_ready_queue_init(KPRCB *prcb)
{
	for (int p = 0; p < KPRCB_READY_LISTS; p++)
		list_init(&prcb->DispatcherReadyListHead[p]);
	prcb->ReadySummary = 0;
}

void ki_ready_queue_insert(KPRCB *prcb, KTHREAD *t, bool front)
{
	LIST_ENTRY *head = &prcb->DispatcherReadyListHead[t->Priority];

	ki_assert_dispatcher_locked();
	if (front)
		list_insert_head(head, &t->ReadyListEntry);
	else
		list_insert_tail(head, &t->ReadyListEntry);
	__atomic_store_n(&prcb->ReadySummary, prcb->ReadySummary | 1u << t->Priority, __ATOMIC_RELAXED);
	t->NextProcessor = prcb->Number;
	t->State = Ready;
}

void ki_ready_queue_remove(KTHREAD *t)
{
	KPRCB *prcb = KiProcessorBlock[t->NextProcessor];

	ki_assert_dispatcher_locked();
	if (prcb->PreemptThread == t)
		prcb->PreemptThread = NULL; /* taken, or requeued: no longer there to run */
	list_remove(&t->ReadyListEntry);
	if (list_empty(&prcb->DispatcherReadyListHead[t->Priority]))
		__atomic_store_n(&prcb->ReadySummary, prcb->ReadySummary & ~(1u << t->Priority), __ATOMIC_RELAXED);
}

/* First thread in prcb's list p allowed on cpu, or NULL. */
static KTHREAD *first_allowed(KPRCB *prcb, int p, uint32_t cpu)
{
	LIST_ENTRY *head = &prcb->DispatcherReadyListHead[p];
	for (LIST_ENTRY *e = head->Flink; e != head; e = e->Flink) {
		KTHREAD *t = CONTAINING_RECORD(e, KTHREAD, ReadyListEntry);
		if (affinity_test(&t->Affinity, cpu))
			return t;
	}
	return NULL;
}

static int highest_bit(uint32_t x)
{
	return x ? 31 - __builtin_clz(x) : -1;
}

KTHREAD *ki_find_ready_thread(uint32_t cpu, int min_priority, bool take)
{
	KTHREAD *best = NULL;
	int best_p = min_priority - 1;
	KPRCB *self = KiProcessorBlock[cpu];
	uint32_t n = ke_number_processors;

	ki_assert_dispatcher_locked();
	/* Own queue first: everything there may run here. */
	int p = highest_bit(self->ReadySummary);
	if (p > best_p) {
		best = first_allowed(self, p, cpu);
		best_p = p;
	}
	/* Strictly better threads on other CPUs' queues. */
	for (uint32_t i = 0; i < n; i++) {
		KPRCB *other = KiProcessorBlock[i];
		if (other == self)
			continue;
		for (uint32_t sum = other->ReadySummary; sum; sum &= ~(1u << p)) {
			p = highest_bit(sum);
			if (p <= best_p)
				break;
			KTHREAD *t = first_allowed(other, p, cpu);
			if (t) {
				best = t;
				best_p = p;
				break;
			}
		}
	}
	if (best && take)
		ki_ready_queue_remove(best);
	return best;
}

bool ki_ready_hint(int min_priority)
{
	uint32_t n = ke_number_processors;

	if (min_priority >= KPRCB_READY_LISTS)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (__atomic_load_n(&KiProcessorBlock[i]->ReadySummary, __ATOMIC_RELAXED) >> min_priority)
			return true;
	return false;
}
