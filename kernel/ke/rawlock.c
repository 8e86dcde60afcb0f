/*
 * rawlock.c - the boot-time choice of raw lock discipline, and the bug
 * checks of the lock checks (rawlock.h, lockorder.h).
 */
#include "kernel/ke/rawlock.h"

#include "kernel/debug/panic.h"
#include "kernel/ke/lockorder.h"
#include "kernel/ke/prcb.h"

bool raw_lock_tas;

bool raw_lock_select(void)
{
	raw_lock_tas = arch_cpu_virtualized();
	return raw_lock_tas;
}

void raw_lock_set_test_and_set(bool tas)
{
	raw_lock_tas = tas;
}

/* CPU number of a KPRCB for the message, -1 for none. */
static int cpu_of(const void *prcb)
{
	return prcb ? (int)((const KPRCB *)prcb)->Number : -1;
}

/* Parameters as NT's: 1 the lock; then (kprof's) 2 the owner's KPRCB,
 * 3 this CPU's KPRCB. */
void raw_lock_bug_check(uint32_t code, const raw_lock_t *l, const char *what)
{
	const void *owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	const void *self = arch_percpu_self();

	ke_bug_check_ex(code, (uintptr_t)l, (uintptr_t)owner, (uintptr_t)self, 0,
			code == SPIN_LOCK_ALREADY_OWNED
				? "raw lock %p: %s on CPU %d, which holds it already"
				: "raw lock %p: %s on CPU %d, which does not hold it (owner: CPU %d)",
			(const void *)l, what, cpu_of(self), cpu_of(owner));
}

void raw_lock_order_bug_check(const raw_lock_t *l, unsigned rank, unsigned held)
{
	ke_bug_check_ex(KPROF_LOCK_ORDER, (uintptr_t)l, rank, held, 0,
			"raw lock %p (rank 0x%x) taken on CPU %d while holding ranks 0x%x: against the order "
			"dispatcher -> timer queue -> DPC queue (docs/locking.md)",
			(const void *)l, rank, cpu_of(arch_percpu_self()), held);
}
