/*
 * cpus.h - how many logical CPUs the kernel is built for.
 *
 * Per-CPU arrays everywhere (the PRCB table, trace buffers, profile and
 * PMU state, the MADT's list) are sized by it; CPUs beyond it are counted
 * and left halted.  A build constant, not configuration: arch code may use
 * it without reading the kernel's configuration.
 */
#ifndef KPROF_KERNEL_CPUS_H
#define KPROF_KERNEL_CPUS_H

#define KPROF_MAX_CPUS 256 /* logical CPUs the kernel is built for */

#endif /* KPROF_KERNEL_CPUS_H */
