/*
 * objname.c - the table of named objects and their KprofObjectName
 * records (objname.h).
 *
 * Invariants:
 *   - A slot is free when its Object is 0; an address is in at most one
 *     slot (naming it again replaces the name).
 *   - The table lock (a raw lock, docs/locking.md) is held only to read or
 *     change slots, with interrupts off, never while a record is written:
 *     the trace writer may queue the flush DPC, which takes the DPC queue's
 *     raw lock, and raw locks do not nest outside the table there.
 *   - At least once: trace_name_object writes its record after it has put
 *     the name in the table, if the group is on by then; the rundown runs
 *     after trace_start turned the groups on and copies every slot.  A name
 *     set before the rundown reaches its slot is written by the rundown; a
 *     name set later finds the group on and writes itself.  Either may
 *     happen as well as the other (a duplicate record), never neither.
 */
#include "kernel/trace/objname.h"

#include <stdarg.h>

#include "kernel/ke/rawlock.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/trace/trace.h"

static struct {
	raw_lock_t lock;                           /* the slots; interrupts off   */
	KPROF_OBJECT_NAME slots[TRACE_OBJECT_NAMES];
	uint32_t dropped;                          /* named with the table full   */
} names = { .lock = RAW_LOCK_INIT };

uint32_t trace_object_group(enum kprof_object_kind kind)
{
	return kind == KprofObjectResource ? PERF_SYNC_OBJECTS : PERF_SPINLOCK;
}

static void write_record(const KPROF_OBJECT_NAME *r)
{
	trace_log(trace_object_group((enum kprof_object_kind)r->Kind), KPROF_LOG_TYPE_OBJECT_NAME,
		  OBJECT_NAME_VERSION, r, sizeof(*r));
}

/* The slot of `object`, else a free one, else NULL (table lock held). */
static KPROF_OBJECT_NAME *slot_for(uint64_t object)
{
	KPROF_OBJECT_NAME *free_slot = NULL;

	for (uint32_t i = 0; i < TRACE_OBJECT_NAMES; i++) {
		if (names.slots[i].Object == object)
			return &names.slots[i];
		if (!names.slots[i].Object && !free_slot)
			free_slot = &names.slots[i];
	}
	return free_slot;
}

void trace_name_object(const volatile void *object, enum kprof_object_kind kind, const char *fmt, ...)
{
	KPROF_OBJECT_NAME r = { .Object = (uint64_t)(uintptr_t)object, .Kind = (uint8_t)kind };
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(r.Name, sizeof(r.Name), fmt, ap); /* NUL-terminated, at most 31 bytes */
	va_end(ap);
	unsigned long flags = raw_lock_irqsave(&names.lock);
	KPROF_OBJECT_NAME *s = slot_for(r.Object);
	if (s)
		*s = r;
	else
		names.dropped++;
	raw_unlock_irqrestore(&names.lock, flags);
	if (trace_enabled(trace_object_group(kind)))
		write_record(&r);
}

void trace_forget_object(const volatile void *object)
{
	uint64_t a = (uint64_t)(uintptr_t)object;

	unsigned long flags = raw_lock_irqsave(&names.lock);
	for (uint32_t i = 0; i < TRACE_OBJECT_NAMES; i++)
		if (names.slots[i].Object == a)
			memset(&names.slots[i], 0, sizeof(names.slots[i]));
	raw_unlock_irqrestore(&names.lock, flags);
}

void trace_object_rundown(void)
{
	for (uint32_t i = 0; i < TRACE_OBJECT_NAMES; i++) {
		unsigned long flags = raw_lock_irqsave(&names.lock);
		KPROF_OBJECT_NAME r = names.slots[i];
		raw_unlock_irqrestore(&names.lock, flags);
		r.Flags |= KPROF_OBJECT_NAME_RUNDOWN;
		if (r.Object && trace_enabled(trace_object_group((enum kprof_object_kind)r.Kind)))
			write_record(&r);
	}
}

uint32_t trace_object_names_dropped(void)
{
	unsigned long flags = raw_lock_irqsave(&names.lock);
	uint32_t n = names.dropped;
	raw_unlock_irqrestore(&names.lock, flags);
	return n;
}
