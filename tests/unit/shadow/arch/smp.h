/*
 * shadow arch/smp.h - CPU start-up played by the test (see test_smp.c).
 */
#ifndef KPROF_SHADOW_ARCH_SMP_H
#define KPROF_SHADOW_ARCH_SMP_H

#include <stdbool.h>
#include <stdint.h>

struct kprcb;
struct arch_cpu_entry {
	uint32_t hw_id;
	bool enabled;
};
uint32_t arch_cpu_list(const struct arch_cpu_entry **list, uint32_t *beyond_limit);
int arch_smp_prepare(void);
void arch_smp_finish(bool some_failed);
int arch_start_cpu(uint32_t index, struct kprcb *prcb, uint64_t timeout_us);
void arch_cpu_measure(struct kprcb *prcb);
static inline const char *arch_cpu_id_name(void) { return "hw id"; }
/* The stack the CPU started on (it becomes the idle thread's). */
static inline void arch_cpu_stack(struct kprcb *prcb, uintptr_t *base, uintptr_t *top)
{
	(void)prcb;
	*base = *top = 0;
}

#endif
