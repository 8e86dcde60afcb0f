/*
 * resource_owner.c - an ERESOURCE's owner entries: OwnerEntry (the
 * exclusive owner, or one sharer) and OwnerTable for the other sharers,
 * which grows without limit, and kprof's tracking of each hold.
 *
 * OwnerTable[0] is not an entry: its TableSize says how many entries the
 * table has, [0] included (as NT).  The table only grows (doubling from
 * 4); reinitialisation clears it, deletion frees it.  It is allocated with
 * no spin lock held: the caller drops the SpinLock, allocates, retakes it
 * and looks again, since anything may have changed meanwhile.
 *
 * Lock: the resource's SpinLock for everything here.
 */
#include "kernel/ex/resource_internal.h"

#include "kernel/mm/heap.h"
#include "kernel/lib/libk.h"
#include "kernel/debug/panic.h"
#include "kernel/trace/trace_clock.h"

#define OWNER_TABLE_FIRST_SIZE 4

static uint32_t table_size(const ERESOURCE *r)
{
	return r->OwnerTable ? r->OwnerTable[0].TableSize : 0;
}

uint32_t exp_capacity(const ERESOURCE *r)
{
	uint32_t n = table_size(r);
	return n ? n : 1; /* OwnerEntry + entries 1..n-1 */
}

OWNER_ENTRY *exp_find_owner(ERESOURCE *r, const KTHREAD *t)
{
	if (!t)
		return NULL;
	if (r->OwnerEntry.OwnerThread == t)
		return &r->OwnerEntry;
	for (uint32_t i = 1; i < table_size(r); i++)
		if (r->OwnerTable[i].OwnerThread == t)
			return &r->OwnerTable[i];
	return NULL;
}

OWNER_ENTRY *exp_free_entry(ERESOURCE *r)
{
	/* OwnerEntry is reserved while owned exclusive (also an exclusive
	 * grant not claimed yet, whose OwnerThread is still NULL). */
	if (!(r->Flag & ResourceOwnedExclusive) && !r->OwnerEntry.OwnerThread)
		return &r->OwnerEntry;
	for (uint32_t i = 1; i < table_size(r); i++)
		if (!r->OwnerTable[i].OwnerThread)
			return &r->OwnerTable[i];
	return NULL;
}

void exp_grow_owner_table(ERESOURCE *r, KLOCK_QUEUE_HANDLE *h)
{
	uint32_t size = table_size(r);
	uint32_t new_size = size ? size * 2 : OWNER_TABLE_FIRST_SIZE;

	exp_unlock(h);
	OWNER_ENTRY *table = kzalloc(sizeof(OWNER_ENTRY) * new_size);
	if (!table)
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, (uintptr_t)r, new_size, 0, 0,
				"ERESOURCE %p: no memory for an owner table of %u entries", (void *)r, new_size);
	exp_lock(r, h);
	OWNER_ENTRY *unused = table;
	if (table_size(r) == size) { /* nobody grew it meanwhile */
		for (uint32_t i = 1; i < size; i++)
			table[i] = r->OwnerTable[i];
		table[0].TableSize = new_size;
		unused = r->OwnerTable;
		r->OwnerTable = table;
	}
	/* Free the loser without the lock; no pointer into it survives an
	 * unlock (callers look entries up again after this). */
	exp_unlock(h);
	kfree(unused);
	exp_lock(r, h);
}

void exp_start_hold(ERESOURCE *r, OWNER_ENTRY *e, KTHREAD *t, uint64_t now, uint64_t wait_cycles)
{
	e->OwnerThread = t;
	e->OwnerCount = 1;
	e->MaxRecursionDepth = 1;
	e->AcquireTime = now;
	e->WaitTime = wait_cycles;
	e->ContentionAtAcquire = r->ContentionCount;
	r->ActiveEntries++;
}

void exp_recurse(OWNER_ENTRY *e)
{
	e->OwnerCount++;
	if ((uint32_t)e->OwnerCount > e->MaxRecursionDepth)
		e->MaxRecursionDepth = (uint32_t)e->OwnerCount;
}

void exp_end_hold(ERESOURCE *r, OWNER_ENTRY *e, uint32_t action, uint64_t now, WMI_RESOURCE *w)
{
	*w = (WMI_RESOURCE){
		.AcquireTime = trace_clock_read(e->AcquireTime), /* joins the header */
		.HoldTime = now - e->AcquireTime,
		.WaitTime = e->WaitTime,
		.MaxRecursionDepth = e->MaxRecursionDepth,
		.ThreadId = exp_thread_id(e->OwnerThread),
		.Resource = (uint64_t)(uintptr_t)r,
		.Action = action,
		.ContentionDelta = r->ContentionCount - e->ContentionAtAcquire,
	};
	memset(e, 0, sizeof(*e));
	r->ActiveEntries--;
}
