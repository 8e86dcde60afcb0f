/*
 * pmu_model.c - the performance-counter model behind the pmu_hw_*
 * functions in the host unit tests (see pmu_model.h).  Register numbers and
 * bit layouts are written out here independently of the drivers, from the
 * same public documents (Intel SDM vol. 3B, AMD APM vol. 2), so
 * a wrong constant in a driver shows up as a fault or a wrong count.
 */
#include "support/pmu_model.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86_64/pmu/pmu_hw.h"

struct pmu_model pmu_model;

static bool is_intel(void)
{
	return strcmp(pmu_model.vendor, "GenuineIntel") == 0;
}

static uint64_t width_mask(unsigned bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

static void log_op(char op, uint32_t reg, uint64_t value)
{
	if (pmu_model.nlog < sizeof(pmu_model.log) / sizeof(pmu_model.log[0]))
		pmu_model.log[pmu_model.nlog++] = (struct pmu_model_op){ op, reg, value };
}

void pmu_model_clear_log(void)
{
	pmu_model.nlog = 0;
}

int pmu_model_find(int from, char op, uint32_t reg, bool any_value, uint64_t value)
{
	for (uint32_t i = from < 0 ? 0 : (uint32_t)from; i < pmu_model.nlog; i++) {
		const struct pmu_model_op *o = &pmu_model.log[i];
		if (o->op == op && o->reg == reg && (any_value || o->value == value))
			return (int)i;
	}
	return -1;
}

static void fault(const char *fmt, ...)
{
	va_list ap;

	if (pmu_model.faults++ == 0) {
		va_start(ap, fmt);
		vsnprintf(pmu_model.fault, sizeof(pmu_model.fault), fmt, ap);
		va_end(ap);
	}
}

struct pmu_model_cpu *pmu_model_cpu(void)
{
	return &pmu_model.cpu[pmu_model.current];
}

bool pmu_model_fixed_exists(unsigned i)
{
	if (pmu_model.version < 2 || i >= 4)
		return false;
	return i < pmu_model.fixed_count || (pmu_model.version >= 5 && (pmu_model.fixed_ecx & (1u << i)));
}

uint32_t pmu_model_amd_counters(void)
{
	if (pmu_model.perfmon_v2)
		return pmu_model.v2_counters;
	return pmu_model.ext_core ? 6 : 4;
}

/* ------------------------------------------------------------- presets */

void pmu_model_reset(enum pmu_model_preset preset)
{
	struct pmu_model *m = &pmu_model;

	memset(m, 0, sizeof(*m));
	for (unsigned c = 0; c < PMU_MODEL_CPUS; c++)
		m->cpu[c].lvtpc = LVT_MASKED | 0xFD; /* as lapic_init_cpu leaves it */
	switch (preset) {
	case PMU_MODEL_NO_PMU_INTEL:
		strcpy(m->vendor, "GenuineIntel");
		m->max_leaf = 0xD, m->family = 6, m->model = 0x55, m->max_ext = 0x80000008;
		break;
	case PMU_MODEL_NO_PMU_AMD:
		strcpy(m->vendor, "AuthenticAMD");
		m->max_leaf = 0xD, m->family = 0xF, m->model = 0x6B, m->max_ext = 0x8000001F;
		m->ignores_writes = true;
		break;
	case PMU_MODEL_INTEL_V2:
	case PMU_MODEL_INTEL_V2_EBX:
		strcpy(m->vendor, "GenuineIntel");
		m->max_leaf = 0x16, m->family = 6, m->model = 0x55, m->max_ext = 0x80000008;
		m->version = 2, m->gp = 4, m->gp_bits = 48, m->ebx_len = 7;
		m->fixed_count = 3, m->fixed_bits = 48;
		m->pdcm = true;
		m->perf_cap = preset == PMU_MODEL_INTEL_V2 ? (1ull << 13) | 0x4 : 0x4;
		if (preset == PMU_MODEL_INTEL_V2_EBX)
			m->ebx = (1u << 1) | (1u << 4) | (1u << 6);
		break;
	case PMU_MODEL_INTEL_V1:
		strcpy(m->vendor, "GenuineIntel");
		m->max_leaf = 0xA, m->family = 6, m->model = 0x0E, m->max_ext = 0x80000008;
		m->version = 1, m->gp = 2, m->gp_bits = 40, m->ebx_len = 7;
		break;
	case PMU_MODEL_AMD_LEGACY:
		strcpy(m->vendor, "AuthenticAMD");
		m->max_leaf = 5, m->family = 0x10, m->model = 0x4, m->max_ext = 0x8000001B;
		break;
	case PMU_MODEL_AMD_F15:
		strcpy(m->vendor, "AuthenticAMD");
		m->max_leaf = 0xD, m->family = 0x15, m->model = 0x2, m->max_ext = 0x8000001E;
		m->ext_core = true;
		break;
	case PMU_MODEL_AMD_EXTCORE:
		strcpy(m->vendor, "AuthenticAMD");
		m->max_leaf = 0xD, m->family = 0x17, m->model = 0x71, m->max_ext = 0x8000001F;
		m->ext_core = true;
		break;
	case PMU_MODEL_AMD_V2:
		strcpy(m->vendor, "AuthenticAMD");
		m->max_leaf = 0x10, m->family = 0x19, m->model = 0x61, m->max_ext = 0x80000028;
		m->ext_core = true, m->perfmon_v2 = true, m->v2_counters = 6;
		break;
	}
}

/* --------------------------------------------------------------- CPUID */

static uint32_t cpuid1_eax(void)
{
	uint32_t fam = pmu_model.family, mod = pmu_model.model, eax = 1; /* stepping 1 */

	if (fam >= 0xF)
		eax |= 0xFu << 8 | (fam - 0xF) << 20;
	else
		eax |= fam << 8;
	eax |= (mod & 0xF) << 4 | (mod >> 4) << 16;
	return eax;
}

void pmu_hw_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	const struct pmu_model *m = &pmu_model;

	(void)subleaf;
	r[0] = r[1] = r[2] = r[3] = 0;
	if (leaf == 0) {
		r[0] = m->max_leaf;
		memcpy(&r[1], m->vendor, 4);
		memcpy(&r[3], m->vendor + 4, 4);
		memcpy(&r[2], m->vendor + 8, 4);
	} else if (leaf == 1 && leaf <= m->max_leaf) {
		r[0] = cpuid1_eax();
		r[2] = (m->pdcm ? 1u << 15 : 0) | 1u << 31; /* a hypervisor guest */
	} else if (leaf == 0xA && leaf <= m->max_leaf && is_intel()) {
		r[0] = m->version | m->gp << 8 | m->gp_bits << 16 | m->ebx_len << 24;
		r[1] = m->ebx;
		r[2] = m->version >= 5 ? m->fixed_ecx : 0;
		r[3] = m->version >= 2 ? m->fixed_count | m->fixed_bits << 5 : 0;
	} else if (leaf == 0x80000000) {
		r[0] = m->max_ext;
	} else if (leaf == 0x80000001 && leaf <= m->max_ext) {
		r[2] = m->ext_core ? 1u << 23 : 0;
	} else if (leaf == 0x80000022 && leaf <= m->max_ext && !is_intel()) {
		r[0] = m->perfmon_v2 ? 1 : 0;
		r[1] = m->perfmon_v2 ? m->v2_counters : 0;
	}
}

/* ---------------------------------------------------------------- MSRs */

/* What a write-only register reads as (writes to it never land here). */
static uint64_t reads_zero;

/* Intel: the register behind an MSR number, or NULL (fault).  *done: the
 * write was carried out here (it is not a plain store). */
static uint64_t *intel_reg(uint32_t msr, bool write, uint64_t v, bool *done)
{
	struct pmu_model *m = &pmu_model;
	struct pmu_model_cpu *c = pmu_model_cpu();
	uint64_t counters = width_mask(m->gp); /* valid global bits */

	*done = false;
	if (msr >= 0xC1 && msr < 0xC1 + m->gp) {
		if (write) {
			/* 32 bits written, sign-extended to the counter's width */
			c->ctr[msr - 0xC1] = (uint64_t)(int64_t)(int32_t)(uint32_t)v & width_mask(m->gp_bits);
			*done = true;
		}
		return &c->ctr[msr - 0xC1];
	}
	if (msr >= 0x4C1 && msr < 0x4C1 + m->gp && m->pdcm && (m->perf_cap & (1ull << 13))) {
		if (write && (v & ~width_mask(m->gp_bits)))
			fault("wrmsr 0x%x = 0x%llx: bits above the %u-bit width", msr, (unsigned long long)v, m->gp_bits);
		return &c->ctr[msr - 0x4C1];
	}
	if (msr >= 0x186 && msr < 0x186 + m->gp)
		return &c->sel[msr - 0x186];
	if (msr >= 0x309 && msr < 0x309 + 4 && pmu_model_fixed_exists(msr - 0x309)) {
		if (write && (v & ~width_mask(m->fixed_bits)))
			fault("wrmsr 0x%x = 0x%llx: bits above the %u-bit width", msr, (unsigned long long)v,
			      m->fixed_bits);
		return &c->fixed_ctr[msr - 0x309];
	}
	if (msr == 0x345 && m->pdcm) {
		if (write)
			fault("wrmsr 0x345: IA32_PERF_CAPABILITIES is read-only");
		return &m->perf_cap;
	}
	if (m->version >= 2) {
		for (unsigned i = 0; i < 4; i++)
			if (pmu_model_fixed_exists(i))
				counters |= 1ull << (32 + i);
		switch (msr) {
		case 0x38D:
			return &c->fixed_ctrl;
		case 0x38E:
			if (write)
				fault("wrmsr 0x38E: IA32_PERF_GLOBAL_STATUS is read-only");
			return &c->global_status;
		case 0x38F:
			if (write && (v & ~counters))
				fault("wrmsr 0x38F = 0x%llx: reserved bits", (unsigned long long)v);
			return &c->global_ctrl;
		case 0x390:
			if (write) {
				if (v & ~(counters | 3ull << 62))
					fault("wrmsr 0x390 = 0x%llx: reserved bits", (unsigned long long)v);
				c->global_status &= ~v;
				*done = true;
			}
			return &reads_zero;
		}
	}
	return NULL;
}

/* AMD: likewise. */
static uint64_t *amd_reg(uint32_t msr, bool write, uint64_t v, bool *done)
{
	struct pmu_model *m = &pmu_model;
	struct pmu_model_cpu *c = pmu_model_cpu();
	uint32_t n = pmu_model_amd_counters();
	uint64_t *ctr = NULL;

	*done = false;
	if (msr >= 0xC0010000 && msr < 0xC0010004)
		return &c->sel[msr - 0xC0010000];
	if (msr >= 0xC0010004 && msr < 0xC0010008)
		ctr = &c->ctr[msr - 0xC0010004];
	if (m->ext_core && msr >= 0xC0010200 && msr < 0xC0010200 + 2 * n) {
		if ((msr & 1) == 0)
			return &c->sel[(msr - 0xC0010200) / 2];
		ctr = &c->ctr[(msr - 0xC0010200) / 2];
	}
	if (ctr) {
		if (write && (v >> 48))
			fault("wrmsr 0x%x = 0x%llx: bits above 48", msr, (unsigned long long)v);
		return ctr;
	}
	if (m->perfmon_v2) {
		switch (msr) {
		case 0xC0000300:
			if (write)
				fault("wrmsr 0xC0000300: PerfCntrGlobalStatus is read-only");
			return &c->global_status;
		case 0xC0000301:
			if (write && (v >> n))
				fault("wrmsr 0xC0000301 = 0x%llx: reserved bits", (unsigned long long)v);
			return &c->global_ctrl;
		case 0xC0000302:
			if (write) {
				c->global_status &= ~v;
				*done = true;
			}
			return &reads_zero;
		}
	}
	return NULL;
}

static uint64_t *reg(uint32_t msr, bool write, uint64_t v, bool *done)
{
	return is_intel() ? intel_reg(msr, write, v, done) : amd_reg(msr, write, v, done);
}

uint64_t pmu_hw_rdmsr(uint32_t msr)
{
	bool done;
	uint64_t *r, v = 0;

	pmu_model.msr_accesses++;
	if (!pmu_model.ignores_writes) {
		r = reg(msr, false, 0, &done);
		if (r)
			v = *r;
		else
			fault("rdmsr 0x%x: no such register on this CPU", msr);
	}
	log_op('R', msr, v);
	return v;
}

void pmu_hw_wrmsr(uint32_t msr, uint64_t v)
{
	bool done;
	uint64_t *r;

	pmu_model.msr_accesses++;
	log_op('W', msr, v);
	if (pmu_model.ignores_writes)
		return;
	uint32_t faults = pmu_model.faults;
	r = reg(msr, true, v, &done);
	if (done || pmu_model.faults != faults)
		return; /* carried out, or #GP: nothing stored */
	if (r)
		*r = v;
	else
		fault("wrmsr 0x%x = 0x%llx: no such register on this CPU", msr, (unsigned long long)v);
}

/* ------------------------------------------------------- LVT and CPUs */

uint32_t pmu_hw_lvtpc_read(void)
{
	return pmu_model_cpu()->lvtpc;
}

void pmu_hw_lvtpc_write(uint32_t v)
{
	log_op('L', 0x834, v);
	pmu_model_cpu()->lvtpc = v;
}

uint32_t pmu_hw_cpu_number(void)
{
	return pmu_model.current;
}

bool pmu_model_take_pmi(void)
{
	struct pmu_model_cpu *c = pmu_model_cpu();

	if (!c->pending)
		return false;
	c->pending = 0;
	return true;
}

/* ------------------------------------------------------------ counting */

static void raise_pmi(struct pmu_model_cpu *c)
{
	if (c->lvtpc & LVT_MASKED) {
		c->lost++;
		return;
	}
	c->lvtpc |= LVT_MASKED; /* the APIC masks the entry when it takes the PMI */
	c->pending = 1;
	c->raised++;
}

/* Advance *ctr by n in a `bits`-wide counter; true if it passed the top. */
static bool advance(uint64_t *ctr, unsigned bits, uint64_t n)
{
	uint64_t sum = *ctr + n;
	bool overflow = bits < 64 ? (sum >> bits) != 0 : sum < *ctr;

	*ctr = sum & width_mask(bits);
	return overflow;
}

/* Fixed counter i counts: 0 instructions retired, 1 core cycles, 2 reference
 * cycles (their general-purpose encodings). */
static bool fixed_counts(unsigned i, uint16_t event, uint8_t umask)
{
	static const uint16_t ev[4] = { 0xC0, 0x3C, 0x3C, 0xA4 };
	static const uint8_t um[4] = { 0x00, 0x00, 0x01, 0x01 };
	return event == ev[i] && umask == um[i];
}

static void count_intel(struct pmu_model_cpu *c, uint16_t event, uint8_t umask, uint64_t n)
{
	const struct pmu_model *m = &pmu_model;
	bool pmi = false;

	for (unsigned i = 0; i < m->gp; i++) {
		uint64_t s = c->sel[i];
		if (!(s & EN) || !(s & OS) || (s & 0xFF) != event || ((s >> 8) & 0xFF) != umask)
			continue;
		if (m->version >= 2 && !(c->global_ctrl & (1ull << i)))
			continue;
		if (!advance(&c->ctr[i], m->gp_bits, n))
			continue;
		if (m->version >= 2)
			c->global_status |= 1ull << i;
		pmi |= (s & INT) != 0;
	}
	for (unsigned i = 0; i < 4; i++) {
		unsigned ctl = (c->fixed_ctrl >> (4 * i)) & 0xF;
		if (!pmu_model_fixed_exists(i) || !(ctl & 1) || !(c->global_ctrl & (1ull << (32 + i))) ||
		    !fixed_counts(i, event, umask))
			continue;
		if (!advance(&c->fixed_ctr[i], m->fixed_bits, n))
			continue;
		c->global_status |= 1ull << (32 + i);
		pmi |= (ctl & 8) != 0;
	}
	if (pmi)
		raise_pmi(c);
}

static void count_amd(struct pmu_model_cpu *c, uint16_t event, uint8_t umask, uint64_t n)
{
	const struct pmu_model *m = &pmu_model;
	bool pmi = false;

	for (unsigned i = 0; i < pmu_model_amd_counters(); i++) {
		uint64_t s = c->sel[i];
		uint16_t code = (uint16_t)((s & 0xFF) | ((s >> 32) & 0xF) << 8);
		if (!(s & EN) || !(s & OS) || code != event || ((s >> 8) & 0xFF) != umask)
			continue;
		if (m->perfmon_v2 && !(c->global_ctrl & (1ull << i)))
			continue;
		if (!advance(&c->ctr[i], 48, n))
			continue;
		if (m->perfmon_v2)
			c->global_status |= 1ull << i;
		pmi |= (s & INT) != 0;
	}
	if (pmi)
		raise_pmi(c);
}

void pmu_model_count(uint16_t event, uint8_t umask, uint64_t n)
{
	if (pmu_model.ignores_writes)
		return;
	if (is_intel())
		count_intel(pmu_model_cpu(), event, umask, n);
	else
		count_amd(pmu_model_cpu(), event, umask, n);
}
