/*
 * smp.h - starting the other CPUs, and what each CPU does once started.
 */
#ifndef KPROF_KERNEL_SMP_H
#define KPROF_KERNEL_SMP_H

#include <stdint.h>

#include "kernel/ke/prcb.h"

/* Fill a KPRCB for CPU `number` (the boot CPU's is static, others are
 * allocated by ke_start_processors). */
void ki_prcb_init(KPRCB *prcb, uint32_t number);

/* Boot CPU: measure it, start its clock, report it (interrupts on after). */
void ki_processor_start_boot(void);
/* Another CPU, on its own stack once arch code has set it up: measure,
 * start the clock, report, then idle forever. */
__attribute__((noreturn)) void ki_processor_start(KPRCB *prcb);

/* Start up to `limit` CPUs in total (0: every enabled one) and wait until
 * each started CPU is online.  Reports CPUs that could not be started. */
void ke_start_processors(uint32_t limit);

/* CPUs that completed ki_processor_start(). */
uint32_t ke_processors_online(void);

#endif
