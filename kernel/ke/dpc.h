/*
 * dpc.h - deferred procedure calls (KDPC), queued per CPU.
 *
 * An interrupt handler that has more to do than it should at its IRQL
 * queues a DPC; the DPC runs on its target CPU at DISPATCH_LEVEL as soon as
 * that CPU's IRQL falls below DISPATCH_LEVEL.  A DPC object is on at most
 * one queue at a time: queueing one that is already queued does nothing
 * and returns false, as KeInsertQueueDpc does.
 */
#ifndef KPROF_KERNEL_DPC_H
#define KPROF_KERNEL_DPC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/list.h"
#include "kernel/ke/rawlock.h"

#define DpcObject 0x13 /* KOBJECTS value in KDPC.Type */

enum kdpc_importance {
	LowImportance = 0,
	MediumImportance = 1, /* default: end of the queue */
	HighImportance = 2,   /* front of the queue        */
};

struct kdpc;
typedef void (*PKDEFERRED_ROUTINE)(struct kdpc *dpc, void *context, void *arg1, void *arg2);

#define DPC_TARGET_CURRENT 0xFFFFu /* KDPC.Number: run on the CPU that queues */

typedef struct kdpc {
	uint8_t Type;                        /* DpcObject                        */
	uint8_t Importance;                  /* enum kdpc_importance             */
	uint16_t Number;                     /* target CPU, or DPC_TARGET_CURRENT */
	LIST_ENTRY DpcListEntry;             /* link in KDPC_DATA.DpcListHead    */
	PKDEFERRED_ROUTINE DeferredRoutine;  /* what runs                        */
	void *DeferredContext;               /* its context argument             */
	void *SystemArgument1;               /* from ke_insert_queue_dpc()       */
	void *SystemArgument2;
	void *volatile DpcData;              /* the queue it is on, NULL if none */
} KDPC;

/* A CPU's DPC queue, in its KPRCB.  Lock: DpcLock (raw, interrupts off),
 * taken by any CPU that queues to this one; last in the ranked chain
 * dispatcher -> timer queue -> DPC queue (kernel/ke/lockorder.h). */
typedef struct kdpc_data {
	LIST_ENTRY DpcListHead;             /* queued KDPCs, in run order        */
	raw_lock_t DpcLock;                 /* guards the list and the depth     */
	volatile uint32_t DpcQueueDepth;    /* entries on DpcListHead            */
	uint32_t DpcCount;                  /* DPCs run on this CPU              */
} KDPC_DATA;

struct kprcb;

void ke_initialize_dpc(KDPC *dpc, PKDEFERRED_ROUTINE routine, void *context);
void ke_set_target_processor_dpc(KDPC *dpc, uint32_t cpu);
void ke_set_importance_dpc(KDPC *dpc, enum kdpc_importance importance);
/* Queue the DPC; false if it was already queued. Any IRQL. */
bool ke_insert_queue_dpc(KDPC *dpc, void *arg1, void *arg2);
/* Take it off its queue; false if it was not queued. Any IRQL. */
bool ke_remove_queue_dpc(KDPC *dpc);

/* Internal: set up a CPU's queue and run it (ki_dpc_pending() is in
 * prcb.h, which needs this file). */
void ki_dpc_data_init(KDPC_DATA *d);
void ki_retire_dpc_list(struct kprcb *prcb);

#endif /* KPROF_KERNEL_DPC_H */
