/*
 * pmu_intel.c - Intel architectural performance monitoring (SDM vol. 3B,
 * "Architectural Performance Monitoring"), versions 1 to 5 as CPUID leaf
 * 0xA reports them, for pmu.c.
 *
 * What CPUID.0AH says and how it is used:
 *   EAX[7:0] version: 0 means no architectural perfmon (TCG, KVM with
 *     enable_pmu=N); 1 has general-purpose counters only, each enabled by
 *     its own EN bit, and no overflow status (overflow is found by the
 *     counter's top bit, as on AMD without PerfMonV2); 2 and later add the
 *     fixed counters and IA32_PERF_GLOBAL_CTRL / STATUS / OVF_CTRL (0x390 is
 *     GLOBAL_STATUS_RESET from version 4, the same register); 5 adds the
 *     fixed-counter bitmap in ECX.
 *   EAX[15:8] general-purpose counters (IA32_PERFEVTSELx 0x186+x,
 *     IA32_PMCx 0xC1+x), of which kprof touches only the first
 *     ARCH_PMU_MAX_SOURCES; EAX[23:16] their width.
 *   EAX[31:24] length of EBX; EBX bit i set (or i beyond the length): the
 *     architectural event i is not available on general-purpose counters.
 *   EDX[4:0] fixed counters, EDX[12:5] their width (version >= 2); fixed
 *     counter i exists if i < EDX[4:0] or ECX bit i (version >= 5).
 *
 * Counter writes: IA32_PMCx takes 32 bits and sign-extends them, so
 * without full-width writes a general-purpose interval is at most 2^31 - 1;
 * IA32_PERF_CAPABILITIES (0x345, present only with CPUID.1:ECX.PDCM) bit
 * 13 says IA32_A_PMCx (0x4C1+x) take the full width.  Fixed counters are
 * written at full width, bits above it zero.
 *
 * Events (KPROFILE_SOURCE -> architectural event): TotalCycles -> fixed
 * counter 1 / UnHalted Core Cycles 3CH; TotalIssues -> fixed counter 0 /
 * Instructions Retired C0H; BranchInstructions -> C4H; BranchMispredictions
 * -> C5H; CacheMisses -> LLC Misses 2EH umask 41H.  A fixed counter counts
 * its event whatever EBX says about the general-purpose form.  L1 data and
 * instruction cache events are model-specific, not architectural: those
 * sources are unsupported on Intel.
 */
#include "arch/x86_64/pmu/pmu_hw.h"
#include "include/kprof/wmi.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

#define MSR_IA32_PMC0                 0x0C1u
#define MSR_IA32_PERFEVTSEL0          0x186u
#define MSR_IA32_FIXED_CTR0           0x309u
#define MSR_IA32_PERF_CAPABILITIES    0x345u
#define MSR_IA32_FIXED_CTR_CTRL       0x38Du
#define MSR_IA32_PERF_GLOBAL_STATUS   0x38Eu
#define MSR_IA32_PERF_GLOBAL_CTRL     0x38Fu
#define MSR_IA32_PERF_GLOBAL_OVF_CTRL 0x390u
#define MSR_IA32_A_PMC0               0x4C1u

#define PERF_CAP_FW_WRITE  (1ull << 13) /* IA32_A_PMCx full-width writes  */
#define CPUID1_ECX_PDCM    (1u << 15)   /* IA32_PERF_CAPABILITIES exists  */

#define FIXED_CTRL_OS  0x1u /* per-counter 4-bit field: count at CPL 0   */
#define FIXED_CTRL_USR 0x2u /*                          count at CPL > 0 */
#define FIXED_CTRL_PMI 0x8u /*                          PMI on overflow  */

#define INTEL_MAX_GP    8 /* IA32_PERFEVTSEL0..7 */
#define INTEL_MAX_FIXED 4 /* IA32_FIXED_CTR0..3  */

struct intel_event {
	uint32_t source;     /* KPROFILE_SOURCE                                */
	uint8_t event;       /* event select for a general-purpose counter     */
	uint8_t umask;       /* unit mask                                      */
	uint8_t arch_bit;    /* CPUID.0AH EBX bit: "not available"             */
	int8_t fixed;        /* fixed counter that counts it, or -1            */
	const char *title;   /* the SDM's architectural event name             */
	const char *fixed_name; /* the event name on the fixed counter         */
	const char *gp_name; /* the event name on a general-purpose counter    */
};

static const struct intel_event intel_events[] = {
	{ ProfileTotalCycles, 0x3C, 0x00, 0, 1, "UnHalted Core Cycles", "CPU_CLK_UNHALTED.THREAD",
	  "CPU_CLK_UNHALTED.THREAD_P" },
	{ ProfileTotalIssues, 0xC0, 0x00, 1, 0, "Instructions Retired", "INST_RETIRED.ANY", "INST_RETIRED.ANY_P" },
	{ ProfileBranchInstructions, 0xC4, 0x00, 5, -1, "Branch Instructions Retired", NULL,
	  "BR_INST_RETIRED.ALL_BRANCHES" },
	{ ProfileBranchMispredictions, 0xC5, 0x00, 6, -1, "Branch Misses Retired", NULL,
	  "BR_MISP_RETIRED.ALL_BRANCHES" },
	{ ProfileCacheMisses, 0x2E, 0x41, 4, -1, "LLC Misses", NULL, "LONGEST_LAT_CACHE.MISS" },
};

static struct {
	uint32_t version;     /* CPUID.0AH EAX[7:0]                             */
	uint32_t gp;          /* general-purpose counters CPUID reports         */
	uint32_t used;        /* the ones kprof touches: 0..used-1 (see probe)  */
	uint32_t gp_bits;     /* their width                                    */
	uint32_t fixed_mask;  /* fixed counters present (bit i: FIXED_CTRi)     */
	uint32_t fixed_bits;  /* their width                                    */
	uint32_t unavailable; /* architectural events not available (EBX)      */
	bool fw;              /* full-width writes through IA32_A_PMCx          */
} intel;

static const struct intel_event *intel_event(uint32_t source)
{
	for (size_t i = 0; i < ARRAY_SIZE(intel_events); i++)
		if (intel_events[i].source == source)
			return &intel_events[i];
	return NULL;
}

static uint64_t gp_mask(void)
{
	return (1ull << intel.used) - 1;
}

static uint64_t fixed_counters_mask(void)
{
	return (uint64_t)intel.fixed_mask << PMU_FIXED_BASE;
}

static bool intel_probe(struct arch_pmu_info *info)
{
	uint32_t r[4], nfixed, ebx_len;

	memset(&intel, 0, sizeof(intel));
	pmu_hw_cpuid(0, 0, r);
	if (r[0] < 0xA) {
		ksnprintf(info->why_absent, sizeof(info->why_absent),
			  "CPUID stops at leaf 0x%x: no leaf 0xA (architectural performance monitoring)", r[0]);
		return false;
	}
	pmu_hw_cpuid(0xA, 0, r);
	intel.version = r[0] & 0xFF;
	info->version = intel.version;
	if (intel.version == 0) {
		ksnprintf(info->why_absent, sizeof(info->why_absent),
			  "CPUID leaf 0xA reports version 0 (no architectural performance monitoring)");
		return false;
	}
	intel.gp = (r[0] >> 8) & 0xFF;
	intel.gp_bits = (r[0] >> 16) & 0xFF;
	ebx_len = r[0] >> 24;
	intel.unavailable = r[1] | (ebx_len < 32 ? ~0u << ebx_len : 0);
	if (intel.gp > INTEL_MAX_GP)
		intel.gp = INTEL_MAX_GP;
	if (intel.gp_bits < 32 || intel.gp_bits > 64)
		intel.gp = 0; /* implausible width: do not use them */
	/* No CPU counts more than ARCH_PMU_MAX_SOURCES sources, so only that
	 * many general-purpose counters are ever touched (reset included):
	 * on a hybrid part whose other core type has fewer counters than the
	 * boot CPU reports, the higher ones might not exist there. */
	intel.used = intel.gp < ARCH_PMU_MAX_SOURCES ? intel.gp : ARCH_PMU_MAX_SOURCES;
	if (intel.version >= 2) {
		nfixed = r[3] & 0x1F;
		intel.fixed_bits = (r[3] >> 5) & 0xFF;
		intel.fixed_mask = nfixed >= INTEL_MAX_FIXED ? (1u << INTEL_MAX_FIXED) - 1 : (1u << nfixed) - 1;
		if (intel.version >= 5)
			intel.fixed_mask |= r[2] & ((1u << INTEL_MAX_FIXED) - 1);
		if (intel.fixed_bits < 32 || intel.fixed_bits > 64)
			intel.fixed_mask = 0;
	}
	if (!intel.fixed_mask)
		intel.fixed_bits = 0;
	if (intel.gp == 0 && intel.fixed_mask == 0) {
		ksnprintf(info->why_absent, sizeof(info->why_absent),
			  "CPUID leaf 0xA (version %u) reports no usable counters", intel.version);
		return false;
	}
	pmu_hw_cpuid(1, 0, r);
	if (r[2] & CPUID1_ECX_PDCM)
		intel.fw = (pmu_hw_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE) != 0;

	info->gp_counters = intel.gp;
	info->counter_bits = intel.gp ? intel.gp_bits : 0;
	info->fixed_counters = 0;
	for (uint32_t m = intel.fixed_mask; m; m &= m - 1)
		info->fixed_counters++;
	info->fixed_bits = intel.fixed_bits;
	info->full_width_writes = intel.fw;
	info->global_control = intel.version >= 2;
	ksnprintf(info->summary, sizeof(info->summary),
		  "Intel architectural perfmon v%u: %u general-purpose %u-bit counters (%s writes), %u fixed %u-bit",
		  intel.version, intel.gp, info->counter_bits, intel.fw ? "full-width" : "32-bit",
		  info->fixed_counters, intel.fixed_bits);
	return true;
}

static uint64_t intel_counters_for(uint32_t source)
{
	const struct intel_event *e = intel_event(source);
	uint64_t m = 0;

	if (!e)
		return 0;
	if (e->fixed >= 0 && (intel.fixed_mask & (1u << e->fixed)))
		m |= 1ull << (PMU_FIXED_BASE + e->fixed);
	if (!(intel.unavailable & (1u << e->arch_bit)))
		m |= gp_mask();
	return m;
}

static void intel_describe(uint32_t source, char *buf, size_t size)
{
	const struct intel_event *e = intel_event(source);

	if (e->fixed >= 0 && (intel.fixed_mask & (1u << e->fixed)))
		ksnprintf(buf, size, "%s: %s (fixed counter %d)", e->title, e->fixed_name, e->fixed);
	else
		ksnprintf(buf, size, "%s: %s (event 0x%02X, umask 0x%02X)", e->title, e->gp_name, e->event, e->umask);
}

static uint64_t intel_max_interval(unsigned counter)
{
	if (counter >= PMU_FIXED_BASE)
		return pmu_half_range(intel.fixed_bits);
	uint64_t max = pmu_half_range(intel.gp_bits);
	if (!intel.fw && max > 0x7FFFFFFFull)
		max = 0x7FFFFFFFull; /* 32-bit writes, sign-extended */
	return max;
}

static void intel_reload(unsigned counter, uint64_t interval)
{
	if (counter >= PMU_FIXED_BASE)
		pmu_hw_wrmsr(MSR_IA32_FIXED_CTR0 + counter - PMU_FIXED_BASE,
			     pmu_counter_reload(interval, intel.fixed_bits));
	else
		pmu_hw_wrmsr((intel.fw ? MSR_IA32_A_PMC0 : MSR_IA32_PMC0) + counter,
			     pmu_counter_reload(interval, intel.gp_bits));
}

static void intel_reset(void)
{
	if (intel.version >= 2)
		pmu_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	if (intel.fixed_mask) {
		pmu_hw_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
		for (unsigned i = 0; i < INTEL_MAX_FIXED; i++)
			if (intel.fixed_mask & (1u << i))
				pmu_hw_wrmsr(MSR_IA32_FIXED_CTR0 + i, 0);
	}
	for (unsigned i = 0; i < intel.used; i++) {
		pmu_hw_wrmsr(MSR_IA32_PERFEVTSEL0 + i, 0);
		pmu_hw_wrmsr(MSR_IA32_PMC0 + i, 0);
	}
	if (intel.version >= 2)
		pmu_hw_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, gp_mask() | fixed_counters_mask());
}

static void intel_program(unsigned counter, uint32_t source, uint64_t interval)
{
	const struct intel_event *e = intel_event(source);

	intel_reload(counter, interval);
	if (counter >= PMU_FIXED_BASE) {
		unsigned shift = 4 * (counter - PMU_FIXED_BASE);
		uint64_t ctrl = pmu_hw_rdmsr(MSR_IA32_FIXED_CTR_CTRL) & ~(0xFull << shift);
		ctrl |= (uint64_t)(FIXED_CTRL_OS | FIXED_CTRL_USR | FIXED_CTRL_PMI) << shift;
		pmu_hw_wrmsr(MSR_IA32_FIXED_CTR_CTRL, ctrl);
	} else {
		pmu_hw_wrmsr(MSR_IA32_PERFEVTSEL0 + counter, e->event | (uint64_t)e->umask << 8 | PMU_SEL_USR |
								     PMU_SEL_OS | PMU_SEL_INT | PMU_SEL_EN);
	}
}

/* Version 1: each general-purpose counter's EN bit (no fixed counters). */
static void v1_set_enable(uint64_t in_use, bool on)
{
	for (unsigned i = 0; i < intel.used; i++) {
		if (!(in_use & (1ull << i)))
			continue;
		uint64_t sel = pmu_hw_rdmsr(MSR_IA32_PERFEVTSEL0 + i);
		pmu_hw_wrmsr(MSR_IA32_PERFEVTSEL0 + i, on ? sel | PMU_SEL_EN : sel & ~PMU_SEL_EN);
	}
}

static void intel_disable(uint64_t in_use)
{
	if (intel.version >= 2)
		pmu_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	else
		v1_set_enable(in_use, false);
}

static void intel_enable(uint64_t in_use)
{
	if (intel.version >= 2)
		pmu_hw_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, in_use);
	else
		v1_set_enable(in_use, true);
}

static uint64_t intel_overflowed(uint64_t in_use)
{
	uint64_t m = 0;

	if (intel.version >= 2)
		return pmu_hw_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & in_use;
	for (unsigned i = 0; i < intel.used; i++)
		if ((in_use & (1ull << i)) && !(pmu_hw_rdmsr(MSR_IA32_PMC0 + i) & (1ull << (intel.gp_bits - 1))))
			m |= 1ull << i;
	return m;
}

static void intel_ack(uint64_t mask)
{
	if (intel.version >= 2 && mask)
		pmu_hw_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, mask);
}

const struct pmu_driver pmu_intel_driver = {
	.vendors = { "GenuineIntel", NULL },
	.probe = intel_probe,
	.counters_for = intel_counters_for,
	.describe = intel_describe,
	.max_interval = intel_max_interval,
	.reset = intel_reset,
	.program = intel_program,
	.reload = intel_reload,
	.disable = intel_disable,
	.enable = intel_enable,
	.overflowed = intel_overflowed,
	.ack = intel_ack,
};
