/*
 * pmu_model.h - a software model of x86 performance counters, standing in
 * for arch/x86_64/pmu/pmu_hw.c in the host unit tests of the PMU drivers.
 *
 * The model answers CPUID from a few "truth" fields (pmu_model_reset()
 * fills them for a preset CPU; a test may change them before
 * arch_pmu_probe()), holds the counter MSRs of up to PMU_MODEL_CPUS CPUs,
 * and applies the write semantics of the hardware: IA32_PMCx take 32 bits
 * sign-extended, IA32_A_PMCx and fixed counters the full width, AMD
 * counters 48 bits, IA32_PERF_GLOBAL_OVF_CTRL and PerfCntrGlobalStatusClr
 * clear status bits.  An access to a register the modelled CPU does not
 * have, or a write of reserved bits, would raise #GP on hardware: the model
 * counts it in `faults` (with a description) and the tests require none.
 *
 * pmu_model_count() "executes" events on the current CPU: every enabled
 * counter selecting that event advances, and a counter passing the top of
 * its range wraps and overflows as hardware does (Intel version 2+: status
 * bit; AMD PerfMonV2: status bit; a PMI if the counter's INT / PMI bit is
 * set).  A PMI with the LVT entry unmasked masks it and becomes pending
 * (several coalesce into one, like the APIC's IRR bit); with the entry
 * masked it is lost.  The test plays the interrupt by taking the pending
 * PMI and calling arch_pmu_handle_interrupt().
 */
#ifndef KPROF_TEST_PMU_MODEL_H
#define KPROF_TEST_PMU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define PMU_MODEL_CPUS 4

/* Bits of the event-select registers and the LVT entry, as the model
 * applies them and the tests check them. */
#define USR (1ull << 16)        /* count in user mode                       */
#define OS  (1ull << 17)        /* count in kernel mode                     */
#define INT (1ull << 20)        /* interrupt (PMI) on overflow              */
#define EN  (1ull << 22)        /* counter enabled                          */
#define LVT_MASKED (1u << 16)   /* LVT performance-counter entry masked     */
#define BIT(n) (1ull << (n))
#define M48 (BIT(48) - 1)       /* a 48-bit counter's range                 */

enum pmu_model_preset {
	PMU_MODEL_NO_PMU_INTEL,  /* GenuineIntel, CPUID leaf 0xA all zeros (KVM enable_pmu=N)        */
	PMU_MODEL_NO_PMU_AMD,    /* TCG -cpu max: AuthenticAMD family 0xF, counter MSRs read 0 and   */
	                         /* drop writes                                                     */
	PMU_MODEL_INTEL_V2,      /* perfmon v2, 4 GP + 3 fixed, 48-bit, full-width writes (Skylake-  */
	                         /* like under KVM)                                                 */
	PMU_MODEL_INTEL_V1,      /* perfmon v1, 2 GP 40-bit, no PDCM, no fixed or global control     */
	PMU_MODEL_INTEL_V2_EBX,  /* v2 with EBX "not available": instructions (GP form), LLC misses, */
	                         /* branch misses; no full-width writes                             */
	PMU_MODEL_AMD_LEGACY,    /* family 0x10: 4 legacy counters                                  */
	PMU_MODEL_AMD_F15,       /* family 0x15: PerfCtrExtCore, counters 0-2 only for some events  */
	PMU_MODEL_AMD_EXTCORE,   /* family 0x17 (Zen): PerfCtrExtCore, no PerfMonV2                  */
	PMU_MODEL_AMD_V2,        /* family 0x19 (Zen 4): PerfMonV2 with 6 counters                  */
};

struct pmu_model_cpu {
	uint64_t sel[16];        /* IA32_PERFEVTSELx / AMD PerfEvtSeln        */
	uint64_t ctr[16];        /* IA32_PMCx / AMD PerfCtrn (width bits)     */
	uint64_t fixed_ctr[4];   /* IA32_FIXED_CTRx                           */
	uint64_t fixed_ctrl;     /* IA32_FIXED_CTR_CTRL                       */
	uint64_t global_ctrl;    /* IA32_PERF_GLOBAL_CTRL / PerfCntrGlobalCtl */
	uint64_t global_status;  /* IA32_PERF_GLOBAL_STATUS / ...GlobalStatus */
	uint32_t lvtpc;          /* LVT performance-counter entry             */
	uint32_t pending;        /* PMI waiting for delivery (0 or 1)         */
	uint32_t raised;         /* PMIs accepted by the LVT                  */
	uint32_t lost;           /* PMIs raised while the LVT entry was masked */
};

struct pmu_model {
	/* CPU identity and capabilities */
	char vendor[13];          /* CPUID.0 vendor string                      */
	uint32_t max_leaf;        /* CPUID.0 EAX                                */
	uint32_t family, model;   /* display family / model (CPUID.1 EAX)       */
	bool pdcm;                /* CPUID.1 ECX[15]: IA32_PERF_CAPABILITIES   */
	uint64_t perf_cap;        /* its value (bit 13: full-width writes)      */
	uint32_t version;         /* Intel CPUID.0AH EAX[7:0]                   */
	uint32_t gp, gp_bits;     /* general-purpose counters, width            */
	uint32_t ebx_len, ebx;    /* CPUID.0AH EAX[31:24], EBX                  */
	uint32_t fixed_count;     /* CPUID.0AH EDX[4:0]                         */
	uint32_t fixed_ecx;       /* CPUID.0AH ECX (version 5 bitmap)           */
	uint32_t fixed_bits;      /* CPUID.0AH EDX[12:5]                        */
	uint32_t max_ext;         /* CPUID.80000000 EAX                         */
	bool ext_core;            /* AMD PerfCtrExtCore                         */
	bool perfmon_v2;          /* AMD PerfMonV2                              */
	uint32_t v2_counters;     /* CPUID.80000022 EBX[3:0]                    */
	bool ignores_writes;      /* every MSR reads 0 and drops writes (TCG)   */

	struct pmu_model_cpu cpu[PMU_MODEL_CPUS];
	uint32_t current;         /* pmu_hw_cpu_number()                         */
	uint32_t faults;          /* would-be #GPs                               */
	char fault[128];          /* the first one                               */
	uint32_t msr_accesses;    /* every rdmsr and wrmsr                       */
	struct pmu_model_op {
		char op;          /* 'R' rdmsr, 'W' wrmsr, 'L' LVT write        */
		uint32_t reg;     /* MSR (the LVT entry as x2APIC MSR 0x834)    */
		uint64_t value;   /* read or written                            */
	} log[512];               /* the accesses in order, from the last reset  */
	uint32_t nlog;            /* (or pmu_model_clear_log())                  */
};

extern struct pmu_model pmu_model;

void pmu_model_reset(enum pmu_model_preset preset);
/* Execute n events (Intel: event select and umask; AMD: 12-bit event and
 * umask) on the current CPU. */
void pmu_model_count(uint16_t event, uint8_t umask, uint64_t n);
/* Take the current CPU's pending PMI (true if there was one). */
bool pmu_model_take_pmi(void);
/* Intel fixed counter i exists (in the model's truth fields). */
bool pmu_model_fixed_exists(unsigned i);
/* Counters the AMD model has. */
uint32_t pmu_model_amd_counters(void);
/* Forget the access log. */
void pmu_model_clear_log(void);
/* Index of the first log entry at or after `from` matching op and reg (and
 * value, unless any_value), or -1. */
int pmu_model_find(int from, char op, uint32_t reg, bool any_value, uint64_t value);
/* The current CPU's state. */
struct pmu_model_cpu *pmu_model_cpu(void);

#endif
