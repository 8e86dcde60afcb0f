/*
 * prcb.h - the per-processor control block (KPRCB).
 *
 * One per logical CPU, reached through the arch per-CPU base register
 * (arch/percpu.h), so ke_get_current_prcb() is a single load.  Fields are
 * owned by their CPU; other CPUs read them only where a comment says so.
 */
#ifndef KPROF_KERNEL_PRCB_H
#define KPROF_KERNEL_PRCB_H

#include <stdint.h>

#include <arch/percpu.h>

typedef struct kprcb {
	struct kprcb *Self;        /* must stay first: arch_percpu_self() reads it */
	uint32_t Number;           /* logical CPU index, 0 = boot CPU             */
	uint32_t ArchId;           /* hardware id (x86: local APIC id)            */
	void *ArchData;            /* arch per-CPU state (descriptor tables, ...) */
} KPRCB;

static inline KPRCB *ke_get_current_prcb(void)
{
	return (KPRCB *)arch_percpu_self();
}

static inline uint32_t ke_get_current_processor_number(void)
{
	return ke_get_current_prcb()->Number;
}

#endif /* KPROF_KERNEL_PRCB_H */
