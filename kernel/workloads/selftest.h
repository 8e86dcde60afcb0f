/*
 * selftest.h - deliberate failures (selftest=...) that prove the fault path.
 */
#ifndef KPROF_KERNEL_SELFTEST_H
#define KPROF_KERNEL_SELFTEST_H

#include "kernel/init/config.h"

/* Run the chosen failure; returns only for SELFTEST_NONE. */
void selftest_run(enum kprof_selftest which);

#endif
