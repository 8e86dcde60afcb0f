/*
 * broadcast.h - run a function on every CPU and wait for all of them.
 */
#ifndef KPROF_KERNEL_BROADCAST_H
#define KPROF_KERNEL_BROADCAST_H

#include <stdint.h>

/* Once, on the boot CPU, after the scheduler is initialised. */
void ke_broadcast_init(void);

/* Runs fn(cpu, ctx) once on every online CPU at DISPATCH_LEVEL: in a DPC
 * on the others, directly (raised) on the calling CPU; returns when all
 * have returned, which is also a grace period: no CPU is still inside an
 * interrupt it was taking when the call began.  Callers run in a thread
 * below DISPATCH_LEVEL; concurrent callers take turns. */
void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx);

#endif
