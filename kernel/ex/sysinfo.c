/*
 * sysinfo.c - NtQuerySystemInformation / NtSetSystemInformation for the
 * spin-lock sampling parameters (see sysinfo.h).
 */
#include "kernel/ex/sysinfo.h"

#include <stddef.h>

#include "kernel/lib/libk.h"
#include "kernel/locks/lockstat.h"
#include "kernel/trace/trace.h"

static NTSTATUS check_buffer(uint32_t information_class, const void *information, uint32_t length)
{
	if (information_class != SystemPerformanceTraceInformation)
		return STATUS_INVALID_INFO_CLASS;
	if (!information)
		return STATUS_INVALID_PARAMETER;
	if (length < sizeof(uint32_t))
		return STATUS_INFO_LENGTH_MISMATCH;
	uint32_t cls;
	memcpy(&cls, information, sizeof(cls));
	if (cls != EventTraceSpinlockInformation)
		return STATUS_INVALID_INFO_CLASS;
	if (length != sizeof(EVENT_TRACE_SPINLOCK_INFORMATION) && length != EVENT_TRACE_SPINLOCK_INFORMATION_V1_SIZE)
		return STATUS_INFO_LENGTH_MISMATCH;
	return STATUS_SUCCESS;
}

NTSTATUS nt_query_system_information(uint32_t information_class, void *information, uint32_t length,
				     uint32_t *return_length)
{
	NTSTATUS st = check_buffer(information_class, information, length);
	if (st != STATUS_SUCCESS)
		return st;
	EVENT_TRACE_SPINLOCK_INFORMATION info = {
		.EventTraceInformationClass = EventTraceSpinlockInformation,
		.SpinLockSpinThreshold = __atomic_load_n(&lockstat_params.SpinThreshold, __ATOMIC_RELAXED),
		.SpinLockAcquireSampleRate = __atomic_load_n(&lockstat_params.AcquireSampleRate, __ATOMIC_RELAXED),
		.SpinLockContentionSampleRate = __atomic_load_n(&lockstat_params.ContentionSampleRate, __ATOMIC_RELAXED),
		.SpinLockHoldThreshold = __atomic_load_n(&lockstat_params.HoldThreshold, __ATOMIC_RELAXED),
	};
	memcpy(information, &info, length);
	if (return_length)
		*return_length = length;
	return STATUS_SUCCESS;
}

NTSTATUS nt_set_system_information(uint32_t information_class, const void *information, uint32_t length)
{
	NTSTATUS st = check_buffer(information_class, information, length);
	if (st != STATUS_SUCCESS)
		return st;
	EVENT_TRACE_SPINLOCK_INFORMATION info;
	memcpy(&info, information, length);
	struct spinlock_params p = {
		.SpinThreshold = info.SpinLockSpinThreshold,
		.AcquireSampleRate = info.SpinLockAcquireSampleRate,
		.ContentionSampleRate = info.SpinLockContentionSampleRate,
		.HoldThreshold = length == sizeof(info) ? info.SpinLockHoldThreshold
							: __atomic_load_n(&lockstat_params.HoldThreshold, __ATOMIC_RELAXED),
	};
	st = spinlock_params_set(&p);
	if (st == STATUS_SUCCESS)
		ke_trace_spinlock_config();
	return st;
}

void ke_trace_spinlock_config(void)
{
	KPROF_SPINLOCK_CONFIG c = {
		.SpinLockSpinThreshold = __atomic_load_n(&lockstat_params.SpinThreshold, __ATOMIC_RELAXED),
		.SpinLockAcquireSampleRate = __atomic_load_n(&lockstat_params.AcquireSampleRate, __ATOMIC_RELAXED),
		.SpinLockContentionSampleRate = __atomic_load_n(&lockstat_params.ContentionSampleRate, __ATOMIC_RELAXED),
		.SpinLockHoldThreshold = __atomic_load_n(&lockstat_params.HoldThreshold, __ATOMIC_RELAXED),
	};
	trace_log(PERF_SPINLOCK, KPROF_LOG_TYPE_SPINLOCK_CONFIG, SPINLOCK_CONFIG_VERSION, &c, sizeof(c));
}
