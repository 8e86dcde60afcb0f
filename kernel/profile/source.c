/*
 * source.c - the profile interrupt sources: which KPROFILE_SOURCE values
 * this machine provides, their intervals, and per-CPU use counts that
 * start and stop them (the HAL's part of NtStartProfile on Windows).
 *
 * ProfileTime is the profile timer (profile_timer.c).  Every other source
 * is a performance counter (arch/dev/pmu.h): on each CPU the counter sources
 * in use are programmed together (arch_pmu_start_cpu replaces the set), at
 * most ARCH_PMU_MAX_SOURCES of them.  An overflow interrupt (ARCH_INT_PMC)
 * becomes ke_profile_interrupt_with_source() for each counter that
 * overflowed.
 *
 * Invariants: Uses[cpu][source] changes only on that CPU, at
 * DISPATCH_LEVEL, inside a broadcast (ke_run_on_all_processors), and the
 * source runs on that CPU exactly while it is above zero.  Intervals
 * change only under source_mutex, and every CPU running the source is
 * reprogrammed before the call returns.  acquire is all or nothing.
 * Lock order: source_mutex (a KMUTANT, PASSIVE_LEVEL), then the broadcast
 * mutex inside ke_run_on_all_processors.
 */
#include "kernel/profile/source.h"

#include <arch/interrupt.h>
#include <arch/dev/pmu.h>
#include <arch/dev/timer.h>

#include "kernel/sched/broadcast.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/cpus.h"
#include "kernel/console/console.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/lib/printf.h"
#include "kernel/profile/profile.h"
#include "kernel/profile/profile_timer.h"
#include "kernel/sched/sched.h"
#include "kernel/ke/time/time.h"
#include "kprof/wmi.h"

static uint16_t Uses[KPROF_MAX_CPUS][ProfileMaximum];
static uint32_t Interval[ProfileMaximum];
static KMUTANT source_mutex;
static struct arch_pmu_info pmu;
static char no_pmu[sizeof(pmu.why_absent) + 32]; /* "no performance counters: why" */

static bool known(int16_t s)
{
	return s >= 0 && s < ProfileMaximum;
}

bool ki_profile_source_supported(int16_t s)
{
	if (!known(s))
		return false;
	if (s == ProfileTime)
		return arch_timer_get_mode() != ARCH_TIMER_PERIODIC;
	return arch_pmu_source_supported((uint32_t)s);
}

const char *ki_profile_source_why_unsupported(int16_t s)
{
	if (!known(s))
		return "not a KPROFILE_SOURCE (0..23)";
	if (s == ProfileTime)
		return arch_timer_get_mode() == ARCH_TIMER_PERIODIC ?
			"the profile timer needs timer=oneshot or timer=deadline (the timer runs in periodic mode)" : NULL;
	if (!pmu.present)
		return no_pmu;
	if (!arch_pmu_source_supported((uint32_t)s))
		return "this CPU's performance counters have no event for it";
	return NULL;
}

uint32_t ki_profile_source_interval(int16_t s)
{
	return known(s) ? __atomic_load_n(&Interval[s], __ATOMIC_RELAXED) : 0;
}

static uint64_t time_interval_tsc(uint32_t interval_100ns)
{
	return ke_ns_to_tsc((uint64_t)interval_100ns * 100);
}

/* ---- on one CPU, at DISPATCH_LEVEL, inside a broadcast ---- */

/* The NT status of a counter call: running out of counters is
 * STATUS_PROFILING_AT_LIMIT, as NtStartProfile reports it. */
static NTSTATUS pmu_status(enum arch_pmu_status st)
{
	switch (st) {
	case ARCH_PMU_OK:
		return STATUS_SUCCESS;
	case ARCH_PMU_NOT_SUPPORTED:
		return STATUS_NOT_SUPPORTED;
	case ARCH_PMU_NO_COUNTER:
		return STATUS_PROFILING_AT_LIMIT;
	case ARCH_PMU_NOT_COUNTING:
		return STATUS_PROFILING_NOT_STARTED;
	case ARCH_PMU_INVALID:
		break;
	}
	return STATUS_INVALID_PARAMETER;
}

/* Program this CPU's counters for every counter source with a use here. */
static NTSTATUS program_counters(uint32_t cpu)
{
	uint32_t sources[ARCH_PMU_MAX_SOURCES];
	uint64_t intervals[ARCH_PMU_MAX_SOURCES];
	uint32_t n = 0;

	for (int16_t s = 1; s < ProfileMaximum; s++) {
		if (!Uses[cpu][s])
			continue;
		if (n == ARCH_PMU_MAX_SOURCES)
			return STATUS_PROFILING_AT_LIMIT;
		sources[n] = (uint32_t)s;
		intervals[n++] = Interval[s];
	}
	enum arch_pmu_status st = n ? arch_pmu_start_cpu(sources, intervals, n) : ARCH_PMU_OK;
	if (!n)
		arch_pmu_stop_cpu();
	return pmu_status(st);
}

static NTSTATUS take_use(uint32_t cpu, int16_t s)
{
	if (Uses[cpu][s]++)
		return STATUS_SUCCESS;
	if (s == ProfileTime) {
		ki_profile_timer_start_cpu(time_interval_tsc(Interval[s]));
		return STATUS_SUCCESS;
	}
	NTSTATUS st = program_counters(cpu);
	if (st != STATUS_SUCCESS) {
		Uses[cpu][s]--; /* arch_pmu_start_cpu changed nothing */
	}
	return st;
}

static void drop_use(uint32_t cpu, int16_t s)
{
	if (!Uses[cpu][s] || --Uses[cpu][s])
		return;
	if (s == ProfileTime)
		ki_profile_timer_stop_cpu();
	else
		(void)program_counters(cpu); /* fewer sources than before: fits */
}

struct use_request {
	int16_t source;
	const KAFFINITY_EX *cpus;
	KAFFINITY_EX done;    /* CPUs where the use was taken */
	NTSTATUS status[KPROF_MAX_CPUS];
};

static void acquire_on_cpu(uint32_t cpu, void *ctx)
{
	struct use_request *r = ctx;
	if (!affinity_test(r->cpus, cpu))
		return;
	r->status[cpu] = take_use(cpu, r->source);
	if (r->status[cpu] == STATUS_SUCCESS)
		affinity_add(&r->done, cpu); /* each CPU its own bit: no race */
}

static void release_on_cpu(uint32_t cpu, void *ctx)
{
	const struct use_request *r = ctx;
	if (affinity_test(&r->done, cpu))
		drop_use(cpu, r->source);
}

struct interval_request {
	int16_t source;
	uint32_t interval;
	NTSTATUS status;
};

static void interval_on_cpu(uint32_t cpu, void *ctx)
{
	struct interval_request *r = ctx;
	if (!Uses[cpu][r->source])
		return;
	if (r->source == ProfileTime) {
		ki_profile_timer_start_cpu(time_interval_tsc(r->interval));
		return;
	}
	enum arch_pmu_status st = arch_pmu_set_interval_cpu((uint32_t)r->source, r->interval);
	if (st != ARCH_PMU_OK)
		r->status = pmu_status(st); /* cannot happen after the checks; reported if it does */
}

/* ---- the interface ---- */

static struct use_request req; /* one at a time, under source_mutex */

NTSTATUS ki_profile_source_acquire(int16_t s, const KAFFINITY_EX *cpus)
{
	if (!ki_profile_source_supported(s))
		return STATUS_NOT_SUPPORTED;
	ke_wait_for_single_object(&source_mutex, Executive, KernelMode, KE_WAIT_FOREVER);
	req.source = s;
	req.cpus = cpus;
	affinity_clear_all(&req.done);
	ke_run_on_all_processors(acquire_on_cpu, &req);

	NTSTATUS st = STATUS_SUCCESS;
	for (uint32_t c = 0; c < ke_number_processors; c++)
		if (affinity_test(cpus, c) && req.status[c] != STATUS_SUCCESS) {
			st = req.status[c];
			break;
		}
	if (st != STATUS_SUCCESS)
		ke_run_on_all_processors(release_on_cpu, &req); /* all or nothing */
	ke_release_mutant(&source_mutex, 0, false);
	return st;
}

void ki_profile_source_release(int16_t s, const KAFFINITY_EX *cpus)
{
	if (!known(s))
		return;
	ke_wait_for_single_object(&source_mutex, Executive, KernelMode, KE_WAIT_FOREVER);
	req.source = s;
	req.cpus = cpus;
	req.done = *cpus;
	ke_run_on_all_processors(release_on_cpu, &req);
	ke_release_mutant(&source_mutex, 0, false);
}

NTSTATUS ki_profile_source_set_interval(int16_t s, uint32_t interval)
{
	if (!known(s))
		return STATUS_INVALID_PARAMETER;
	if (!ki_profile_source_supported(s))
		return STATUS_NOT_SUPPORTED;
	if (s == ProfileTime) {
		if (interval < PROFILE_TIME_MIN_INTERVAL || interval > PROFILE_TIME_MAX_INTERVAL)
			return STATUS_INVALID_PARAMETER;
	} else if (interval < PROFILE_PMC_MIN_INTERVAL || interval > arch_pmu_max_interval((uint32_t)s)) {
		return STATUS_INVALID_PARAMETER;
	}
	ke_wait_for_single_object(&source_mutex, Executive, KernelMode, KE_WAIT_FOREVER);
	__atomic_store_n(&Interval[s], interval, __ATOMIC_RELAXED);
	struct interval_request r = { .source = s, .interval = interval, .status = STATUS_SUCCESS };
	ke_run_on_all_processors(interval_on_cpu, &r);
	ke_release_mutant(&source_mutex, 0, false);
	return r.status;
}

/* ---- interrupts and start-up ---- */

static void counter_overflow(uint32_t source, KTRAP_FRAME *tf, void *ctx)
{
	ke_profile_interrupt_with_source(tf, (int16_t)source);
}

static void pmc_interrupt(KTRAP_FRAME *tf)
{
	arch_pmu_handle_interrupt(tf, counter_overflow, NULL);
}

void ki_profile_source_init(void)
{
	ke_initialize_mutant(&source_mutex, false);
	Interval[ProfileTime] = PROFILE_TIME_DEFAULT_INTERVAL;
	for (int16_t s = 1; s < ProfileMaximum; s++)
		Interval[s] = PROFILE_PMC_DEFAULT_INTERVAL;
	arch_pmu_probe(&pmu);
	ksnprintf(no_pmu, sizeof(no_pmu), "no performance counters: %s",
		  pmu.why_absent[0] ? pmu.why_absent : "no performance-monitoring unit");
	kprintf("pmu: %s\n", pmu.summary);
	ki_profile_timer_init();
	arch_interrupt_connect(ARCH_INT_PMC, pmc_interrupt);
}

void ki_profile_source_start_cpu(void)
{
	arch_pmu_stop_cpu(); /* counters firmware left running */
}
