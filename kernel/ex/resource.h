/*
 * resource.h - executive resources (ERESOURCE): reader/writer locks that
 * threads wait on, modelled on NT's ExXxxResourceLite, and their
 * PERFINFO_LOG_TYPE_RESOURCE records (WMI_RESOURCE, docs/etw-records.md).
 *
 * A resource is owned exclusively by one thread or shared by any number;
 * owners may acquire it again (recursion) and release it as often.
 *
 *   - Below DISPATCH_LEVEL to acquire, delete or reinitialise (a bug
 *     check otherwise); at or below it to release, convert or query.
 *   - Recursion: the exclusive owner may acquire it again, exclusive or
 *     shared (both count as exclusive recursion); a shared owner may
 *     acquire it shared again even while exclusive waiters wait.  A
 *     shared owner that would wait for exclusive ownership waits for
 *     itself: NT deadlocks there, kprof bug-checks (KPROF_ASSERTION_FAILED
 *     with a message; asking without waiting just fails).  Releasing or
 *     converting what the thread does not own is bug check
 *     RESOURCE_NOT_OWNED; deleting an owned resource, or reinitialising
 *     one that threads wait for, is KPROF_ASSERTION_FAILED.
 *   - Fairness: exclusive waiters go before new sharers; only
 *     ex_acquire_shared_starve_exclusive() and recursive sharers pass
 *     them.  When the exclusive owner leaves, every shared waiter is let
 *     in (if any), else one exclusive waiter; when the last sharer leaves,
 *     one exclusive waiter.  So neither kind starves the other.
 *   - Hand-over: the releaser makes the waiters owners (ActiveCount, the
 *     exclusive flag) under the SpinLock and signals SharedWaiters (one
 *     count per shared waiter let in) or ExclusiveWaiters (a
 *     synchronization event) before dropping it.  Like NT, a grant is
 *     anonymous: whichever registered waiter takes the count or the event
 *     is an owner, and records itself in an owner entry ("claims") when it
 *     next holds the SpinLock.
 *   - Waiting (resource_wait.c) happens in slices of the excessive-wait
 *     interval (NT's ExpTimeout, 4 s; resource.timeout_ms=, applied at
 *     boot with ex_resource_set_timeout): a slice that ends without ownership is an
 *     excessive wait, recorded, and the owners are boosted
 *     (ke_boost_owner_thread); the thread then waits again.  The
 *     ..._timeout calls end at the caller's time-out: recorded the same
 *     way, the registration undone, STATUS_TIMEOUT, unless a release
 *     handed the resource over at that very moment: then the caller owns
 *     it and gets STATUS_SUCCESS.
 *
 * Invariants (under SpinLock), with U the registered waiters that have not
 * claimed ownership yet, of one kind:
 *   U = NumberOf...Waiters (not let in yet) + ...Grants (let in, unclaimed)
 *   ...Grants = counts in the semaphore / the event's state + the counts
 *               taken by waiters that have not claimed yet
 * so a waiter whose wait ended without a count, finding NumberOf...Waiters
 * 0, is sure to find one by polling: it was let in.  Further:
 *   ActiveCount = owning threads + unclaimed shared grants (exclusive: 1);
 *   ActiveCount == 0 implies no waiters (a release lets them in);
 *   Flag & ResourceOwnedExclusive with OwnerEntry.OwnerThread NULL: an
 *   exclusive grant not claimed yet;
 *   an owner entry is in use iff OwnerThread != NULL, and then its
 *   OwnerCount >= 1; the exclusive owner is always in OwnerEntry, so
 *   exclusive ownership is only ever granted with no owner in any entry.
 *
 * Lock order: a resource's SpinLock (in-stack queued, DISPATCH_LEVEL),
 * then the dispatcher lock (signalling, polling and boosting are done
 * holding it: that is what makes the grant and its signal one step).
 * ExpResourceListLock (the list of all resources) is taken alone.  Owner
 * tables are allocated and freed with no spin lock held.
 *
 * The records (only when PERF_SYNC_OBJECTS is on; every one, no sampling;
 * none for deletion or acquisition, which are tracked in memory only):
 *   Initialize (0x00010008): times 0, MaxRecursionDepth 0,
 *     ContentionDelta 0, ThreadId the caller, Resource its address.
 *   Reinitialize (0x00010018): times 0; MaxRecursionDepth the owner
 *     entries provided for (OwnerEntry plus the table: its TableSize, or 1
 *     with no table); ContentionDelta the owning threads (ActiveCount).
 *   CompleteReleaseExclusive / Shared (0x00010022 / 0x00010042): when a
 *     hold ends (its recursion count reaches 0), by the kind of ownership
 *     at that moment (a hold converted to shared is a shared release).
 *     AcquireTime: TSC of the hold's outermost acquisition (for a waiter:
 *     when it claimed ownership); HoldTime: TSC at release - AcquireTime;
 *     WaitTime: cycles from registering as a waiter to AcquireTime (0 if
 *     it did not wait); MaxRecursionDepth: the deepest recursion count of
 *     the hold (>= 1); ThreadId: the owner (also when another thread
 *     releases for it); ContentionDelta: ContentionCount at release - at
 *     AcquireTime.
 *   WaitExcessiveForExclusive / Shared (0x00010224 / 0x00010244): a wait
 *     slice ended without ownership (also the last one, at the caller's
 *     time-out; not one that ended as the resource was handed over, which
 *     is an acquisition).  AcquireTime, HoldTime and
 *     MaxRecursionDepth 0; WaitTime: cycles since the wait began; ThreadId
 *     the waiter; ContentionDelta: ContentionCount now - when it began.
 * ContentionCount counts acquisitions that had to wait (it is raised when
 * a waiter registers, so a wait's own contention is not in its deltas).
 * Times are TSC cycles taken under the SpinLock; the record itself is
 * written after the SpinLock is released, so its TimeStamp is later.
 */
#ifndef KPROF_KERNEL_EX_RESOURCE_H
#define KPROF_KERNEL_EX_RESOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/list.h"
#include "kernel/locks/spinlock.h"
#include "kernel/ke/ntstatus.h"
#include "kernel/sched/ketypes.h"

/* One owner (OwnerThread, OwnerCount as NT's OWNER_ENTRY), and kprof's
 * tracking of its hold, which becomes the release record. */
typedef struct _OWNER_ENTRY {
	KTHREAD *OwnerThread;         /* the owner; NULL: entry free               */
	union {
		int32_t OwnerCount;   /* acquisitions not yet released (>= 1)      */
		uint32_t TableSize;   /* OwnerTable[0] only: entries in the table  */
	};
	uint32_t MaxRecursionDepth;   /* deepest OwnerCount of this hold           */
	uint64_t AcquireTime;         /* TSC of the outermost acquisition          */
	uint64_t WaitTime;            /* cycles waited before it (0: at once)      */
	uint32_t ContentionAtAcquire; /* ERESOURCE.ContentionCount at AcquireTime  */
	uint32_t Reserved;
} OWNER_ENTRY;

/* Flag bits (NT's values). */
#define ResourceOwnedExclusive 0x0080u

/* Fields are guarded by SpinLock unless marked otherwise. */
typedef struct _ERESOURCE {
	LIST_ENTRY SystemResourcesList;  /* [ExpResourceListLock] all resources       */
	OWNER_ENTRY *OwnerTable;         /* more sharers: [0].TableSize, then entries */
	uint32_t ActiveCount;            /* owners, see the invariants (NT: SHORT)    */
	uint16_t Flag;                   /* ResourceOwnedExclusive                    */
	uint16_t Reserved;
	KSEMAPHORE SharedWaiters;        /* one count per shared waiter let in        */
	KEVENT ExclusiveWaiters;         /* synchronization: one exclusive waiter     */
	OWNER_ENTRY OwnerEntry;          /* the exclusive owner, or one sharer        */
	uint32_t ActiveEntries;          /* owner entries in use                      */
	uint32_t ContentionCount;        /* acquisitions that had to wait (wraps)     */
	uint32_t NumberOfSharedWaiters;  /* registered, not let in yet                */
	uint32_t NumberOfExclusiveWaiters;
	uint32_t SharedGrants;           /* kprof: let in, not claimed yet            */
	uint32_t ExclusiveGrants;        /* kprof: the same, 0 or 1                   */
	KSPIN_LOCK SpinLock;             /* in-stack queued                           */
} ERESOURCE;

/* ---- life ---- */
/* Name the package's own lock (ExpResourceListLock) for the trace; at boot,
 * before the trace starts: its rundown writes the name. */
void ex_resource_name_objects(void);
NTSTATUS ex_initialize_resource_lite(ERESOURCE *r);
/* Forget every owner (no release records); no thread may be waiting. */
NTSTATUS ex_reinitialize_resource_lite(ERESOURCE *r);
/* Neither owned nor waited on. */
NTSTATUS ex_delete_resource_lite(ERESOURCE *r);

/* ---- acquiring: true when owned; `wait` false: only if at once ---- */
bool ex_acquire_resource_shared_lite(ERESOURCE *r, bool wait);
bool ex_acquire_resource_exclusive_lite(ERESOURCE *r, bool wait);
/* Shared even while exclusive waiters wait (not while an exclusive owner). */
bool ex_acquire_shared_starve_exclusive(ERESOURCE *r, bool wait);
/* Shared, but a thread that already shares it lets exclusive waiters go
 * first: it waits until another thread releases its share for it
 * (ex_release_resource_for_thread_lite), or it deadlocks, as in NT. */
bool ex_acquire_shared_wait_for_exclusive(ERESOURCE *r, bool wait);
bool ex_try_to_acquire_resource_exclusive_lite(ERESOURCE *r);
/* kprof: wait at most timeout_us microseconds (0: do not wait;
 * KE_WAIT_FOREVER: as the ..._lite calls), counted from when the wait
 * begins.  STATUS_SUCCESS (owned) or STATUS_TIMEOUT. */
NTSTATUS ex_acquire_resource_shared_timeout(ERESOURCE *r, uint64_t timeout_us);
NTSTATUS ex_acquire_resource_exclusive_timeout(ERESOURCE *r, uint64_t timeout_us);

/* ---- releasing ---- */
void ex_convert_exclusive_to_shared_lite(ERESOURCE *r);
void ex_release_resource_lite(ERESOURCE *r);
void ex_release_resource_for_thread_lite(ERESOURCE *r, KTHREAD *thread);

/* ---- queries (about the current thread) ---- */
bool ex_is_resource_acquired_exclusive_lite(ERESOURCE *r);
/* Its recursion count, shared or exclusive; 0 if it does not own r. */
uint32_t ex_is_resource_acquired_shared_lite(ERESOURCE *r);
uint32_t ex_get_exclusive_waiter_count(ERESOURCE *r);
uint32_t ex_get_shared_waiter_count(ERESOURCE *r);

/* ---- kprof's counts of records, by kind ---- */
enum ex_resource_event {
	ExResourceInitialize,
	ExResourceReinitialize,
	ExResourceReleaseExclusive,
	ExResourceReleaseShared,
	ExResourceWaitExcessiveExclusive,
	ExResourceWaitExcessiveShared,
	ExResourceEventCount
};
struct ex_resource_counts {
	uint64_t Events[ExResourceEventCount];  /* happened (traced or not)        */
	uint64_t Traced[ExResourceEventCount];  /* records the trace accepted      */
	uint64_t OwnerBoosts;                   /* owners raised after a slice     */
	uint64_t Resources;                     /* on the list now                 */
};
void ex_resource_get_counts(struct ex_resource_counts *c);
uint32_t ex_resource_action(enum ex_resource_event e);

/* The excessive-wait interval, ms (0 counts as 1): set at boot from
 * resource.timeout_ms=, and by a workload for its own run (scenario=mix
 * sets a tenth of mix.ms).  A wait already in a slice keeps its slice. */
void ex_resource_set_timeout(uint32_t ms);
uint32_t ex_resource_timeout(void);

#endif /* KPROF_KERNEL_EX_RESOURCE_H */
