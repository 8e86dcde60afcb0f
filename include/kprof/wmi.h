/*
 * wmi.h - the NT Kernel Logger records kprof writes, byte for byte.
 *
 * Shared by the kernel (which writes them into per-CPU trace buffers) and
 * the host tool (which decodes them and writes ETL and CTF).  Layouts,
 * hook ids, versions, group masks and enumerations are Windows' as
 * docs/etw-records.md gives them, with the public source of each;
 * names are Microsoft's so the code can be held against them.  Every size
 * and offset there is checked below at compile time.
 *
 * All records are x64 and little-endian: a PERFINFO_TRACE_HEADER, then the
 * payload.  Records start 8-byte aligned in a buffer; Size is the header
 * plus payload without the alignment padding.
 */
#ifndef KPROF_WMI_H
#define KPROF_WMI_H

#include <stddef.h>
#include <stdint.h>

#include "include/kprof/lateness.h"

/* ---------------------------------------------------------------- header */

typedef struct _PERFINFO_TRACE_HEADER {
	uint32_t Marker;   /* flags, header type, PMC count, event version    */
	uint16_t Size;     /* header + inserted data + payload, in bytes      */
	uint16_t HookId;   /* (group << 8) | type                             */
	uint64_t TimeStamp;/* TSC                                             */
} PERFINFO_TRACE_HEADER;

#define TRACE_HEADER_FLAG           0x80000000u
#define TRACE_HEADER_EVENT_TRACE    0x40000000u
#define TRACE_HEADER_TYPE_PERFINFO32 0x10u
#define TRACE_HEADER_TYPE_PERFINFO64 0x11u
#define PERFINFO_MARKER_64          0xC0110000u /* FLAG | EVENT_TRACE | PERFINFO64 << 16 */
#define PERFINFO_MARKER_VERSION(m)  ((m) & 0xFFu)
#define PERFINFO_MARKER_PMC_COUNT(m) (((m) >> 8) & 0x7u)
#define PERFINFO_MARKER_TYPE(m)     (((m) >> 16) & 0xFFu)
#define PERFINFO_RECORD_ALIGN       8

static inline uint32_t perfinfo_marker(uint8_t version)
{
	return PERFINFO_MARKER_64 | version;
}

/* ---------------------------------------------------------------- hooks */

#define EVENT_TRACE_GROUP_THREAD    0x0500u
#define EVENT_TRACE_GROUP_PERFINFO  0x0F00u
#define EVENT_TRACE_GROUP_STACKWALK 0x1800u
#define EVENT_TRACE_GROUP_KPROF     0xFE00u /* kprof's own (not Windows)  */

#define PERFINFO_LOG_TYPE_CONTEXTSWAP     0x0524u
#define PERFINFO_LOG_TYPE_READY_THREAD    0x0532u
#define PERFINFO_LOG_TYPE_SPINLOCK        0x0529u
#define PERFINFO_LOG_TYPE_RESOURCE        0x052Bu
#define PERFINFO_LOG_TYPE_SAMPLED_PROFILE 0x0F2Eu
#define PERFINFO_LOG_TYPE_PMC_INTERRUPT   0x0F2Fu
#define PERFINFO_LOG_TYPE_STACKWALK       0x1820u
#define KPROF_LOG_TYPE_TRACETEST          0xFE01u /* scenario=tracetest pattern */
#define KPROF_LOG_TYPE_CLOCK_LATE         0xFE02u /* a late clock interrupt     */
#define KPROF_LOG_TYPE_PROFILE_OBJECT     0xFE03u /* a profile object's buckets */
#define KPROF_LOG_TYPE_THREAD             0xFE04u /* a thread: ids and names    */
#define KPROF_LOG_TYPE_SPINLOCK_CONFIG    0xFE05u /* spin-lock sampling in force */
#define KPROF_LOG_TYPE_RECORDS_LOST       0xFE06u /* records dropped before it  */
#define KPROF_LOG_TYPE_PHASE              0xFE07u /* a workload starts or ends  */
#define KPROF_LOG_TYPE_MEASURE            0xFE08u /* a self-measurement's span  */
#define KPROF_LOG_TYPE_SMI_COUNT          0xFE0Bu /* a CPU's SMIs over the trace */
#define KPROF_LOG_TYPE_CLOCK_STEP         0xFE0Cu /* the CPU's clock went back   */
#define KPROF_LOG_TYPE_CLOCK_CHECK        0xFE0Du /* the TSC watchdog's verdict  */
#define KPROF_LOG_TYPE_NOISE_GAP          0xFE0Eu /* scenario=noise: a CPU's gap */
#define KPROF_LOG_TYPE_NOISE_SCAN         0xFE0Fu /* scenario=noise: a CPU's pass */
#define KPROF_LOG_TYPE_TIMER_LATENCY      0xFE10u /* scenario=noise: timer lateness */
#define KPROF_LOG_TYPE_FIDELITY           0xFE11u /* what a CPU's figures are worth */
#define KPROF_LOG_TYPE_OBJECT_NAME        0xFEF0u /* a lock's or resource's name */

/* Event versions (the marker's low byte). */
#define CONTEXTSWAP_VERSION     4 /* Windows 10 1709 and later */
#define READY_THREAD_VERSION    2
#define SPINLOCK_VERSION        2
#define RESOURCE_VERSION        2
#define SAMPLED_PROFILE_VERSION 2
#define PMC_INTERRUPT_VERSION   2
#define STACKWALK_VERSION       2
#define TRACETEST_VERSION       1
#define PROFILE_OBJECT_VERSION  1
#define KPROF_THREAD_VERSION    2 /* 1: KPROF_THREAD_V1, names of 16 bytes */
#define SPINLOCK_CONFIG_VERSION 1
#define CLOCK_LATE_VERSION      1
#define RECORDS_LOST_VERSION    1
#define PHASE_VERSION           1
#define OBJECT_NAME_VERSION     1
#define MEASURE_VERSION         1
#define SMI_COUNT_VERSION       1
#define CLOCK_STEP_VERSION      1
#define CLOCK_CHECK_VERSION     1
#define NOISE_GAP_VERSION       1
#define NOISE_SCAN_VERSION      1
#define TIMER_LATENCY_VERSION   1
#define FIDELITY_VERSION        1

/* ---------------------------------------------------------------- groups */

/* kprof's profile object (hook 0xFE03): not a Windows event.  Written
 * when a basic profile object (KPROFILE, Type 0x17) is stopped, under
 * PERF_PROFILE: what it profiled and the histogram it collected, so that a
 * reader can hold the buckets against the samples.  Bucket i counts
 * interrupts whose instruction pointer ip had
 * RangeBase + (i << (BucketShift + 2)) <= ip < RangeBase + ((i + 1) << (BucketShift + 2)),
 * ip < RangeLimit, on a CPU of Affinity, from Source, in the object's
 * process when KPROF_PROFILE_OBJECT_PROCESS is set. */
typedef struct _KPROF_PROFILE_OBJECT {
	uint64_t RangeBase;                  /* inclusive                             */
	uint64_t RangeLimit;                 /* NON-inclusive end                     */
	uint64_t Hits;                       /* interrupts counted into Buckets       */
	uint32_t ProfileId;                  /* unique in the run                     */
	uint32_t ProcessId;                  /* with KPROF_PROFILE_OBJECT_PROCESS     */
	uint16_t Source;                     /* KPROFILE_SOURCE                       */
	uint8_t BucketShift;                 /* log2(bucket bytes) - 2                */
	uint8_t Flags;                       /* KPROF_PROFILE_OBJECT_*                */
	uint32_t BucketCount;                /* buckets in the object                 */
	uint64_t Affinity[4];                /* CPU n: bit n % 64 of word n / 64      */
	uint32_t Buckets[];                  /* counts (fewer than BucketCount when   */
	                                     /* TRUNCATED: the record's size limit)   */
} KPROF_PROFILE_OBJECT;

#define KPROF_PROFILE_OBJECT_PROCESS   0x01u /* per-process, else global      */
#define KPROF_PROFILE_OBJECT_TRUNCATED 0x02u /* Buckets[] stops early          */
#define KPROF_PROFILE_OBJECT_MAX_BUCKETS 8192

/* kprof's thread (hook 0xFE04): not a Windows event (Windows' Thread
 * start and rundown events carry more).  Written for every thread that
 * exists when the trace starts and for each one created later, so that a
 * reader can name the ThreadIds of the other records.  Version 2 carries
 * the kernel's whole thread name (KTHREAD.Name, 31 characters); version
 * 1, in logs of kernels before it, had 16 bytes, so longer names were cut
 * at 15 characters (KPROF_THREAD_V1, which readers still decode). */
typedef struct _KPROF_THREAD {
	uint32_t ThreadId;                   /* 0: an idle thread                     */
	uint32_t ProcessId;
	int8_t BasePriority;
	uint8_t Reserved[7];
	char ThreadName[32];                 /* NUL-terminated unless 32 long         */
	char ProcessName[16];                /* KPROCESS.ImageFileName                */
} KPROF_THREAD;

typedef struct _KPROF_THREAD_V1 {
	uint32_t ThreadId;
	uint32_t ProcessId;
	int8_t BasePriority;
	uint8_t Reserved[7];
	char ThreadName[16];                 /* NUL-terminated unless 16 long         */
	char ProcessName[16];
} KPROF_THREAD_V1;

/* kprof's spin-lock sampling parameters (hook 0xFE05): not a Windows
 * event.  EVENT_TRACE_SPINLOCK_INFORMATION's four values, written under
 * PERF_SPINLOCK when the trace starts and whenever
 * NtSetSystemInformation changes them, so that a reader can scale sampled
 * counts by the rates in force. */
typedef struct _KPROF_SPINLOCK_CONFIG {
	uint32_t SpinLockSpinThreshold;
	uint32_t SpinLockAcquireSampleRate;
	uint32_t SpinLockContentionSampleRate;
	uint32_t SpinLockHoldThreshold;
} KPROF_SPINLOCK_CONFIG;

/* kprof's object name (hook 0xFEF0): not a Windows event.  The name and
 * kind of a named spin lock or ERESOURCE at Object, the address its
 * SpinLock (SpinLockAddress) or Resource (Resource) records carry.
 * Written under the group of those records (PERF_SPINLOCK for the spin
 * locks, PERF_SYNC_OBJECTS for ERESOURCE) when the object is named and,
 * for every named object that exists when the trace starts, in a rundown
 * (Flags RUNDOWN); so an object may be named more than once, and the
 * latest record before a use names it.  An address may be named again
 * after its object is gone (an ERESOURCE on a stack). */
typedef struct _KPROF_OBJECT_NAME {
	uint64_t Object;                     /* PVOID                                 */
	uint8_t Kind;                        /* enum kprof_object_kind                */
	uint8_t Flags;                       /* KPROF_OBJECT_NAME_*                   */
	uint8_t Reserved[6];
	char Name[32];                       /* NUL-terminated unless 32 long         */
} KPROF_OBJECT_NAME;

enum kprof_object_kind {
	KprofObjectSpinLock = 0,             /* KSPIN_LOCK taken as an ordinary lock  */
	KprofObjectQueuedSpinLock = 1,       /* KSPIN_LOCK taken as a queued lock     */
	KprofObjectExecutiveSpinLock = 2,    /* EX_SPIN_LOCK                          */
	KprofObjectResource = 3,             /* ERESOURCE                             */
	KprofObjectKinds = 4
};

#define KPROF_OBJECT_NAME_RUNDOWN 0x01u /* written when the trace started */

/* A group mask names an index (top 3 bits) into PERFINFO_GROUPMASK.Masks
 * and the bits to test there. */
#define PERF_MASK_INDEX      0xE0000000u
#define PERF_MASK_GROUP      (~PERF_MASK_INDEX)
#define PERF_NUM_MASKS       8

#define PERF_PROFILE         0x20000002u
#define PERF_CONTEXT_SWITCH  0x20000004u
#define PERF_PMC_PROFILE     0x20000400u
#define PERF_SPINLOCK        0x20010000u
#define PERF_SYNC_OBJECTS    0x20020000u
/* kprof's own groups live at index 7, which Windows uses for control
 * flags, not event groups (docs/etw-records.md). */
#define PERF_KPROF_TRACETEST 0xE0000001u /* scenario=tracetest pattern records   */
#define PERF_KPROF_STACKWALK 0xE0000002u /* a stack walk after each sample      */
#define PERF_KPROF_CLOCK     0xE0000004u /* late clock interrupts               */
#define PERF_KPROF_THREAD    0xE0000008u /* thread names: on whenever tracing   */

typedef struct _PERFINFO_GROUPMASK {
	uint32_t Masks[PERF_NUM_MASKS];
} PERFINFO_GROUPMASK;

static inline int perfinfo_is_group_on(const PERFINFO_GROUPMASK *g, uint32_t mask)
{
	return (g->Masks[mask >> 29] & (mask & PERF_MASK_GROUP)) != 0;
}

static inline void perfinfo_group_set(PERFINFO_GROUPMASK *g, uint32_t mask)
{
	g->Masks[mask >> 29] |= mask & PERF_MASK_GROUP;
}

/* ---------------------------------------------------------------- payloads */

/* WMI_CONTEXTSWAP, version 4 (docs/etw-records.md). */
typedef struct _WMI_CONTEXTSWAP {
	uint32_t NewThreadId;
	uint32_t OldThreadId;
	int8_t NewThreadPriority;
	int8_t OldThreadPriority;
	uint8_t PreviousCState;              /* old thread idle; else OldThreadRank / 0 */
	int8_t NewThreadPriorityDecrement;   /* SpareByte                                */
	uint8_t OldThreadWaitReason;         /* KWAIT_REASON                             */
	uint8_t Flags;                       /* OldThreadWaitMode:1, Old/NewThreadBamQosLevel:3 each */
	uint8_t OldThreadState;              /* KTHREAD_STATE                            */
	uint8_t OldThreadIdealProcessor;
	uint32_t NewThreadWaitTime;
	int32_t OldThreadRemainingQuantum;   /* (QuantumTarget - CycleTime) / 1024       */
} WMI_CONTEXTSWAP;

#define CSWITCH_FLAG_WAIT_MODE_USER  0x01u
#define CSWITCH_OLD_QOS_SHIFT        1
#define CSWITCH_NEW_QOS_SHIFT        4

/* ReadyThread (hook 0x0532): a thread became ready (the Thread group's
 * ReadyThread event; kprof writes it with the context switches). */
typedef struct _WMI_READY_THREAD {
	uint32_t TThreadId;                  /* the thread made ready                  */
	int8_t AdjustReason;                 /* 0 none, 1 unwait, 2 boost              */
	int8_t AdjustIncrement;              /* priority increment applied             */
	int8_t Flag;                         /* 0                                      */
	int8_t Reserved;
} WMI_READY_THREAD;

/* WMI_SPINLOCK, version 2, packed (docs/etw-records.md). */
typedef struct __attribute__((packed)) _WMI_SPINLOCK {
	uint64_t SpinLockAddress;            /* PVOID                                  */
	uint64_t CallerAddress;              /* PVOID: return address of the release   */
	uint64_t AcquireTime;                /* rdtsc when acquired                    */
	uint64_t ReleaseTime;                /* rdtsc at release                       */
	uint32_t WaitTimeInCycles;           /* first try to acquired                  */
	uint32_t SpinCount;                  /* extra tests of the lock                */
	uint32_t ThreadId;
	uint32_t InterruptCount;             /* interrupts from first try to release   */
	uint8_t Irql;                        /* while held                             */
	uint8_t AcquireDepth;                /* locks held at release, this one included (1..8) */
	uint8_t Flags;                       /* AcquireMode:6 | ExecuteDpc:1 | ExecuteIsr:1 */
	uint8_t Reserved[5];
} WMI_SPINLOCK;

#define SPINLOCK_ACQUIRE_MODE_MASK  0x3Fu
#define SPINLOCK_FLAG_EXECUTE_DPC   0x40u
#define SPINLOCK_FLAG_EXECUTE_ISR   0x80u

enum spinlock_acquire_mode {
	SpinLockModeOrdinary = 0,            /* KSPIN_LOCK                             */
	SpinLockModeQueued = 1,              /* queued / in-stack queued spin lock     */
	SpinLockModeExecutiveShared = 2,
	SpinLockModeExecutiveExclusive = 3,
	SpinLockModeExecutiveConverted = 4,  /* shared converted to exclusive          */
};

/* WMI_RESOURCE, version 2 (docs/etw-records.md). */
typedef struct _WMI_RESOURCE {
	uint64_t AcquireTime;
	uint64_t HoldTime;
	uint64_t WaitTime;
	uint32_t MaxRecursionDepth;
	uint32_t ThreadId;
	uint64_t Resource;                   /* PVOID                                  */
	uint32_t Action;
	uint32_t ContentionDelta;
} WMI_RESOURCE;

#define WMI_RESOURCE_ACTION_INITIALIZE                    0x00010008u
#define WMI_RESOURCE_ACTION_REINITIALIZE                  0x00010018u
#define WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE    0x00010022u
#define WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED       0x00010042u
#define WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE  0x00010224u
#define WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED     0x00010244u

/* Sampled profile (hook 0x0F2E). */
typedef struct _PERFINFO_SAMPLED_PROFILE_INFORMATION {
	uint64_t InstructionPointer;         /* PVOID                                  */
	uint32_t ThreadId;
	uint16_t Count;
	uint8_t Flags;                       /* ExecutingDpc:1 ExecutingIsr:1 Reserved:1 Priority:5 */
	uint8_t Rank;
} PERFINFO_SAMPLED_PROFILE_INFORMATION;

#define SAMPLED_PROFILE_FLAG_DPC     0x01u
#define SAMPLED_PROFILE_FLAG_ISR     0x02u
#define SAMPLED_PROFILE_PRIORITY_SHIFT 3

/* PMC sample (hook 0x0F2F). */
typedef struct _PERFINFO_PMC_SAMPLE {
	uint64_t InstructionPointer;         /* PVOID                                  */
	uint32_t ThreadId;
	uint16_t ProfileSource;              /* KPROFILE_SOURCE                        */
	uint16_t Reserved;
} PERFINFO_PMC_SAMPLE;

/* StackWalk_Event (hook 0x1820): 16 bytes, then N return addresses. */
typedef struct _STACK_WALK_EVENT_DATA {
	uint64_t EventTimeStamp;             /* TimeStamp of the sample it belongs to  */
	uint32_t StackProcess;
	uint32_t StackThread;
	uint64_t Stack[];                    /* return addresses, innermost first      */
} STACK_WALK_EVENT_DATA;

#define STACKWALK_MAX_FRAMES 32

/* kprof's tracetest pattern (hook 0xFE01): not a Windows event. */
typedef struct _KPROF_TRACETEST {
	uint32_t Cpu;                        /* CPU that wrote it                      */
	uint32_t Writer;                     /* 0 thread, 1 interrupt (nested)         */
	uint32_t Sequence;                   /* per CPU and writer, from 0             */
	uint32_t Length;                     /* bytes of Pattern[]                     */
	uint8_t Pattern[];                   /* byte i = (Sequence * 31 + i + Writer * 7) & 0xFF */
} KPROF_TRACETEST;

#define TRACETEST_MAX_PATTERN 64

/* kprof's late clock interrupt (hook 0xFE02): not a Windows event.  The
 * CPU's earliest timer entry (a tick or a time-out), due at DueTime, was
 * handled by the end of its clock interrupt at the record's time stamp,
 * more than 200 us late: for that long the CPU had interrupts off, because
 * its virtual CPU was not running (the host scheduled something else) or
 * because it waited with interrupts masked (spinning for a lock whose
 * holder the host does not run, for instance).  Nothing timed it should
 * have done in that time could happen. */
typedef struct _KPROF_CLOCK_LATE {
	uint64_t DueTime;                    /* TSC the interrupt was due             */
	uint64_t LateCycles;                 /* TimeStamp - DueTime, the handler done */
	uint64_t InstructionPointer;         /* where the interrupt came in: just     */
	                                     /* after an interrupt-enable if masked   */
} KPROF_CLOCK_LATE;

/* kprof's self-measurement (hook 0xFE08, PERF_PROFILE): not a Windows
 * event.  Written on the CPU that measured, at the end of a measurement
 * whose own interrupts wrote real records (scenario=profile's interrupt
 * cost: 2000 profile interrupts, each a SampledProfile): from TimeStamp -
 * DurationCycles to TimeStamp that CPU's samples are the measurement's,
 * not the workload's, and the report leaves them out of its hot spots. */
typedef struct _KPROF_MEASURE {
	uint64_t DurationCycles;             /* the measurement's span, to TimeStamp  */
	uint32_t Rounds;                     /* interrupts it sent                    */
	uint32_t What;                       /* KPROF_MEASURE_...                     */
} KPROF_MEASURE;
#define KPROF_MEASURE_PROFILE_INTERRUPT 1 /* the cost of a profile interrupt   */

/* kprof's SMI count (hook 0xFE0B, with PERF_KPROF_THREAD or
 * PERF_KPROF_CLOCK: whenever the trace holds the CPUs' time or stalls):
 * not a Windows event.  One per CPU, on that CPU, at the end of the
 * trace: the System Management Interrupts the CPU took from StartTime to
 * TimeStamp (MSR_SMI_COUNT, 0x34, on Intel CPUs that have it: read at both
 * ends).  Without KPROF_SMI_COUNTED the CPU has no such counter (AMD, a
 * hypervisor's virtual CPU, QEMU) and both counts are 0: "not counted",
 * never "none". */
typedef struct _KPROF_SMI_COUNT {
	uint64_t StartTime;                  /* TSC when StartCount was read          */
	uint64_t StartCount;                 /* MSR_SMI_COUNT then                    */
	uint64_t EndCount;                   /* MSR_SMI_COUNT at TimeStamp            */
	uint32_t Flags;                      /* KPROF_SMI_COUNTED                     */
	uint32_t Reserved;                   /* 0                                     */
} KPROF_SMI_COUNT;
#define KPROF_SMI_COUNTED 1u /* the CPU counts SMIs: the counts are real */

/* kprof's fidelity (hook 0xFE11, written with KprofSmiCount: whenever the
 * trace holds the CPUs' time or stalls): not a Windows event.  One per
 * CPU, on that CPU, at the end of the trace (kernel/timekeep/fidelity.c):
 * what the run's own figures are worth there.
 *   - StampCycles, StampBestCycles: one read of the TSC (the time stamp
 *     every record takes), the median and the quickest of 31 back-to-back
 *     reads at trace start.
 *   - RoundTripCycles: an empty interrupt round trip (a self-IPI), the
 *     median measured at boot on the boot CPU; in CPU 0's record only
 *     (0 in the others').
 *   - ClockInterrupts, LateBuckets, LateMaxCycles: how late each of this
 *     CPU's clock interrupts over the trace came after the due time of its
 *     earliest work (the tick, a time-out), counted in the half-octave
 *     buckets of include/kprof/lateness.h, and the latest exactly.
 *   - Flags: KPROF_FIDELITY_TSC_INVARIANT when CPUID says the TSC runs at
 *     one rate in every power state (leaf 0x80000007, EDX bit 8). */
typedef struct _KPROF_FIDELITY {
	uint64_t RoundTripCycles;            /* empty interrupt round trip (CPU 0)    */
	uint64_t ClockInterrupts;            /* clock interrupts over the trace       */
	uint64_t LateMaxCycles;              /* the latest one's lateness             */
	uint32_t StampCycles;                /* a TSC read: median                    */
	uint32_t StampBestCycles;            /* a TSC read: the quickest              */
	uint32_t Flags;                      /* KPROF_FIDELITY_*                      */
	uint32_t Buckets;                    /* KPROF_LATENESS_BUCKETS                */
	uint32_t LateBuckets[KPROF_LATENESS_BUCKETS]; /* interrupts by lateness   */
} KPROF_FIDELITY;
#define KPROF_FIDELITY_TSC_INVARIANT 0x1u /* CPUID: the TSC's rate never changes */

/* kprof's clock step (hook 0xFE0C): not a Windows event, and in no
 * group: the record writer (kernel/trace/writer.c) writes it right after
 * a record whose clock read was below the CPU's previous read: the TSC of
 * this CPU went back by BackCycles (a hypervisor moving the virtual CPU
 * to a host CPU whose TSC differs, a TSC written by firmware).  Time
 * stamps never go back on a CPU (kernel/trace/tracebuf.c): that record,
 * and every one after it until the clock passes LastStamp again, is
 * stamped LastStamp (clamped), which this record's TimeStamp is too; so
 * BackCycles bounds how far those stamps lag the clock.  Steps is the
 * CPU's count of steps back so far (the last record says the total even
 * if some were dropped). */
typedef struct _KPROF_CLOCK_STEP {
	uint64_t BackCycles;                 /* previous clock read - this one       */
	uint64_t RawTsc;                     /* the clock read that went back        */
	uint64_t LastStamp;                  /* the CPU's last stamp before it       */
	uint32_t Steps;                      /* this CPU's steps back so far         */
	uint16_t ClampedHook;                /* HookId of the record it stamped      */
	uint16_t Reserved;                   /* 0                                    */
} KPROF_CLOCK_STEP;

/* kprof's TSC watchdog verdict (hook 0xFE0D, PERF_KPROF_CLOCK or
 * PERF_KPROF_THREAD, like the SMI count): not a Windows event.  Written on
 * the CPU that checked, when a check of its TSC against the reference
 * clock (kernel/timekeep/watchdog.c) finds them apart by more than the
 * margin (KPROF_CLOCK_CHECK_UNSTABLE), and at each correction of an
 * unstable TSC (KPROF_CLOCK_CHECK_CORRECTED).  Over IntervalNs of the
 * reference the TSC advanced TscNs (both in ns; TscNs is signed: a TSC
 * that went back gives a negative one). */
typedef struct _KPROF_CLOCK_CHECK {
	uint64_t IntervalNs;                 /* the reference's time since the last check */
	int64_t TscNs;                       /* the TSC's, at the boot rate          */
	int64_t Adjust;                      /* reference - TSC: the correction asked */
	uint32_t MarginNs;                   /* what the two may differ by           */
	uint16_t Flags;                      /* KPROF_CLOCK_CHECK_*                  */
	uint16_t Reference;                  /* KPROF_REFCLOCK_*                     */
} KPROF_CLOCK_CHECK;
#define KPROF_CLOCK_CHECK_UNSTABLE  0x1u /* beyond the margin                    */
#define KPROF_CLOCK_CHECK_CORRECTED 0x2u /* the stamps slewed to Adjust          */
#define KPROF_REFCLOCK_NONE    0
#define KPROF_REFCLOCK_HPET    1
#define KPROF_REFCLOCK_PMTIMER 2

/* kprof's noise gap (hook 0xFE0E, PERF_KPROF_CLOCK or PERF_KPROF_THREAD,
 * like the SMI count): not a Windows event.  scenario=noise
 * (kernel/noise/) reads the TSC in a tight loop with interrupts off; a
 * step between two reads longer than noise.threshold_ns is a gap, written
 * on its CPU after the window it was seen in.  Start is the raw TSC read
 * just before the gap (the record's TimeStamp is when it was written);
 * the gap lasted Cycles (LengthNs at the boot TSC rate).  SmiBefore is the
 * CPU's SMI count at the window's start or after its previous gap,
 * SmiAfter right after this one (both 0 without KPROF_NOISE_GAP_SMI_COUNTED).
 * Pass 1 runs every CPU at once; there the kernel counts the other CPUs
 * with a gap overlapping this one (OtherCpus; KPROF_NOISE_GAP_CORRELATED
 * when any: the whole machine stopped).  Pass 2 runs one CPU at a time, so
 * nothing is correlated there.  A CPU keeps its 256 longest gaps a
 * window: Unkept, the same in each of that window's records, counts the
 * shorter ones beyond them (not recorded, but in the console's totals). */
typedef struct _KPROF_NOISE_GAP {
	uint64_t Start;                      /* raw TSC before the gap               */
	uint64_t Cycles;                     /* its length in TSC cycles             */
	uint64_t LengthNs;                   /* the same at the boot TSC rate        */
	uint64_t SmiBefore;                  /* SMI count before (see above)         */
	uint64_t SmiAfter;                   /* SMI count right after                */
	uint32_t Window;                     /* the window's number in its pass, 0.. */
	uint16_t OtherCpus;                  /* other CPUs with an overlapping gap   */
	uint8_t Pass;                        /* 1: all CPUs at once; 2: one at a time */
	uint8_t Flags;                       /* KPROF_NOISE_GAP_*                    */
	uint32_t Unkept;                     /* the window's gaps not kept (shorter) */
	uint32_t Reserved;                   /* 0                                    */
} KPROF_NOISE_GAP;
#define KPROF_NOISE_GAP_CORRELATED  0x1u /* another CPU's gap overlapped it     */
#define KPROF_NOISE_GAP_SMI_COUNTED 0x2u /* the SMI counts are real             */

/* kprof's noise scan (hook 0xFE0F, in the groups of KprofNoiseGap): not
 * a Windows event.  scenario=noise writes one on each CPU that scanned, at
 * the end of each pass: over its Windows windows it read the TSC for
 * ScannedCycles with interrupts off and found Gaps gaps (kept or not)
 * adding up to GapCycles, the longest MaxCycles; Correlated of its kept
 * gaps overlapped another CPU's.  GapCycles / ScannedCycles is the share
 * of the CPU the machine took (noise per second). */
typedef struct _KPROF_NOISE_SCAN {
	uint64_t ScannedCycles;              /* time read with interrupts off        */
	uint64_t GapCycles;                  /* of which in gaps                     */
	uint64_t MaxCycles;                  /* the longest gap                      */
	uint32_t Gaps;                       /* every gap, kept or not               */
	uint32_t Windows;                    /* windows this CPU scanned             */
	uint32_t Correlated;                 /* kept gaps another CPU's overlapped   */
	uint8_t Pass;                        /* 1: all CPUs at once; 2: one at a time */
	uint8_t Flags;                       /* KPROF_NOISE_GAP_SMI_COUNTED          */
	uint16_t Reserved;                   /* 0                                    */
} KPROF_NOISE_SCAN;

/* kprof's timer latency (hook 0xFE10, in the groups of KprofNoiseGap):
 * not a Windows event.  scenario=noise's last pass (kernel/noise/timer.c)
 * queues a periodic timer every IntervalUs on each CPU, interrupts on,
 * and counts how late each expiry came after its deadline; one record a
 * CPU at the end: Samples expiries (Missed periods skipped as already
 * past), P50Us/P99Us from 1 us buckets up to 1000 us (1000: at least
 * that, Overflow samples were), the exact MaxNs and SumNs. */
typedef struct _KPROF_TIMER_LATENCY {
	uint64_t MaxNs;                      /* the latest expiry                     */
	uint64_t SumNs;                      /* every expiry's lateness, summed       */
	uint32_t Samples;                    /* expiries                              */
	uint32_t Missed;                     /* periods skipped                       */
	uint32_t P50Us;                      /* median lateness, us (bucket's floor)  */
	uint32_t P99Us;                      /* 99th percentile, us                   */
	uint32_t IntervalUs;                 /* the timer's period                    */
	uint32_t Overflow;                   /* expiries 1000 us late or more         */
} KPROF_TIMER_LATENCY;

/* kprof's records lost (hook 0xFE06): not a Windows event, and in no
 * group: the trace buffer writes it itself (kernel/trace/tracebuf.c), in
 * the same reservation as the first record it manages to store after
 * drops, just before that record and with the same TimeStamp.  It counts,
 * by cause (enum kprof_loss_cause), the records this CPU dropped since
 * its previous record; FirstLossTime is the TSC of the first of them.  A
 * record with every count zero says nothing (see tracebuf.c: a nested
 * writer took the counts) and is skipped by decoders. */
typedef struct _KPROF_RECORDS_LOST {
	uint64_t FirstLossTime;              /* TSC of the first drop              */
	uint64_t BuffersFull;                /* KPROF_LOSS_BUFFERS_FULL            */
	uint64_t TooLarge;                   /* KPROF_LOSS_TOO_LARGE               */
	uint64_t NotStarted;                 /* KPROF_LOSS_NOT_STARTED             */
} KPROF_RECORDS_LOST;

/* kprof's phase (hook 0xFE07): not a Windows event.  Written under
 * PERF_KPROF_THREAD, on whenever records that carry thread ids are traced
 * (kernel/workloads/phase.c).  A workload
 * starts (Flags 0) or ends (KPROF_PHASE_END) at the record's TimeStamp.
 * Index 0 is the whole scenario (its name, scenario.c); under
 * scenario=mix, index i >= 1 is the mix's i-th workload ("profile",
 * "locks", ...), each started and ended inside the scenario's phase, one
 * after another.  Readers draw and count the phases between a start and
 * the end of the same Index; a start without an end (a run that stopped
 * early) lasts to the end of the trace. */
typedef struct _KPROF_PHASE {
	uint32_t Index;                      /* 0 the scenario, i the i-th workload   */
	uint8_t Flags;                       /* KPROF_PHASE_*                         */
	uint8_t Reserved[3];
	char Name[24];                       /* NUL-padded, NUL-terminated unless 24 */
} KPROF_PHASE;

#define KPROF_PHASE_END 0x01u            /* the phase ends, else it starts        */

static inline uint8_t kprof_tracetest_byte(uint32_t seq, uint32_t writer, uint32_t i)
{
	return (uint8_t)(seq * 31u + i + writer * 7u);
}

/* ---------------------------------------------------------------- enums */

enum KPROFILE_SOURCE {
	ProfileTime = 0, ProfileAlignmentFixup = 1, ProfileTotalIssues = 2, ProfilePipelineDry = 3,
	ProfileLoadInstructions = 4, ProfilePipelineFrozen = 5, ProfileBranchInstructions = 6,
	ProfileTotalNonissues = 7, ProfileDcacheMisses = 8, ProfileIcacheMisses = 9, ProfileCacheMisses = 10,
	ProfileBranchMispredictions = 11, ProfileStoreInstructions = 12, ProfileFpInstructions = 13,
	ProfileIntegerInstructions = 14, Profile2Issue = 15, Profile3Issue = 16, Profile4Issue = 17,
	ProfileSpecialInstructions = 18, ProfileTotalCycles = 19, ProfileIcacheIssues = 20,
	ProfileDcacheAccesses = 21, ProfileMemoryBarrierCycles = 22, ProfileLoadLinkedIssues = 23,
	ProfileMaximum = 24
};

/* KPROFILE_SOURCE names without the "Profile" prefix (TotalCycles), in
 * enum order, as the command line's pmc.sources takes them. */
#define KPROFILE_SOURCE_SHORT_NAMES \
	"Time", "AlignmentFixup", "TotalIssues", "PipelineDry", "LoadInstructions", "PipelineFrozen", \
	"BranchInstructions", "TotalNonissues", "DcacheMisses", "IcacheMisses", "CacheMisses", \
	"BranchMispredictions", "StoreInstructions", "FpInstructions", "IntegerInstructions", "2Issue", \
	"3Issue", "4Issue", "SpecialInstructions", "TotalCycles", "IcacheIssues", "DcacheAccesses", \
	"MemoryBarrierCycles", "LoadLinkedIssues"

/* The short name of a KPROFILE_SOURCE; NULL past ProfileMaximum. */
static inline const char *kprofile_source_name(unsigned source)
{
	static const char *const names[] = { KPROFILE_SOURCE_SHORT_NAMES };
	return source < sizeof(names) / sizeof(names[0]) ? names[source] : (const char *)0;
}

enum KTHREAD_STATE {
	Initialized = 0, Ready = 1, Running = 2, Standby = 3, Terminated = 4, Waiting = 5, Transition = 6,
	DeferredReady = 7, GateWaitObsolete = 8, WaitingForProcessInSwap = 9
};

enum KWAIT_REASON {
	Executive = 0, FreePage = 1, PageIn = 2, PoolAllocation = 3, DelayExecution = 4, Suspended = 5,
	UserRequest = 6, WrExecutive = 7, WrFreePage = 8, WrPageIn = 9, WrPoolAllocation = 10,
	WrDelayExecution = 11, WrSuspended = 12, WrUserRequest = 13, WrEventPair = 14, WrQueue = 15,
	WrLpcReceive = 16, WrLpcReply = 17, WrVirtualMemory = 18, WrPageOut = 19, WrRendezvous = 20,
	WrKeyedEvent = 21, WrTerminated = 22, WrProcessInSwap = 23, WrCpuRateControl = 24, WrCalloutStack = 25,
	WrKernel = 26, WrResource = 27, WrPushLock = 28, WrMutex = 29, WrQuantumEnd = 30, WrDispatchInt = 31,
	WrPreempted = 32, WrYieldExecution = 33, WrFastMutex = 34, WrGuardedMutex = 35, WrRundown = 36,
	WrAlertByThreadId = 37, WrDeferredPreempt = 38, MaximumWaitReason = 39
};

/* ---------------------------------------------------------------- checks */

#define WMI_ASSERT_OFFSET(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), #type "." #field " is at offset " #off)

_Static_assert(sizeof(PERFINFO_TRACE_HEADER) == 0x10, "PERFINFO_TRACE_HEADER is 16 bytes");
WMI_ASSERT_OFFSET(PERFINFO_TRACE_HEADER, Marker, 0x00);
WMI_ASSERT_OFFSET(PERFINFO_TRACE_HEADER, Size, 0x04);
WMI_ASSERT_OFFSET(PERFINFO_TRACE_HEADER, HookId, 0x06);
WMI_ASSERT_OFFSET(PERFINFO_TRACE_HEADER, TimeStamp, 0x08);

_Static_assert(sizeof(WMI_CONTEXTSWAP) == 0x18, "WMI_CONTEXTSWAP is 0x18 bytes");
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, NewThreadId, 0x00);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, OldThreadId, 0x04);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, NewThreadPriority, 0x08);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, OldThreadPriority, 0x09);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, PreviousCState, 0x0A);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, NewThreadPriorityDecrement, 0x0B);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, OldThreadWaitReason, 0x0C);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, Flags, 0x0D);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, OldThreadState, 0x0E);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, OldThreadIdealProcessor, 0x0F);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, NewThreadWaitTime, 0x10);
WMI_ASSERT_OFFSET(WMI_CONTEXTSWAP, OldThreadRemainingQuantum, 0x14);

_Static_assert(sizeof(WMI_READY_THREAD) == 8, "WMI_READY_THREAD is 8 bytes");
WMI_ASSERT_OFFSET(WMI_READY_THREAD, TThreadId, 0x00);
WMI_ASSERT_OFFSET(WMI_READY_THREAD, AdjustReason, 0x04);
WMI_ASSERT_OFFSET(WMI_READY_THREAD, AdjustIncrement, 0x05);

_Static_assert(sizeof(WMI_SPINLOCK) == 0x38, "WMI_SPINLOCK is 0x38 bytes");
WMI_ASSERT_OFFSET(WMI_SPINLOCK, SpinLockAddress, 0x00);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, CallerAddress, 0x08);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, AcquireTime, 0x10);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, ReleaseTime, 0x18);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, WaitTimeInCycles, 0x20);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, SpinCount, 0x24);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, ThreadId, 0x28);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, InterruptCount, 0x2C);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, Irql, 0x30);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, AcquireDepth, 0x31);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, Flags, 0x32);
WMI_ASSERT_OFFSET(WMI_SPINLOCK, Reserved, 0x33);

_Static_assert(sizeof(WMI_RESOURCE) == 0x30, "WMI_RESOURCE is 0x30 bytes");
WMI_ASSERT_OFFSET(WMI_RESOURCE, AcquireTime, 0x00);
WMI_ASSERT_OFFSET(WMI_RESOURCE, HoldTime, 0x08);
WMI_ASSERT_OFFSET(WMI_RESOURCE, WaitTime, 0x10);
WMI_ASSERT_OFFSET(WMI_RESOURCE, MaxRecursionDepth, 0x18);
WMI_ASSERT_OFFSET(WMI_RESOURCE, ThreadId, 0x1C);
WMI_ASSERT_OFFSET(WMI_RESOURCE, Resource, 0x20);
WMI_ASSERT_OFFSET(WMI_RESOURCE, Action, 0x28);
WMI_ASSERT_OFFSET(WMI_RESOURCE, ContentionDelta, 0x2C);

_Static_assert(sizeof(PERFINFO_SAMPLED_PROFILE_INFORMATION) == 0x10, "sampled profile is 0x10 bytes");
WMI_ASSERT_OFFSET(PERFINFO_SAMPLED_PROFILE_INFORMATION, InstructionPointer, 0x00);
WMI_ASSERT_OFFSET(PERFINFO_SAMPLED_PROFILE_INFORMATION, ThreadId, 0x08);
WMI_ASSERT_OFFSET(PERFINFO_SAMPLED_PROFILE_INFORMATION, Count, 0x0C);
WMI_ASSERT_OFFSET(PERFINFO_SAMPLED_PROFILE_INFORMATION, Flags, 0x0E);
WMI_ASSERT_OFFSET(PERFINFO_SAMPLED_PROFILE_INFORMATION, Rank, 0x0F);

_Static_assert(sizeof(PERFINFO_PMC_SAMPLE) == 0x10, "PMC sample is 0x10 bytes");
WMI_ASSERT_OFFSET(PERFINFO_PMC_SAMPLE, InstructionPointer, 0x00);
WMI_ASSERT_OFFSET(PERFINFO_PMC_SAMPLE, ThreadId, 0x08);
WMI_ASSERT_OFFSET(PERFINFO_PMC_SAMPLE, ProfileSource, 0x0C);
WMI_ASSERT_OFFSET(PERFINFO_PMC_SAMPLE, Reserved, 0x0E);

_Static_assert(sizeof(STACK_WALK_EVENT_DATA) == 0x10, "stack walk header is 16 bytes");
WMI_ASSERT_OFFSET(STACK_WALK_EVENT_DATA, EventTimeStamp, 0x00);
WMI_ASSERT_OFFSET(STACK_WALK_EVENT_DATA, StackProcess, 0x08);
WMI_ASSERT_OFFSET(STACK_WALK_EVENT_DATA, StackThread, 0x0C);
WMI_ASSERT_OFFSET(STACK_WALK_EVENT_DATA, Stack, 0x10);

_Static_assert(sizeof(KPROF_TRACETEST) == 0x10, "tracetest header is 16 bytes");
_Static_assert(sizeof(KPROF_CLOCK_LATE) == 0x18, "clock-late record is 24 bytes");
_Static_assert(sizeof(KPROF_MEASURE) == 0x10, "measurement record is 16 bytes");
_Static_assert(sizeof(KPROF_SMI_COUNT) == 0x20, "SMI count record is 32 bytes");
_Static_assert(sizeof(KPROF_PROFILE_OBJECT) == 0x48, "profile-object header is 72 bytes");
WMI_ASSERT_OFFSET(KPROF_PROFILE_OBJECT, Affinity, 0x28);
WMI_ASSERT_OFFSET(KPROF_PROFILE_OBJECT, Buckets, 0x48);
_Static_assert(sizeof(KPROF_THREAD) == 0x40, "thread record (version 2) is 64 bytes");
WMI_ASSERT_OFFSET(KPROF_THREAD, ThreadName, 0x10);
WMI_ASSERT_OFFSET(KPROF_THREAD, ProcessName, 0x30);
_Static_assert(sizeof(KPROF_THREAD_V1) == 0x30, "thread record (version 1) is 48 bytes");
WMI_ASSERT_OFFSET(KPROF_THREAD_V1, ThreadName, 0x10);
WMI_ASSERT_OFFSET(KPROF_THREAD_V1, ProcessName, 0x20);
_Static_assert(sizeof(KPROF_SPINLOCK_CONFIG) == 0x10, "spin-lock config record is 16 bytes");
_Static_assert(sizeof(KPROF_RECORDS_LOST) == 0x20, "records-lost record is 32 bytes");
_Static_assert(sizeof(KPROF_OBJECT_NAME) == 0x30, "object name record is 48 bytes");
_Static_assert(sizeof(KPROF_PHASE) == 0x20, "phase record is 32 bytes");
_Static_assert(sizeof(KPROF_CLOCK_STEP) == 0x20, "clock-step record is 32 bytes");
WMI_ASSERT_OFFSET(KPROF_CLOCK_STEP, Steps, 0x18);
_Static_assert(sizeof(KPROF_CLOCK_CHECK) == 0x20, "clock-check record is 32 bytes");
_Static_assert(sizeof(KPROF_NOISE_GAP) == 0x38, "noise-gap record is 56 bytes");
WMI_ASSERT_OFFSET(KPROF_NOISE_GAP, Window, 0x28);
_Static_assert(sizeof(KPROF_NOISE_SCAN) == 0x28, "noise-scan record is 40 bytes");
_Static_assert(sizeof(KPROF_TIMER_LATENCY) == 0x28, "timer-latency record is 40 bytes");
_Static_assert(sizeof(KPROF_FIDELITY) == 40 + 4 * KPROF_LATENESS_BUCKETS, "fidelity record is 296 bytes");
WMI_ASSERT_OFFSET(KPROF_FIDELITY, StampCycles, 24);
WMI_ASSERT_OFFSET(KPROF_FIDELITY, LateBuckets, 40);
WMI_ASSERT_OFFSET(KPROF_CLOCK_CHECK, MarginNs, 0x18);
WMI_ASSERT_OFFSET(KPROF_PHASE, Flags, 0x04);
WMI_ASSERT_OFFSET(KPROF_PHASE, Name, 0x08);
WMI_ASSERT_OFFSET(KPROF_OBJECT_NAME, Kind, 0x08);
WMI_ASSERT_OFFSET(KPROF_OBJECT_NAME, Name, 0x10);

#endif /* KPROF_WMI_H */
