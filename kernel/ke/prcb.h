/*
 * prcb.h - the per-processor control block (KPRCB).
 *
 * One per logical CPU, reached through the arch per-CPU base register
 * (arch/percpu.h), so ke_get_current_prcb() is a single load.  Fields are
 * written only by their own CPU unless a comment says otherwise; other
 * CPUs may read the statistics without a lock.
 */
#ifndef KPROF_KERNEL_PRCB_H
#define KPROF_KERNEL_PRCB_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/percpu.h>

#include "include/kprof/lateness.h"
#include "kernel/ke/cpus.h"
#include "kernel/ke/dpc.h"
#include "kernel/ke/lockstat_cpu.h"
#include "kernel/ke/time/timerq.h"

struct trace_cpu;
struct _KTHREAD;

#define KPRCB_READY_LISTS 32 /* one ready list per priority */

typedef struct kprcb {
	struct kprcb *Self;               /* must stay first: arch_percpu_self() reads it */
	uint32_t Number;                  /* logical CPU index, 0 = boot CPU              */
	uint32_t ArchId;                  /* hardware id (x86: local APIC id)             */
	void *ArchData;                   /* arch per-CPU state (descriptor tables, ...)  */

	volatile uint32_t InterruptCount; /* hardware interrupts taken (wraps)            */
	volatile uint8_t InterruptNesting;/* interrupts in progress on this CPU          */
	volatile uint8_t DpcRoutineActive;/* a DPC is running                             */
	uint8_t RawLocksHeld;             /* ranked raw locks held here (lockorder.h)     */
	uint8_t Reserved[1];

	KDPC_DATA DpcData;                /* DPC queue; other CPUs insert under its lock */
	KTIMER_QUEUE TimerQueue;          /* per-CPU timer queue (kernel/ke/time/timerq.c)        */

	uint64_t TscHz;                   /* this CPU's measured TSC rate                 */
	uint64_t TimerHz;                 /* its interrupt timer's tick rate              */
	uint64_t ClockTicks;              /* clock interrupts handled                     */
	uint64_t ClockDue;                /* periodic mode: TSC the next tick is due      */
	uint64_t ClockLateCount;          /* interrupts later than CLOCK_LATE_US          */
	uint64_t ClockLateCycles;         /* their total lateness                         */
	uint64_t ClockLateMax;            /* the worst                                    */
	uint64_t ClockArrivals;           /* clock interrupts since the trace started     */
	uint64_t ClockArrivalMax;         /* the latest of them: cycles after it was due  */
	uint32_t ClockArrivalBuckets[KPROF_LATENESS_BUCKETS]; /* them by lateness     */
	uint64_t OnlineTsc;               /* TSC when the CPU finished starting           */
	struct trace_cpu *TraceCpu;       /* this CPU's trace buffer, NULL if none        */

	/* Dispatcher state: [D] = under the dispatcher lock. */
	struct _KTHREAD *CurrentThread;   /* [D] running here                            */
	struct _KTHREAD *IdleThread;      /* runs when nothing else is ready              */
	LIST_ENTRY DispatcherReadyListHead[KPRCB_READY_LISTS]; /* [D] ready threads     */
	uint32_t ReadySummary;            /* [D] bit p set: list p not empty              */
	volatile uint8_t DispatchPending; /* reschedule when IRQL drops below DISPATCH    */
	                                  /* (set by ki_note_dispatch_request)            */
	volatile uint8_t QuantumEnd;      /* the running thread's quantum ran out         */
	uint8_t IdleCState;               /* C-state the idle thread last entered (1: hlt) */
	uint64_t DispatchRequestTsc;      /* when this CPU was first asked to reschedule  */
	                                  /* since it last did (0: not asked); atomic     */
	struct _KTHREAD *PreemptThread;   /* [D] the best thread given to this CPU to run */
	                                  /* next, still in its queue (NT's NextThread)   */
	uint64_t IdleKickTsc;             /* [D] when this idle CPU was given a thread    */
	                                  /* and kicked, until it answers (0: none)       */
	KTIMER_ENTRY IdleKickTimer;       /* [D] no answer 200 us after the kick: its     */
	                                  /* work goes to another idle CPU (sched/idle.c) */
	struct _KTHREAD *DeferredFree;    /* a thread that ended here; its stack freed    */
	                                  /* by the next thread after the switch          */
	uint64_t ContextSwitches;         /* [D] switches on this CPU                     */

	LOCKSTAT_CPU LockStat;            /* spin locks held, sampling state (locks/)     */
} KPRCB;

/* Every started CPU, by logical number; written once at start-up. */
extern KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
/* How many CPUs run (KeNumberProcessors). */
extern volatile uint32_t ke_number_processors;

static inline KPRCB *ke_get_current_prcb(void)
{
	return (KPRCB *)arch_percpu_self();
}

static inline uint32_t ke_get_current_processor_number(void)
{
	return ke_get_current_prcb()->Number;
}

/* Work for ki_retire_dpc_list()?  Read without the queue's lock: a DPC
 * queued just after this read comes with its own interrupt. */
static inline bool ki_dpc_pending(const KPRCB *prcb)
{
	return __atomic_load_n(&prcb->DpcData.DpcQueueDepth, __ATOMIC_RELAXED) != 0;
}

static inline uint8_t ke_is_executing_dpc(void)
{
	return ke_get_current_prcb()->DpcRoutineActive;
}

static inline uint8_t ke_is_executing_isr(void)
{
	return ke_get_current_prcb()->InterruptNesting != 0;
}

#endif /* KPROF_KERNEL_PRCB_H */
