/*
 * noise.c - scenario=noise: how much the machine itself takes from a CPU
 * (docs/noise.md), after Linux's hwlat detector and osnoise tracer.
 *
 * Pass 1: in each window of noise.window_ms every CPU at once meets at a
 * barrier, turns interrupts off and scans the TSC until noise.width_ms
 * after the last one arrived (gap.c); then the boot thread joins the CPUs' gaps (noise_correlate)
 * and every CPU writes its gaps as KprofNoiseGap records, and the rest of
 * the window has interrupts on.  Pass 2: the same, one CPU a window in
 * turn, as hwlat's round-robin mode, while the others run normally.
 * Then timer latency (timer.c).
 *
 * Invariants: scans[cpu] is written only by that CPU inside a broadcast
 * and read by the boot thread after the broadcast returned (its grace
 * period orders them); the barrier counters are reset by the boot thread
 * between broadcasts.  No lock is taken with interrupts off.
 */
#include <arch/cpu.h>
#include <arch/dev/smi.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/cpus.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/muldiv.h"
#include "kernel/mm/heap.h"
#include "kernel/noise/gap.h"
#include "kernel/noise/noise_keys.h"
#include "kernel/noise/record.h"
#include "kernel/noise/timer.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"
#include "kernel/workloads/api/descriptor.h"

struct noise_pass {
	uint32_t pass, window, only; /* only: the CPU that scans in pass 2   */
	uint64_t width;              /* cycles with interrupts off            */
	uint64_t threshold;          /* cycles                               */
	struct noise_scan **scans;   /* one per CPU                           */
	volatile uint32_t arrived;   /* pass 1's barrier                      */
	volatile uint64_t go;        /* the TSC all CPUs scan from            */
	bool smi_counted;
};

struct noise_totals {
	uint64_t total, max, gaps, unkept, scanned, smis;
	uint32_t correlated, windows;
};

struct noise_pass_end {
	uint32_t pass;
	bool smi_counted;
	const struct noise_totals *totals; /* one per CPU */
};

static uint64_t read_tsc(void *ctx)
{
	(void)ctx;
	return arch_rdtsc();
}

static uint64_t read_smi(void *ctx)
{
	(void)ctx;
	return arch_smi_count();
}

static bool scans_here(const struct noise_pass *p, uint32_t cpu)
{
	return cpu < KPROF_MAX_CPUS && (p->pass == 1 || cpu == p->only);
}

static void scan(uint32_t cpu, void *ctx)
{
	struct noise_pass *p = ctx;
	struct noise_scan *s;

	if (!scans_here(p, cpu))
		return;
	s = p->scans[cpu];
	if (p->pass == 1) {
		uint32_t n = __atomic_add_fetch(&p->arrived, 1, __ATOMIC_ACQ_REL);
		if (n == ke_number_processors)
			__atomic_store_n(&p->go, arch_rdtsc(), __ATOMIC_RELEASE);
		while (!__atomic_load_n(&p->go, __ATOMIC_ACQUIRE))
			arch_cpu_relax();
		/* From `go`: a CPU that sees it late (not running: the machine
		 * took it) starts with a gap, and every CPU scans the same span. */
		s->begin = p->go;
	} else {
		s->begin = arch_rdtsc();
	}
	s->now = read_tsc;
	s->smi = p->smi_counted ? read_smi : NULL;
	s->ctx = NULL;
	s->end = s->begin + p->width;
	s->threshold = p->threshold;
	unsigned long flags = arch_irq_save();
	noise_scan_run(s);
	arch_irq_restore(flags);
}

static void write_scan(uint32_t cpu, void *ctx)
{
	const struct noise_pass_end *e = ctx;
	const struct noise_totals *t;

	if (cpu >= KPROF_MAX_CPUS || cpu >= ke_number_processors || !e->totals[cpu].windows)
		return;
	t = &e->totals[cpu];
	KPROF_NOISE_SCAN k = {
		.ScannedCycles = t->scanned, .GapCycles = t->total, .MaxCycles = t->max, .Gaps = (uint32_t)t->gaps,
		.Windows = t->windows, .Correlated = t->correlated, .Pass = (uint8_t)e->pass,
		.Flags = e->smi_counted ? KPROF_NOISE_GAP_SMI_COUNTED : 0,
	};
	noise_log(KPROF_LOG_TYPE_NOISE_SCAN, NOISE_SCAN_VERSION, &k, sizeof(k));
}

static void write_gaps(uint32_t cpu, void *ctx)
{
	const struct noise_pass *p = ctx;
	const struct noise_scan *s;

	if (!scans_here(p, cpu))
		return;
	s = p->scans[cpu];
	for (uint32_t g = 0; g < s->kept; g++) {
		const struct noise_gap *gap = &s->gap[g];
		KPROF_NOISE_GAP k = {
			.Start = gap->start, .Cycles = gap->cycles, .LengthNs = mul_div_u64(gap->cycles, 1000000000, ke_tsc_hz),
			.SmiBefore = gap->smi_before, .SmiAfter = gap->smi_after, .Window = p->window,
			.OtherCpus = gap->overlaps, .Pass = (uint8_t)p->pass,
			.Flags = (gap->overlaps ? KPROF_NOISE_GAP_CORRELATED : 0) |
				 (p->smi_counted ? KPROF_NOISE_GAP_SMI_COUNTED : 0),
			.Unkept = s->count - s->kept,
		};
		noise_log(KPROF_LOG_TYPE_NOISE_GAP, NOISE_GAP_VERSION, &k, sizeof(k));
	}
}

static void add_up(struct noise_totals *t, const struct noise_scan *s)
{
	t->total += s->total;
	t->gaps += s->count;
	t->unkept += s->count - s->kept;
	t->scanned += s->last - s->begin;
	t->windows++;
	if (s->max > t->max)
		t->max = s->max;
	for (uint32_t g = 0; g < s->kept; g++) {
		t->correlated += s->gap[g].overlaps != 0;
		t->smis += s->gap[g].smi_after - s->gap[g].smi_before;
	}
}

static void say_totals(uint32_t pass, uint32_t cpu, const struct noise_totals *t)
{
	uint64_t ppm = t->scanned ? mul_div_u64(t->total, 1000000, t->scanned) : 0;
	kprintf("noise: pass %u cpu %u: %llu gaps (%llu correlated, %llu not kept), total %llu us, max %llu us, "
		"%llu.%04llu%% of %llu ms scanned, SMIs in gaps %llu\n",
		pass, cpu, (unsigned long long)t->gaps, (unsigned long long)t->correlated,
		(unsigned long long)t->unkept, (unsigned long long)ke_tsc_to_us(t->total),
		(unsigned long long)ke_tsc_to_us(t->max), (unsigned long long)(ppm / 10000),
		(unsigned long long)(ppm % 10000), (unsigned long long)(ke_tsc_to_us(t->scanned) / 1000),
		(unsigned long long)t->smis);
}

/* One pass of `windows` windows, each CPU's figures added to totals[]. */
static void run_pass(struct noise_pass *p, uint32_t windows, struct noise_totals *totals)
{
	const struct noise_config *c = noise_config;
	uint32_t n = ke_number_processors;

	for (uint32_t w = 0; w < windows; w++) {
		p->window = w;
		p->only = w % n;
		p->arrived = 0;
		p->go = 0;
		ke_run_on_all_processors(scan, p);
		if (p->pass == 1)
			noise_correlate(p->scans, n);
		ke_run_on_all_processors(write_gaps, p);
		for (uint32_t cpu = 0; cpu < n; cpu++)
			if (scans_here(p, cpu))
				add_up(&totals[cpu], p->scans[cpu]);
		ke_delay_execution_thread((uint64_t)(c->window_ms - c->width_ms) * 1000);
	}
}

static enum kprof_exit_status run(const struct workload_run *r)
{
	const struct noise_config *c = noise_config;
	uint32_t n = ke_number_processors < KPROF_MAX_CPUS ? ke_number_processors : KPROF_MAX_CPUS;
	uint32_t ms = r->ms ? r->ms : c->ms;
	uint32_t windows = ms / c->window_ms ? ms / c->window_ms : 1;
	struct noise_pass p = {
		.width = ke_us_to_tsc((uint64_t)c->width_ms * 1000), .threshold = ke_ns_to_tsc(c->threshold_ns),
		.smi_counted = arch_smi_uncounted_reason() == NULL,
	};
	struct noise_totals *totals = kzalloc(n * sizeof(*totals));

	p.scans = kzalloc(n * sizeof(*p.scans));
	for (uint32_t i = 0; p.scans && i < n; i++)
		p.scans[i] = kzalloc(sizeof(*p.scans[i]));
	for (uint32_t i = 0; p.scans && i < n; i++)
		if (!p.scans[i])
			p.scans = NULL; /* freed below only when whole */
	if (!totals || !p.scans) {
		kprintf("noise: no memory for %u CPUs' scans: SOME CHECKS FAILED\n", n);
		return KPROF_EXIT_FAILURE;
	}
	for (uint32_t pass = 1; pass <= 2; pass++) {
		p.pass = pass;
		kprintf("noise: pass %u: %s, %u windows of %u ms, %u ms with interrupts off, threshold %u ns\n", pass,
			pass == 1 ? "every CPU at once" : "one CPU a window in turn", windows, c->window_ms,
			c->width_ms, c->threshold_ns);
		for (uint32_t i = 0; i < n; i++)
			totals[i] = (struct noise_totals){ 0 };
		run_pass(&p, windows, totals);
		struct noise_pass_end end = { .pass = pass, .smi_counted = p.smi_counted, .totals = totals };
		ke_run_on_all_processors(write_scan, &end);
		for (uint32_t i = 0; i < n; i++)
			if (totals[i].windows)
				say_totals(pass, i, &totals[i]);
	}
	noise_timer_pass(ms, c->timer_us);
	for (uint32_t i = 0; i < n; i++)
		kfree(p.scans[i]);
	kfree(p.scans);
	kfree(totals);
	kprintf("noise: done\n");
	return KPROF_EXIT_SUCCESS;
}

WORKLOAD_DEFINE(noise, .name = "noise",
		.description = "gaps the machine takes from each CPU, interrupts off (hwlat, osnoise)", .run = run);
