/*
 * test_pmu.c - the PMU drivers (arch/x86_64/pmu/pmu.c, pmu_intel.c, pmu_amd.c)
 * against the counter model in pmu_model.c: probing each modelled CPU
 * (none, Intel perfmon v1 / v2 / v2 with events missing / v5 fixed bitmap,
 * AMD legacy / family 15h / ExtCore / PerfMonV2), which KPROFILE_SOURCE
 * values each can count and with which event, counter assignment and
 * parameter checks, the bits programmed, and the PMI: overflow found,
 * callback once per overflow, reload, status cleared, LVT unmasked,
 * counting restarted, in that order.  Every test ends by checking the
 * drivers never touched a register the modelled CPU lacks (a #GP on
 * hardware).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <arch/interrupt.h>
#include <arch/dev/pmu.h>

#include "include/kprof/wmi.h"
#include "support/pmu_model.h"

/* Registers, as the SDM and the APM number them. */
#define IA32_PMC0        0xC1u
#define IA32_PERFEVTSEL0 0x186u
#define IA32_FIXED_CTR0  0x309u
#define IA32_FIXED_CTRL  0x38Du
#define IA32_GLOBAL_STATUS 0x38Eu
#define IA32_GLOBAL_CTRL 0x38Fu
#define IA32_GLOBAL_OVF  0x390u
#define IA32_A_PMC0      0x4C1u
#define AMD_CTL0         0xC0010000u
#define AMD_CTR0         0xC0010004u
#define AMD_EXT_CTL0     0xC0010200u
#define AMD_GLOBAL_STATUS 0xC0000300u
#define AMD_GLOBAL_CTL   0xC0000301u
#define AMD_GLOBAL_CLR   0xC0000302u
#define LVTPC            0x834u

static struct arch_pmu_info info;
static uint32_t vector;

/* ------------------------------------------------------------ helpers */

struct calls {
	uint32_t n;                  /* callbacks so far                      */
	uint32_t source[16];         /* their sources, in order               */
	KTRAP_FRAME *tf[16];         /* the trap frame each got               */
	uint64_t global_ctrl[16];    /* the global enable when called         */
	uint32_t lvt[16];            /* the LVT entry when called             */
};

static void record(uint32_t source, KTRAP_FRAME *tf, void *ctx)
{
	struct calls *c = ctx;

	if (c->n < 16) {
		c->source[c->n] = source;
		c->tf[c->n] = tf;
		c->global_ctrl[c->n] = pmu_model_cpu()->global_ctrl;
		c->lvt[c->n] = pmu_model_cpu()->lvtpc;
	}
	c->n++;
}

static KTRAP_FRAME frame = { .ip = 0xFFFFFFFF80201234u, .fp = 0xFFFFFFFF80400000u };

static void boot(enum pmu_model_preset preset)
{
	pmu_model_reset(preset);
	arch_pmu_probe(&info);
	vector = arch_interrupt_vector(ARCH_INT_PMC);
}

/* Play the interrupt: the model must have a PMI pending. */
static uint32_t take_pmi(struct calls *c)
{
	assert_true(pmu_model_take_pmi());
	return arch_pmu_handle_interrupt(&frame, record, c);
}

static enum arch_pmu_status start1(uint32_t source, uint64_t interval)
{
	return arch_pmu_start_cpu(&source, &interval, 1);
}

static int check_no_faults(void **state)
{
	(void)state;
	if (pmu_model.faults)
		fail_msg("%u register faults, first: %s", pmu_model.faults, pmu_model.fault);
	return 0;
}

/* ---------------------------------------------------------------- probe */

static void test_probe_no_pmu_intel(void **state)
{
	uint32_t src = ProfileTotalCycles;
	uint64_t iv = 1000;
	struct calls c = { 0 };

	(void)state;
	boot(PMU_MODEL_NO_PMU_INTEL);
	assert_false(info.present);
	assert_string_equal(info.vendor, "GenuineIntel");
	assert_string_equal(info.why_absent,
			    "CPUID leaf 0xA reports version 0 (no architectural performance monitoring)");
	assert_non_null(strstr(info.summary, "no performance counters: CPUID leaf 0xA reports version 0"));
	for (uint32_t s = 0; s <= ProfileMaximum; s++) {
		assert_false(arch_pmu_source_supported(s));
		assert_null(arch_pmu_source_event(s));
		assert_int_equal(arch_pmu_max_interval(s), 0);
	}
	assert_int_equal(arch_pmu_start_cpu(&src, &iv, 1), ARCH_PMU_NOT_SUPPORTED);
	assert_int_equal(arch_pmu_start_cpu(NULL, NULL, 0), ARCH_PMU_NOT_SUPPORTED);
	assert_int_equal(arch_pmu_set_interval_cpu(src, iv), ARCH_PMU_NOT_SUPPORTED);
	arch_pmu_stop_cpu();
	assert_int_equal(arch_pmu_handle_interrupt(&frame, record, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(pmu_model.msr_accesses, 0); /* any MSR would #GP here */
	assert_int_equal(pmu_model_cpu()->lvtpc, LVT_MASKED | 0xFD);
}

static void test_probe_no_pmu_amd(void **state)
{
	(void)state;
	boot(PMU_MODEL_NO_PMU_AMD);
	assert_false(info.present);
	assert_string_equal(info.vendor, "AuthenticAMD");
	assert_int_equal(info.family, 0xF);
	assert_non_null(strstr(info.why_absent, "PerfCtr0 ignores writes (wrote 0x5a5a5a5a5a5a, read 0x0)"));
	assert_false(arch_pmu_source_supported(ProfileTotalIssues));
	assert_int_equal(start1(ProfileTotalIssues, 1000), ARCH_PMU_NOT_SUPPORTED);
}

static void test_probe_intel_max_leaf(void **state)
{
	(void)state;
	pmu_model_reset(PMU_MODEL_INTEL_V2);
	pmu_model.max_leaf = 7;
	arch_pmu_probe(&info);
	assert_false(info.present);
	assert_non_null(strstr(info.why_absent, "CPUID stops at leaf 0x7"));
	assert_int_equal(pmu_model.msr_accesses, 0);
}

static void test_probe_unknown_vendor(void **state)
{
	(void)state;
	pmu_model_reset(PMU_MODEL_INTEL_V2);
	strcpy(pmu_model.vendor, "CentaurHauls");
	arch_pmu_probe(&info);
	assert_false(info.present);
	assert_string_equal(info.why_absent, "no PMU driver for CPU vendor \"CentaurHauls\"");
}

static void test_probe_intel_v2(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	assert_true(info.present);
	assert_int_equal(info.family, 6);
	assert_int_equal(info.model, 0x55);
	assert_int_equal(info.version, 2);
	assert_int_equal(info.gp_counters, 4);
	assert_int_equal(info.fixed_counters, 3);
	assert_int_equal(info.counter_bits, 48);
	assert_int_equal(info.fixed_bits, 48);
	assert_true(info.full_width_writes);
	assert_true(info.global_control);
	assert_false(info.perfmon_v2);
	assert_string_equal(info.summary, "Intel architectural perfmon v2: 4 general-purpose 48-bit counters "
					  "(full-width writes), 3 fixed 48-bit");
	assert_string_equal(info.why_absent, "");
	/* The probe only reads. */
	for (uint32_t i = 0; i < pmu_model.nlog; i++)
		assert_int_equal(pmu_model.log[i].op, 'R');
}

static void test_probe_intel_v1(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V1);
	assert_true(info.present);
	assert_int_equal(info.version, 1);
	assert_int_equal(info.gp_counters, 2);
	assert_int_equal(info.fixed_counters, 0);
	assert_int_equal(info.counter_bits, 40);
	assert_false(info.full_width_writes);
	assert_false(info.global_control);
	/* No PDCM: IA32_PERF_CAPABILITIES must not be read (the model would
	 * count the #GP). */
	assert_int_equal(pmu_model.msr_accesses, 0);
}

static void test_probe_intel_v5_fixed_bitmap(void **state)
{
	(void)state;
	pmu_model_reset(PMU_MODEL_INTEL_V2);
	pmu_model.version = 5;
	pmu_model.fixed_count = 1;  /* EDX: fixed counter 0 ...          */
	pmu_model.fixed_ecx = 0x2;  /* ... and ECX: fixed counter 1 too  */
	arch_pmu_probe(&info);
	assert_true(info.present);
	assert_int_equal(info.version, 5);
	assert_int_equal(info.fixed_counters, 2);
	assert_string_equal(arch_pmu_source_event(ProfileTotalCycles),
			    "UnHalted Core Cycles: CPU_CLK_UNHALTED.THREAD (fixed counter 1)");
	assert_int_equal(start1(ProfileTotalCycles, 5000), ARCH_PMU_OK);
	assert_int_equal(pmu_model_cpu()->fixed_ctr[1], BIT(48) - 5000);
	assert_int_equal(pmu_model_cpu()->global_ctrl, BIT(33));
}

static void test_probe_amd(void **state)
{
	(void)state;
	boot(PMU_MODEL_AMD_LEGACY);
	assert_true(info.present);
	assert_int_equal(info.family, 0x10);
	assert_int_equal(info.version, 1);
	assert_int_equal(info.gp_counters, 4);
	assert_int_equal(info.counter_bits, 48);
	assert_int_equal(info.fixed_counters, 0);
	assert_false(info.amd_ext_core);
	assert_false(info.perfmon_v2);
	assert_false(info.global_control);
	assert_string_equal(info.summary, "AuthenticAMD family 0x10: 4 core 48-bit counters (legacy)");
	/* The write-and-read-back test leaves counter 0 as it was. */
	assert_int_equal(pmu_model_cpu()->ctr[0], 0);
	assert_int_equal(pmu_model_cpu()->sel[0], 0);

	boot(PMU_MODEL_AMD_EXTCORE);
	assert_true(info.present);
	assert_int_equal(info.family, 0x17);
	assert_int_equal(info.model, 0x71);
	assert_int_equal(info.gp_counters, 6);
	assert_true(info.amd_ext_core);
	assert_false(info.perfmon_v2);
	assert_string_equal(info.summary, "AuthenticAMD family 0x17: 6 core 48-bit counters (PerfCtrExtCore)");

	boot(PMU_MODEL_AMD_V2);
	assert_true(info.present);
	assert_int_equal(info.family, 0x19);
	assert_int_equal(info.version, 2);
	assert_int_equal(info.gp_counters, 6);
	assert_true(info.perfmon_v2);
	assert_true(info.global_control);
	assert_string_equal(info.summary,
			    "AuthenticAMD family 0x19: 6 core 48-bit counters (PerfCtrExtCore), PerfMonV2 global control");

	boot(PMU_MODEL_AMD_F15);
	assert_true(info.present);
	assert_int_equal(info.family, 0x15);
	assert_int_equal(info.gp_counters, 6);

	pmu_model_reset(PMU_MODEL_AMD_EXTCORE);
	strcpy(pmu_model.vendor, "HygonGenuine");
	pmu_model.family = 0x18;
	arch_pmu_probe(&info);
	assert_true(info.present);
	assert_non_null(strstr(arch_pmu_source_event(ProfileTotalCycles), "PMCx076"));
}

static void test_probe_amd_old_family(void **state)
{
	(void)state;
	pmu_model_reset(PMU_MODEL_AMD_LEGACY);
	pmu_model.family = 0xF; /* K8: counters work, events not tabulated */
	arch_pmu_probe(&info);
	assert_false(info.present);
	assert_string_equal(info.why_absent, "AMD family 0xf: kprof knows the events of families 0x10 and later");
}

/* ------------------------------------------------------- source mapping */

static void test_sources_intel_v2(void **state)
{
	static const uint32_t yes[] = { ProfileTotalCycles, ProfileTotalIssues, ProfileBranchInstructions,
					ProfileBranchMispredictions, ProfileCacheMisses };
	static const uint32_t no[] = { ProfileTime, ProfileAlignmentFixup, ProfileDcacheMisses, ProfileIcacheMisses,
				       ProfileDcacheAccesses, ProfileLoadInstructions, ProfileMaximum, 1000 };

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_true(arch_pmu_source_supported(yes[i]));
		assert_int_equal(arch_pmu_max_interval(yes[i]), BIT(47) - 1);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		assert_false(arch_pmu_source_supported(no[i]));
		assert_null(arch_pmu_source_event(no[i]));
		assert_int_equal(arch_pmu_max_interval(no[i]), 0);
	}
	assert_string_equal(arch_pmu_source_event(ProfileTotalIssues),
			    "Instructions Retired: INST_RETIRED.ANY (fixed counter 0)");
	assert_string_equal(arch_pmu_source_event(ProfileTotalCycles),
			    "UnHalted Core Cycles: CPU_CLK_UNHALTED.THREAD (fixed counter 1)");
	assert_string_equal(arch_pmu_source_event(ProfileBranchInstructions),
			    "Branch Instructions Retired: BR_INST_RETIRED.ALL_BRANCHES (event 0xC4, umask 0x00)");
	assert_string_equal(arch_pmu_source_event(ProfileBranchMispredictions),
			    "Branch Misses Retired: BR_MISP_RETIRED.ALL_BRANCHES (event 0xC5, umask 0x00)");
	assert_string_equal(arch_pmu_source_event(ProfileCacheMisses),
			    "LLC Misses: LONGEST_LAT_CACHE.MISS (event 0x2E, umask 0x41)");
}

static void test_sources_intel_v1(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V1);
	assert_string_equal(arch_pmu_source_event(ProfileTotalIssues),
			    "Instructions Retired: INST_RETIRED.ANY_P (event 0xC0, umask 0x00)");
	assert_string_equal(arch_pmu_source_event(ProfileTotalCycles),
			    "UnHalted Core Cycles: CPU_CLK_UNHALTED.THREAD_P (event 0x3C, umask 0x00)");
	/* 40-bit counters, but 32-bit sign-extended writes. */
	assert_int_equal(arch_pmu_max_interval(ProfileTotalIssues), 0x7FFFFFFF);
}

static void test_sources_intel_unavailable_events(void **state)
{
	(void)state;
	boot(PMU_MODEL_INTEL_V2_EBX);
	assert_true(info.present);
	assert_false(info.full_width_writes);
	/* EBX bit 1: no instructions-retired event on general-purpose
	 * counters, but fixed counter 0 counts it. */
	assert_true(arch_pmu_source_supported(ProfileTotalIssues));
	assert_string_equal(arch_pmu_source_event(ProfileTotalIssues),
			    "Instructions Retired: INST_RETIRED.ANY (fixed counter 0)");
	assert_false(arch_pmu_source_supported(ProfileCacheMisses));          /* bit 4 */
	assert_false(arch_pmu_source_supported(ProfileBranchMispredictions)); /* bit 6 */
	assert_true(arch_pmu_source_supported(ProfileBranchInstructions));
	assert_int_equal(arch_pmu_max_interval(ProfileBranchInstructions), 0x7FFFFFFF);
	assert_int_equal(arch_pmu_max_interval(ProfileTotalIssues), BIT(47) - 1);
	assert_int_equal(start1(ProfileCacheMisses, 100), ARCH_PMU_NOT_SUPPORTED);

	/* A shorter EBX vector: events past its length are not available. */
	pmu_model.ebx_len = 5;
	arch_pmu_probe(&info);
	assert_false(arch_pmu_source_supported(ProfileBranchInstructions)); /* bit 5 */
	assert_true(arch_pmu_source_supported(ProfileTotalCycles));

	/* Instructions: the fixed counter busy elsewhere is impossible (one
	 * source each), but with no fixed counters it is unsupported. */
	pmu_model.fixed_count = 0;
	arch_pmu_probe(&info);
	assert_false(arch_pmu_source_supported(ProfileTotalIssues));
	assert_true(arch_pmu_source_supported(ProfileTotalCycles));
	assert_string_equal(arch_pmu_source_event(ProfileTotalCycles),
			    "UnHalted Core Cycles: CPU_CLK_UNHALTED.THREAD_P (event 0x3C, umask 0x00)");
}

static void test_sources_amd(void **state)
{
	static const uint32_t yes[] = { ProfileTotalCycles, ProfileTotalIssues, ProfileBranchInstructions,
					ProfileBranchMispredictions, ProfileCacheMisses, ProfileDcacheMisses,
					ProfileIcacheMisses, ProfileDcacheAccesses };

	(void)state;
	boot(PMU_MODEL_AMD_EXTCORE);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_true(arch_pmu_source_supported(yes[i]));
		assert_int_equal(arch_pmu_max_interval(yes[i]), BIT(47) - 1);
	}
	assert_false(arch_pmu_source_supported(ProfileTime));
	assert_false(arch_pmu_source_supported(ProfileLoadInstructions));
	assert_string_equal(arch_pmu_source_event(ProfileTotalCycles), "Cycles not in Halt: LsNotHaltedCyc (PMCx076)");
	assert_string_equal(arch_pmu_source_event(ProfileTotalIssues), "Retired Instructions: ExRetInstr (PMCx0C0)");
	assert_non_null(strstr(arch_pmu_source_event(ProfileCacheMisses), "(PMCx064 umask 0x09)"));
	assert_non_null(strstr(arch_pmu_source_event(ProfileDcacheMisses), "(PMCx060 umask 0xE8)"));
	assert_non_null(strstr(arch_pmu_source_event(ProfileIcacheMisses), "(PMCx060 umask 0x10)"));
	assert_non_null(strstr(arch_pmu_source_event(ProfileDcacheAccesses), "(PMCx029 umask 0x07)"));

	boot(PMU_MODEL_AMD_LEGACY);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(arch_pmu_source_supported(yes[i]));
	assert_string_equal(arch_pmu_source_event(ProfileTotalCycles), "CPU Clocks not Halted (PMCx076)");
	assert_non_null(strstr(arch_pmu_source_event(ProfileCacheMisses), "(PMCx07E umask 0x07)"));
	assert_string_equal(arch_pmu_source_event(ProfileDcacheMisses), "Data Cache Misses (PMCx041 umask 0x01)");
	assert_string_equal(arch_pmu_source_event(ProfileIcacheMisses), "Instruction Cache Misses (PMCx081)");
	assert_string_equal(arch_pmu_source_event(ProfileDcacheAccesses), "Data Cache Accesses (PMCx040)");
}

/* ------------------------------------------------ assignment, parameters */

static void test_program_intel_v2(void **state)
{
	const uint32_t src[] = { ProfileBranchInstructions, ProfileTotalCycles, ProfileCacheMisses,
				 ProfileTotalIssues };
	const uint64_t iv[] = { 10007, 2000003, 50021, 1000003 };
	struct pmu_model_cpu *c;

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	assert_int_equal(arch_pmu_start_cpu(src, iv, 4), ARCH_PMU_OK);
	c = pmu_model_cpu();
	/* Fixed counters for cycles (1) and instructions (0), each OS|USR|PMI;
	 * general-purpose 0 and 1 for the others, in order. */
	assert_int_equal(c->fixed_ctrl, 0xBBull);
	assert_int_equal(c->fixed_ctr[1], BIT(48) - 2000003);
	assert_int_equal(c->fixed_ctr[0], BIT(48) - 1000003);
	assert_int_equal(c->sel[0], 0xC4 | USR | OS | INT | EN);
	assert_int_equal(c->sel[1], 0x2E | 0x41 << 8 | USR | OS | INT | EN);
	assert_int_equal(c->sel[2], 0);
	assert_int_equal(c->sel[3], 0);
	assert_int_equal(c->ctr[0], BIT(48) - 10007);
	assert_int_equal(c->ctr[1], BIT(48) - 50021);
	assert_int_equal(c->global_ctrl, BIT(0) | BIT(1) | BIT(32) | BIT(33));
	assert_int_equal(c->lvtpc, vector); /* unmasked, fixed delivery */
	/* Counters loaded through the full-width aliases. */
	assert_true(pmu_model_find(0, 'W', IA32_A_PMC0, true, 0) >= 0);
	/* The LVT was armed before counting was enabled. */
	int lvt = pmu_model_find(0, 'L', LVTPC, false, vector);
	int enable = pmu_model_find(0, 'W', IA32_GLOBAL_CTRL, false, c->global_ctrl);
	assert_true(lvt >= 0 && enable > lvt);
}

static void test_assign_limits(void **state)
{
	const uint32_t three[] = { ProfileBranchInstructions, ProfileBranchMispredictions, ProfileTotalCycles };
	const uint32_t five[] = { ProfileTotalCycles, ProfileTotalIssues, ProfileBranchInstructions,
				  ProfileBranchMispredictions, ProfileCacheMisses };
	const uint64_t iv[] = { 1000, 1000, 1000, 1000, 1000 };

	(void)state;
	/* Version 1: two general-purpose counters, no fixed ones. */
	boot(PMU_MODEL_INTEL_V1);
	pmu_model_clear_log();
	assert_int_equal(arch_pmu_start_cpu(three, iv, 3), ARCH_PMU_NO_COUNTER);
	assert_int_equal(pmu_model.nlog, 0); /* nothing touched */
	assert_int_equal(arch_pmu_start_cpu(three, iv, 2), ARCH_PMU_OK);

	/* Version 2 with a single general-purpose counter: fixed counters take
	 * cycles and instructions, whatever order they come in. */
	pmu_model_reset(PMU_MODEL_INTEL_V2);
	pmu_model.gp = 1;
	arch_pmu_probe(&info);
	assert_int_equal(arch_pmu_start_cpu(three, iv, 3), ARCH_PMU_NO_COUNTER);
	const uint32_t fits[] = { ProfileTotalCycles, ProfileTotalIssues, ProfileBranchMispredictions };
	assert_int_equal(arch_pmu_start_cpu(fits, iv, 3), ARCH_PMU_OK);
	assert_int_equal(pmu_model_cpu()->sel[0], 0xC5 | USR | OS | INT | EN);
	assert_int_equal(pmu_model_cpu()->fixed_ctrl, 0xBBull);

	/* More than ARCH_PMU_MAX_SOURCES. */
	boot(PMU_MODEL_INTEL_V2);
	assert_int_equal(arch_pmu_start_cpu(five, iv, 5), ARCH_PMU_NO_COUNTER);
	assert_int_equal(arch_pmu_start_cpu(five, iv, 4), ARCH_PMU_OK);
}

static void test_intel_eight_counters(void **state)
{
	const uint32_t src[] = { ProfileBranchInstructions, ProfileBranchMispredictions, ProfileCacheMisses };
	const uint64_t iv[] = { 1000, 1000, 1000 };

	(void)state;
	pmu_model_reset(PMU_MODEL_INTEL_V2);
	pmu_model.gp = 8;
	arch_pmu_probe(&info);
	assert_int_equal(info.gp_counters, 8);
	assert_int_equal(arch_pmu_start_cpu(src, iv, 3), ARCH_PMU_OK);
	arch_pmu_stop_cpu();
	/* Only the first ARCH_PMU_MAX_SOURCES general-purpose counters are
	 * ever touched (hybrid parts: the other core type may have fewer). */
	for (uint32_t i = ARCH_PMU_MAX_SOURCES; i < 8; i++) {
		assert_int_equal(pmu_model_find(0, 'W', IA32_PERFEVTSEL0 + i, true, 0), -1);
		assert_int_equal(pmu_model_find(0, 'W', IA32_PMC0 + i, true, 0), -1);
		assert_int_equal(pmu_model_find(0, 'W', IA32_A_PMC0 + i, true, 0), -1);
	}
}

static void test_bad_parameters(void **state)
{
	uint32_t src[2] = { ProfileBranchInstructions, ProfileTotalIssues };
	uint64_t iv[2] = { 1000, 1000 };

	(void)state;
	boot(PMU_MODEL_INTEL_V2_EBX); /* 32-bit writes: GP intervals < 2^31 */
	pmu_model_clear_log();
	iv[0] = 0;
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_INVALID);
	iv[0] = BIT(31);
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_INVALID);
	iv[0] = BIT(31) - 1;
	iv[1] = BIT(47);
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_INVALID);
	src[1] = ProfileBranchInstructions;
	iv[1] = 1000;
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_INVALID); /* twice */
	src[1] = ProfileTime;
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_NOT_SUPPORTED);
	src[1] = ProfileDcacheMisses;
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_NOT_SUPPORTED);
	src[1] = ProfileMaximum;
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_NOT_SUPPORTED);
	assert_int_equal(arch_pmu_start_cpu(NULL, iv, 1), ARCH_PMU_INVALID);
	assert_int_equal(arch_pmu_start_cpu(src, NULL, 1), ARCH_PMU_INVALID);
	assert_int_equal(pmu_model.nlog, 0); /* no failed call touched a register */

	/* The largest intervals are accepted, and loaded as they must be. */
	src[1] = ProfileTotalIssues;
	iv[0] = BIT(31) - 1;
	iv[1] = BIT(47) - 1;
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_OK);
	assert_int_equal(pmu_model_cpu()->ctr[0], BIT(48) - (BIT(31) - 1));
	assert_int_equal(pmu_model_cpu()->fixed_ctr[0], BIT(47) + 1);
	assert_true(pmu_model_find(0, 'W', IA32_PMC0, true, 0) >= 0);  /* legacy alias */
	assert_true(pmu_model_find(0, 'W', IA32_A_PMC0, true, 0) < 0); /* not full width */
}

static void test_assign_amd_f15_constraints(void **state)
{
	/* Unconstrained events first: a naive first-fit would give them
	 * counters 0-2 and leave the cycles event (0-2 only) nowhere. */
	const uint32_t src[] = { ProfileTotalIssues, ProfileBranchInstructions, ProfileBranchMispredictions,
				 ProfileTotalCycles };
	const uint64_t iv[] = { 1000, 1000, 1000, 1000 };
	struct pmu_model_cpu *c;

	(void)state;
	boot(PMU_MODEL_AMD_F15);
	assert_int_equal(arch_pmu_start_cpu(src, iv, 4), ARCH_PMU_OK);
	c = pmu_model_cpu();
	assert_int_equal(c->sel[0], 0x76 | USR | OS | INT | EN);
	assert_int_equal(c->sel[1] & 0xFF, 0xC0);
	assert_int_equal(c->sel[2] & 0xFF, 0xC2);
	assert_int_equal(c->sel[3] & 0xFF, 0xC3);

	const uint32_t k10[] = { ProfileTotalCycles, ProfileCacheMisses, ProfileIcacheMisses, ProfileDcacheMisses };
	assert_int_equal(arch_pmu_start_cpu(k10, iv, 4), ARCH_PMU_OK);
	for (unsigned i = 0; i < 3; i++)
		assert_int_not_equal(c->sel[i] & 0xFF, 0x41); /* the unconstrained one went to 3 */
	assert_int_equal(c->sel[3], 0x41 | 0x01 << 8 | USR | OS | INT | EN);
}

static void test_program_amd(void **state)
{
	struct pmu_model_cpu *c;

	(void)state;
	boot(PMU_MODEL_AMD_LEGACY);
	assert_int_equal(start1(ProfileCacheMisses, 123457), ARCH_PMU_OK);
	c = pmu_model_cpu();
	assert_int_equal(c->sel[0], 0x7E | 0x07 << 8 | USR | OS | INT | EN);
	assert_int_equal(c->ctr[0], BIT(48) - 123457);
	assert_int_equal(c->lvtpc, vector);
	assert_true(pmu_model_find(0, 'W', AMD_CTL0, true, 0) >= 0);

	boot(PMU_MODEL_AMD_EXTCORE);
	assert_int_equal(start1(ProfileDcacheAccesses, 99), ARCH_PMU_OK);
	c = pmu_model_cpu();
	assert_int_equal(c->sel[0], 0x29 | 0x07 << 8 | USR | OS | INT | EN);
	assert_int_equal(c->ctr[0], BIT(48) - 99);
	assert_true(pmu_model_find(0, 'W', AMD_EXT_CTL0, true, 0) >= 0);

	boot(PMU_MODEL_AMD_V2);
	pmu_model_clear_log();
	assert_int_equal(start1(ProfileIcacheMisses, 5000), ARCH_PMU_OK);
	c = pmu_model_cpu();
	assert_int_equal(c->sel[0], 0x60 | 0x10 << 8 | USR | OS | INT | EN);
	assert_int_equal(c->global_ctrl, BIT(0));
	int clr = pmu_model_find(0, 'W', AMD_GLOBAL_CLR, false, 0x3F);
	int lvt = pmu_model_find(0, 'L', LVTPC, false, vector);
	int on = pmu_model_find(0, 'W', AMD_GLOBAL_CTL, false, BIT(0));
	assert_true(clr >= 0 && lvt > clr && on > lvt);
}

/* ------------------------------------------------------------- overflow */

static void test_overflow_intel_v2(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	const uint32_t src[] = { ProfileTotalIssues, ProfileBranchInstructions };
	const uint64_t iv[] = { 1000, 300 };
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_OK);
	cpu = pmu_model_cpu();

	pmu_model_count(0xC0, 0x00, 999);
	assert_false(pmu_model_take_pmi());
	pmu_model_count(0xC0, 0x00, 1);
	assert_int_equal(cpu->global_status, BIT(32));
	assert_int_equal(cpu->lvtpc, LVT_MASKED | vector);

	pmu_model_clear_log();
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.source[0], ProfileTotalIssues);
	assert_ptr_equal(c.tf[0], &frame);
	assert_int_equal(c.global_ctrl[0], 0);                 /* stopped while the callback runs */
	assert_int_equal(c.lvt[0], LVT_MASKED | vector);       /* not yet unmasked               */
	assert_int_equal(cpu->fixed_ctr[0], BIT(48) - 1000);   /* reloaded                       */
	assert_int_equal(cpu->ctr[0], BIT(48) - 300);          /* the other one untouched        */
	assert_int_equal(cpu->global_status, 0);
	assert_int_equal(cpu->lvtpc, vector);
	assert_int_equal(cpu->global_ctrl, BIT(0) | BIT(32));

	/* Linux's order: disable all, read status, reload, clear status via
	 * OVF_CTRL, unmask the LVT, enable. */
	int off = pmu_model_find(0, 'W', IA32_GLOBAL_CTRL, false, 0);
	int status = pmu_model_find(off, 'R', IA32_GLOBAL_STATUS, true, 0);
	int reload = pmu_model_find(status, 'W', IA32_FIXED_CTR0, false, BIT(48) - 1000);
	int ack = pmu_model_find(reload, 'W', IA32_GLOBAL_OVF, false, BIT(32));
	int lvt = pmu_model_find(ack, 'L', LVTPC, false, vector);
	int on = pmu_model_find(lvt, 'W', IA32_GLOBAL_CTRL, false, BIT(0) | BIT(32));
	assert_true(off >= 0 && status > off && reload > status && ack > reload && lvt > ack && on > lvt);

	/* Every period again, exactly once each. */
	for (int i = 0; i < 5; i++) {
		pmu_model_count(0xC4, 0x00, 300);
		assert_int_equal(take_pmi(&c), 1);
	}
	assert_int_equal(c.n, 6);
	for (int i = 1; i < 6; i++)
		assert_int_equal(c.source[i], ProfileBranchInstructions);
	assert_int_equal(cpu->ctr[0], BIT(48) - 300);
	assert_int_equal(cpu->lost, 0);
}

static void test_overflow_two_at_once_intel(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	const uint32_t src[] = { ProfileTotalCycles, ProfileBranchMispredictions, ProfileTotalIssues };
	const uint64_t iv[] = { 5000, 40, 7000 };
	assert_int_equal(arch_pmu_start_cpu(src, iv, 3), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	/* Both overflow before the handler runs: one PMI (the second finds
	 * the LVT entry masked), two status bits. */
	pmu_model_count(0x3C, 0x00, 5000);
	pmu_model_count(0xC5, 0x00, 41);
	pmu_model_count(0xC0, 0x00, 6999);
	assert_int_equal(cpu->global_status, BIT(0) | BIT(33));
	assert_int_equal(take_pmi(&c), 2);
	assert_int_equal(c.n, 2);
	assert_true((c.source[0] == ProfileTotalCycles && c.source[1] == ProfileBranchMispredictions) ||
		    (c.source[1] == ProfileTotalCycles && c.source[0] == ProfileBranchMispredictions));
	assert_int_equal(cpu->fixed_ctr[1], BIT(48) - 5000);
	assert_int_equal(cpu->ctr[0], BIT(48) - 40); /* the extra event counted before the PMI is dropped */
	assert_int_equal(cpu->fixed_ctr[0], BIT(48) - 7000 + 6999);
	assert_int_equal(cpu->global_status, 0);
	assert_false(pmu_model_take_pmi());
}

static void test_spurious(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	/* Not counting on this CPU: nothing touched, the entry stays masked. */
	pmu_model_clear_log();
	assert_int_equal(arch_pmu_handle_interrupt(&frame, record, &c), 0);
	assert_int_equal(pmu_model.nlog, 0);

	assert_int_equal(start1(ProfileBranchInstructions, 100), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	pmu_model_count(0xC4, 0x00, 50);
	cpu->lvtpc |= LVT_MASKED; /* as if the APIC had delivered a PMI */
	assert_int_equal(arch_pmu_handle_interrupt(&frame, record, &c), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(cpu->ctr[0], BIT(48) - 50); /* not reloaded */
	assert_int_equal(cpu->lvtpc, vector);        /* unmasked      */
	assert_int_equal(cpu->global_ctrl, BIT(0));  /* counting      */
	pmu_model_count(0xC4, 0x00, 50);
	assert_int_equal(take_pmi(&c), 1);

	/* The same on AMD without global status: the top bit is still set. */
	boot(PMU_MODEL_AMD_EXTCORE);
	assert_int_equal(start1(ProfileBranchInstructions, 100), ARCH_PMU_OK);
	pmu_model_count(0xC2, 0x00, 99);
	assert_int_equal(arch_pmu_handle_interrupt(&frame, record, &c), 0);
	assert_int_equal(pmu_model_cpu()->sel[0] & EN, EN);
}

static void test_overflow_intel_v1(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_INTEL_V1);
	const uint32_t src[] = { ProfileTotalCycles, ProfileBranchInstructions };
	const uint64_t iv[] = { 100000, 2000 };
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	assert_int_equal(cpu->ctr[0], BIT(40) - 100000); /* 32-bit write, sign-extended to 40 */
	assert_int_equal(cpu->ctr[1], BIT(40) - 2000);
	assert_int_equal(cpu->sel[0], 0x3C | USR | OS | INT | EN);

	pmu_model_count(0xC4, 0x00, 2003);
	pmu_model_clear_log();
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.source[0], ProfileBranchInstructions);
	assert_int_equal(cpu->ctr[1], BIT(40) - 2000);
	assert_int_equal(cpu->ctr[0], BIT(40) - 100000);
	assert_int_equal(cpu->sel[0] & EN, EN);
	assert_int_equal(cpu->sel[1] & EN, EN);
	assert_int_equal(cpu->lvtpc, vector);
	/* Counting stopped (EN cleared) before the counters were read. */
	int off = pmu_model_find(0, 'W', IA32_PERFEVTSEL0 + 1, false, 0xC4 | USR | OS | INT);
	int read = pmu_model_find(off, 'R', IA32_PMC0 + 1, true, 0);
	int lvt = pmu_model_find(read, 'L', LVTPC, false, vector);
	int on = pmu_model_find(lvt, 'W', IA32_PERFEVTSEL0 + 1, false, 0xC4 | USR | OS | INT | EN);
	assert_true(off >= 0 && read > off && lvt > read && on > lvt);
	/* No global registers on version 1 (the model would have faulted). */
	assert_int_equal(pmu_model_find(0, 'W', IA32_GLOBAL_OVF, true, 0), -1);
}

static void test_overflow_amd_topbit(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_AMD_EXTCORE);
	const uint32_t src[] = { ProfileTotalCycles, ProfileDcacheMisses, ProfileTotalIssues };
	const uint64_t iv[] = { 1000, 10, 500 };
	assert_int_equal(arch_pmu_start_cpu(src, iv, 3), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	/* Overflow wraps past 2^48: the counter's top bit clears. */
	pmu_model_count(0x76, 0x00, 1000);
	assert_int_equal(cpu->ctr[0], 0);
	pmu_model_count(0x60, 0xE8, 12);
	assert_int_equal(cpu->ctr[1], 2);
	assert_int_equal(cpu->lost, 1);
	assert_int_equal(take_pmi(&c), 2);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.source[0], ProfileTotalCycles);
	assert_int_equal(c.source[1], ProfileDcacheMisses);
	assert_int_equal(c.global_ctrl[0], 0);
	assert_int_equal(cpu->ctr[0], BIT(48) - 1000);
	assert_int_equal(cpu->ctr[1], BIT(48) - 10);
	assert_int_equal(cpu->ctr[2], BIT(48) - 500);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(cpu->sel[i] & (EN | INT), EN | INT);
	assert_int_equal(cpu->lvtpc, vector);

	boot(PMU_MODEL_AMD_LEGACY);
	assert_int_equal(start1(ProfileBranchMispredictions, 7), ARCH_PMU_OK);
	pmu_model_count(0xC3, 0x00, 7);
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.source[2], ProfileBranchMispredictions);
	assert_int_equal(pmu_model_cpu()->ctr[0], BIT(48) - 7);
}

static void test_overflow_amd_v2(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_AMD_V2);
	const uint32_t src[] = { ProfileTotalCycles, ProfileCacheMisses };
	const uint64_t iv[] = { 1000, 20 };
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	assert_int_equal(cpu->global_ctrl, BIT(0) | BIT(1));
	pmu_model_count(0x64, 0x09, 20);
	assert_int_equal(cpu->global_status, BIT(1));
	pmu_model_clear_log();
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.source[0], ProfileCacheMisses);
	assert_int_equal(c.global_ctrl[0], 0);
	assert_int_equal(cpu->global_status, 0);
	assert_int_equal(cpu->ctr[1], BIT(48) - 20);
	assert_int_equal(cpu->global_ctrl, BIT(0) | BIT(1));
	int off = pmu_model_find(0, 'W', AMD_GLOBAL_CTL, false, 0);
	int status = pmu_model_find(off, 'R', AMD_GLOBAL_STATUS, true, 0);
	int reload = pmu_model_find(status, 'W', AMD_EXT_CTL0 + 3, false, BIT(48) - 20);
	int ack = pmu_model_find(reload, 'W', AMD_GLOBAL_CLR, false, BIT(1));
	int lvt = pmu_model_find(ack, 'L', LVTPC, false, vector);
	int on = pmu_model_find(lvt, 'W', AMD_GLOBAL_CTL, false, BIT(0) | BIT(1));
	assert_true(off >= 0 && status > off && reload > status && ack > reload && lvt > ack && on > lvt);
}

/* ------------------------------------------------ interval, stop, CPUs */

static void test_set_interval(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	assert_int_equal(start1(ProfileBranchInstructions, 1000), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	pmu_model_count(0xC4, 0x00, 500);
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileBranchInstructions, 300), ARCH_PMU_OK);
	assert_int_equal(cpu->ctr[0], BIT(48) - 300);
	assert_int_equal(cpu->global_ctrl, BIT(0));
	pmu_model_count(0xC4, 0x00, 299);
	assert_false(pmu_model_take_pmi());
	pmu_model_count(0xC4, 0x00, 1);
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(cpu->ctr[0], BIT(48) - 300);

	assert_int_equal(arch_pmu_set_interval_cpu(ProfileTotalCycles, 300), ARCH_PMU_NOT_COUNTING);
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileDcacheMisses, 300), ARCH_PMU_NOT_SUPPORTED);
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileTime, 300), ARCH_PMU_NOT_SUPPORTED);
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileBranchInstructions, 0), ARCH_PMU_INVALID);
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileBranchInstructions, BIT(47)), ARCH_PMU_INVALID);
	assert_int_equal(cpu->ctr[0], BIT(48) - 300);

	/* An overflow not yet handled when the interval changes is dropped:
	 * the PMI that follows finds nothing. */
	pmu_model_count(0xC4, 0x00, 300);
	assert_int_equal(cpu->global_status, BIT(0));
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileBranchInstructions, 50), ARCH_PMU_OK);
	assert_int_equal(cpu->global_status, 0);
	assert_int_equal(take_pmi(&c), 0);
	pmu_model_count(0xC4, 0x00, 50);
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.n, 2);

	/* AMD without global control: the same through the EN bits. */
	boot(PMU_MODEL_AMD_LEGACY);
	assert_int_equal(start1(ProfileTotalIssues, 100), ARCH_PMU_OK);
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileTotalIssues, BIT(47) - 1), ARCH_PMU_OK);
	assert_int_equal(pmu_model_cpu()->ctr[0], BIT(47) + 1);
	assert_int_equal(pmu_model_cpu()->sel[0] & EN, EN);
}

static void test_stop(void **state)
{
	struct calls c = { 0 };
	struct pmu_model_cpu *cpu;
	const uint32_t src[] = { ProfileTotalCycles, ProfileBranchInstructions };
	const uint64_t iv[] = { 100, 100 };

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_OK);
	cpu = pmu_model_cpu();
	pmu_model_count(0x3C, 0x00, 100); /* overflowed, PMI pending */
	arch_pmu_stop_cpu();
	assert_int_equal(cpu->global_ctrl, 0);
	assert_int_equal(cpu->fixed_ctrl, 0);
	assert_int_equal(cpu->global_status, 0);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(cpu->sel[i], 0);
		assert_int_equal(cpu->ctr[i], 0);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(cpu->fixed_ctr[i], 0);
	assert_int_equal(cpu->lvtpc, LVT_MASKED | vector);
	/* The PMI raised before the stop arrives: nothing to do, the entry
	 * stays masked. */
	assert_int_equal(take_pmi(&c), 0);
	assert_int_equal(cpu->lvtpc, LVT_MASKED | vector);
	pmu_model_count(0x3C, 0x00, 1000);
	pmu_model_count(0xC4, 0x00, 1000);
	assert_false(pmu_model_take_pmi());
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileTotalCycles, 10), ARCH_PMU_NOT_COUNTING);

	/* n = 0 is a stop too; a new start replaces the old set. */
	assert_int_equal(arch_pmu_start_cpu(src, iv, 2), ARCH_PMU_OK);
	assert_int_equal(start1(ProfileCacheMisses, 77), ARCH_PMU_OK);
	assert_int_equal(cpu->fixed_ctrl, 0);
	assert_int_equal(cpu->sel[0], 0x2E | 0x41 << 8 | USR | OS | INT | EN);
	assert_int_equal(cpu->sel[1], 0);
	assert_int_equal(cpu->global_ctrl, BIT(0));
	assert_int_equal(arch_pmu_start_cpu(NULL, NULL, 0), ARCH_PMU_OK);
	assert_int_equal(cpu->sel[0], 0);
	assert_int_equal(cpu->lvtpc, LVT_MASKED | vector);

	/* AMD PerfMonV2 stop clears the global registers too. */
	boot(PMU_MODEL_AMD_V2);
	assert_int_equal(start1(ProfileTotalCycles, 10), ARCH_PMU_OK);
	pmu_model_count(0x76, 0x00, 10);
	arch_pmu_stop_cpu();
	assert_int_equal(pmu_model_cpu()->global_ctrl, 0);
	assert_int_equal(pmu_model_cpu()->global_status, 0);
	assert_int_equal(pmu_model_cpu()->sel[0], 0);
}

static void test_per_cpu(void **state)
{
	struct calls c = { 0 };

	(void)state;
	boot(PMU_MODEL_INTEL_V2);
	pmu_model.current = 0;
	assert_int_equal(start1(ProfileTotalCycles, 100), ARCH_PMU_OK);
	pmu_model.current = 1;
	assert_int_equal(start1(ProfileBranchInstructions, 10), ARCH_PMU_OK);
	assert_int_equal(pmu_model.cpu[0].global_ctrl, BIT(33));
	assert_int_equal(pmu_model.cpu[1].global_ctrl, BIT(0));

	pmu_model_count(0xC4, 0x00, 10); /* on CPU 1 */
	pmu_model_count(0x3C, 0x00, 1000);
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.source[0], ProfileBranchInstructions);
	assert_int_equal(pmu_model.cpu[0].fixed_ctr[1], BIT(48) - 100);
	assert_int_equal(pmu_model.cpu[0].pending, 0);

	/* CPU 1 knows only its own source; stopping it leaves CPU 0 alone. */
	assert_int_equal(arch_pmu_set_interval_cpu(ProfileTotalCycles, 50), ARCH_PMU_NOT_COUNTING);
	arch_pmu_stop_cpu();
	assert_int_equal(pmu_model.cpu[0].global_ctrl, BIT(33));
	pmu_model.current = 0;
	pmu_model_count(0x3C, 0x00, 100);
	assert_int_equal(take_pmi(&c), 1);
	assert_int_equal(c.source[1], ProfileTotalCycles);
	pmu_model.current = 2;
	assert_int_equal(arch_pmu_handle_interrupt(&frame, record, &c), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_probe_no_pmu_intel, check_no_faults),
		cmocka_unit_test_teardown(test_probe_no_pmu_amd, check_no_faults),
		cmocka_unit_test_teardown(test_probe_intel_max_leaf, check_no_faults),
		cmocka_unit_test_teardown(test_probe_unknown_vendor, check_no_faults),
		cmocka_unit_test_teardown(test_probe_intel_v2, check_no_faults),
		cmocka_unit_test_teardown(test_probe_intel_v1, check_no_faults),
		cmocka_unit_test_teardown(test_probe_intel_v5_fixed_bitmap, check_no_faults),
		cmocka_unit_test_teardown(test_probe_amd, check_no_faults),
		cmocka_unit_test_teardown(test_probe_amd_old_family, check_no_faults),
		cmocka_unit_test_teardown(test_sources_intel_v2, check_no_faults),
		cmocka_unit_test_teardown(test_sources_intel_v1, check_no_faults),
		cmocka_unit_test_teardown(test_sources_intel_unavailable_events, check_no_faults),
		cmocka_unit_test_teardown(test_sources_amd, check_no_faults),
		cmocka_unit_test_teardown(test_program_intel_v2, check_no_faults),
		cmocka_unit_test_teardown(test_assign_limits, check_no_faults),
		cmocka_unit_test_teardown(test_intel_eight_counters, check_no_faults),
		cmocka_unit_test_teardown(test_bad_parameters, check_no_faults),
		cmocka_unit_test_teardown(test_assign_amd_f15_constraints, check_no_faults),
		cmocka_unit_test_teardown(test_program_amd, check_no_faults),
		cmocka_unit_test_teardown(test_overflow_intel_v2, check_no_faults),
		cmocka_unit_test_teardown(test_overflow_two_at_once_intel, check_no_faults),
		cmocka_unit_test_teardown(test_spurious, check_no_faults),
		cmocka_unit_test_teardown(test_overflow_intel_v1, check_no_faults),
		cmocka_unit_test_teardown(test_overflow_amd_topbit, check_no_faults),
		cmocka_unit_test_teardown(test_overflow_amd_v2, check_no_faults),
		cmocka_unit_test_teardown(test_set_interval, check_no_faults),
		cmocka_unit_test_teardown(test_stop, check_no_faults),
		cmocka_unit_test_teardown(test_per_cpu, check_no_faults),
	};
	return cmocka_run_group_tests_name("pmu", tests, NULL, NULL);
}
