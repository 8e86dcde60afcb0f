/*
 * percpu.c - the per-CPU base register (GS) for x86-64.
 *
 * The kernel never enters user mode, so GS is loaded once per CPU and never
 * swapped (no swapgs anywhere).
 */
#include <arch/percpu.h>

#include "arch/x86_64/x86.h"

void arch_percpu_set(void *block)
{
	wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)block);
}
