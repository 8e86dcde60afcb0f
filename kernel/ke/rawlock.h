/*
 * rawlock.h - the untraced lock for the kernel's own bookkeeping.
 *
 * A spin lock held with interrupts disabled, for the dispatcher, the
 * console, the timer queues, the page allocator and the heap: a ticket
 * lock on bare metal, test-and-set under a hypervisor (see raw_lock_tas).  It is deliberately not one of the NT spin locks
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
#include <stdbool.h>
#include <stdint.h>

typedef struct raw_lock {
	uint32_t next;  /* ticket handed to the next arrival; 0/1 held flag in test-and-set mode */
	uint32_t owner; /* ticket now allowed in (ticket mode)                                    */
} raw_lock_t;

#define RAW_LOCK_INIT { 0, 0 }

/* Which discipline every raw lock uses, chosen once at boot before any
 * lock is contended (raw_lock_select) and never changed:
 *   ticket (bare metal): first come, first served;
 *   test-and-set (under a hypervisor): a ticket lock hands the lock to
 *   the next waiter in line even when the host is not running that
 *   virtual CPU, and every CPU behind it then waits for the host too
 *   (lock-waiter preemption); test-and-set lets whoever runs take it.
 *   Linux makes the same choice (virt_spin_lock) without paravirtual
 *   spin locks. */
extern bool raw_lock_tas;

/* Choose the discipline: test-and-set under a hypervisor (boot CPU, first
 * thing, no lock held); returns whether test-and-set was chosen. */
bool raw_lock_select(void);
/* Set it (rawlock= on the command line): only while the boot CPU runs
 * alone and holds no raw lock. */
void raw_lock_set_test_and_set(bool tas);

/* Take the lock, spinning with interrupts as they are (the console,
 * which spins at DISPATCH_LEVEL with interrupts on). */
static inline void raw_lock_spin(raw_lock_t *l)
{
	if (raw_lock_tas) {
		for (;;) {
			uint32_t free = 0;
			if (__atomic_compare_exchange_n(&l->next, &free, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return;
			while (__atomic_load_n(&l->next, __ATOMIC_RELAXED))
				arch_cpu_relax();
		}
	}
	uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	/* Acquire: the holder's writes before its release are visible. */
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		arch_cpu_relax();
}

/* Take the lock only if it is free now. */
static inline bool raw_trylock(raw_lock_t *l)
{
	if (raw_lock_tas) {
		uint32_t free = 0;
		return __atomic_compare_exchange_n(&l->next, &free, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	}
	uint32_t owner = __atomic_load_n(&l->owner, __ATOMIC_ACQUIRE);
	uint32_t expect = owner;
	return __atomic_compare_exchange_n(&l->next, &expect, owner + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static inline void raw_unlock(raw_lock_t *l)
{
	/* Release: our writes are visible before the next holder gets in. */
	if (raw_lock_tas)
		__atomic_store_n(&l->next, 0, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

/* Held by someone (for assertions). */
static inline bool raw_lock_is_held(const raw_lock_t *l)
{
	if (raw_lock_tas)
		return __atomic_load_n(&l->next, __ATOMIC_RELAXED) != 0;
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) != __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
}

static inline unsigned long raw_lock_irqsave(raw_lock_t *l)
{
	unsigned long flags = arch_irq_save();
	raw_lock_spin(l);
	return flags;
}

static inline void raw_unlock_irqrestore(raw_lock_t *l, unsigned long flags)
{
	raw_unlock(l);
	arch_irq_restore(flags);
}

#endif /* KPROF_KERNEL_RAWLOCK_H */
