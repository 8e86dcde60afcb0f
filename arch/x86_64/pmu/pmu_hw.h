/*
 * pmu_hw.h - what the PMU drivers (pmu.c, pmu_intel.c, pmu_amd.c) are
 * built from: the hardware they touch, and the interface between the
 * common code and a vendor driver.
 *
 * The hardware layer is a handful of functions and nothing else touches
 * the hardware: the kernel links arch/x86_64/pmu/pmu_hw.c (RDMSR, WRMSR, CPUID,
 * the local APIC), the host unit tests link tests/unit/support/pmu_model.c, a
 * software model of the counter MSRs, instead.  So every MSR access must
 * name a register the probed CPU has: on hardware anything else raises #GP
 * (the kernel has no fault-tolerant MSR access), and the model counts it
 * as a fault the tests check for.
 *
 * Counter numbers.  Drivers name counters by their bit in Intel's
 * IA32_PERF_GLOBAL_CTRL: general-purpose counter n is n, fixed counter n
 * is PMU_FIXED_BASE + n.  AMD counters are 0..5.  A uint64_t with those
 * bits is a counter mask.
 */
#ifndef KPROF_ARCH_PMU_HW_H
#define KPROF_ARCH_PMU_HW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <arch/dev/pmu.h>

/* ------------------------------------------------------------- hardware */

uint64_t pmu_hw_rdmsr(uint32_t msr);
void pmu_hw_wrmsr(uint32_t msr, uint64_t value);
/* CPUID leaf, subleaf -> r[0..3] = EAX, EBX, ECX, EDX. */
void pmu_hw_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);
/* The local APIC's LVT performance-counter entry (xAPIC offset 0x340,
 * x2APIC MSR 0x834): vector in bits 7:0, delivery mode fixed, mask bit. */
uint32_t pmu_hw_lvtpc_read(void);
void pmu_hw_lvtpc_write(uint32_t value);
/* The calling CPU's logical number (KPRCB.Number), < KPROF_MAX_CPUS. */
uint32_t pmu_hw_cpu_number(void);

#define PMU_LVT_MASKED (1u << 16) /* the LVT mask bit (lapic.h LVT_MASKED) */

/* Event-select bits common to Intel IA32_PERFEVTSELx and AMD PerfEvtSeln. */
#define PMU_SEL_USR (1ull << 16) /* count at CPL > 0                  */
#define PMU_SEL_OS  (1ull << 17) /* count at CPL 0                    */
#define PMU_SEL_INT (1ull << 20) /* interrupt (PMI) on overflow       */
#define PMU_SEL_EN  (1ull << 22) /* counter enabled                   */

/* ---------------------------------------------- common code <-> vendor */

#define PMU_FIXED_BASE 32 /* counter number of fixed counter 0 */

/* A vendor driver.  Probe runs once on the boot CPU; the rest run on the
 * CPU whose counters they touch, with interrupts disabled or in the PMI
 * handler.  `in_use` is the mask of counters that CPU has programmed. */
struct pmu_driver {
	const char *vendors[2]; /* CPUID vendor strings it drives (NULL: none) */
	/* Read CPUID (and capability MSRs), fill info (counts, widths,
	 * summary); false with info->why_absent set if no usable counters. */
	bool (*probe)(struct arch_pmu_info *info);
	/* Counters that can count the source (0: unsupported here). */
	uint64_t (*counters_for)(uint32_t source);
	/* Describe the source's event into buf (only if supported). */
	void (*describe)(uint32_t source, char *buf, size_t size);
	/* Largest interval the counter takes. */
	uint64_t (*max_interval)(unsigned counter);
	/* Everything off: global and fixed control, selectors, counts, overflow
	 * status. */
	void (*reset)(void);
	/* Load the counter with -interval, then set its selector to count the
	 * source at every privilege level with the PMI on overflow.  With
	 * global control it waits for enable(); without, it counts at once. */
	void (*program)(unsigned counter, uint32_t source, uint64_t interval);
	/* Load the counter with -interval (it is stopped). */
	void (*reload)(unsigned counter, uint64_t interval);
	/* Stop / restart every counter in in_use. */
	void (*disable)(uint64_t in_use);
	void (*enable)(uint64_t in_use);
	/* Which counters of in_use overflowed (they are stopped): global
	 * status where there is one, else the counter's top bit clear. */
	uint64_t (*overflowed)(uint64_t in_use);
	/* Clear their overflow status (nothing to do without global status). */
	void (*ack)(uint64_t mask);
};

extern const struct pmu_driver pmu_intel_driver;
extern const struct pmu_driver pmu_amd_driver;

/* -interval as a counter of `bits` holds it. */
static inline uint64_t pmu_counter_reload(uint64_t interval, unsigned bits)
{
	return (0 - interval) & (bits >= 64 ? ~0ull : (1ull << bits) - 1);
}

/* Below half the counter's range: a counter loaded with -interval keeps its
 * top bit set until it overflows (how overflow is found without status). */
static inline uint64_t pmu_half_range(unsigned bits)
{
	return (1ull << (bits - 1)) - 1;
}

#endif /* KPROF_ARCH_PMU_HW_H */
