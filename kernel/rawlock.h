/*
 * rawlock.h - the untraced lock for the kernel's own bookkeeping.
 *
 * A ticket lock held with interrupts disabled, for the console, the page
 * allocator and the heap.  It is deliberately not one of the NT spin locks
 * (kernel/spinlock.c and friends): those are traced, and the trace writer
 * and allocators must never recurse into tracing.
 *
 * Rules: hold briefly; never wait for anything else while holding one; the
 * lock order between raw locks is console -> pmm -> heap is never needed
 * (no raw lock is taken while another is held, except console inside any).
 */
#ifndef KPROF_KERNEL_RAWLOCK_H
#define KPROF_KERNEL_RAWLOCK_H

#include <arch/cpu.h>
#include <stdint.h>

typedef struct raw_lock {
	uint32_t next;  /* ticket handed to the next arrival */
	uint32_t owner; /* ticket now allowed in            */
} raw_lock_t;

#define RAW_LOCK_INIT { 0, 0 }

static inline unsigned long raw_lock_irqsave(raw_lock_t *l)
{
	unsigned long flags = arch_irq_save();
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	/* Acquire: the holder's writes before its release are visible. */
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		arch_cpu_relax();
	return flags;
}

static inline void raw_unlock_irqrestore(raw_lock_t *l, unsigned long flags)
{
	/* Release: our writes are visible before the next ticket is let in. */
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
}

#endif /* KPROF_KERNEL_RAWLOCK_H */
