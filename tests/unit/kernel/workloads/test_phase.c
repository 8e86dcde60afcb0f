/*
 * test_phase.c - kernel/workloads/phase.c: a phase that takes more than
 * PHASE_SLOW_RATIO times its asked length says so at its end, with the
 * clock interrupts that came late on every CPU meanwhile, the interrupt
 * round trip and the rounds the workload said it ran; one within it says
 * nothing more than its end; lengths asked count for every open phase
 * (the mix's phase 0 sums its workloads'), rounds for the innermost.
 *
 * Time is the host's TSC, and ke_tsc_hz is set so that any phase is long
 * (1 kHz: every cycle a millisecond) or the asked length so large that
 * none is: nothing depends on how fast the host runs.  The trace is off
 * (no group), so the lines come from the TSC read at the call.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/trace/trace.h"
#include "kernel/workloads/measure.h"
#include "kernel/workloads/phase.h"
#include "shadow.h"

#define NCPU 2
#define IRQ_MEDIAN 4107400 /* the round trip the test's measurement gives */

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;
PERFINFO_GROUPMASK trace_groups; /* all off: no records */
static KPRCB prcbs[NCPU];
static unsigned measured;

/* The kernel's measurement (measure.c) needs the CPU's interrupts: this
 * one gives a fixed figure and counts its calls. */
struct irq_cost measure_interrupt_round_trip(uint32_t rounds)
{
	measured++;
	return (struct irq_cost){ .median = IRQ_MEDIAN, .average = IRQ_MEDIAN, .best = IRQ_MEDIAN, .rounds = rounds };
}

void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size)
{
	fail_msg("no record is written with every group off");
	return NULL;
}

void trace_record_commit(struct trace_record *rec)
{
}

static int setup(void **state)
{
	memset(prcbs, 0, sizeof(prcbs));
	for (int i = 0; i < NCPU; i++)
		KiProcessorBlock[i] = &prcbs[i];
	ke_number_processors = NCPU;
	ke_tsc_hz = 1000; /* a cycle is a millisecond: every phase is long */
	shadow_console[0] = '\0';
	return 0;
}

static void test_slow_phase_says_why(void **state)
{
	workload_phase(2, "locks", false);
	workload_phase_asked(1);
	prcbs[0].ClockLateCount += 3;
	prcbs[1].ClockLateCount += 2;
	prcbs[1].ClockLateCycles += 7000; /* 7 s at 1 kHz */
	workload_phase_rounds("thread switch round trips", 1000, 14000);
	workload_phase(2, "locks", true);
	assert_non_null(strstr(shadow_console, "phase: [2] locks starts\nphase: [2] locks ends after "));
	assert_non_null(strstr(shadow_console, "phase: [2] locks was asked for 1 ms and took "));
	assert_non_null(strstr(shadow_console, "x, more than 3x); this machine: 5 clock interrupts came late on 2 CPUs, "
					       "7000 ms late in all (the CPUs did not run, or ran with interrupts "
					       "masked); an empty interrupt round trip takes 4107400 cycles "
					       "(4107400000 us)\n"));
	assert_non_null(strstr(shadow_console, "phase: [2] locks spent its time on measurement rounds too: "
					       "1000 thread switch round trips in 14000 ms (14000 us each)\n"));
	assert_int_equal(measured, 1);
}

static void test_phase_within_its_length_says_nothing_more(void **state)
{
	workload_phase(1, "profile", false);
	workload_phase_asked(UINT32_MAX);
	workload_phase_rounds("interrupt round trips", 2000, 1);
	workload_phase(1, "profile", true);
	assert_null(strstr(shadow_console, "was asked for"));
	assert_null(strstr(shadow_console, "ran rounds"));
	/* Nor does one never told its length. */
	workload_phase(1, "profile", false);
	workload_phase(1, "profile", true);
	assert_null(strstr(shadow_console, "was asked for"));
}

/* The mix: phase 0 open around its workloads' phases; each length asked
 * adds to phase 0's, rounds belong to the workload's phase alone. */
static void test_nested_phases(void **state)
{
	workload_phase(0, "mix", false);
	workload_phase(1, "profile", false);
	workload_phase_asked(UINT32_MAX / 2);
	workload_phase_rounds("interrupt round trips", 2000, 1);
	workload_phase(1, "profile", true);
	workload_phase(4, "sched", false);
	workload_phase_asked(2);
	workload_phase(4, "sched", true);
	workload_phase(0, "mix", true);
	assert_null(strstr(shadow_console, "[1] profile was asked"));
	assert_non_null(strstr(shadow_console, "phase: [4] sched was asked for 2 ms and took "));
	assert_null(strstr(shadow_console, "[4] sched ran rounds"));
	assert_null(strstr(shadow_console, "[0] mix was asked")); /* 2^31 ms asked in all */
	assert_null(strstr(shadow_console, "[0] mix ran rounds"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_slow_phase_says_why, setup),
		cmocka_unit_test_setup(test_phase_within_its_length_says_nothing_more, setup),
		cmocka_unit_test_setup(test_nested_phases, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
