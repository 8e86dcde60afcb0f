/*
 * objname.h - names for the locks and resources in the trace.
 *
 * A workload names a spin lock, queued spin lock, executive spin lock or
 * ERESOURCE once it is initialised (trace_name_object); the name goes into
 * a KprofObjectName record (include/kprof/wmi.h) at once if its group is
 * traced, and into the table of named objects, whose rundown
 * (trace_object_rundown, right after trace_start) writes a record for
 * every object named before the trace started.  So every named object
 * that is ever traced has a name record before, or at the start of, the
 * trace.  An object that goes away is forgotten (trace_forget_object) so
 * its address can be named again.
 */
#ifndef KPROF_KERNEL_TRACE_OBJNAME_H
#define KPROF_KERNEL_TRACE_OBJNAME_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/wmi.h"

/* Objects the table remembers for the rundown; more are still named in
 * the trace when they are named while it runs, only not in a rundown. */
#define TRACE_OBJECT_NAMES 64

/* Name the object at `object`: printf-style, cut to 31 bytes.  Any IRQL
 * up to DISPATCH_LEVEL; not from an interrupt handler. */
void trace_name_object(const volatile void *object, enum kprof_object_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The object is gone: its address is no longer named (no record). */
void trace_forget_object(const volatile void *object);

/* Write a record (Flags RUNDOWN) for every named object (after trace_start). */
void trace_object_rundown(void);

/* The group a kind's records are written under: PERF_SPINLOCK or
 * PERF_SYNC_OBJECTS. */
uint32_t trace_object_group(enum kprof_object_kind kind);

/* Objects named but not remembered because the table was full. */
uint32_t trace_object_names_dropped(void);

#endif /* KPROF_KERNEL_TRACE_OBJNAME_H */
