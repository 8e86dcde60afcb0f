/*
 * workload.h - the API a workload may use: the one header a workload
 * built from outside the tree (make WORKLOADS=DIR) includes, besides its
 * own headers and the C headers stdint, stdbool, stddef, stdarg.
 * tools/check-layering.sh refuses anything else in such a folder (and in
 * examples/).  docs/workloads.md describes each part and what is kept
 * stable.
 *
 *   the descriptor and keys   WORKLOAD_DEFINE, WORKLOAD_KEYS (descriptor.h;
 *                             a file of keys alone includes api/keys.h)
 *   threads, priorities,      ps_create_system_thread, ke_set_priority_thread,
 *   affinity                  KAFFINITY_EX, ke_number_processors
 *   waits, dispatcher objects ke_wait_for_*, KEVENT, KSEMAPHORE, KMUTANT
 *   timers                    KTIMER, ke_delay_execution_thread
 *   spin / queued / executive KSPIN_LOCK, KLOCK_QUEUE_HANDLE, EX_SPIN_LOCK
 *   locks and ERESOURCE       ERESOURCE (all traced as the kernel's own)
 *   IRQL                      ke_raise_irql, ke_lower_irql
 *   naming objects            trace_name_object (the report's lock names)
 *   events of its own         user_event_declare, user_event_begin, ...
 *                             (kernel/trace/user_event.h, docs/user-events.md)
 *   allocation                kmalloc, kzalloc, kfree
 *   phases                    workload_phase, workload_phase_asked,
 *                             workload_phase_rounds
 *   the console, text         kprintf, ksnprintf
 *   measurement               api/measure.h
 */
#ifndef KPROF_KERNEL_WORKLOAD_API_H
#define KPROF_KERNEL_WORKLOAD_API_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/console/console.h"
#include "kernel/ex/resource.h"
#include "kernel/ke/affinity.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/lib/printf.h"
#include "kernel/locks/spinlock.h"
#include "kernel/mm/heap.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/objname.h"
#include "kernel/trace/user_event.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/api/measure.h"
#include "kernel/workloads/phase.h"

#endif /* KPROF_KERNEL_WORKLOAD_API_H */
