/*
 * arch/dev/smi.h - the CPU's count of System Management Interrupts, where it
 * keeps one.  SMIs run firmware code (SMM) the operating system cannot
 * see; a profile only learns they happened from this counter.
 */
#ifndef KPROF_ARCH_SMI_H
#define KPROF_ARCH_SMI_H

#include <stdbool.h>
#include <stdint.h>

/* Does this machine's CPU count SMIs?  NULL if so, else why not (one
 * phrase, e.g. "an AMD CPU has no SMI counter").  Decided once, on the
 * boot CPU (before arch_smi_count is called anywhere); every CPU is the
 * same model. */
const char *arch_smi_uncounted_reason(void);

/* This CPU's SMIs since reset; only when arch_smi_uncounted_reason() is
 * NULL.  Any IRQL. */
uint64_t arch_smi_count(void);

#endif /* KPROF_ARCH_SMI_H */
