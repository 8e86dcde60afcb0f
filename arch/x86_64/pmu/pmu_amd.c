/*
 * pmu_amd.c - AMD core performance counters (AMD64 APM vol. 2, "Performance
 * Monitoring Counters"; the family BKDGs and PPRs for events), for pmu.c.
 * Hygon (a Zen derivative) is driven the same way.
 *
 * Three generations of the same counters, 48 bits wide, event selects
 * with USR 16, OS 17, INT 20, EN 22 and the event code's bits 11:8 at
 * 35:32:
 *   legacy            4 counters, PerfEvtSel0-3 0xC0010000-3, PerfCtr0-3
 *                     0xC0010004-7.  There is no CPUID bit for them: every
 *                     AMD64 CPU has them, so presence is tested by writing a
 *                     counter and reading it back (TCG and KVM without a
 *                     virtual PMU read 0 and drop the write).
 *   PerfCtrExtCore    (CPUID 0x80000001 ECX[23]) 6 counters, CTL 0xC0010200
 *                     + 2n, CTR 0xC0010201 + 2n (the legacy MSRs alias the
 *                     first four).
 *   PerfMonV2         (CPUID 0x80000022 EAX[0]; EBX[3:0] core counters)
 *                     PerfCntrGlobalCtl 0xC0000301 enables counter n by bit
 *                     n, PerfCntrGlobalStatus 0xC0000300 shows overflows,
 *                     writing PerfCntrGlobalStatusClr 0xC0000302 clears them.
 * Without PerfMonV2 each counter starts and stops by its EN bit and an
 * overflow shows only as the counter's top bit clear: counters are loaded
 * with -interval, top bit set, and intervals stay below 2^47.
 *
 * Events: two tables, family 10h-16h and family 17h and later (Zen).  On
 * Zen the L3 is outside the core and its misses are not countable by core
 * counters, so ProfileCacheMisses counts L2 misses (what Linux calls
 * cache-misses there).  Family 15h lets events 60h-9Fh run only on
 * counters 0-2.
 */
#include "arch/x86_64/pmu/pmu_hw.h"
#include "include/kprof/wmi.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

#define MSR_K7_EVNTSEL0              0xC0010000u
#define MSR_K7_PERFCTR0              0xC0010004u
#define MSR_F15H_PERF_CTL0           0xC0010200u /* + 2n; CTR n is CTL n + 1 */
#define MSR_AMD_PERF_GLOBAL_STATUS   0xC0000300u
#define MSR_AMD_PERF_GLOBAL_CTL      0xC0000301u
#define MSR_AMD_PERF_GLOBAL_STATUS_CLR 0xC0000302u

#define CPUID_80000001_ECX_PERFCTR_CORE (1u << 23)
#define CPUID_80000022_EAX_PERFMON_V2   (1u << 0)

#define AMD_COUNTER_BITS 48
#define AMD_MAX_COUNTERS 16          /* EBX[3:0] of leaf 0x80000022 */
#define AMD_PROBE_PATTERN 0x5A5A5A5A5A5Aull /* 48 bits */

struct amd_event {
	uint32_t source;   /* KPROFILE_SOURCE                      */
	uint16_t event;    /* 12-bit event select (PMCxNNN)        */
	uint8_t umask;     /* unit mask                            */
	const char *desc;  /* for arch_pmu_source_event()          */
};

/* Families 10h-16h (BKDGs; the same codes Linux uses). */
static const struct amd_event amd_k10_events[] = {
	{ ProfileTotalCycles, 0x076, 0x00, "CPU Clocks not Halted (PMCx076)" },
	{ ProfileTotalIssues, 0x0C0, 0x00, "Retired Instructions (PMCx0C0)" },
	{ ProfileBranchInstructions, 0x0C2, 0x00, "Retired Branch Instructions (PMCx0C2)" },
	{ ProfileBranchMispredictions, 0x0C3, 0x00, "Retired Mispredicted Branch Instructions (PMCx0C3)" },
	{ ProfileCacheMisses, 0x07E, 0x07, "L2 Cache Misses: IC fill, DC fill, page table walk (PMCx07E umask 0x07)" },
	{ ProfileDcacheMisses, 0x041, 0x01, "Data Cache Misses (PMCx041 umask 0x01)" },
	{ ProfileIcacheMisses, 0x081, 0x00, "Instruction Cache Misses (PMCx081)" },
	{ ProfileDcacheAccesses, 0x040, 0x00, "Data Cache Accesses (PMCx040)" },
};

/* Family 17h and later (Zen PPRs; the cache events as AMD's recommended
 * event lists name them). */
static const struct amd_event amd_zen_events[] = {
	{ ProfileTotalCycles, 0x076, 0x00, "Cycles not in Halt: LsNotHaltedCyc (PMCx076)" },
	{ ProfileTotalIssues, 0x0C0, 0x00, "Retired Instructions: ExRetInstr (PMCx0C0)" },
	{ ProfileBranchInstructions, 0x0C2, 0x00, "Retired Branch Instructions: ExRetBrn (PMCx0C2)" },
	{ ProfileBranchMispredictions, 0x0C3, 0x00, "Retired Mispredicted Branches: ExRetBrnMisp (PMCx0C3)" },
	{ ProfileCacheMisses, 0x064, 0x09,
	  "L2 misses of IC and DC requests (core counters cannot see the L3): L2CacheReqStat (PMCx064 umask 0x09)" },
	{ ProfileDcacheMisses, 0x060, 0xE8,
	  "L1 data cache misses, prefetches included: L2RequestG1 DC requests (PMCx060 umask 0xE8)" },
	{ ProfileIcacheMisses, 0x060, 0x10,
	  "L1 instruction cache misses, prefetches included: L2RequestG1 IC reads (PMCx060 umask 0x10)" },
	{ ProfileDcacheAccesses, 0x029, 0x07, "Data cache accesses: LsDispatch loads, stores, load-ops (PMCx029 umask 0x07)" },
};

static struct {
	uint32_t family;                 /* CPUID display family                  */
	uint32_t n;                      /* core counters                         */
	bool ext;                        /* PerfCtrExtCore MSR layout             */
	bool v2;                         /* PerfMonV2 global control and status   */
	const struct amd_event *events;  /* this family's table                   */
	size_t nevents;
} amd;

static uint32_t sel_msr(unsigned n)
{
	return amd.ext ? MSR_F15H_PERF_CTL0 + 2 * n : MSR_K7_EVNTSEL0 + n;
}

static uint32_t ctr_msr(unsigned n)
{
	return amd.ext ? MSR_F15H_PERF_CTL0 + 2 * n + 1 : MSR_K7_PERFCTR0 + n;
}

static uint64_t all_counters(void)
{
	return (1ull << amd.n) - 1;
}

static const struct amd_event *amd_event(uint32_t source)
{
	for (size_t i = 0; i < amd.nevents; i++)
		if (amd.events[i].source == source)
			return &amd.events[i];
	return NULL;
}

/* Do the counter MSRs hold what is written?  PerfCtr0 (the legacy address
 * works in every layout), with its selector cleared so it does not count
 * meanwhile; both restored afterwards. */
static bool counters_respond(uint64_t *read_back)
{
	uint64_t sel = pmu_hw_rdmsr(MSR_K7_EVNTSEL0), ctr = pmu_hw_rdmsr(MSR_K7_PERFCTR0);

	pmu_hw_wrmsr(MSR_K7_EVNTSEL0, 0);
	pmu_hw_wrmsr(MSR_K7_PERFCTR0, AMD_PROBE_PATTERN);
	*read_back = pmu_hw_rdmsr(MSR_K7_PERFCTR0);
	pmu_hw_wrmsr(MSR_K7_PERFCTR0, ctr & ((1ull << AMD_COUNTER_BITS) - 1));
	pmu_hw_wrmsr(MSR_K7_EVNTSEL0, sel);
	return *read_back == AMD_PROBE_PATTERN;
}

static bool amd_probe(struct arch_pmu_info *info)
{
	uint32_t r[4], max_ext;
	uint64_t got;

	memset(&amd, 0, sizeof(amd));
	amd.family = info->family;
	pmu_hw_cpuid(0x80000000, 0, r);
	max_ext = r[0];
	if (max_ext >= 0x80000001) {
		pmu_hw_cpuid(0x80000001, 0, r);
		amd.ext = (r[2] & CPUID_80000001_ECX_PERFCTR_CORE) != 0;
	}
	amd.n = amd.ext ? 6 : 4;
	if (max_ext >= 0x80000022) {
		pmu_hw_cpuid(0x80000022, 0, r);
		amd.v2 = (r[0] & CPUID_80000022_EAX_PERFMON_V2) != 0;
		if (amd.v2)
			amd.n = r[1] & 0xF;
	}
	if (!amd.ext && amd.n > 4)
		amd.n = 4; /* only the legacy MSRs exist */
	info->version = amd.v2 ? 2 : 1;
	if (amd.n == 0) {
		ksnprintf(info->why_absent, sizeof(info->why_absent),
			  "CPUID 0x80000022 reports PerfMonV2 with no core counters");
		return false;
	}
	if (!counters_respond(&got)) {
		ksnprintf(info->why_absent, sizeof(info->why_absent),
			  "PerfCtr0 ignores writes (wrote 0x%llx, read 0x%llx): a CPU model without a PMU",
			  (unsigned long long)AMD_PROBE_PATTERN, (unsigned long long)got);
		return false;
	}
	if (amd.family >= 0x17) {
		amd.events = amd_zen_events;
		amd.nevents = ARRAY_SIZE(amd_zen_events);
	} else if (amd.family >= 0x10) {
		amd.events = amd_k10_events;
		amd.nevents = ARRAY_SIZE(amd_k10_events);
	} else {
		ksnprintf(info->why_absent, sizeof(info->why_absent),
			  "AMD family 0x%x: kprof knows the events of families 0x10 and later", amd.family);
		return false;
	}

	info->gp_counters = amd.n;
	info->counter_bits = AMD_COUNTER_BITS;
	info->amd_ext_core = amd.ext;
	info->perfmon_v2 = amd.v2;
	info->global_control = amd.v2;
	ksnprintf(info->summary, sizeof(info->summary), "%s family 0x%x: %u core %u-bit counters%s%s", info->vendor,
		  amd.family, amd.n, AMD_COUNTER_BITS, amd.ext ? " (PerfCtrExtCore)" : " (legacy)",
		  amd.v2 ? ", PerfMonV2 global control" : "");
	return true;
}

static uint64_t amd_counters_for(uint32_t source)
{
	const struct amd_event *e = amd_event(source);

	if (!e)
		return 0;
	/* Family 15h: events 60h-9Fh (CU, IC, DE) on counters 0-2 only. */
	if (amd.family == 0x15 && e->event >= 0x60 && e->event <= 0x9F)
		return all_counters() & 0x7;
	return all_counters();
}

static void amd_describe(uint32_t source, char *buf, size_t size)
{
	ksnprintf(buf, size, "%s", amd_event(source)->desc);
}

static uint64_t amd_max_interval(unsigned counter)
{
	return pmu_half_range(AMD_COUNTER_BITS);
}

static void amd_reload(unsigned counter, uint64_t interval)
{
	pmu_hw_wrmsr(ctr_msr(counter), pmu_counter_reload(interval, AMD_COUNTER_BITS));
}

static void amd_reset(void)
{
	if (amd.v2)
		pmu_hw_wrmsr(MSR_AMD_PERF_GLOBAL_CTL, 0);
	for (unsigned i = 0; i < amd.n; i++) {
		pmu_hw_wrmsr(sel_msr(i), 0);
		pmu_hw_wrmsr(ctr_msr(i), 0);
	}
	if (amd.v2)
		pmu_hw_wrmsr(MSR_AMD_PERF_GLOBAL_STATUS_CLR, all_counters());
}

static void amd_program(unsigned counter, uint32_t source, uint64_t interval)
{
	const struct amd_event *e = amd_event(source);

	amd_reload(counter, interval);
	pmu_hw_wrmsr(sel_msr(counter), (e->event & 0xFFu) | (uint64_t)e->umask << 8 | (uint64_t)(e->event >> 8) << 32 |
					       PMU_SEL_USR | PMU_SEL_OS | PMU_SEL_INT | PMU_SEL_EN);
}

/* Without PerfMonV2: each counter's EN bit. */
static void legacy_set_enable(uint64_t in_use, bool on)
{
	for (unsigned i = 0; i < amd.n; i++) {
		if (!(in_use & (1ull << i)))
			continue;
		uint64_t sel = pmu_hw_rdmsr(sel_msr(i));
		pmu_hw_wrmsr(sel_msr(i), on ? sel | PMU_SEL_EN : sel & ~PMU_SEL_EN);
	}
}

static void amd_disable(uint64_t in_use)
{
	if (amd.v2)
		pmu_hw_wrmsr(MSR_AMD_PERF_GLOBAL_CTL, 0);
	else
		legacy_set_enable(in_use, false);
}

static void amd_enable(uint64_t in_use)
{
	if (amd.v2)
		pmu_hw_wrmsr(MSR_AMD_PERF_GLOBAL_CTL, in_use);
	else
		legacy_set_enable(in_use, true);
}

static uint64_t amd_overflowed(uint64_t in_use)
{
	uint64_t m = 0;

	if (amd.v2)
		return pmu_hw_rdmsr(MSR_AMD_PERF_GLOBAL_STATUS) & in_use;
	for (unsigned i = 0; i < amd.n; i++)
		if ((in_use & (1ull << i)) && !(pmu_hw_rdmsr(ctr_msr(i)) & (1ull << (AMD_COUNTER_BITS - 1))))
			m |= 1ull << i;
	return m;
}

static void amd_ack(uint64_t mask)
{
	if (amd.v2 && mask)
		pmu_hw_wrmsr(MSR_AMD_PERF_GLOBAL_STATUS_CLR, mask);
}

const struct pmu_driver pmu_amd_driver = {
	.vendors = { "AuthenticAMD", "HygonGenuine" },
	.probe = amd_probe,
	.counters_for = amd_counters_for,
	.describe = amd_describe,
	.max_interval = amd_max_interval,
	.reset = amd_reset,
	.program = amd_program,
	.reload = amd_reload,
	.disable = amd_disable,
	.enable = amd_enable,
	.overflowed = amd_overflowed,
	.ack = amd_ack,
};
