/*
 * arch/smp.h - what generic start-up code needs from arch code.
 */
#ifndef KPROF_ARCH_SMP_H
#define KPROF_ARCH_SMP_H

#include <stdbool.h>
#include <stdint.h>

struct kprcb;

/* Processors the firmware lists, boot CPU first. */
struct arch_cpu_entry {
	uint32_t hw_id;   /* APIC id                                  */
	bool enabled;     /* usable (else disabled or hot-plug only)  */
};
uint32_t arch_cpu_list(const struct arch_cpu_entry **list, uint32_t *beyond_limit);

/* Bring-up brackets: set up the start-up code, then tear it down (or, if
 * some CPU never answered, leave it parked so a late CPU halts safely). */
int arch_smp_prepare(void);
void arch_smp_finish(bool some_failed);
/* Start list entry `index` with this KPRCB (Number set, ArchData NULL);
 * 0 once the CPU runs kernel code, -1 if it did not within timeout_us. */
int arch_start_cpu(uint32_t index, struct kprcb *prcb, uint64_t timeout_us);

/* Per-CPU set-up done on the CPU itself before it counts as online. */
void arch_cpu_measure(struct kprcb *prcb);
const char *arch_cpu_id_name(void); /* "APIC id" */
/* The stack a started CPU runs on (it becomes its idle thread's). */
void arch_cpu_stack(struct kprcb *prcb, uintptr_t *base, uintptr_t *top);

#endif
