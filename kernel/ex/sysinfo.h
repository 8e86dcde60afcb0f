/*
 * sysinfo.h - NtQuerySystemInformation / NtSetSystemInformation, for the
 * one class kprof implements: SystemPerformanceTraceInformation (0x1F)
 * with EventTraceSpinlockInformation (5), the spin-lock sampling
 * parameters (EVENT_TRACE_SPINLOCK_INFORMATION, docs/etw-records.md).
 *
 * The first ULONG of the buffer selects the event-trace class, on query
 * as on set.  Lengths: 0x14 bytes, or 0x10 (EVENT_TRACE_SPINLOCK_
 * INFORMATION_V1, without SpinLockHoldThreshold: a set leaves it as it is).
 * Statuses: STATUS_INVALID_INFO_CLASS for any other class,
 * STATUS_INFO_LENGTH_MISMATCH for another length, STATUS_INVALID_PARAMETER
 * for a NULL buffer or a value below its minimum (then nothing changes).
 */
#ifndef KPROF_KERNEL_EX_SYSINFO_H
#define KPROF_KERNEL_EX_SYSINFO_H

#include <stdint.h>

#include "kernel/ke/ntstatus.h"

#define SystemPerformanceTraceInformation 0x1F
#define EventTraceSpinlockInformation 5

typedef struct _EVENT_TRACE_SPINLOCK_INFORMATION {
	uint32_t EventTraceInformationClass;   /* EventTraceSpinlockInformation */
	uint32_t SpinLockSpinThreshold;
	uint32_t SpinLockAcquireSampleRate;
	uint32_t SpinLockContentionSampleRate;
	uint32_t SpinLockHoldThreshold;         /* 6.3 and later                  */
} EVENT_TRACE_SPINLOCK_INFORMATION;

#define EVENT_TRACE_SPINLOCK_INFORMATION_V1_SIZE 0x10

_Static_assert(sizeof(EVENT_TRACE_SPINLOCK_INFORMATION) == 0x14, "EVENT_TRACE_SPINLOCK_INFORMATION is 0x14 bytes");

NTSTATUS nt_query_system_information(uint32_t information_class, void *information, uint32_t length,
				     uint32_t *return_length);
NTSTATUS nt_set_system_information(uint32_t information_class, const void *information, uint32_t length);

/* Write a KprofSpinlockConfig record with the values in force (at trace
 * start, and after each successful set). */
void ke_trace_spinlock_config(void);

#endif /* KPROF_KERNEL_EX_SYSINFO_H */
