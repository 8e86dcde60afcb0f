/*
 * arch/local.h - CPU-local atomics (as Linux's local_t).
 *
 * Atomic with respect to interrupts on the same CPU, not with respect to
 * other CPUs: a single read-modify-write instruction without the lock
 * prefix.  For data only its own CPU writes (the trace buffers), where an
 * interrupt may nest inside a writer but no other CPU writes.  Other CPUs
 * may read such data; x86 stores become visible in program order.
 */
#ifndef KPROF_ARCH_LOCAL_H
#define KPROF_ARCH_LOCAL_H

#include <stdbool.h>
#include <stdint.h>

/* *p = new if *p == old; true if it was swapped. */
static inline bool arch_local_cmpxchg64(uint64_t *p, uint64_t old, uint64_t new_value)
{
	bool ok;
	__asm__ volatile("cmpxchgq %3, %1" : "=@ccz"(ok), "+m"(*p), "+a"(old) : "r"(new_value) : "memory");
	return ok;
}

static inline void arch_local_add32(uint32_t *p, uint32_t v)
{
	__asm__ volatile("addl %1, %0" : "+m"(*p) : "ir"(v) : "memory");
}

static inline void arch_local_add64(uint64_t *p, uint64_t v)
{
	__asm__ volatile("addq %1, %0" : "+m"(*p) : "er"(v) : "memory");
}

#endif /* KPROF_ARCH_LOCAL_H */
