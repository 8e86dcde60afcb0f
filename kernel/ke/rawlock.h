/*
 * rawlock.h - the untraced lock for the kernel's own bookkeeping.
 *
 * A spin lock for the dispatcher, the timer and DPC queues, the console,
 * the page and address-space allocators, the heap and the profile lists:
 * a ticket lock on bare metal, test-and-set under a hypervisor (see
 * raw_lock_tas).  It is deliberately not one of the NT spin locks
 * (kernel/locks/spinlock.c and friends): those are traced, and the trace
 * writer and allocators must never recurse into tracing.
 *
 * Rules (docs/locking.md has the table of every raw lock, its IRQL and
 * its order; each lock's declaration repeats its own line of it):
 *   - Hold briefly; never wait for anything (an event, a resource, a
 *     thread) while holding one.
 *   - Taken with interrupts off (raw_lock_irqsave), except the console
 *     lock, which spins at DISPATCH_LEVEL with interrupts on and so is
 *     never taken, only tried, while any other raw lock is held.
 *   - Raw locks nest only where the table says so:
 *       dispatcher -> timer queue -> DPC queue   (checked: lockorder.h)
 *       dispatcher -> kva -> pmm,  heap -> pmm
 *       console -> console deferred-text
 *     Any other two raw locks are never held together by one CPU.
 *   - Not recursive, and released by the CPU that took it.  A thread
 *     switch under the dispatcher lock does not break this: the thread
 *     switched to releases it on the same CPU.
 *
 * Lock checks (KPROF_LOCK_CHECKS, on unless the kernel is built with
 * LOCK_CHECKS=0): a lock records its owner, the KPRCB of the CPU that
 * holds it.  Taking a lock this CPU already holds is bug check
 * SPIN_LOCK_ALREADY_OWNED (0x0F) instead of a silent deadlock; releasing
 * one this CPU does not hold is SPIN_LOCK_NOT_OWNED (0x10); as in NT, the
 * first parameter is the lock's address.  raw_trylock() never bug-checks:
 * it fails on a lock this CPU holds (the console's interrupt path tries
 * the console lock its own CPU may hold).  The owner field is in the
 * layout either way, so objects built with and without checks agree.
 */
#ifndef KPROF_KERNEL_RAWLOCK_H
#define KPROF_KERNEL_RAWLOCK_H

#include <arch/cpu.h>
#include <arch/percpu.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/debug/bugcheck.h"

#ifndef KPROF_LOCK_CHECKS
#define KPROF_LOCK_CHECKS 1
#endif

typedef struct raw_lock {
	uint32_t next;     /* ticket handed to the next arrival; test-and-set mode: 1 held, 0 free */
	uint32_t serving;  /* ticket now allowed in (ticket mode)                                  */
	const void *owner; /* KPRCB of the CPU holding it, NULL when free (lock checks only)       */
} raw_lock_t;

#define RAW_LOCK_INIT { 0, 0, NULL }

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

/* A lock check failed: bug check `code` (SPIN_LOCK_ALREADY_OWNED or
 * SPIN_LOCK_NOT_OWNED) for l; `what` names the call that needed it. */
__attribute__((noreturn, cold)) void raw_lock_bug_check(uint32_t code, const raw_lock_t *l, const char *what);

/* ---- the owner (lock checks) ---- */

/* This CPU's owner tag, its KPRCB (the per-CPU base); NULL, and no per-CPU
 * load at all, without lock checks.  The _as variants below take it from
 * a caller that has it already (lockorder.h), so each lock operation
 * reads the per-CPU base once. */
#if KPROF_LOCK_CHECKS
#define raw_lock_self() ((const void *)arch_percpu_self())
#else
#define raw_lock_self() ((const void *)NULL)
#endif

/* Before spinning: this CPU must not hold l already.  Only this CPU ever
 * stores its own KPRCB into l->owner, so a stale read cannot match. */
static inline void raw_lock_check_acquire(const raw_lock_t *l, const void *self)
{
	if (KPROF_LOCK_CHECKS && __builtin_expect(self && __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == self, 0))
		raw_lock_bug_check(SPIN_LOCK_ALREADY_OWNED, l, "acquire");
}

/* Before the release store: this CPU must hold l.  The owner is cleared
 * before the lock is free, so the next holder's store comes after it. */
static inline void raw_lock_check_release(raw_lock_t *l, const void *self)
{
	if (!KPROF_LOCK_CHECKS)
		return;
	if (__builtin_expect(__atomic_load_n(&l->owner, __ATOMIC_RELAXED) != self, 0))
		raw_lock_bug_check(SPIN_LOCK_NOT_OWNED, l, "release");
	__atomic_store_n(&l->owner, NULL, __ATOMIC_RELAXED);
}

/* ---- taking and releasing ---- */

/* Take the lock, spinning with interrupts as they are, for CPU `self`. */
static inline void raw_lock_spin_as(raw_lock_t *l, const void *self)
{
	raw_lock_check_acquire(l, self);
	if (raw_lock_tas) {
		for (;;) {
			uint32_t free = 0;
			if (__atomic_compare_exchange_n(&l->next, &free, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
			while (__atomic_load_n(&l->next, __ATOMIC_RELAXED))
				arch_cpu_relax();
		}
	} else {
		uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

		/* Acquire: the holder's writes before its release are visible. */
		while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)
			arch_cpu_relax();
	}
	if (KPROF_LOCK_CHECKS)
		__atomic_store_n(&l->owner, self, __ATOMIC_RELAXED);
}

static inline void raw_unlock_as(raw_lock_t *l, const void *self)
{
	raw_lock_check_release(l, self);
	/* Release: our writes are visible before the next holder gets in. */
	if (raw_lock_tas)
		__atomic_store_n(&l->next, 0, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

/* Take the lock, spinning with interrupts as they are (the console,
 * which spins at DISPATCH_LEVEL with interrupts on). */
static inline void raw_lock_spin(raw_lock_t *l)
{
	raw_lock_spin_as(l, raw_lock_self());
}

static inline void raw_unlock(raw_lock_t *l)
{
	raw_unlock_as(l, raw_lock_self());
}

/* Take the lock only if it is free now (false also when this CPU holds it). */
static inline bool raw_trylock(raw_lock_t *l)
{
	bool got;

	if (raw_lock_tas) {
		uint32_t free = 0;
		got = __atomic_compare_exchange_n(&l->next, &free, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	} else {
		uint32_t serving = __atomic_load_n(&l->serving, __ATOMIC_ACQUIRE);
		uint32_t expect = serving;
		got = __atomic_compare_exchange_n(&l->next, &expect, serving + 1, false, __ATOMIC_ACQUIRE,
						  __ATOMIC_RELAXED);
	}
	if (KPROF_LOCK_CHECKS && got)
		__atomic_store_n(&l->owner, raw_lock_self(), __ATOMIC_RELAXED);
	return got;
}

/* Held by some CPU (a hint: it may change at once unless it is this one). */
static inline bool raw_lock_is_held(const raw_lock_t *l)
{
	if (raw_lock_tas)
		return __atomic_load_n(&l->next, __ATOMIC_RELAXED) != 0;
	return __atomic_load_n(&l->next, __ATOMIC_RELAXED) != __atomic_load_n(&l->serving, __ATOMIC_RELAXED);
}

/* Held by this CPU (for assertions): the owner is this CPU's KPRCB, which
 * is set only while held.  Without lock checks there is no owner, and
 * on a CPU without a KPRCB (a host test thread) none to compare: then it
 * says only "held by some CPU". */
static inline bool raw_lock_held_here(const raw_lock_t *l)
{
	const void *self = raw_lock_self();
	if (self)
		return __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == self;
	return raw_lock_is_held(l);
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
