/*
 * smi_count.h - each CPU's System Management Interrupts over the trace
 * (KprofSmiCount records, hook 0xFE0B; docs/wire-format.md).
 */
#ifndef KPROF_KERNEL_TRACE_SMI_COUNT_H
#define KPROF_KERNEL_TRACE_SMI_COUNT_H

/* Right after trace_start(): read every CPU's SMI count (and say once on
 * the console whether the CPUs count SMIs). */
void trace_smi_count_start(void);

/* Before trace_finish(): each CPU writes its KprofSmiCount record.  Both
 * from the boot thread, below DISPATCH_LEVEL. */
void trace_smi_count_stop(void);

#endif /* KPROF_KERNEL_TRACE_SMI_COUNT_H */
