/*
 * test_source.c - kernel/profile/source.c, the layer that starts
 * and stops profile interrupt sources on each CPU, against the real PMU
 * drivers (arch/x86_64/pmu/pmu.c, pmu_intel.c, pmu_amd.c) running on the
 * counter model (pmu_model.c) and test doubles for the rest of the kernel:
 *
 *   ki_profile_timer_*          record, per simulated CPU, whether the
 *                               profile timer runs and with which period
 *   ke_run_on_all_processors    runs fn(cpu, ctx) on each simulated CPU in
 *                               turn, at DISPATCH_LEVEL, with the model's
 *                               current CPU and the shadow per-CPU block
 *                               (ke_get_current_processor_number) set to it
 *   ke_*_mutant, ke_wait_*      a single-threaded mutex that checks it is
 *                               balanced and held around every broadcast
 *   ke_profile_interrupt_with_source
 *                               records (source, CPU, trap frame, IRQL)
 *   ke_ns_to_tsc                a 3 GHz TSC
 *
 * source.c is #included rather than linked: the shadow arch/interrupt.h
 * makes arch_interrupt_connect() a no-op static inline, and the PMC handler
 * source.c connects (pmc_interrupt) is static, so the only way to get it
 * without touching source.c or the shadow is to rename that one call to a
 * capturing double before the file is compiled.  Nothing else in source.c
 * changes.  Including it also lets the tests read the use counts (Uses)
 * and give each test a freshly booted source layer (init does not clear
 * them; the kernel calls it once).
 *
 * Every test ends by checking that the drivers never touched a register
 * the modelled CPU lacks (a #GP on hardware) and that the mutex is free.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <arch/interrupt.h> /* the shadow, with its no-op arch_interrupt_connect */

static arch_isr_t test_connected[ARCH_INT_COUNT];
static uint32_t test_connects;

static void test_capture_connect(enum arch_interrupt which, arch_isr_t isr)
{
	test_connected[which] = isr;
	test_connects++;
}

#define arch_interrupt_connect test_capture_connect
#include "kernel/profile/source.c"
#undef arch_interrupt_connect

#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/profile/profile_timer.h"
#include "kernel/sched/sched.h"
#include "kernel/ke/time/time.h"
#include "include/kprof/wmi.h"
#include "support/pmu_model.h"
#include "shadow.h"

/* The model's register bits are in pmu_model.h. */
#define FIXED_ON 0xBu /* IA32_FIXED_CTR_CTRL nibble: OS | USR | PMI */

#define NCPU PMU_MODEL_CPUS

/* ================================================================ doubles */

volatile uint32_t ke_number_processors;
static KPRCB prcbs[NCPU];

static void set_cpu(uint32_t cpu)
{
	assert_true(cpu < NCPU);
	pmu_model.current = cpu;
	shadow_percpu = &prcbs[cpu];
}

/* The CPU the test "runs on" between calls (the caller's thread). */
#define CALLER_CPU 0u

/* ---- the profile timer ---- */

static struct timer_cpu {
	bool running;
	uint64_t period;  /* last period started */
	uint32_t starts;  /* ki_profile_timer_start_cpu calls */
	uint32_t stops;   /* ki_profile_timer_stop_cpu calls */
} timer[NCPU];
static uint32_t timer_inits;

void ki_profile_timer_init(void)
{
	timer_inits++;
}

void ki_profile_timer_start_cpu(uint64_t period_tsc)
{
	uint32_t cpu = ke_get_current_processor_number();

	assert_true(shadow_irql >= DISPATCH_LEVEL);
	assert_true(period_tsc != 0);
	timer[cpu].running = true;
	timer[cpu].period = period_tsc;
	timer[cpu].starts++;
}

void ki_profile_timer_stop_cpu(void)
{
	uint32_t cpu = ke_get_current_processor_number();

	assert_true(shadow_irql >= DISPATCH_LEVEL);
	timer[cpu].running = false;
	timer[cpu].stops++;
}

uint32_t ki_profile_timer_weight(void)
{
	return 1;
}

/* ---- time ---- */

uint64_t ke_ns_to_tsc(uint64_t ns)
{
	return ns * 3; /* a 3 GHz TSC */
}

/* ---- the mutex: one thread, so it only has to be balanced ---- */

static KMUTANT *mutant_initialized;
static uint32_t mutant_held, mutant_waits;

void ke_initialize_mutant(KMUTANT *m, bool initial_owner)
{
	assert_false(initial_owner);
	mutant_initialized = m;
	mutant_held = 0;
}

NTSTATUS ke_wait_for_single_object(void *object, uint8_t wait_reason, KPROCESSOR_MODE mode, uint64_t timeout_us)
{
	assert_ptr_equal(object, mutant_initialized);
	assert_int_equal(shadow_irql, PASSIVE_LEVEL);
	assert_int_equal(mode, KernelMode);
	assert_true(timeout_us == KE_WAIT_FOREVER);
	assert_int_equal(mutant_held, 0); /* source.c never nests it */
	mutant_held++;
	mutant_waits++;
	return STATUS_SUCCESS;
}

NTSTATUS ke_release_mutant(KMUTANT *m, int increment, bool abandoned)
{
	assert_ptr_equal(m, mutant_initialized);
	assert_false(abandoned);
	assert_int_equal(mutant_held, 1);
	mutant_held--;
	return STATUS_SUCCESS;
}

/* ---- the broadcast ---- */

static uint32_t broadcasts;

void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx)
{
	assert_int_equal(shadow_irql, PASSIVE_LEVEL);
	assert_int_equal(mutant_held, 1); /* lock order: source_mutex, then the broadcast */
	broadcasts++;
	for (uint32_t cpu = 0; cpu < ke_number_processors; cpu++) {
		set_cpu(cpu);
		shadow_irql = DISPATCH_LEVEL;
		fn(cpu, ctx);
		assert_int_equal(shadow_irql, DISPATCH_LEVEL);
		shadow_irql = PASSIVE_LEVEL;
	}
	set_cpu(CALLER_CPU);
}

/* ---- profile interrupts ---- */

static struct sample {
	int16_t source;
	uint32_t cpu;
	KTRAP_FRAME *tf;
	uint8_t irql;
} samples[64];
static uint32_t nsamples;

void ke_profile_interrupt_with_source(KTRAP_FRAME *tf, int16_t Source)
{
	if (nsamples < sizeof(samples) / sizeof(samples[0]))
		samples[nsamples] = (struct sample){ Source, ke_get_current_processor_number(), tf, shadow_irql };
	nsamples++;
}

/* ================================================================ helpers */

static KTRAP_FRAME frame = { .ip = 0xFFFFFFFF80201234u, .fp = 0xFFFFFFFF80400000u };
static uint32_t vector;

/* A fresh boot with `ncpus` CPUs on a modelled machine: the source layer
 * initialised on CPU 0, then every CPU started. */
static void boot(enum pmu_model_preset preset, uint32_t ncpus)
{
	pmu_model_reset(preset);
	memset(prcbs, 0, sizeof(prcbs));
	for (uint32_t c = 0; c < NCPU; c++) {
		prcbs[c].Self = &prcbs[c];
		prcbs[c].Number = c;
	}
	ke_number_processors = ncpus;
	set_cpu(CALLER_CPU);
	shadow_irql = PASSIVE_LEVEL;
	memset(timer, 0, sizeof(timer));
	timer_inits = 0;
	memset(test_connected, 0, sizeof(test_connected));
	test_connects = 0;
	mutant_initialized = NULL;
	mutant_held = mutant_waits = 0;
	broadcasts = 0;
	nsamples = 0;
	memset(samples, 0, sizeof(samples));
	/* source.c's state from the previous test (a real boot starts with
	 * zeroed .bss; ki_profile_source_init does not clear the use counts). */
	memset(Uses, 0, sizeof(Uses));
	memset(&req, 0, sizeof(req));
	shadow_console[0] = '\0';

	ki_profile_source_init();
	vector = arch_interrupt_vector(ARCH_INT_PMC);
	assert_int_equal(timer_inits, 1);
	assert_int_equal(test_connects, 1);
	assert_non_null(test_connected[ARCH_INT_PMC]);
	assert_non_null(mutant_initialized);
	assert_non_null(strstr(shadow_console, "pmu: "));

	for (uint32_t c = 0; c < ncpus; c++) {
		set_cpu(c);
		ki_profile_source_start_cpu();
	}
	set_cpu(CALLER_CPU);
}

static KAFFINITY_EX cpus_of(uint32_t mask)
{
	KAFFINITY_EX a;

	affinity_clear_all(&a);
	for (uint32_t c = 0; c < 32; c++)
		if (mask & (1u << c))
			affinity_add(&a, c);
	return a;
}

static NTSTATUS acquire(int16_t s, uint32_t mask)
{
	KAFFINITY_EX a = cpus_of(mask);
	NTSTATUS st = ki_profile_source_acquire(s, &a);
	assert_int_equal(mutant_held, 0);
	return st;
}

static void release(int16_t s, uint32_t mask)
{
	KAFFINITY_EX a = cpus_of(mask);
	ki_profile_source_release(s, &a);
	assert_int_equal(mutant_held, 0);
}

static NTSTATUS set_interval(int16_t s, uint32_t interval)
{
	NTSTATUS st = ki_profile_source_set_interval(s, interval);
	assert_int_equal(mutant_held, 0);
	return st;
}

static uint64_t time_period(uint32_t interval_100ns)
{
	return ke_ns_to_tsc((uint64_t)interval_100ns * 100);
}

/* Events on one CPU of the model. */
static void count_on(uint32_t cpu, uint16_t event, uint8_t umask, uint64_t n)
{
	set_cpu(cpu);
	pmu_model_count(event, umask, n);
	set_cpu(CALLER_CPU);
}

static bool pmi_pending(uint32_t cpu)
{
	return pmu_model.cpu[cpu].pending != 0;
}

/* Play the PMC interrupt on `cpu` as the kernel would: take the pending
 * PMI, call the handler source.c connected at PROFILE_LEVEL.  Returns the
 * profile interrupts it reported. */
static uint32_t pmi(uint32_t cpu)
{
	uint32_t before = nsamples;

	set_cpu(cpu);
	assert_true(pmu_model_take_pmi());
	shadow_irql = PROFILE_LEVEL;
	test_connected[ARCH_INT_PMC](&frame);
	shadow_irql = PASSIVE_LEVEL;
	set_cpu(CALLER_CPU);
	return nsamples - before;
}

/* The handler with no PMI pending (a spurious interrupt). */
static uint32_t spurious_pmi(uint32_t cpu)
{
	uint32_t before = nsamples;

	set_cpu(cpu);
	shadow_irql = PROFILE_LEVEL;
	test_connected[ARCH_INT_PMC](&frame);
	shadow_irql = PASSIVE_LEVEL;
	set_cpu(CALLER_CPU);
	return nsamples - before;
}

static void expect_sample(uint32_t i, int16_t source, uint32_t cpu)
{
	assert_true(i < nsamples);
	assert_int_equal(samples[i].source, source);
	assert_int_equal(samples[i].cpu, cpu);
	assert_ptr_equal(samples[i].tf, &frame);
	assert_int_equal(samples[i].irql, PROFILE_LEVEL);
}

/* ---- what counts what, per vendor (pmu_model.c's event encodings) ---- */

struct event { uint16_t event; uint8_t umask; };

static bool is_intel(void)
{
	return strcmp(pmu_model.vendor, "GenuineIntel") == 0;
}

static struct event event_of(int16_t s)
{
	if (is_intel()) {
		switch (s) {
		case ProfileTotalCycles:          return (struct event){ 0x3C, 0x00 };
		case ProfileTotalIssues:          return (struct event){ 0xC0, 0x00 };
		case ProfileBranchInstructions:   return (struct event){ 0xC4, 0x00 };
		case ProfileBranchMispredictions: return (struct event){ 0xC5, 0x00 };
		case ProfileCacheMisses:          return (struct event){ 0x2E, 0x41 };
		}
	} else {
		switch (s) {
		case ProfileTotalCycles:          return (struct event){ 0x76, 0x00 };
		case ProfileTotalIssues:          return (struct event){ 0xC0, 0x00 };
		case ProfileBranchInstructions:   return (struct event){ 0xC2, 0x00 };
		case ProfileBranchMispredictions: return (struct event){ 0xC3, 0x00 };
		case ProfileCacheMisses:          return (struct event){ 0x64, 0x09 };
		case ProfileDcacheMisses:         return (struct event){ 0x60, 0xE8 };
		case ProfileIcacheMisses:         return (struct event){ 0x60, 0x10 };
		case ProfileDcacheAccesses:       return (struct event){ 0x29, 0x07 };
		}
	}
	fail_msg("no event for source %d in this test", s);
	return (struct event){ 0, 0 };
}

static void count_source(uint32_t cpu, int16_t s, uint64_t n)
{
	struct event e = event_of(s);
	count_on(cpu, e.event, e.umask, n);
}

static uint64_t sel_for(struct event e)
{
	return e.event | (uint64_t)e.umask << 8 | USR | OS | INT | EN;
}

/* Intel fixed counter of a source, or -1 (general-purpose). */
static int intel_fixed(int16_t s)
{
	return s == ProfileTotalIssues ? 0 : s == ProfileTotalCycles ? 1 : -1;
}

/* The counter (value) programmed for source s on cpu, or NULL if no
 * enabled counter counts it there. */
static uint64_t *counter_of(uint32_t cpu, int16_t s)
{
	struct pmu_model_cpu *c = &pmu_model.cpu[cpu];
	struct event e = event_of(s);

	if (is_intel()) {
		int f = intel_fixed(s);
		if (f >= 0)
			return ((c->fixed_ctrl >> (4 * f)) & 0xF) == FIXED_ON && (c->global_ctrl & BIT(32 + f)) ?
				&c->fixed_ctr[f] : NULL;
		for (uint32_t i = 0; i < pmu_model.gp; i++)
			if (c->sel[i] == sel_for(e))
				return pmu_model.version >= 2 && !(c->global_ctrl & BIT(i)) ? NULL : &c->ctr[i];
		return NULL;
	}
	for (uint32_t i = 0; i < pmu_model_amd_counters(); i++)
		if (c->sel[i] == sel_for(e))
			return pmu_model.perfmon_v2 && !(c->global_ctrl & BIT(i)) ? NULL : &c->ctr[i];
	return NULL;
}

/* Counters enabled on cpu (any source). */
static uint32_t counters_enabled(uint32_t cpu)
{
	struct pmu_model_cpu *c = &pmu_model.cpu[cpu];
	uint32_t n = 0;
	uint32_t gp = is_intel() ? pmu_model.gp : pmu_model_amd_counters();

	for (uint32_t i = 0; i < gp; i++)
		n += (c->sel[i] & EN) != 0;
	for (uint32_t f = 0; f < 4; f++)
		n += ((c->fixed_ctrl >> (4 * f)) & 3) != 0;
	return n;
}

/* cpu counts s, its counter freshly loaded with -interval. */
static void expect_counting_fresh(uint32_t cpu, int16_t s, uint64_t interval)
{
	uint64_t *ctr = counter_of(cpu, s);
	if (!ctr)
		fail_msg("CPU %u does not count source %d", cpu, s);
	assert_int_equal(*ctr, (BIT(48) - interval) & M48);
	assert_int_equal(pmu_model.cpu[cpu].lvtpc, vector); /* unmasked, PMC vector */
}

static void expect_stopped(uint32_t cpu)
{
	struct pmu_model_cpu *c = &pmu_model.cpu[cpu];

	assert_int_equal(counters_enabled(cpu), 0);
	assert_int_equal(c->global_ctrl, 0);
	assert_int_equal(c->global_status, 0);
	assert_int_equal(c->lvtpc, LVT_MASKED | vector);
}

static uint32_t all_cpus(void)
{
	return (1u << ke_number_processors) - 1;
}

static void expect_no_uses(void)
{
	for (uint32_t c = 0; c < NCPU; c++)
		for (int s = 0; s < ProfileMaximum; s++)
			if (Uses[c][s])
				fail_msg("CPU %u source %d: %u uses left", c, s, Uses[c][s]);
}

static int teardown(void **state)
{
	(void)state;
	shadow_timer_mode = ARCH_TIMER_ONESHOT;
	if (pmu_model.faults)
		fail_msg("%u register faults, first: %s", pmu_model.faults, pmu_model.fault);
	assert_int_equal(mutant_held, 0);
	return 0;
}

/* ============================================================= init, no PMU */

static void check_no_pmu(const char *why_part)
{
	const char *prefix = "no performance counters: ";

	for (int16_t s = 1; s < ProfileMaximum; s++) {
		assert_false(ki_profile_source_supported(s));
		const char *why = ki_profile_source_why_unsupported(s);
		assert_non_null(why);
		assert_memory_equal(why, prefix, strlen(prefix));
		if (!strstr(why, why_part))
			fail_msg("source %d: \"%s\" lacks \"%s\"", s, why, why_part);
		assert_int_equal(ki_profile_source_interval(s), PROFILE_PMC_DEFAULT_INTERVAL);
		assert_int_equal(acquire(s, all_cpus()), STATUS_NOT_SUPPORTED);
		assert_int_equal(set_interval(s, 5000), STATUS_NOT_SUPPORTED);
		assert_int_equal(ki_profile_source_interval(s), PROFILE_PMC_DEFAULT_INTERVAL);
		release(s, all_cpus()); /* nothing to give back: harmless */
	}
	/* The profile timer does not need the PMU. */
	assert_true(ki_profile_source_supported(ProfileTime));
	assert_null(ki_profile_source_why_unsupported(ProfileTime));
	assert_int_equal(acquire(ProfileTime, 0x1), STATUS_SUCCESS);
	assert_true(timer[0].running);
	release(ProfileTime, 0x1);
	assert_false(timer[0].running);
	/* A stray PMI reports nothing. */
	assert_int_equal(spurious_pmi(0), 0);
	expect_no_uses();
}

static void test_init_no_pmu_intel(void **state)
{
	(void)state;
	boot(PMU_MODEL_NO_PMU_INTEL, 4);
	assert_false(pmu.present);
	assert_string_equal(ki_profile_source_why_unsupported(ProfileTotalCycles),
			    "no performance counters: CPUID leaf 0xA reports version 0 "
			    "(no architectural performance monitoring)");
	check_no_pmu("CPUID leaf 0xA reports version 0");
	assert_non_null(strstr(shadow_console, "pmu: no performance counters: CPUID leaf 0xA reports version 0"));
	/* No MSR at all: on this CPU every one would #GP. */
	assert_int_equal(pmu_model.msr_accesses, 0);
}

static void test_init_no_pmu_amd(void **state)
{
	(void)state;
	boot(PMU_MODEL_NO_PMU_AMD, 4);
	assert_false(pmu.present);
	check_no_pmu("PerfCtr0 ignores writes");
	/* The whole reason of the driver, after the prefix. */
	char want[160];
	snprintf(want, sizeof(want), "no performance counters: %s", pmu.why_absent);
	assert_string_equal(ki_profile_source_why_unsupported(ProfileTotalIssues), want);
}

static void test_init_pmu_present(void **state)
{
	static const enum pmu_model_preset presets[] = { PMU_MODEL_INTEL_V2, PMU_MODEL_INTEL_V1, PMU_MODEL_INTEL_V2_EBX,
							 PMU_MODEL_AMD_LEGACY, PMU_MODEL_AMD_F15, PMU_MODEL_AMD_EXTCORE,
							 PMU_MODEL_AMD_V2 };
	(void)state;
	for (size_t p = 0; p < sizeof(presets) / sizeof(presets[0]); p++) {
		boot(presets[p], 4);
		assert_true(pmu.present);
		char want[160];
		snprintf(want, sizeof(want), "pmu: %s\n", pmu.summary);
		assert_non_null(strstr(shadow_console, want));
		assert_int_equal(ki_profile_source_interval(ProfileTime), PROFILE_TIME_DEFAULT_INTERVAL);
		for (int16_t s = 1; s < ProfileMaximum; s++) {
			assert_int_equal(ki_profile_source_interval(s), PROFILE_PMC_DEFAULT_INTERVAL);
			/* source.c answers as the driver does */
			assert_int_equal(ki_profile_source_supported(s), arch_pmu_source_supported((uint32_t)s));
			if (ki_profile_source_supported(s))
				assert_null(ki_profile_source_why_unsupported(s));
			else
				assert_string_equal(ki_profile_source_why_unsupported(s),
						    "this CPU's performance counters have no event for it");
		}
		assert_true(ki_profile_source_supported(ProfileTotalCycles));
		assert_false(ki_profile_source_supported(ProfileAlignmentFixup));
		assert_true(ki_profile_source_supported(ProfileTime));
		/* Every started CPU has its counters stopped, the LVT entry
		 * masked with the PMC vector. */
		for (uint32_t c = 0; c < 4; c++)
			expect_stopped(c);
		if (pmu_model.faults)
			fail_msg("preset %zu: %s", p, pmu_model.fault);
	}
}

static void test_start_cpu_stops_firmware_counters(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V2, 2);
	/* Firmware left counter 0 and fixed counter 1 running on CPU 1. */
	pmu_model.cpu[1].sel[0] = 0xC4 | OS | EN;
	pmu_model.cpu[1].fixed_ctrl = 0xB0;
	pmu_model.cpu[1].global_ctrl = BIT(0) | BIT(33);
	pmu_model.cpu[1].lvtpc = 0x20;
	set_cpu(1);
	ki_profile_source_start_cpu();
	set_cpu(CALLER_CPU);
	expect_stopped(1);
	assert_int_equal(pmu_model.cpu[1].sel[0], 0);

	boot(PMU_MODEL_AMD_EXTCORE, 2);
	pmu_model.cpu[1].sel[3] = 0x76 | OS | USR | INT | EN;
	set_cpu(1);
	ki_profile_source_start_cpu();
	set_cpu(CALLER_CPU);
	expect_stopped(1);
}

static void test_unknown_sources(void **state)
{
	static const int16_t bad[] = { -1, ProfileMaximum, INT16_MIN, INT16_MAX };

	(void)state;
	boot(PMU_MODEL_INTEL_V2, 4);
	uint32_t b = broadcasts;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(ki_profile_source_supported(bad[i]));
		assert_string_equal(ki_profile_source_why_unsupported(bad[i]), "not a KPROFILE_SOURCE (0..23)");
		assert_int_equal(ki_profile_source_interval(bad[i]), 0);
		assert_int_equal(acquire(bad[i], all_cpus()), STATUS_NOT_SUPPORTED);
		assert_int_equal(set_interval(bad[i], PROFILE_PMC_DEFAULT_INTERVAL), STATUS_INVALID_PARAMETER);
		assert_int_equal(set_interval(bad[i], PROFILE_TIME_DEFAULT_INTERVAL), STATUS_INVALID_PARAMETER);
		release(bad[i], all_cpus());
	}
	/* Known, but nothing counts it on this machine. */
	assert_int_equal(acquire(ProfileDcacheMisses, all_cpus()), STATUS_NOT_SUPPORTED);
	assert_int_equal(acquire(ProfileAlignmentFixup, all_cpus()), STATUS_NOT_SUPPORTED);
	assert_int_equal(set_interval(ProfileDcacheMisses, 5000), STATUS_NOT_SUPPORTED);
	assert_int_equal(broadcasts, b); /* refused before any CPU was asked */
	assert_int_equal(mutant_waits, 0);
	for (uint32_t c = 0; c < 4; c++) {
		expect_stopped(c);
		assert_int_equal(timer[c].starts, 0);
	}
	expect_no_uses();
}

/* ============================================================= ProfileTime */

static void test_time_acquire_release(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V2, 4);
	uint32_t msr = pmu_model.msr_accesses;
	const uint64_t p = time_period(PROFILE_TIME_DEFAULT_INTERVAL);

	assert_int_equal(p, 3000000); /* 1 ms at 3 GHz */
	assert_int_equal(acquire(ProfileTime, 0xA), STATUS_SUCCESS); /* CPUs 1 and 3 */
	for (uint32_t c = 0; c < 4; c++) {
		bool in = c == 1 || c == 3;
		assert_int_equal(timer[c].running, in);
		assert_int_equal(timer[c].starts, in ? 1 : 0);
		assert_int_equal(timer[c].period, in ? p : 0);
		assert_int_equal(Uses[c][ProfileTime], in ? 1 : 0);
	}

	/* A second use does not restart a running timer. */
	assert_int_equal(acquire(ProfileTime, 0x3), STATUS_SUCCESS); /* CPUs 0 and 1 */
	assert_int_equal(timer[0].starts, 1);
	assert_int_equal(timer[1].starts, 1);
	assert_int_equal(timer[3].starts, 1);
	assert_int_equal(timer[2].starts, 0);
	assert_int_equal(Uses[1][ProfileTime], 2);

	/* Release: stops only where the count reaches zero. */
	release(ProfileTime, 0x2);
	assert_true(timer[1].running);
	assert_int_equal(timer[1].stops, 0);
	release(ProfileTime, 0x2);
	assert_false(timer[1].running);
	assert_int_equal(timer[1].stops, 1);
	/* Releasing what was never taken changes nothing. */
	release(ProfileTime, 0x6);
	assert_int_equal(timer[1].stops, 1);
	assert_int_equal(timer[2].stops, 0);
	assert_int_equal(Uses[1][ProfileTime], 0);
	assert_int_equal(Uses[2][ProfileTime], 0);
	assert_true(timer[0].running);
	assert_true(timer[3].running);
	release(ProfileTime, 0x9);
	for (uint32_t c = 0; c < 4; c++)
		assert_false(timer[c].running);

	/* CPUs past ke_number_processors are not there to start. */
	assert_int_equal(acquire(ProfileTime, 0x30), STATUS_SUCCESS);
	release(ProfileTime, 0x30);

	/* The profile timer never touches the counters. */
	assert_int_equal(pmu_model.msr_accesses, msr);
	expect_no_uses();
}

static void test_time_set_interval(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V2, 4);
	assert_int_equal(acquire(ProfileTime, 0x5), STATUS_SUCCESS); /* CPUs 0 and 2 */
	assert_int_equal(acquire(ProfileTime, 0x1), STATUS_SUCCESS);

	assert_int_equal(set_interval(ProfileTime, 5000), STATUS_SUCCESS);
	assert_int_equal(ki_profile_source_interval(ProfileTime), 5000);
	assert_int_equal(timer[0].starts, 2);
	assert_int_equal(timer[0].period, time_period(5000));
	assert_int_equal(timer[2].starts, 2);
	assert_int_equal(timer[2].period, time_period(5000));
	assert_int_equal(timer[1].starts, 0); /* not running: left alone */
	assert_int_equal(timer[3].starts, 0);
	assert_false(timer[1].running);

	/* The bounds, inclusive. */
	assert_int_equal(set_interval(ProfileTime, PROFILE_TIME_MIN_INTERVAL), STATUS_SUCCESS);
	assert_int_equal(timer[0].period, time_period(1221));
	assert_int_equal(set_interval(ProfileTime, PROFILE_TIME_MAX_INTERVAL), STATUS_SUCCESS);
	assert_int_equal(timer[0].period, time_period(10000000));
	assert_int_equal(timer[0].starts, 4);

	/* Out of range: refused, not stored, no timer touched. */
	static const uint32_t bad[] = { 1220, 10000001, 0, UINT32_MAX };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(set_interval(ProfileTime, bad[i]), STATUS_INVALID_PARAMETER);
		assert_int_equal(ki_profile_source_interval(ProfileTime), PROFILE_TIME_MAX_INTERVAL);
		assert_int_equal(timer[0].starts, 4);
		assert_int_equal(timer[0].period, time_period(PROFILE_TIME_MAX_INTERVAL));
	}

	/* A CPU that starts later gets the interval in force. */
	assert_int_equal(set_interval(ProfileTime, 2500), STATUS_SUCCESS);
	assert_int_equal(acquire(ProfileTime, 0x8), STATUS_SUCCESS);
	assert_int_equal(timer[3].period, time_period(2500));
	assert_int_equal(timer[3].starts, 1);

	/* A timer that stopped is not restarted by a later interval change. */
	release(ProfileTime, 0x1);
	release(ProfileTime, 0x1);
	assert_false(timer[0].running);
	uint32_t starts0 = timer[0].starts;
	assert_int_equal(set_interval(ProfileTime, 3000), STATUS_SUCCESS);
	assert_int_equal(timer[0].starts, starts0);
	assert_false(timer[0].running);
	assert_int_equal(timer[2].period, time_period(3000));
	release(ProfileTime, 0xC);
	expect_no_uses();
}

static void test_time_periodic_mode(void **state)
{
	(void)state;
	shadow_timer_mode = ARCH_TIMER_PERIODIC;
	boot(PMU_MODEL_INTEL_V2, 4);
	assert_false(ki_profile_source_supported(ProfileTime));
	const char *why = ki_profile_source_why_unsupported(ProfileTime);
	assert_non_null(why);
	assert_non_null(strstr(why, "periodic"));
	assert_non_null(strstr(why, "timer="));
	assert_int_equal(acquire(ProfileTime, all_cpus()), STATUS_NOT_SUPPORTED);
	assert_int_equal(set_interval(ProfileTime, 5000), STATUS_NOT_SUPPORTED);
	assert_int_equal(ki_profile_source_interval(ProfileTime), PROFILE_TIME_DEFAULT_INTERVAL);
	for (uint32_t c = 0; c < 4; c++)
		assert_int_equal(timer[c].starts, 0);
	/* Counter sources do not depend on the timer's mode. */
	assert_int_equal(acquire(ProfileTotalCycles, 0x1), STATUS_SUCCESS);
	release(ProfileTotalCycles, 0x1);

	shadow_timer_mode = ARCH_TIMER_DEADLINE;
	assert_true(ki_profile_source_supported(ProfileTime));
	assert_null(ki_profile_source_why_unsupported(ProfileTime));
	shadow_timer_mode = ARCH_TIMER_ONESHOT;
	assert_true(ki_profile_source_supported(ProfileTime));
	expect_no_uses();
}

/* ========================================================== counter sources */

/* Acquire TotalCycles then TotalIssues on CPUs 0 and 1; overflows become
 * profile interrupts of the right source on the right CPU; release
 * reprograms the rest, then stops. */
static void pmc_flow(enum pmu_model_preset preset)
{
	const int16_t CYC = ProfileTotalCycles, INS = ProfileTotalIssues;

	boot(preset, 4);
	uint32_t msr = pmu_model.msr_accesses;
	/* Intervals set while nothing counts: stored, no CPU touched. */
	assert_int_equal(set_interval(CYC, 5000), STATUS_SUCCESS);
	assert_int_equal(set_interval(INS, 7000), STATUS_SUCCESS);
	assert_int_equal(ki_profile_source_interval(CYC), 5000);
	assert_int_equal(pmu_model.msr_accesses, msr);

	assert_int_equal(acquire(CYC, 0x3), STATUS_SUCCESS);
	for (uint32_t c = 0; c < 2; c++) {
		expect_counting_fresh(c, CYC, 5000);
		assert_int_equal(counters_enabled(c), 1);
		assert_int_equal(Uses[c][CYC], 1);
	}
	expect_stopped(2);
	expect_stopped(3);
	if (is_intel()) {
		assert_int_equal(pmu_model.cpu[0].fixed_ctrl, FIXED_ON << 4);
		assert_int_equal(pmu_model.cpu[0].global_ctrl, BIT(33));
	}

	assert_int_equal(acquire(INS, 0x3), STATUS_SUCCESS);
	for (uint32_t c = 0; c < 2; c++) {
		expect_counting_fresh(c, CYC, 5000);
		expect_counting_fresh(c, INS, 7000);
		assert_int_equal(counters_enabled(c), 2);
	}
	if (is_intel()) {
		assert_int_equal(pmu_model.cpu[1].fixed_ctrl, FIXED_ON << 4 | FIXED_ON);
		assert_int_equal(pmu_model.cpu[1].global_ctrl, BIT(32) | BIT(33));
	} else if (pmu_model.perfmon_v2) {
		assert_int_equal(__builtin_popcountll(pmu_model.cpu[1].global_ctrl), 2);
	}
	expect_stopped(2);

	/* Cycles overflow on CPU 0: one PMI, one profile interrupt. */
	count_source(0, CYC, 4999);
	count_source(0, INS, 100);
	assert_false(pmi_pending(0));
	count_source(0, CYC, 1);
	assert_true(pmi_pending(0));
	assert_false(pmi_pending(1));
	assert_int_equal(pmi(0), 1);
	expect_sample(0, CYC, 0);
	struct pmu_model_cpu *c0 = &pmu_model.cpu[0];
	expect_counting_fresh(0, CYC, 5000);         /* reloaded, LVT unmasked */
	assert_int_equal(*counter_of(0, INS), BIT(48) - 7000 + 100); /* untouched */
	assert_int_equal(c0->global_status, 0);      /* overflow status cleared */
	assert_int_equal(counters_enabled(0), 2);    /* counting again */
	if (is_intel())
		assert_int_equal(c0->global_ctrl, BIT(32) | BIT(33));

	/* Every period again, once each. */
	for (int i = 0; i < 3; i++) {
		count_source(0, CYC, 5000);
		assert_int_equal(pmi(0), 1);
		expect_sample(1 + (uint32_t)i, CYC, 0);
	}
	assert_int_equal(c0->lost, 0);

	/* Instructions on CPU 1. */
	count_source(1, INS, 7000);
	assert_int_equal(pmi(1), 1);
	expect_sample(4, INS, 1);
	expect_counting_fresh(1, INS, 7000);
	assert_int_equal(pmu_model.cpu[1].global_status, 0);

	/* Both at once on CPU 1: one PMI, two profile interrupts. */
	count_source(1, CYC, 5000);
	count_source(1, INS, 7000);
	assert_int_equal(pmi(1), 2);
	assert_true((samples[5].source == CYC && samples[6].source == INS) ||
		    (samples[5].source == INS && samples[6].source == CYC));
	assert_int_equal(samples[6].cpu, 1);

	/* A spurious PMI reports nothing and leaves counting on. */
	assert_int_equal(spurious_pmi(1), 0);
	assert_int_equal(counters_enabled(1), 2);
	assert_int_equal(pmu_model.cpu[1].lvtpc, vector);

	/* Release cycles on CPU 0: instructions reprogrammed alone. */
	count_source(0, INS, 123);
	release(CYC, 0x1);
	assert_null(counter_of(0, CYC));
	expect_counting_fresh(0, INS, 7000);
	assert_int_equal(counters_enabled(0), 1);
	if (is_intel())
		assert_int_equal(c0->fixed_ctrl, FIXED_ON);
	count_source(0, CYC, 100000);
	assert_false(pmi_pending(0));
	/* CPU 1 untouched. */
	assert_int_equal(counters_enabled(1), 2);
	assert_int_equal(Uses[1][CYC], 1);

	/* Release the last source on CPU 0: stopped, LVT masked. */
	release(INS, 0x1);
	expect_stopped(0);
	count_source(0, INS, 100000);
	assert_false(pmi_pending(0));
	assert_int_equal(spurious_pmi(0), 0);
	expect_stopped(0);

	release(CYC, 0x2);
	release(INS, 0x2);
	expect_stopped(1);
	assert_int_equal(nsamples, 7);
	expect_no_uses();
}

static void test_pmc_flow_intel_v2(void **state)
{
	(void)state;
	pmc_flow(PMU_MODEL_INTEL_V2);
}

static void test_pmc_flow_amd_zen(void **state)
{
	(void)state;
	pmc_flow(PMU_MODEL_AMD_EXTCORE);
}

static void test_pmc_flow_amd_perfmon_v2(void **state)
{
	(void)state;
	pmc_flow(PMU_MODEL_AMD_V2);
}

/* Uses and model registers of every CPU, to show a refused call changed
 * nothing. */
struct snapshot {
	uint16_t uses[NCPU][ProfileMaximum];
	struct pmu_model_cpu cpu[NCPU];
};

static void take_snapshot(struct snapshot *s)
{
	memcpy(s->uses, Uses, sizeof(s->uses));
	memcpy(s->cpu, pmu_model.cpu, sizeof(s->cpu));
}

static void expect_snapshot(const struct snapshot *s)
{
	assert_memory_equal(s->uses, Uses, sizeof(s->uses));
	assert_memory_equal(s->cpu, pmu_model.cpu, sizeof(s->cpu));
}

static void pmc_limit(enum pmu_model_preset preset)
{
	static const int16_t four[] = { ProfileTotalCycles, ProfileTotalIssues, ProfileBranchInstructions,
					ProfileBranchMispredictions };
	const int16_t fifth = ProfileCacheMisses;
	struct snapshot snap;

	boot(preset, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(acquire(four[i], 0x3), STATUS_SUCCESS);
	/* ProfileTime is not a counter: it does not count against the limit. */
	assert_int_equal(acquire(ProfileTime, 0x3), STATUS_SUCCESS);
	/* Some counting in progress, to see it is not disturbed. */
	for (size_t i = 0; i < 4; i++) {
		count_source(0, four[i], 10 + i);
		count_source(1, four[i], 20 + i);
	}
	for (uint32_t c = 0; c < 2; c++)
		assert_int_equal(counters_enabled(c), 4);

	/* A fifth distinct counter source: refused on both, nothing changed. */
	take_snapshot(&snap);
	assert_int_equal(acquire(fifth, 0x3), STATUS_PROFILING_AT_LIMIT);
	expect_snapshot(&snap);
	assert_int_equal(acquire(fifth, 0x2), STATUS_PROFILING_AT_LIMIT);
	expect_snapshot(&snap);
	/* One more use of a source already counted is fine. */
	assert_int_equal(acquire(four[2], 0x3), STATUS_SUCCESS);
	assert_int_equal(Uses[0][four[2]], 2);
	release(four[2], 0x3);
	expect_snapshot(&snap);

	/* All or nothing across CPUs: CPU 1 full, CPU 0 counts one source,
	 * CPUs 2 and 3 nothing.  The fifth on {0,1,2,3}: CPUs 0, 2 and 3
	 * take it, CPU 1 cannot; they are rolled back. */
	for (size_t i = 1; i < 4; i++)
		release(four[i], 0x1);
	assert_int_equal(counters_enabled(0), 1);
	take_snapshot(&snap);
	assert_int_equal(acquire(fifth, 0xF), STATUS_PROFILING_AT_LIMIT);
	for (uint32_t c = 0; c < 4; c++)
		assert_int_equal(Uses[c][fifth], 0);
	assert_memory_equal(snap.uses, Uses, sizeof(snap.uses));
	/* CPU 0: back to the one source; CPUs 2, 3: stopped again. */
	assert_null(counter_of(0, fifth));
	expect_counting_fresh(0, four[0], PROFILE_PMC_DEFAULT_INTERVAL);
	assert_int_equal(counters_enabled(0), 1);
	expect_stopped(2);
	expect_stopped(3);
	/* CPU 1 (refused) untouched, its partial counts kept. */
	assert_memory_equal(&snap.cpu[1], &pmu_model.cpu[1], sizeof(snap.cpu[1]));
	/* Neither the fifth nor the rolled-back source interrupts. */
	count_source(2, fifth, PROFILE_PMC_DEFAULT_INTERVAL);
	count_source(3, fifth, PROFILE_PMC_DEFAULT_INTERVAL);
	count_source(0, fifth, PROFILE_PMC_DEFAULT_INTERVAL);
	assert_false(pmi_pending(0) || pmi_pending(2) || pmi_pending(3));

	/* Without CPU 1 it works. */
	assert_int_equal(acquire(fifth, 0xD), STATUS_SUCCESS);
	expect_counting_fresh(2, fifth, PROFILE_PMC_DEFAULT_INTERVAL);
	assert_int_equal(counters_enabled(0), 2);

	/* Clean up: every counter stops with its last use. */
	release(fifth, 0xD);
	release(four[0], 0x1);
	for (size_t i = 0; i < 4; i++)
		release(four[i], 0x2);
	release(ProfileTime, 0x3);
	for (uint32_t c = 0; c < 4; c++) {
		expect_stopped(c);
		assert_false(timer[c].running);
	}
	expect_no_uses();
	assert_int_equal(nsamples, 0);
}

static void test_pmc_limit_intel_v2(void **state)
{
	(void)state;
	pmc_limit(PMU_MODEL_INTEL_V2);
}

static void test_pmc_limit_amd_zen(void **state)
{
	(void)state;
	pmc_limit(PMU_MODEL_AMD_EXTCORE); /* 6 counters, still 4 sources */
}

static void test_pmc_limit_amd_perfmon_v2(void **state)
{
	(void)state;
	pmc_limit(PMU_MODEL_AMD_V2);
}

/* Fewer counters than ARCH_PMU_MAX_SOURCES: the driver's "no counter
 * left" is reported as the limit too. */
static void test_pmc_no_counter_left(void **state)
{
	struct snapshot snap;

	(void)state;
	boot(PMU_MODEL_INTEL_V1, 2); /* 2 general-purpose counters */
	assert_int_equal(acquire(ProfileTotalCycles, 0x3), STATUS_SUCCESS);
	assert_int_equal(acquire(ProfileTotalIssues, 0x1), STATUS_SUCCESS);
	take_snapshot(&snap);
	/* CPU 1 has room, CPU 0 does not: nothing taken anywhere. */
	assert_int_equal(acquire(ProfileBranchInstructions, 0x3), STATUS_PROFILING_AT_LIMIT);
	assert_memory_equal(snap.uses, Uses, sizeof(snap.uses));
	assert_memory_equal(&snap.cpu[0], &pmu_model.cpu[0], sizeof(snap.cpu[0]));
	assert_int_equal(pmu_model.cpu[1].sel[0], 0x3C | USR | OS | INT | EN);
	assert_int_equal(pmu_model.cpu[1].sel[1], 0);
	assert_int_equal(acquire(ProfileBranchInstructions, 0x2), STATUS_SUCCESS);
	release(ProfileBranchInstructions, 0x2);
	release(ProfileTotalIssues, 0x1);
	release(ProfileTotalCycles, 0x3);
	expect_no_uses();
	assert_int_equal(pmu_model.cpu[0].lvtpc, LVT_MASKED | vector);
	assert_int_equal(pmu_model.cpu[1].lvtpc, LVT_MASKED | vector);
}

static void pmc_set_interval(enum pmu_model_preset preset)
{
	const int16_t A = ProfileTotalCycles, B = ProfileBranchInstructions;
	struct snapshot snap;

	boot(preset, 4);
	assert_int_equal(acquire(A, 0x5), STATUS_SUCCESS); /* CPUs 0, 2 */
	assert_int_equal(acquire(B, 0x3), STATUS_SUCCESS); /* CPUs 0, 1 */
	count_source(0, A, 111);
	count_source(0, B, 222);
	count_source(1, B, 333);
	count_source(2, A, 444);
	struct pmu_model_cpu cpu1 = pmu_model.cpu[1], cpu3 = pmu_model.cpu[3];

	assert_int_equal(set_interval(A, 3000), STATUS_SUCCESS);
	assert_int_equal(ki_profile_source_interval(A), 3000);
	expect_counting_fresh(0, A, 3000);
	expect_counting_fresh(2, A, 3000);
	/* B keeps counting where it was; CPUs not counting A untouched. */
	assert_int_equal(*counter_of(0, B), BIT(48) - PROFILE_PMC_DEFAULT_INTERVAL + 222);
	assert_memory_equal(&cpu1, &pmu_model.cpu[1], sizeof(cpu1));
	assert_memory_equal(&cpu3, &pmu_model.cpu[3], sizeof(cpu3));
	assert_int_equal(counters_enabled(0), 2);

	/* The new period is what interrupts. */
	count_source(2, A, 2999);
	assert_false(pmi_pending(2));
	count_source(2, A, 1);
	assert_int_equal(pmi(2), 1);
	expect_sample(0, A, 2);
	expect_counting_fresh(2, A, 3000);

	/* Later starts use it too. */
	assert_int_equal(acquire(A, 0x8), STATUS_SUCCESS);
	expect_counting_fresh(3, A, 3000);
	/* And reprogramming for another source keeps it. */
	assert_int_equal(acquire(B, 0x4), STATUS_SUCCESS);
	expect_counting_fresh(2, A, 3000);
	expect_counting_fresh(2, B, PROFILE_PMC_DEFAULT_INTERVAL);

	/* Bounds: PROFILE_PMC_MIN_INTERVAL up to the driver's maximum. */
	take_snapshot(&snap);
	assert_int_equal(set_interval(A, PROFILE_PMC_MIN_INTERVAL - 1), STATUS_INVALID_PARAMETER);
	assert_int_equal(set_interval(A, 0), STATUS_INVALID_PARAMETER);
	assert_int_equal(ki_profile_source_interval(A), 3000);
	expect_snapshot(&snap);
	assert_int_equal(set_interval(A, PROFILE_PMC_MIN_INTERVAL), STATUS_SUCCESS);
	expect_counting_fresh(0, A, PROFILE_PMC_MIN_INTERVAL);
	/* 48-bit counters: any 32-bit interval is below the maximum. */
	assert_true(arch_pmu_max_interval(A) >= UINT32_MAX);
	assert_int_equal(set_interval(A, UINT32_MAX), STATUS_SUCCESS);
	expect_counting_fresh(3, A, UINT32_MAX);

	release(A, 0xD);
	release(B, 0x7);
	expect_no_uses();
	for (uint32_t c = 0; c < 4; c++)
		expect_stopped(c);
	/* Nothing runs: a new interval is only stored. */
	uint32_t msr = pmu_model.msr_accesses;
	assert_int_equal(set_interval(B, 4000), STATUS_SUCCESS);
	assert_int_equal(pmu_model.msr_accesses, msr);
	assert_int_equal(ki_profile_source_interval(B), 4000);
}

static void test_pmc_set_interval_intel_v2(void **state)
{
	(void)state;
	pmc_set_interval(PMU_MODEL_INTEL_V2);
}

static void test_pmc_set_interval_amd_zen(void **state)
{
	(void)state;
	pmc_set_interval(PMU_MODEL_AMD_EXTCORE);
}

static void test_pmc_set_interval_amd_perfmon_v2(void **state)
{
	(void)state;
	pmc_set_interval(PMU_MODEL_AMD_V2);
}

/* 32-bit counter writes: general-purpose intervals stop at 2^31 - 1. */
static void test_pmc_max_interval(void **state)
{
	struct snapshot snap;

	(void)state;
	boot(PMU_MODEL_INTEL_V2_EBX, 2);
	assert_int_equal(arch_pmu_max_interval(ProfileBranchInstructions), 0x7FFFFFFF);
	assert_int_equal(acquire(ProfileBranchInstructions, 0x1), STATUS_SUCCESS);
	take_snapshot(&snap);
	assert_int_equal(set_interval(ProfileBranchInstructions, 0x80000000u), STATUS_INVALID_PARAMETER);
	assert_int_equal(set_interval(ProfileBranchInstructions, UINT32_MAX), STATUS_INVALID_PARAMETER);
	assert_int_equal(ki_profile_source_interval(ProfileBranchInstructions), PROFILE_PMC_DEFAULT_INTERVAL);
	expect_snapshot(&snap);
	assert_int_equal(set_interval(ProfileBranchInstructions, 0x7FFFFFFF), STATUS_SUCCESS);
	expect_counting_fresh(0, ProfileBranchInstructions, 0x7FFFFFFF);
	/* The fixed counter of instructions is 48 bits wide. */
	assert_int_equal(set_interval(ProfileTotalIssues, UINT32_MAX), STATUS_SUCCESS);
	assert_int_equal(acquire(ProfileTotalIssues, 0x3), STATUS_SUCCESS);
	expect_counting_fresh(1, ProfileTotalIssues, UINT32_MAX);
	release(ProfileTotalIssues, 0x3);
	release(ProfileBranchInstructions, 0x1);
	expect_no_uses();
	expect_stopped(0);
	expect_stopped(1);

	boot(PMU_MODEL_INTEL_V1, 1);
	assert_int_equal(set_interval(ProfileTotalCycles, 0x80000000u), STATUS_INVALID_PARAMETER);
	assert_int_equal(set_interval(ProfileTotalCycles, 0x7FFFFFFF), STATUS_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_init_no_pmu_intel, teardown),
		cmocka_unit_test_teardown(test_init_no_pmu_amd, teardown),
		cmocka_unit_test_teardown(test_init_pmu_present, teardown),
		cmocka_unit_test_teardown(test_start_cpu_stops_firmware_counters, teardown),
		cmocka_unit_test_teardown(test_unknown_sources, teardown),
		cmocka_unit_test_teardown(test_time_acquire_release, teardown),
		cmocka_unit_test_teardown(test_time_set_interval, teardown),
		cmocka_unit_test_teardown(test_time_periodic_mode, teardown),
		cmocka_unit_test_teardown(test_pmc_flow_intel_v2, teardown),
		cmocka_unit_test_teardown(test_pmc_flow_amd_zen, teardown),
		cmocka_unit_test_teardown(test_pmc_flow_amd_perfmon_v2, teardown),
		cmocka_unit_test_teardown(test_pmc_limit_intel_v2, teardown),
		cmocka_unit_test_teardown(test_pmc_limit_amd_zen, teardown),
		cmocka_unit_test_teardown(test_pmc_limit_amd_perfmon_v2, teardown),
		cmocka_unit_test_teardown(test_pmc_no_counter_left, teardown),
		cmocka_unit_test_teardown(test_pmc_set_interval_intel_v2, teardown),
		cmocka_unit_test_teardown(test_pmc_set_interval_amd_zen, teardown),
		cmocka_unit_test_teardown(test_pmc_set_interval_amd_perfmon_v2, teardown),
		cmocka_unit_test_teardown(test_pmc_max_interval, teardown),
	};
	return cmocka_run_group_tests_name("source", tests, NULL, NULL);
}
