/*
 * arch/cpu.h - the small CPU primitives generic kernel code may use.
 *
 * Generic code reaches the processor only through these: time stamp,
 * spin-wait hint, halt, and saving/restoring the interrupt flag.  The host
 * unit tests provide their own version of this header (tests/unit/shadow).
 */
#ifndef KPROF_ARCH_CPU_H
#define KPROF_ARCH_CPU_H

#include <stdbool.h>
#include <stdint.h>

/* Read the time-stamp counter (cycles at the TSC rate). */
static inline uint64_t arch_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* The same, not taken before the loads that precede it (LFENCE): for
 * reads of another CPU's TSC value that must follow seeing it. */
static inline uint64_t arch_rdtsc_ordered(void)
{
	__asm__ volatile("lfence" ::: "memory");
	return arch_rdtsc();
}

/* Running under a hypervisor (CPUID.1:ECX bit 31, which hypervisors set
 * and hardware leaves clear)? */
static inline bool arch_cpu_virtualized(void)
{
	uint32_t a = 1, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (c >> 31) & 1;
}

/* The TSC runs at one rate in every power state and frequency (an
 * "invariant TSC": CPUID.80000007H:EDX bit 8).  Hypervisors often leave it
 * clear even where their TSC is steady. */
static inline bool arch_tsc_invariant(void)
{
	uint32_t a = 0x80000000u, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	if (a < 0x80000007u)
		return false;
	a = 0x80000007u;
	c = 0;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return (d >> 8) & 1;
}

/* Spin-wait hint inside busy loops. */
static inline void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

/* Execute an instruction the CPU defines as invalid (the self-test of the
 * invalid-opcode trap). */
static inline void arch_invalid_instruction(void)
{
	__asm__ volatile("ud2");
}

/* Sleep until the next interrupt (the caller decides whether they are on). */
static inline void arch_halt(void)
{
	__asm__ volatile("hlt" ::: "memory");
}

/* Disable interrupts and return the previous state for arch_irq_restore(). */
static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(flags)::"memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	if (flags & (1UL << 9))
		__asm__ volatile("sti" ::: "memory");
	else
		__asm__ volatile("cli" ::: "memory");
}

static inline void arch_irq_enable(void)
{
	__asm__ volatile("sti" ::: "memory");
}

static inline void arch_irq_disable(void)
{
	__asm__ volatile("cli" ::: "memory");
}

static inline bool arch_irqs_enabled(void)
{
	unsigned long flags;
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	return (flags & (1UL << 9)) != 0;
}

/* Enable interrupts and halt until one arrives, with no window between
 * (sti's one-instruction interrupt shadow covers the hlt). */
static inline void arch_idle(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* Stop this CPU for good: interrupts off, halt in a loop. */
static inline __attribute__((noreturn)) void arch_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt" ::: "memory");
}

#endif /* KPROF_ARCH_CPU_H */
