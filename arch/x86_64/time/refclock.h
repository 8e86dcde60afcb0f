/*
 * refclock.h - the x86 reference clocks the TSC is measured against.
 */
#ifndef KPROF_ARCH_REFCLOCK_H
#define KPROF_ARCH_REFCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/arch_services.h"

/* HPET main counter at MMIO `base` (from the ACPI HPET table): map it,
 * start it, and describe it as a refclock.  NULL if it does not count. */
const struct refclock *hpet_init(uint64_t base);
/* ACPI PM timer at I/O `port`, 24 or 32 bits wide, 3.579545 MHz. */
const struct refclock *pmtimer_init(uint32_t port, bool is32);

#endif
