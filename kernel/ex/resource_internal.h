/*
 * resource_internal.h - what the ERESOURCE files share (exp_ helpers, as
 * NT's Exp routines).  resource.h has the rules, invariants and lock order.
 *
 * Every exp_ function expects the resource's SpinLock held unless it says
 * otherwise; the ones that drop and retake it say so.
 */
#ifndef KPROF_KERNEL_EX_RESOURCE_INTERNAL_H
#define KPROF_KERNEL_EX_RESOURCE_INTERNAL_H

#include "kernel/ex/resource.h"
#include "kernel/ke/irql.h"
#include "include/kprof/wmi.h"

static inline void exp_lock(ERESOURCE *r, KLOCK_QUEUE_HANDLE *h)
{
	ke_acquire_in_stack_queued_spin_lock(&r->SpinLock, h);
}

static inline void exp_unlock(KLOCK_QUEUE_HANDLE *h)
{
	ke_release_in_stack_queued_spin_lock(h);
}

/* Not locked: bug check IRQL_NOT_LESS_OR_EQUAL when IRQL is above limit. */
void exp_check_irql(const char *fn, const ERESOURCE *r, KIRQL limit);

/* ---- owner entries (resource_owner.c) ---- */
/* t's entry (the exclusive owner's is OwnerEntry), or NULL. */
OWNER_ENTRY *exp_find_owner(ERESOURCE *r, const KTHREAD *t);
/* A free entry for a sharer, or NULL when the table is full. */
OWNER_ENTRY *exp_free_entry(ERESOURCE *r);
/* The table is full: drops the SpinLock, allocates a bigger table,
 * retakes the lock and installs it (unless someone grew it meanwhile).
 * Returns with the lock held; every OWNER_ENTRY pointer is stale. */
void exp_grow_owner_table(ERESOURCE *r, KLOCK_QUEUE_HANDLE *h);
/* Owner entries provided for: OwnerEntry plus the table's entries. */
uint32_t exp_capacity(const ERESOURCE *r);
/* A hold begins: e becomes t's, count 1, its tracking set. */
void exp_start_hold(ERESOURCE *r, OWNER_ENTRY *e, KTHREAD *t, uint64_t now, uint64_t wait_cycles);
/* One more acquisition by the owner of e. */
void exp_recurse(OWNER_ENTRY *e);
/* A hold ends (count 0): its release record into *w, e freed. */
void exp_end_hold(ERESOURCE *r, OWNER_ENTRY *e, uint32_t action, uint64_t now, WMI_RESOURCE *w);

/* ---- hand-over (resource_release.c) ---- */
/* Let every registered shared waiter in (not owned exclusive then). */
void exp_grant_shared(ERESOURCE *r);
/* Let one exclusive waiter in; no owner left (ActiveCount 0). */
void exp_grant_exclusive(ERESOURCE *r);

/* ---- waiting (resource_wait.c) ---- */
#define EXP_NO_DEADLINE UINT64_MAX

struct exp_wait {
	bool exclusive;          /* which waiters it is registered with      */
	uint64_t start;          /* TSC when it registered                   */
	uint32_t contention;     /* ContentionCount just after registering   */
	uint64_t deadline;       /* TSC when the caller gives up, or none    */
};

/* Register the current thread as a waiter (locked); fills *w. */
void exp_register_waiter(ERESOURCE *r, struct exp_wait *w, uint64_t timeout_us);
/* Not locked: wait until let in (true; the caller then claims) or the
 * deadline passed (false; registration undone). */
bool exp_wait_for_resource(ERESOURCE *r, struct exp_wait *w);

/* ---- records (resource_trace.c), not locked ---- */
void exp_trace(enum ex_resource_event e, const WMI_RESOURCE *w);
uint32_t exp_thread_id(const KTHREAD *t);
void exp_count_boost(void);
void exp_count_resources(int delta);

#endif /* KPROF_KERNEL_EX_RESOURCE_INTERNAL_H */
