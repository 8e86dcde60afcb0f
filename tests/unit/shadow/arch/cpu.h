/*
 * shadow arch/cpu.h - host stand-ins for the CPU primitives, so kernel .c
 * files compile and run as ordinary host code in the unit tests.
 * Interrupt state is a per-thread flag; there are no real interrupts.
 */
#ifndef KPROF_SHADOW_ARCH_CPU_H
#define KPROF_SHADOW_ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <x86intrin.h>

extern __thread bool shadow_irqs_on;

static inline uint64_t arch_rdtsc(void) { return __rdtsc(); }
static inline uint64_t arch_rdtsc_ordered(void) { _mm_lfence(); return __rdtsc(); }
extern bool shadow_virtualized;
static inline bool arch_cpu_virtualized(void) { return shadow_virtualized; }
extern bool shadow_tsc_invariant;
static inline bool arch_tsc_invariant(void) { return shadow_tsc_invariant; }
/* Host threads play CPUs, often more of them than the host has cores: a
 * spinner that never yields can wait a whole time slice for a descheduled
 * "CPU".  Every 64th relax yields, unless a benchmark turns that off. */
extern bool shadow_relax_yields;
void shadow_relax_yield(void);
static inline void arch_cpu_relax(void)
{
	static __thread unsigned n;
	_mm_pause();
	if (shadow_relax_yields && (++n & 63) == 0)
		shadow_relax_yield();
}
static inline void arch_halt(void) {}
static inline void arch_invalid_instruction(void) { __builtin_trap(); }
static inline unsigned long arch_irq_save(void)
{
	unsigned long was = shadow_irqs_on;
	shadow_irqs_on = false;
	return was;
}
static inline void arch_irq_restore(unsigned long flags) { shadow_irqs_on = flags != 0; }
static inline void arch_irq_enable(void) { shadow_irqs_on = true; }
static inline void arch_irq_disable(void) { shadow_irqs_on = false; }
static inline bool arch_irqs_enabled(void) { return shadow_irqs_on; }
static inline __attribute__((noreturn)) void arch_halt_forever(void) { abort(); }
/* A started "CPU" (a thread) that goes idle has nothing more to do. */
void shadow_idle(void);
static inline void arch_idle(void) { shadow_idle(); }

#endif
