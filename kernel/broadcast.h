/*
 * broadcast.h - run a function on every CPU and wait for all of them.
 */
#ifndef KPROF_KERNEL_BROADCAST_H
#define KPROF_KERNEL_BROADCAST_H

#include <stdint.h>

/* Runs fn(cpu, ctx) once on every online CPU: in a DPC (DISPATCH_LEVEL)
 * on the others, directly on the calling CPU; returns when all have
 * returned.  Callers run below DISPATCH_LEVEL. */
void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx);

#endif
