/*
 * pmu.c - the performance counters behind arch/dev/pmu.h: probe and vendor
 * dispatch, counter assignment, per-CPU state and the PMI sequence.  The
 * vendor drivers (pmu_intel.c, pmu_amd.c) know the registers and events;
 * this file knows the order of operations, once for both.
 *
 * State.  `pmu` is written by the probe on the boot CPU before other CPUs
 * start and only read afterwards.  pmu_cpus[n] belongs to logical CPU n:
 * only that CPU reads or writes it, and its counters, either with
 * interrupts disabled (start, stop, set-interval) or in the PMI handler at
 * PROFILE_LEVEL (which nothing on the CPU interrupts but NMIs, and NMIs do
 * not touch counters), so no locks.  Each CPU's entry is a cache line of
 * its own.
 *
 * Order of operations:
 *   start:  interrupts off; every counter off, status clear (reset); LVT
 *           entry unmasked; each counter loaded with -interval and its
 *           selector set; counting enabled; interrupts back.  The LVT is
 *           armed before anything counts: an overflow with the entry
 *           masked would be lost, and without global status a lost PMI
 *           leaves the counter counting up from 0 with no further PMI
 *           for 2^47 events.
 *   PMI:    counting stopped; overflowed counters read (global status, or
 *           the top bit of each counter); for each, the callback, then the
 *           reload; status cleared; LVT unmasked (the APIC masked it when
 *           it delivered the PMI); counting restarted.  The EOI follows in
 *           the common interrupt path (arch/dev/pmu.h).
 *   stop:   interrupts off; reset; LVT masked.
 */
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/dev/pmu.h>

#include "arch/x86_64/pmu/pmu_hw.h"
#include "include/kprof/wmi.h"
#include "kernel/arch_services.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

struct pmu_slot {
	uint32_t source;   /* KPROFILE_SOURCE counted                    */
	uint32_t counter;  /* its counter number (pmu_hw.h)              */
	uint64_t interval; /* events per PMI; reloaded as -interval      */
};

struct pmu_cpu {
	uint32_t n;                                 /* slots in use: slot[0..n) */
	uint64_t in_use;                            /* their counters (mask)    */
	struct pmu_slot slot[ARCH_PMU_MAX_SOURCES]; /* what this CPU counts     */
} __attribute__((aligned(64)));                     /* a cache line per CPU     */

static struct {
	struct arch_pmu_info info;            /* the probe's result                    */
	const struct pmu_driver *drv;         /* NULL: no usable PMU                   */
	uint32_t vector;                      /* ARCH_INT_PMC's vector, for the LVT    */
	char event[ProfileMaximum][128];      /* arch_pmu_source_event() strings       */
} pmu;

static struct pmu_cpu pmu_cpus[KPROF_MAX_CPUS];

static const struct pmu_driver *const pmu_drivers[] = { &pmu_intel_driver, &pmu_amd_driver };

static struct pmu_cpu *this_cpu(void)
{
	return &pmu_cpus[pmu_hw_cpu_number()];
}

static unsigned popcount64(uint64_t m)
{
	unsigned n = 0;
	for (; m; m &= m - 1)
		n++;
	return n;
}

static const struct pmu_driver *driver_for(const char *vendor)
{
	for (size_t i = 0; i < ARRAY_SIZE(pmu_drivers); i++)
		for (size_t v = 0; v < ARRAY_SIZE(pmu_drivers[i]->vendors); v++)
			if (pmu_drivers[i]->vendors[v] && strcmp(pmu_drivers[i]->vendors[v], vendor) == 0)
				return pmu_drivers[i];
	return NULL;
}

/* Vendor string, display family and model (CPUID leaves 0 and 1). */
static void identify(struct arch_pmu_info *info)
{
	uint32_t r[4];

	pmu_hw_cpuid(0, 0, r);
	memcpy(info->vendor, &r[1], 4);
	memcpy(info->vendor + 4, &r[3], 4);
	memcpy(info->vendor + 8, &r[2], 4);
	info->vendor[12] = '\0';
	if (r[0] < 1)
		return;
	pmu_hw_cpuid(1, 0, r);
	uint32_t family = (r[0] >> 8) & 0xF, model = (r[0] >> 4) & 0xF;
	if (family == 0xF)
		family += (r[0] >> 20) & 0xFF;
	if (family >= 6)
		model |= ((r[0] >> 16) & 0xF) << 4;
	info->family = family;
	info->model = model;
}

void arch_pmu_probe(struct arch_pmu_info *out)
{
	struct arch_pmu_info *info = &pmu.info;
	const struct pmu_driver *drv;

	memset(&pmu, 0, sizeof(pmu));
	memset(pmu_cpus, 0, sizeof(pmu_cpus));
	pmu.vector = arch_interrupt_vector(ARCH_INT_PMC);
	identify(info);
	drv = driver_for(info->vendor);
	if (!drv)
		ksnprintf(info->why_absent, sizeof(info->why_absent), "no PMU driver for CPU vendor \"%s\"",
			  info->vendor);
	else if (drv->probe(info))
		pmu.drv = drv;
	info->present = pmu.drv != NULL;
	if (!info->present) {
		memset(info->summary, 0, sizeof(info->summary));
		ksnprintf(info->summary, sizeof(info->summary), "no performance counters: %s", info->why_absent);
	}
	for (uint32_t s = 0; pmu.drv && s < ProfileMaximum; s++)
		if (arch_pmu_source_supported(s))
			pmu.drv->describe(s, pmu.event[s], sizeof(pmu.event[s]));
	if (out)
		*out = *info;
}

bool arch_pmu_source_supported(uint32_t source)
{
	return pmu.drv && source != ProfileTime && source < ProfileMaximum && pmu.drv->counters_for(source) != 0;
}

const char *arch_pmu_source_event(uint32_t source)
{
	return arch_pmu_source_supported(source) ? pmu.event[source] : NULL;
}

/* The counter a source gets when all are free: its fixed counter, if it has
 * one, else the lowest it may use (all general-purpose ones are alike). */
static unsigned preferred_counter(uint64_t candidates)
{
	uint64_t fixed = candidates & (~0ull << PMU_FIXED_BASE);
	return (unsigned)__builtin_ctzll(fixed ? fixed : candidates);
}

uint64_t arch_pmu_max_interval(uint32_t source)
{
	if (!arch_pmu_source_supported(source))
		return 0;
	return pmu.drv->max_interval(preferred_counter(pmu.drv->counters_for(source)));
}

/* Give each source a counter: the source with the fewest free candidates
 * first (AMD family 15h limits some events to counters 0-2; every other
 * constraint here is "its fixed counter or any general-purpose one"), each
 * taking its fixed counter when free, else the lowest free candidate. */
static enum arch_pmu_status assign_counters(const uint32_t *sources, uint32_t n, uint32_t *counter)
{
	uint64_t used = 0;
	uint32_t done = 0; /* bit i: sources[i] placed */

	for (uint32_t k = 0; k < n; k++) {
		uint32_t best = 0;
		unsigned best_free = ~0u;
		for (uint32_t i = 0; i < n; i++) {
			if (done & (1u << i))
				continue;
			unsigned f = popcount64(pmu.drv->counters_for(sources[i]) & ~used);
			if (f < best_free) {
				best_free = f;
				best = i;
			}
		}
		if (best_free == 0)
			return ARCH_PMU_NO_COUNTER;
		counter[best] = preferred_counter(pmu.drv->counters_for(sources[best]) & ~used);
		used |= 1ull << counter[best];
		done |= 1u << best;
	}
	return ARCH_PMU_OK;
}

void arch_pmu_stop_cpu(void)
{
	struct pmu_cpu *c;
	unsigned long flags;

	if (!pmu.drv)
		return; /* nothing to stop, and no MSRs to touch */
	c = this_cpu();
	flags = arch_irq_save();
	pmu.drv->reset();
	pmu_hw_lvtpc_write(PMU_LVT_MASKED | pmu.vector);
	c->n = 0;
	c->in_use = 0;
	arch_irq_restore(flags);
}

enum arch_pmu_status arch_pmu_start_cpu(const uint32_t *sources, const uint64_t *intervals, uint32_t n)
{
	uint32_t counter[ARCH_PMU_MAX_SOURCES];
	struct pmu_cpu *c;
	unsigned long flags;
	enum arch_pmu_status st;

	if (!pmu.drv)
		return ARCH_PMU_NOT_SUPPORTED;
	if (n == 0) {
		arch_pmu_stop_cpu();
		return ARCH_PMU_OK;
	}
	if (!sources || !intervals)
		return ARCH_PMU_INVALID;
	if (n > ARCH_PMU_MAX_SOURCES)
		return ARCH_PMU_NO_COUNTER;
	for (uint32_t i = 0; i < n; i++) {
		if (!arch_pmu_source_supported(sources[i]))
			return ARCH_PMU_NOT_SUPPORTED;
		for (uint32_t j = 0; j < i; j++)
			if (sources[j] == sources[i])
				return ARCH_PMU_INVALID;
	}
	st = assign_counters(sources, n, counter);
	if (st != ARCH_PMU_OK)
		return st;
	for (uint32_t i = 0; i < n; i++)
		if (intervals[i] == 0 || intervals[i] > pmu.drv->max_interval(counter[i]))
			return ARCH_PMU_INVALID;

	c = this_cpu();
	flags = arch_irq_save();
	pmu.drv->reset();
	c->n = n;
	c->in_use = 0;
	for (uint32_t i = 0; i < n; i++) {
		c->slot[i] = (struct pmu_slot){ .source = sources[i], .counter = counter[i], .interval = intervals[i] };
		c->in_use |= 1ull << counter[i];
	}
	pmu_hw_lvtpc_write(pmu.vector); /* unmasked, fixed delivery */
	for (uint32_t i = 0; i < n; i++)
		pmu.drv->program(c->slot[i].counter, c->slot[i].source, c->slot[i].interval);
	pmu.drv->enable(c->in_use);
	arch_irq_restore(flags);
	return ARCH_PMU_OK;
}

enum arch_pmu_status arch_pmu_set_interval_cpu(uint32_t source, uint64_t interval)
{
	struct pmu_cpu *c;
	struct pmu_slot *s = NULL;
	unsigned long flags;

	if (!arch_pmu_source_supported(source))
		return ARCH_PMU_NOT_SUPPORTED;
	c = this_cpu();
	for (uint32_t i = 0; i < c->n; i++)
		if (c->slot[i].source == source)
			s = &c->slot[i];
	if (!s)
		return ARCH_PMU_NOT_COUNTING;
	if (interval == 0 || interval > pmu.drv->max_interval(s->counter))
		return ARCH_PMU_INVALID;

	flags = arch_irq_save();
	pmu.drv->disable(c->in_use);
	s->interval = interval;
	pmu.drv->reload(s->counter, interval);
	pmu.drv->ack(1ull << s->counter); /* an overflow of the old period is dropped */
	pmu.drv->enable(c->in_use);
	arch_irq_restore(flags);
	return ARCH_PMU_OK;
}

uint32_t arch_pmu_handle_interrupt(KTRAP_FRAME *tf, void (*fn)(uint32_t source, KTRAP_FRAME *tf, void *ctx),
				   void *ctx)
{
	struct pmu_cpu *c;
	uint64_t overflowed;
	uint32_t handled = 0;

	if (!pmu.drv)
		return 0;
	c = this_cpu();
	if (c->n == 0)
		return 0; /* stopped here: a PMI from before the stop; LVT stays masked */

	pmu.drv->disable(c->in_use);
	overflowed = pmu.drv->overflowed(c->in_use);
	for (uint32_t i = 0; i < c->n; i++) {
		const struct pmu_slot *s = &c->slot[i];
		if (!(overflowed & (1ull << s->counter)))
			continue;
		if (fn)
			fn(s->source, tf, ctx);
		pmu.drv->reload(s->counter, s->interval);
		handled++;
	}
	if (overflowed)
		pmu.drv->ack(overflowed);
	pmu_hw_lvtpc_write(pmu.vector);
	pmu.drv->enable(c->in_use);
	return handled;
}
