/*
 * fidelity.h - what the run's own figures are worth on this machine: each
 * CPU's KprofFidelity record at the end of the trace (fidelity.c;
 * docs/wire-format.md, docs/cpus-and-time.md).
 */
#ifndef KPROF_KERNEL_TIMEKEEP_FIDELITY_H
#define KPROF_KERNEL_TIMEKEEP_FIDELITY_H

#include <stdint.h>

/* Right after trace_start(), from the boot thread: every CPU measures
 * what a TSC read costs and starts counting its clock interrupts'
 * lateness afresh; round_trip_cycles is the boot's empty interrupt round
 * trip (median; 0: not measured), given in CPU 0's record. */
void trace_fidelity_start(uint64_t round_trip_cycles);

/* Before trace_finish(), from the boot thread: each CPU writes its
 * KprofFidelity record (whenever the trace holds the CPUs' time or
 * stalls, as KprofSmiCount). */
void trace_fidelity_stop(void);

#endif /* KPROF_KERNEL_TIMEKEEP_FIDELITY_H */
