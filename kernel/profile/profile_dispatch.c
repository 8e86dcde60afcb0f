/*
 * profile_dispatch.c - the interrupt side of profile objects
 * (KeProfileInterruptWithSource): walking the global list and the current
 * process's list on every profile interrupt, counting into buckets or
 * calling back; and the lock-free linking of those lists that makes the
 * walk safe without a lock.
 *
 * Invariant (publication and grace period), for every profile list:
 *   - Writers (ki_profile_list_insert/unlink) hold profile.c's
 *     KiProfileLock; walkers hold nothing, on any number of CPUs at once.
 *   - Walkers follow Flink only, each read an acquire load; Blink is the
 *     writers' alone.  Every store to a Flink a walker may read is an
 *     atomic store, with release order.
 *   - Insertion initialises the entry (and the whole object, earlier)
 *     first, and then publishes it with one release store of the
 *     predecessor's Flink: a walker that sees the entry sees it complete.
 *   - Removal changes only the neighbours' links.  The removed entry's own
 *     Flink keeps pointing at its successor at that moment, so a walker
 *     standing on it finishes the walk, and never skips an entry that
 *     stayed linked all along (entries are added only at the tail).
 *   - A removed entry is reused (linked again) or freed only after a grace
 *     period that began after the removal: ke_run_on_all_processors(), a
 *     DPC on every CPU, which a CPU runs only once it has left the profile
 *     interrupt (DISPATCH_LEVEL is below PROFILE_LEVEL).  Hence the walker
 *     must run above DISPATCH_LEVEL, which it asserts.
 *   - Hits, the buckets and the per-CPU interrupt counts are relaxed
 *     atomic adds: many CPUs count into one object at once, and nothing is
 *     ordered by them.
 *
 * Lock order: none is taken here; the writers' is in profile.c.
 */
#include "kernel/profile/profile.h"

#include "kernel/ke/irql.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/sched.h"

/* Profile interrupts per CPU, each on a cache line of its own. */
static struct {
	uint64_t count;
} __attribute__((aligned(64))) profile_interrupts[KPROF_MAX_CPUS];

/* ---------------------------------------------------------------- linking */

void ki_profile_list_insert(LIST_ENTRY *head, LIST_ENTRY *entry)
{
	LIST_ENTRY *prev = head->Blink;

	entry->Blink = prev;
	__atomic_store_n(&entry->Flink, head, __ATOMIC_RELAXED); /* not yet visible */
	__atomic_store_n(&prev->Flink, entry, __ATOMIC_RELEASE); /* published */
	head->Blink = entry;
}

void ki_profile_list_unlink(LIST_ENTRY *entry)
{
	LIST_ENTRY *next = entry->Flink, *prev = entry->Blink;

	__atomic_store_n(&prev->Flink, next, __ATOMIC_RELEASE);
	next->Blink = prev;
	/* entry->Flink stays: a walker on the entry still gets to `next`. */
}

static LIST_ENTRY *next_entry(const LIST_ENTRY *e)
{
	return __atomic_load_n(&e->Flink, __ATOMIC_ACQUIRE);
}

/* ---------------------------------------------------------------- acting */

/* The bucket of ip, if it lies in [RangeBase, RangeLimit).  RangeLimit is
 * never counted: its bucket may be past the end of the buffer (the
 * Windows 8 bug, docs/profile.md); the index check is a second line of
 * defence. */
static void count_ip(KPROFILE *p, uintptr_t ip)
{
	if (ip < p->RangeBase || ip >= p->RangeLimit)
		return;
	uintptr_t bucket = (ip - p->RangeBase) >> (p->BucketShift + 2);
	if (bucket >= p->BufferSize / 4)
		return;
	__atomic_fetch_add(&p->Buffer[bucket], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&p->Hits, 1, __ATOMIC_RELAXED);
}

static void call_back(KPROFILE *p, KTRAP_FRAME *tf)
{
	p->Callback(tf, p->Context);
	__atomic_fetch_add(&p->Hits, 1, __ATOMIC_RELAXED);
}

static void walk(const LIST_ENTRY *head, KTRAP_FRAME *tf, int16_t source, uint32_t cpu)
{
	for (LIST_ENTRY *e = next_entry(head); e != head; e = next_entry(e)) {
		KPROFILE *p = CONTAINING_RECORD(e, KPROFILE, ProfileListEntry);

		if (p->Source != source || !affinity_test(&p->Affinity, cpu))
			continue;
		if (p->Type == ProfileCallbackObject)
			call_back(p, tf);
		else
			count_ip(p, trap_frame_ip(tf));
	}
}

/* ---------------------------------------------------------------- entry */

void ke_profile_interrupt_with_source(KTRAP_FRAME *tf, int16_t Source)
{
	uint32_t cpu = ke_get_current_processor_number();
	KTHREAD *thread = ke_get_current_thread();

	KASSERT(ke_get_current_irql() > DISPATCH_LEVEL);
	/* Only this CPU counts here, but a profile interrupt can nest on a
	 * dispatch made at IPI_LEVEL (the cost measurement): an atomic add. */
	__atomic_fetch_add(&profile_interrupts[cpu].count, 1, __ATOMIC_RELAXED);
	walk(&KiProfileListHead, tf, Source, cpu);
	if (thread && thread->Process)
		walk(&thread->Process->ProfileListHead, tf, Source, cpu);
}

uint64_t ke_profile_interrupt_count(uint32_t cpu)
{
	if (cpu >= KPROF_MAX_CPUS)
		return 0;
	return __atomic_load_n(&profile_interrupts[cpu].count, __ATOMIC_RELAXED);
}
