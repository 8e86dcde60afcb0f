/*
 * kassert.h - invariant checks that name their values.
 *
 * KASSERT_OP(a, op, b) checks the relation `a op b` (op one of == != < <=
 * > >=), evaluating each side once.  When it does not hold the kernel
 * bug-checks with KPROF_ASSERTION_FAILED, parameters (a, b, line, 0), and
 * a message naming the relation, both values and where it is:
 *
 *   *** assertion failed: s->commit + r->size <= 1u << tc->shift (320 vs 256) at kernel/trace/tracebuf.c:199
 *
 * The backtrace's first frame is kassert_op_failed, the next the caller.
 *
 * Compiled in when KPROF_ASSERTS is 1: the default, and what the kernel
 * that `make` builds, the unit tests and the benchmarks use.  A kernel
 * built with `make ASSERTS=0` leaves them out (the relation is still
 * compiled, for its errors, but never evaluated).  KASSERT (panic.h) is
 * the older form without values, always on.  docs/testing.md lists what
 * is asserted where.
 *
 * A failed assertion is a bug in kprof, never bad input: input is checked
 * and refused with a message where it enters.
 */
#ifndef KPROF_KERNEL_KASSERT_H
#define KPROF_KERNEL_KASSERT_H

#include <stdint.h>

#include "kernel/debug/panic.h"

#ifndef KPROF_ASSERTS
#define KPROF_ASSERTS 1
#endif

/* The failure, out of line and cold so that a check costs its caller only
 * the comparison and a branch not taken. */
static __attribute__((noreturn, cold, noinline, unused)) void
kassert_op_failed(const char *relation, uint64_t a, uint64_t b, const char *file, int line)
{
	ke_bug_check_ex(KPROF_ASSERTION_FAILED, a, b, (uint64_t)line, 0, "assertion failed: %s (%llu vs %llu) at %s:%d",
			relation, (unsigned long long)a, (unsigned long long)b, file, line);
}

#define KASSERT_OP(a, op, b)                                                                            \
	do {                                                                                            \
		if (KPROF_ASSERTS) {                                                                    \
			__typeof__(a) ka_a_ = (a);                                                      \
			__typeof__(b) ka_b_ = (b);                                                      \
			if (__builtin_expect(!(ka_a_ op ka_b_), 0))                                     \
				kassert_op_failed(#a " " #op " " #b, (uint64_t)ka_a_, (uint64_t)ka_b_,  \
						  __FILE__, __LINE__);                                  \
		}                                                                                       \
	} while (0)

#endif /* KPROF_KERNEL_KASSERT_H */
