/*
 * profile.c - profile objects (KPROFILE): NtCreateProfile(Ex), the
 * kernel's own callback objects, NtStartProfile, NtStopProfile, deletion,
 * and NtSet/QueryIntervalProfile.  profile.h has the contract, including
 * the order in which the creation statuses are checked; the interrupt
 * side is profile_dispatch.c.
 *
 * Invariants:
 *   - A started object (Started) is linked on KiProfileListHead when its
 *     Process is NULL, else on Process->ProfileListHead, and holds one use
 *     of its Source on every CPU of its Affinity (kernel/profile/source.h).
 *     A stopped object is on no list and holds no use.  Only a
 *     KiProfileMutex holder sees the steps in between (acquire, then link;
 *     unlink, grace period, then release).
 *   - Everything but Started and Hits is set before the object is first
 *     linked and never changes: the interrupt reads it without a lock.
 *   - The lists are changed only through ki_profile_list_insert/unlink,
 *     under KiProfileLock; ke_profile_interrupt_with_source() walks them
 *     with no lock (profile_dispatch.c: publication and grace period).
 *   - nt_stop_profile returns only after a grace period that began after
 *     the unlink, so no CPU still counts into the object's buffer or walks
 *     through its entry: the caller may free either.
 *
 * Locks, in order (the interrupt path takes none):
 *   KiProfileMutex  a synchronization event used as a mutex (as Windows'
 *                   ExpProfileMutex), waited for at PASSIVE_LEVEL: one
 *                   start, stop, delete or interval change at a time,
 *                   with the waits they make on every CPU (the source
 *                   layer, ke_run_on_all_processors) inside it.
 *   KiProfileLock   raw, interrupts off: the links of every profile list;
 *                   held only to link or unlink one entry, nothing else
 *                   taken or waited for inside.
 */
#include "kernel/profile/profile.h"

#include "kernel/sched/broadcast.h"
#include "kernel/mm/heap.h"
#include "kernel/ke/irql.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/prcb.h"
#include "kernel/profile/source.h"
#include "kernel/ke/rawlock.h"
#include "kernel/sched/sched.h"

_Static_assert(sizeof(KPROFILE) <= INT16_MAX, "KPROFILE.Size is 16 bits");

LIST_ENTRY KiProfileListHead = { &KiProfileListHead, &KiProfileListHead };
static raw_lock_t KiProfileLock = RAW_LOCK_INIT;
/* ke_initialize_event(SynchronizationEvent, signaled), done statically:
 * signaled = free. */
static KEVENT KiProfileMutex = {
	.Header = {
		.Type = EventSynchronizationObject,
		.SignalState = 1,
		.WaitListHead = { &KiProfileMutex.Header.WaitListHead, &KiProfileMutex.Header.WaitListHead },
	},
};
static uint32_t next_profile_id = 1;

/* ---------------------------------------------------------------- locks */

static void profile_mutex_acquire(void)
{
	KASSERT(ke_get_current_irql() < DISPATCH_LEVEL);
	ke_wait_for_single_object(&KiProfileMutex, Executive, KernelMode, KE_WAIT_FOREVER);
}

static void profile_mutex_release(void)
{
	ke_set_event(&KiProfileMutex, 0, false);
}

/* ---------------------------------------------------------------- validation */

/* Whether buffer_size bytes hold the count for the last byte of the range:
 * ((((range_size - 1) >> (bucket_size - 2)) & ~3) + 4 bytes, compared
 * without forming the sum (it is 2^64 for a range of the whole space). */
static bool buffer_big_enough(size_t range_size, uint32_t bucket_size, uint32_t buffer_size)
{
	uint64_t last = ((uint64_t)(range_size - 1) >> (bucket_size - 2)) & ~(uint64_t)3;

	return buffer_size >= 4 && last <= (uint64_t)buffer_size - 4;
}

/* The range, bucket and buffer arguments, in the header's order. */
static NTSTATUS check_range(uintptr_t base, size_t size, uint32_t bucket_size, const uint32_t *buffer,
			    uint32_t buffer_size)
{
	uintptr_t limit;

	if (size == 0)
		return STATUS_INVALID_PARAMETER_2;
	if (__builtin_add_overflow(base, size, &limit))
		return STATUS_BUFFER_OVERFLOW;
	if (bucket_size < PROFILE_MIN_BUCKET_SIZE || bucket_size > PROFILE_MAX_BUCKET_SIZE)
		return STATUS_INVALID_PARAMETER;
	if (!buffer || ((uintptr_t)buffer & 3))
		return STATUS_INVALID_PARAMETER_5;
	if (!buffer_big_enough(size, bucket_size, buffer_size))
		return STATUS_BUFFER_TOO_SMALL;
	return STATUS_SUCCESS;
}

static NTSTATUS check_source(int16_t source)
{
	if (source < 0 || source >= ProfileMaximum)
		return STATUS_INVALID_PARAMETER_7;
	if (!ki_profile_source_supported(source))
		return STATUS_NOT_SUPPORTED;
	return STATUS_SUCCESS;
}

/* *out = the CPUs to profile: `in`, or every online CPU when NULL. */
static NTSTATUS check_affinity(const KAFFINITY_EX *in, KAFFINITY_EX *out)
{
	uint32_t online = __atomic_load_n(&ke_number_processors, __ATOMIC_RELAXED);

	if (in)
		*out = *in;
	else
		affinity_set_first(out, online);
	if (affinity_empty(out) || affinity_next(out, online) < KPROF_MAX_CPUS)
		return STATUS_INVALID_PARAMETER_8;
	return STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- creation */

/* A stopped object of `type` with the fields common to both kinds, or
 * NULL when out of memory. */
static KPROFILE *profile_alloc(int16_t type, KPROCESS *process, int16_t source, const KAFFINITY_EX *affinity)
{
	KPROFILE *p = kzalloc(sizeof(*p));

	if (!p)
		return NULL;
	p->Type = type;
	p->Size = (int16_t)sizeof(*p);
	list_init(&p->ProfileListEntry);
	p->Process = process;
	p->Affinity = *affinity;
	p->Source = source;
	p->ProfileId = __atomic_fetch_add(&next_profile_id, 1, __ATOMIC_RELAXED);
	return p;
}

NTSTATUS nt_create_profile_ex(KPROFILE **Profile, KPROCESS *Process, uintptr_t RangeBase, size_t RangeSize,
			      uint32_t BucketSize, uint32_t *Buffer, uint32_t BufferSize, int16_t Source,
			      const KAFFINITY_EX *Affinity)
{
	KAFFINITY_EX cpus;
	NTSTATUS st;

	KASSERT(Profile);
	st = check_range(RangeBase, RangeSize, BucketSize, Buffer, BufferSize);
	if (NT_SUCCESS(st))
		st = check_source(Source);
	if (NT_SUCCESS(st))
		st = check_affinity(Affinity, &cpus);
	if (!NT_SUCCESS(st))
		return st;

	KPROFILE *p = profile_alloc(ProfileObject, Process, Source, &cpus);
	if (!p)
		return STATUS_INSUFFICIENT_RESOURCES;
	p->RangeBase = RangeBase;
	p->RangeLimit = RangeBase + RangeSize;
	p->BucketShift = BucketSize - 2;
	p->Buffer = Buffer;
	p->Segment = 0;
	p->BufferSize = BufferSize;
	*Profile = p;
	return STATUS_SUCCESS;
}

NTSTATUS nt_create_profile(KPROFILE **Profile, KPROCESS *Process, uintptr_t RangeBase, size_t RangeSize,
			   uint32_t BucketSize, uint32_t *Buffer, uint32_t BufferSize, int16_t Source)
{
	return nt_create_profile_ex(Profile, Process, RangeBase, RangeSize, BucketSize, Buffer, BufferSize, Source,
				    NULL);
}

NTSTATUS ke_create_callback_profile(KPROFILE **Profile, KPROCESS *Process, PKPROFILE_CALLBACK Callback,
				    void *Context, int16_t Source, const KAFFINITY_EX *Affinity)
{
	KAFFINITY_EX cpus;
	NTSTATUS st;

	KASSERT(Profile);
	st = Callback ? check_source(Source) : STATUS_INVALID_PARAMETER;
	if (NT_SUCCESS(st))
		st = check_affinity(Affinity, &cpus);
	if (!NT_SUCCESS(st))
		return st;

	KPROFILE *p = profile_alloc(ProfileCallbackObject, Process, Source, &cpus);
	if (!p)
		return STATUS_INSUFFICIENT_RESOURCES;
	p->Callback = Callback;
	p->Context = Context;
	*Profile = p;
	return STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- start, stop */

static LIST_ENTRY *list_of(const KPROFILE *p)
{
	return p->Process ? &p->Process->ProfileListHead : &KiProfileListHead;
}

/* KiProfileMutex held. */
static NTSTATUS start_locked(KPROFILE *p)
{
	if (p->Started)
		return STATUS_PROFILING_NOT_STOPPED;
	NTSTATUS st = ki_profile_source_acquire(p->Source, &p->Affinity);
	if (!NT_SUCCESS(st))
		return st;

	unsigned long flags = raw_lock_irqsave(&KiProfileLock);
	ki_profile_list_insert(list_of(p), &p->ProfileListEntry);
	p->Started = true;
	raw_unlock_irqrestore(&KiProfileLock, flags);
	return STATUS_SUCCESS;
}

/* The grace period: a DPC on every CPU, which each runs only after leaving
 * any profile interrupt it was in. */
static void profile_quiesce(uint32_t cpu, void *ctx)
{
}

/* KiProfileMutex held. */
static NTSTATUS stop_locked(KPROFILE *p)
{
	if (!p->Started)
		return STATUS_PROFILING_NOT_STARTED;

	unsigned long flags = raw_lock_irqsave(&KiProfileLock);
	ki_profile_list_unlink(&p->ProfileListEntry);
	p->Started = false;
	raw_unlock_irqrestore(&KiProfileLock, flags);

	ke_run_on_all_processors(profile_quiesce, NULL);
	ki_profile_source_release(p->Source, &p->Affinity);
	return STATUS_SUCCESS;
}

NTSTATUS nt_start_profile(KPROFILE *Profile)
{
	KASSERT(Profile);
	profile_mutex_acquire();
	NTSTATUS st = start_locked(Profile);
	profile_mutex_release();
	return st;
}

NTSTATUS nt_stop_profile(KPROFILE *Profile)
{
	KASSERT(Profile);
	profile_mutex_acquire();
	NTSTATUS st = stop_locked(Profile);
	profile_mutex_release();
	return st;
}

void ke_delete_profile(KPROFILE *Profile)
{
	if (!Profile)
		return;
	profile_mutex_acquire();
	if (Profile->Started)
		stop_locked(Profile);
	profile_mutex_release();
	kfree(Profile);
}

/* ---------------------------------------------------------------- intervals */

static bool source_known(int16_t source)
{
	return source >= 0 && source < ProfileMaximum;
}

NTSTATUS nt_set_interval_profile(uint32_t Interval, int16_t Source)
{
	if (!source_known(Source))
		return STATUS_INVALID_PARAMETER;
	profile_mutex_acquire();
	NTSTATUS st = ki_profile_source_set_interval(Source, Interval);
	profile_mutex_release();
	return st;
}

NTSTATUS nt_query_interval_profile(int16_t Source, uint32_t *Interval)
{
	if (!Interval)
		return STATUS_INVALID_PARAMETER;
	*Interval = 0;
	if (!source_known(Source))
		return STATUS_INVALID_PARAMETER;
	if (!ki_profile_source_supported(Source))
		return STATUS_NOT_SUPPORTED;
	*Interval = ki_profile_source_interval(Source);
	return STATUS_SUCCESS;
}
