/*
 * profile.h - profile objects (KPROFILE) and the NtCreateProfile family:
 * the interface.
 *
 * A profile object says what to do with a profile interrupt from one
 * KPROFILE_SOURCE: a basic object (Type ProfileObject, 0x17) counts the
 * interrupted instruction pointer into a bucket histogram when it lies in
 * [RangeBase, RangeLimit) on a CPU of its Affinity; a callback object
 * (Type ProfileCallbackObject, 0x11) calls Callback(trap frame, Context).
 * A started object is on the global list or, when it has a Process, on
 * that process's ProfileListHead; ke_profile_interrupt_with_source() walks
 * the global list and the current process's list on every profile
 * interrupt (docs/profile.md).
 *
 * Interrupt sources (the profile timer, performance counters) are started
 * on a CPU while at least one started object of that source includes the
 * CPU in its affinity; kernel/profile/source.h does that.
 *
 * Where each call may run: the nt_* and ke_*_profile calls at
 * PASSIVE_LEVEL in a thread (they wait for every CPU); the interrupt entry
 * at PROFILE_LEVEL on the interrupted CPU.
 */
#ifndef KPROF_KERNEL_PROFILE_PROFILE_H
#define KPROF_KERNEL_PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <arch/trapframe.h>

#include "kernel/ke/affinity.h"
#include "kernel/lib/list.h"
#include "kernel/ke/ntstatus.h"
#include "kernel/sched/ketypes.h"

/* KOBJECTS values of the two kinds (docs/etw-records.md). */
#define ProfileCallbackObject 0x11
#define ProfileObject         0x17

/* NtCreateProfile's BucketSize is log2 of the bucket size in bytes. */
#define PROFILE_MIN_BUCKET_SIZE 2  /* 4-byte buckets: one count per ULONG  */
#define PROFILE_MAX_BUCKET_SIZE 31 /* 2 GiB buckets                       */

typedef void (*PKPROFILE_CALLBACK)(KTRAP_FRAME *TrapFrame, void *Context);

typedef struct _KPROFILE {
	int16_t Type;                 /* ProfileObject or ProfileCallbackObject */
	int16_t Size;                 /* sizeof(KPROFILE)                       */
	LIST_ENTRY ProfileListEntry;  /* on its list while Started              */
	KPROCESS *Process;            /* NULL: on the global list               */
	union {
		struct {              /* ProfileObject                          */
			uintptr_t RangeBase;  /* inclusive start                */
			uintptr_t RangeLimit; /* NON-inclusive end              */
			uint32_t BucketShift; /* log2(bucket bytes) - 2         */
			uint32_t *Buffer;     /* the counts                     */
			uint32_t Segment;     /* always 0 here (no V86)         */
		};
		struct {              /* ProfileCallbackObject                  */
			PKPROFILE_CALLBACK Callback;
			void *Context;
		};
	};
	KAFFINITY_EX Affinity;        /* CPUs whose interrupts it takes         */
	int16_t Source;               /* KPROFILE_SOURCE                        */
	bool Started;
	/* kprof's own bookkeeping (not in Windows' KPROFILE): */
	uint32_t BufferSize;          /* bytes at Buffer                        */
	uint64_t Hits;                /* interrupts it counted or called for    */
	uint32_t ProfileId;           /* unique, for records and reports        */
} KPROFILE;

/*
 * NtCreateProfileEx: a basic profile object, not started.
 *   Process      NULL for a global object, else only that process counts.
 *   RangeBase, RangeSize   the profiled range; RangeLimit = base + size.
 *   BucketSize   log2 of the bucket size in bytes, 2..31.
 *   Buffer, BufferSize     where the counts go; must hold one 32-bit count
 *                per bucket up to the last byte of the range:
 *                ((((RangeSize - 1) >> (BucketSize - 2)) & ~3) + 4 bytes.
 *   Source       KPROFILE_SOURCE.
 *   Affinity     the CPUs profiled; NULL = every CPU.
 * Statuses, checked in this order:
 *   STATUS_INVALID_PARAMETER_2  RangeSize 0
 *   STATUS_BUFFER_OVERFLOW      RangeBase + RangeSize wraps the address space
 *   STATUS_INVALID_PARAMETER    BucketSize outside 2..31
 *   STATUS_INVALID_PARAMETER_5  Buffer NULL or not 4-byte aligned
 *   STATUS_BUFFER_TOO_SMALL     BufferSize below the size above
 *   STATUS_INVALID_PARAMETER_7  Source >= ProfileMaximum (unknown source)
 *   STATUS_NOT_SUPPORTED        a source this machine cannot provide
 *   STATUS_INVALID_PARAMETER_8  Affinity empty or naming a CPU not online
 *   STATUS_INSUFFICIENT_RESOURCES no memory
 * On success *Profile is the new object.
 */
NTSTATUS nt_create_profile_ex(KPROFILE **Profile, KPROCESS *Process, uintptr_t RangeBase, size_t RangeSize,
			      uint32_t BucketSize, uint32_t *Buffer, uint32_t BufferSize, int16_t Source,
			      const KAFFINITY_EX *Affinity);
/* NtCreateProfile: the same on every CPU. */
NTSTATUS nt_create_profile(KPROFILE **Profile, KPROCESS *Process, uintptr_t RangeBase, size_t RangeSize,
			   uint32_t BucketSize, uint32_t *Buffer, uint32_t BufferSize, int16_t Source);
/* A callback object (the kernel's own, as Windows' built-in ones):
 * Callback(trap frame, Context) on every interrupt of Source on a CPU of
 * Affinity (NULL = every CPU), in the interrupt, at PROFILE_LEVEL.
 * Statuses: STATUS_INVALID_PARAMETER (Callback NULL), and the Source and
 * Affinity ones above. */
NTSTATUS ke_create_callback_profile(KPROFILE **Profile, KPROCESS *Process, PKPROFILE_CALLBACK Callback,
				    void *Context, int16_t Source, const KAFFINITY_EX *Affinity);

/* NtStartProfile: start the object's source on its CPUs and put it on its
 * list.  STATUS_PROFILING_NOT_STOPPED if already started; a status from
 * ki_profile_source_acquire() (STATUS_NOT_SUPPORTED,
 * STATUS_PROFILING_AT_LIMIT, ...) leaves it stopped. */
NTSTATUS nt_start_profile(KPROFILE *Profile);
/* NtStopProfile: off its list; when it returns no CPU is still in the
 * object (its buffer may be read or freed).  STATUS_PROFILING_NOT_STARTED
 * if it was not started. */
NTSTATUS nt_stop_profile(KPROFILE *Profile);
/* Stop it if started, and free the object (not the caller's buffer). */
void ke_delete_profile(KPROFILE *Profile);

/* NtSetIntervalProfile / NtQueryIntervalProfile: per source, for every
 * CPU.  ProfileTime in 100 ns units; counter sources in events.  See
 * kernel/profile/source.h for the ranges and statuses. */
NTSTATUS nt_set_interval_profile(uint32_t Interval, int16_t Source);
NTSTATUS nt_query_interval_profile(int16_t Source, uint32_t *Interval);

/* KeProfileInterruptWithSource: a profile interrupt from Source on this
 * CPU; tf is the interrupted state.  PROFILE_LEVEL, interrupts may be on
 * (nothing here is re-entered: every profile source interrupts at
 * PROFILE_LEVEL). */
void ke_profile_interrupt_with_source(KTRAP_FRAME *tf, int16_t Source);

/* For tests and reports: profile interrupts dispatched on this CPU. */
uint64_t ke_profile_interrupt_count(uint32_t cpu);

/* ---- kprof-internal: between profile.c and profile_dispatch.c only ---- */
/* Started global objects (profile.c); walked without a lock. */
extern LIST_ENTRY KiProfileListHead;
/* Link an entry at the tail of head / unlink it, so that a walker in
 * ke_profile_interrupt_with_source() at the same time is never misled
 * (profile_dispatch.c has the invariant).  Caller holds profile.c's
 * KiProfileLock; an unlinked entry may be reused or freed only after a
 * grace period (ke_run_on_all_processors). */
void ki_profile_list_insert(LIST_ENTRY *head, LIST_ENTRY *entry);
void ki_profile_list_unlink(LIST_ENTRY *entry);

#endif /* KPROF_KERNEL_PROFILE_PROFILE_H */
