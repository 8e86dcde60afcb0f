/*
 * arch/dev/pmu.h - the processor's performance counters, as generic code sees
 * them: which KPROFILE_SOURCE values this machine can count, and, on each
 * CPU, counting up to ARCH_PMU_MAX_SOURCES of them with an interrupt every
 * `interval` events (the PMC profile sources of NtCreateProfile /
 * NtSetIntervalProfile).
 *
 * Where each call may run:
 *   arch_pmu_probe           boot CPU, once, before any other call and
 *                            before other CPUs start (it writes the tables
 *                            every later call reads without a lock).
 *   arch_pmu_source_*,       any CPU, any IRQL, after the probe (read-only).
 *   arch_pmu_max_interval
 *   arch_pmu_start_cpu,      on the CPU whose counters change, at
 *   arch_pmu_stop_cpu,       DISPATCH_LEVEL or above so it cannot migrate
 *   arch_pmu_set_interval_cpu (from a DPC or an IPI on each CPU).  Each CPU
 *                            touches only its own counters and its own
 *                            per-CPU state, so there are no locks; these
 *                            calls disable interrupts while they reprogram,
 *                            so the PMI never sees half-programmed state.
 *   arch_pmu_handle_interrupt the ARCH_INT_PMC handler, at PROFILE_LEVEL on
 *                            the CPU that took the interrupt.
 *
 * The interrupt contract.  The kernel connects a handler to ARCH_INT_PMC
 * (arch_interrupt_connect) and calls arch_pmu_handle_interrupt from it.
 * That call does everything the counters and the local APIC's LVT
 * performance-counter entry need (counting stopped, overflows found,
 * counters reloaded, overflow status cleared, LVT entry unmasked, counting
 * restarted) except the EOI: the common interrupt path
 * (arch/x86_64/entry/interrupt.c) sends the EOI after the connected handler
 * returns, as it does for every vector.  The LVT entry is unmasked and
 * counting restarted before that EOI; an overflow in between raises a new
 * PMI that the local APIC holds pending (the PMC vector is still in
 * service and IRQL is PROFILE_LEVEL) and delivers after the EOI, so none is
 * lost.  The callback runs with this CPU's counters stopped (its own work
 * is not counted); it must not call the start/stop/set-interval functions.
 */
#ifndef KPROF_ARCH_PMU_H
#define KPROF_ARCH_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/trapframe.h>


#define ARCH_PMU_MAX_SOURCES 4 /* sources one CPU counts at a time */

/* What the counter calls answer; kernel/profile/source.c turns these into
 * the NTSTATUS values of NtStartProfile / NtSetIntervalProfile. */
enum arch_pmu_status {
	ARCH_PMU_OK,            /* done                                          */
	ARCH_PMU_NOT_SUPPORTED, /* no PMU, or a source it cannot count           */
	ARCH_PMU_NO_COUNTER,    /* more sources than counters that can count them */
	ARCH_PMU_INVALID,       /* a source twice, a bad interval, NULL arrays   */
	ARCH_PMU_NOT_COUNTING,  /* this CPU is not counting that source          */
};

struct arch_pmu_info {
	bool present;             /* counters usable; the fields below describe them */
	char vendor[16];          /* CPUID vendor string ("GenuineIntel")             */
	uint32_t family;          /* CPUID display family (AMD event tables use it)  */
	uint32_t model;           /* CPUID display model                              */
	uint32_t version;         /* Intel: CPUID.0AH perfmon version; AMD: 1, or 2   */
	                          /* with PerfMonV2                                   */
	uint32_t gp_counters;     /* general-purpose counters                         */
	uint32_t fixed_counters;  /* Intel fixed-function counters (AMD: 0)           */
	uint32_t counter_bits;    /* width of a general-purpose counter               */
	uint32_t fixed_bits;      /* width of a fixed counter (0 without them)        */
	bool full_width_writes;   /* Intel: IA32_A_PMCx (else 32-bit writes, so       */
	                          /* general-purpose intervals stop at 2^31 - 1)      */
	bool global_control;      /* one MSR enables, reports and clears all counters */
	bool amd_ext_core;        /* AMD PerfCtrExtCore: 6 counters at 0xC0010200     */
	bool perfmon_v2;          /* AMD PerfMonV2 (CPUID 0x80000022)                 */
	char summary[128];        /* one line for the console, present or not         */
	char why_absent[96];      /* when !present: the reason, e.g. "CPUID leaf 0xA  */
	                          /* reports version 0 (no architectural performance  */
	                          /* monitoring)"                                     */
};

/* Find the counters on the boot CPU and fill *out (also kept for the calls
 * below; out may be NULL).  Every CPU is assumed to have the boot CPU's
 * counters.  Only reads, except on AMD, where one counter is written and
 * read back (emulators and hypervisors without a virtual PMU drop the
 * write), then restored.  Does not stop counters firmware left running:
 * arch_pmu_stop_cpu() on each CPU does. */
void arch_pmu_probe(struct arch_pmu_info *out);

/* This machine can count kprofile_source (a KPROFILE_SOURCE).  False for
 * ProfileTime (the profile timer, not a counter), for every source when
 * there is no PMU, and for sources without a known event on this CPU. */
bool arch_pmu_source_supported(uint32_t kprofile_source);

/* What counts the source here, for reports: "Instructions Retired:
 * INST_RETIRED.ANY (fixed counter 0)", or NULL if unsupported.  Static
 * storage, valid until the next probe. */
const char *arch_pmu_source_event(uint32_t kprofile_source);

/* The largest interval start/set-interval accept for the source (the
 * smallest is 1), or 0 if unsupported.  It depends on the counter the
 * source gets (a fixed counter when there is one for it) and its width:
 * intervals stay below half the counter's range so that a counter that has
 * not yet overflowed always has its top bit set. */
uint64_t arch_pmu_max_interval(uint32_t kprofile_source);

/* On the calling CPU: count the n distinct sources[i], each raising the
 * PMI every intervals[i] events, replacing whatever this CPU counted
 * before (n = 0 is arch_pmu_stop_cpu).  Assigns counters (a source's fixed
 * counter when there is one, else a general-purpose counter the event may
 * use), programs them to count in kernel and user mode, and unmasks the
 * LVT performance-counter entry with the ARCH_INT_PMC vector.  Nothing is
 * changed unless it returns ARCH_PMU_OK.
 *   ARCH_PMU_NOT_SUPPORTED  no PMU, or a source it cannot count
 *   ARCH_PMU_NO_COUNTER     more sources than ARCH_PMU_MAX_SOURCES or
 *                                 than counters that can count them
 *   ARCH_PMU_INVALID        a source twice, an interval of 0 or above
 *                                 arch_pmu_max_interval(), NULL arrays */
enum arch_pmu_status arch_pmu_start_cpu(const uint32_t *sources, const uint64_t *intervals, uint32_t n);

/* On the calling CPU: stop and clear every counter, clear the overflow
 * status, mask the LVT entry.  Also puts a CPU whose firmware left counters
 * running into a known state; harmless without a PMU. */
void arch_pmu_stop_cpu(void);

/* On the calling CPU: the source counted here now interrupts every
 * interval events (NtSetIntervalProfile).  The counter restarts a full
 * interval; an overflow not yet handled is dropped.
 *   ARCH_PMU_NOT_SUPPORTED  the machine cannot count the source
 *   ARCH_PMU_NOT_COUNTING   this CPU is not counting it
 *   ARCH_PMU_INVALID        interval 0 or above arch_pmu_max_interval() */
enum arch_pmu_status arch_pmu_set_interval_cpu(uint32_t kprofile_source, uint64_t interval);

/* The PMI handler's work, in Linux's order: stop counting, read which
 * counters overflowed, for each call fn(source, tf, ctx) once and reload
 * it with -interval, clear their overflow status, unmask the LVT entry,
 * restart counting.  Returns the number of overflows handled; 0 means a
 * spurious PMI (nothing overflowed, or this CPU is not counting; the LVT
 * entry is then left as it was if this CPU counts nothing).  No EOI (see
 * above). */
uint32_t arch_pmu_handle_interrupt(KTRAP_FRAME *tf,
				   void (*fn)(uint32_t kprofile_source, KTRAP_FRAME *tf, void *ctx), void *ctx);

#endif /* KPROF_ARCH_PMU_H */
