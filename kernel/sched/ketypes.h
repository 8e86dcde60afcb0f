/*
 * ketypes.h - the dispatcher's structures: processes, threads, and the
 * objects threads wait on, modelled on KPROCESS, KTHREAD,
 * DISPATCHER_HEADER, KWAIT_BLOCK, KEVENT, KSEMAPHORE, KMUTANT and KTIMER.
 *
 * Lock: every field marked [D] is guarded by the dispatcher lock
 * (sched/dispatcher_lock.h); fields marked [own] belong to the CPU the
 * thread runs on; the rest are set at creation and then read-only.
 */
#ifndef KPROF_KERNEL_SCHED_KETYPES_H
#define KPROF_KERNEL_SCHED_KETYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/affinity.h"
#include "kernel/mm/kva.h"
#include "kernel/lib/list.h"
#include "kernel/ke/ntstatus.h"
#include "kernel/ke/time/timerq.h"
#include "include/kprof/wmi.h" /* KTHREAD_STATE, KWAIT_REASON */

/* KOBJECTS values (the Type of a DISPATCHER_HEADER). */
enum KOBJECTS {
	EventNotificationObject = 0,
	EventSynchronizationObject = 1,
	MutantObject = 2,
	ProcessObject = 3,
	SemaphoreObject = 5,
	ThreadObject = 6,
	TimerNotificationObject = 8,
	TimerSynchronizationObject = 9,
};

typedef enum _EVENT_TYPE { NotificationEvent = 0, SynchronizationEvent = 1 } EVENT_TYPE;
typedef enum _TIMER_TYPE { NotificationTimer = 0, SynchronizationTimer = 1 } TIMER_TYPE;
typedef enum _WAIT_TYPE { WaitAll = 0, WaitAny = 1 } WAIT_TYPE;
typedef enum _KPROCESSOR_MODE { KernelMode = 0, UserMode = 1 } KPROCESSOR_MODE;

#define LOW_PRIORITY       0
#define LOW_REALTIME_PRIORITY 16
#define HIGH_PRIORITY      31
#define MAXIMUM_PRIORITY   32
#define THREAD_WAIT_OBJECTS 4   /* wait blocks built into each thread */
#define MAXIMUM_WAIT_OBJECTS 64 /* a wait on more brings its own blocks */

/* Priority increments given to a woken thread (as in Windows' WDK). */
#define EVENT_INCREMENT     1
#define SEMAPHORE_INCREMENT 1
#define MUTANT_INCREMENT    1
#define IO_NO_INCREMENT     0

typedef struct _DISPATCHER_HEADER {
	uint8_t Type;               /* enum KOBJECTS                            */
	uint8_t Reserved[3];
	volatile int32_t SignalState; /* [D] > 0: signaled (count for semaphores) */
	LIST_ENTRY WaitListHead;    /* [D] KWAIT_BLOCKs of threads waiting      */
} DISPATCHER_HEADER;

struct _KTHREAD;

typedef struct _KWAIT_BLOCK {
	LIST_ENTRY WaitListEntry;   /* [D] in the object's WaitListHead         */
	struct _KTHREAD *Thread;    /* the waiter                               */
	DISPATCHER_HEADER *Object;  /* what it waits on                         */
	uint16_t WaitKey;           /* index in the wait: STATUS_WAIT_0 + key   */
	uint8_t WaitType;           /* WaitAny or WaitAll                       */
	uint8_t Linked;             /* [D] on the object's list now             */
} KWAIT_BLOCK;

typedef struct _KEVENT {
	DISPATCHER_HEADER Header;
} KEVENT;

typedef struct _KSEMAPHORE {
	DISPATCHER_HEADER Header;   /* SignalState is the count                 */
	int32_t Limit;
} KSEMAPHORE;

typedef struct _KMUTANT {
	DISPATCHER_HEADER Header;   /* SignalState 1 free, <= 0 owned (-depth+1) */
	LIST_ENTRY MutantListEntry; /* [D] in the owner's MutantListHead        */
	struct _KTHREAD *OwnerThread; /* [D]                                    */
	bool Abandoned;             /* [D] owner ended holding it               */
} KMUTANT;

struct kdpc;

typedef struct _KTIMER {
	DISPATCHER_HEADER Header;   /* signaled when due                        */
	uint64_t DueTime;           /* [D] TSC                                  */
	uint64_t Period;            /* [D] TSC cycles, 0 = once                 */
	struct kdpc *Dpc;           /* queued when due, or NULL                 */
	KTIMER_ENTRY Entry;         /* in a CPU's timer queue                   */
	bool Inserted;              /* [D]                                      */
} KTIMER;

typedef struct _KPROCESS {
	DISPATCHER_HEADER Header;   /* signaled when its last thread ended     */
	LIST_ENTRY ProfileListHead; /* KPROFILE objects for this process        */
	LIST_ENTRY ThreadListHead;  /* [D] its threads                          */
	uint32_t ProcessId;
	int8_t BasePriority;        /* default for new threads                  */
	KAFFINITY_EX Affinity;      /* default for new threads                  */
	uint32_t ActiveThreads;     /* [D]                                      */
	char ImageFileName[16];
} KPROCESS;

typedef void (*PKSTART_ROUTINE)(void *context);

typedef struct _KTHREAD {
	DISPATCHER_HEADER Header;   /* signaled when the thread has ended       */
	uintptr_t KernelStackPointer; /* saved stack pointer while not running  */
	struct kstack Stack;        /* its kernel stack (guard page below)      */
	uint32_t ThreadId;          /* 0 for idle threads, as Windows           */
	KPROCESS *Process;
	LIST_ENTRY ThreadListEntry; /* [D] in Process->ThreadListHead           */

	volatile uint8_t State;     /* [D] KTHREAD_STATE                        */
	int8_t Priority;            /* [D] current, 0..31                       */
	int8_t BasePriority;        /* [D]                                      */
	int8_t PriorityDecrement;   /* [D] boost still above BasePriority       */
	uint8_t WaitReason;         /* [D] KWAIT_REASON of the last wait/switch */
	uint8_t WaitMode;           /* [D] KPROCESSOR_MODE                      */
	uint8_t IdealProcessor;
	uint8_t Idle;               /* the idle thread of its CPU               */
	uint32_t NextProcessor;     /* [D] CPU it runs or is queued on          */
	KAFFINITY_EX Affinity;      /* [D] CPUs it may run on                   */
	LIST_ENTRY ReadyListEntry;  /* [D] in a CPU's ready queue               */

	uint64_t CycleTime;         /* [own] cycles run                         */
	uint64_t QuantumTarget;     /* [own] CycleTime at which the quantum ends */
	uint64_t LastRunTsc;        /* [own] when it last got the CPU           */
	uint64_t StateTsc;          /* [D] when it left the CPU (wait time)     */
	uint32_t WaitTick;          /* [D] clock tick when it left the CPU      */
	uint32_t ContextSwitches;   /* [D]                                      */

	KWAIT_BLOCK WaitBlock[THREAD_WAIT_OBJECTS]; /* for waits on few objects */
	KWAIT_BLOCK *WaitBlockList; /* [D] the current wait's blocks            */
	uint32_t WaitCount;         /* [D] objects in the current wait          */
	uint8_t WaitType;           /* [D] WaitAny / WaitAll                    */
	uint8_t WaitPending;        /* [D] waiting now                          */
	volatile NTSTATUS WaitStatus; /* [D] how the last wait ended            */
	uint64_t WaitDeadline;      /* [D] TSC, 0 = no time-out                 */
	KTIMER_ENTRY WaitTimer;     /* [D] the time-out, on some CPU's queue    */
	uint32_t WaitGeneration;    /* [D] bumped per wait: stale time-outs     */
	LIST_ENTRY MutantListHead;  /* [D] mutants it owns                      */

	PKSTART_ROUTINE StartRoutine;
	void *StartContext;
	char Name[32];              /* NUL-terminated: 31 characters at most    */
} KTHREAD;

#endif /* KPROF_KERNEL_SCHED_KETYPES_H */
