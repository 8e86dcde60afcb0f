/*
 * fidelity.c - gathering what a run's own figures are worth (fidelity.h)
 * and the verdicts a person can act on.
 *
 * Percentiles of the clock interrupts' lateness come from the kernel's
 * half-octave buckets (include/kprof/lateness.h), every recorded CPU's
 * added up: p50 and p99 are given as the upper bound of the bucket that
 * holds them (at most 1.5 times its floor), never above the exact
 * maximum.  The time-stamp cost is the slowest CPU's median read; the
 * stalled share is the model's (stall.c): the stalled cycles of every CPU
 * over the time each was traced.
 */
#include "tools/kprof/fidelity/fidelity.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/format.h"

const char *kp_fidelity_ns(double ns, char *buf, size_t size)
{
	if (ns < 1000)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
	return buf;
}

const char *kp_fidelity_time(const struct kp_fidelity *f, uint64_t cycles, char *buf, size_t size)
{
	if (!(f->hz > 0)) {
		snprintf(buf, size, "%" PRIu64 " cycles", cycles);
		return buf;
	}
	return kp_fidelity_ns((double)cycles * 1e9 / f->hz, buf, size);
}

/* One CPU's KprofFidelity record into f. */
static void take_record(struct kp_fidelity *f, uint32_t cpu, const KPROF_FIDELITY *k)
{
	f->recorded++;
	if (k->StampCycles > f->stamp_cycles || f->recorded == 1) {
		f->stamp_cycles = k->StampCycles;
		f->stamp_cpu = cpu;
	}
	if (k->StampBestCycles && (!f->stamp_best || k->StampBestCycles < f->stamp_best))
		f->stamp_best = k->StampBestCycles;
	if (k->RoundTripCycles)
		f->round_trip = k->RoundTripCycles;
	if (cpu == 0 || f->invariant < 0)
		f->invariant = (k->Flags & KPROF_FIDELITY_TSC_INVARIANT) != 0;
	f->interrupts += k->ClockInterrupts;
	uint32_t n = k->Buckets < KPROF_LATENESS_BUCKETS ? k->Buckets : KPROF_LATENESS_BUCKETS;
	for (uint32_t b = 0; b < n; b++)
		f->late[b] += k->LateBuckets[b];
	if (k->LateMaxCycles > f->late_max || f->recorded == 1) {
		f->late_max = k->LateMaxCycles;
		f->late_max_cpu = cpu;
	}
}

static void gather_records(struct kp_log *log, struct kp_fidelity *f)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		KPROF_FIDELITY k;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &rec)) {
			if (rec.h.HookId != KPROF_LOG_TYPE_FIDELITY || rec.version != FIDELITY_VERSION ||
			    rec.payload_size < sizeof(k))
				continue;
			memcpy(&k, rec.payload, sizeof(k));
			take_record(f, cpu, &k);
		}
	}
}

/* The last value of the bucket holding the pct-th percentile (nearest
 * rank: the ceil(pct% of n)-th smallest) of the interrupts' lateness, at
 * most the exact maximum. */
static uint64_t percentile(const struct kp_fidelity *f, uint64_t pct)
{
	uint64_t need = (f->interrupts * pct + 99) / 100, seen = 0;
	if (!need)
		need = 1;
	for (uint32_t b = 0; b < KPROF_LATENESS_BUCKETS; b++) {
		seen += f->late[b];
		if (seen >= need) {
			uint64_t c = kprof_lateness_ceiling(b);
			return c - 1 < f->late_max ? c - 1 : f->late_max;
		}
	}
	return f->late_max;
}

static void gather_trace(struct kp_log *log, const struct kp_model *m, struct kp_fidelity *f)
{
	const struct kprof_run_header *h = &log->header;

	if (log->have_header && h->version >= 4) {
		f->time_fields = true;
		f->skew_measured = h->skew_cpus >= 1;
		f->skew_ns = h->tsc_skew_ns;
		f->skew_error_ns = h->tsc_skew_error_ns;
		f->skew_cpu = h->tsc_skew_cpu;
		f->skew_corrected = (h->clock_flags & KPROF_RUN_CLOCK_SKEW_FIXED) != 0;
		f->skew_moved = (h->clock_flags & KPROF_RUN_CLOCK_NOT_SYNCED) != 0;
		f->watchdog_ms = h->watchdog_ms;
	}
	for (uint32_t i = 0; i < log->ncpus; i++)
		f->unstable_checks += log->cpus[i].clock_unstable;
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct kp_model_cpu *c = &m->cpu[i];
		for (size_t k = 0; k < c->nsteps; k++) {
			f->steps++;
			if (c->steps[k].back > f->step_max) {
				f->step_max = c->steps[k].back;
				f->step_cpu = i;
			}
		}
		if (!c->any || c->last <= c->first)
			continue;
		uint64_t span = c->last - c->first;
		f->stalled += c->stalled;
		f->span += span;
		/* the largest share: stalled / span, compared without division */
		if (!f->worst_span || (double)c->stalled * (double)f->worst_span > (double)f->worst_stalled * (double)span) {
			f->worst_cpu = i;
			f->worst_stalled = c->stalled;
			f->worst_span = span;
		}
	}
	f->stalls_traced = log->have_header && (log->header.group_masks[PERF_KPROF_CLOCK >> 29] &
						(PERF_KPROF_CLOCK & PERF_MASK_GROUP)) != 0;
}

static void verdict(struct kp_fidelity *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void verdict(struct kp_fidelity *f, const char *fmt, ...)
{
	va_list ap;
	if (f->nverdicts >= KP_FIDELITY_VERDICTS)
		return;
	va_start(ap, fmt);
	vsnprintf(f->verdict[f->nverdicts++], sizeof(f->verdict[0]), fmt, ap);
	va_end(ap);
}

/* Per mille of whole, rounded: shares compared without floating point. */
static uint64_t permille(uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((double)part * 1000.0 / (double)whole + 0.5) : 0;
}

/* The verdicts, most limiting first, and the headline: what the run's
 * durations, order across CPUs and timed events are good to. */
static void judge(struct kp_fidelity *f)
{
	char a[32], b[32], c[32];
	uint64_t stall_pm = permille(f->stalled, f->span);

	if (f->stalls_traced && stall_pm >= 10)
		verdict(f, "the machine took %.1f%% of the CPUs' time (cpu %u: %.1f%%; a hypervisor, firmware, or "
			   "interrupts masked): rates per second and busy shares are low by up to that, and any span may "
			   "hold a stall",
			(double)f->stalled * 100.0 / (double)f->span, f->worst_cpu,
			(double)f->worst_stalled * 100.0 / (double)f->worst_span);
	if (f->interrupts && f->late_p99 && f->hz > 0 && (double)f->late_p99 * 1e6 / f->hz >= 100)
		verdict(f, "timed events (time-outs, the tick, profile samples) came up to %s late (p99; worst %s on cpu "
			   "%u): a time-out, a sampling period or a wait shorter than that is not resolved on this machine",
			kp_fidelity_time(f, f->late_p99, a, sizeof(a)), kp_fidelity_time(f, f->late_max, b, sizeof(b)),
			f->late_max_cpu);
	if (f->round_trip && f->hz > 0 && (double)f->round_trip * 1e6 / f->hz >= 10)
		verdict(f, "an empty interrupt round trip costs %s (a hypervisor's exit): every profile sample, "
			   "preemption and wake-up of another CPU pays it; give profile.interval= at least 100 times it",
			kp_fidelity_time(f, f->round_trip, a, sizeof(a)));
	if (f->stamp_cycles && f->hz > 0 && (double)f->stamp_cycles * 1e9 / f->hz >= 200)
		verdict(f, "a time stamp costs %s (a TSC read that traps to a hypervisor, or a slow TSC): every record "
			   "adds that to the code it measures, and holds or waits shorter than 10 times it (%s) are "
			   "mostly the measurement",
			kp_fidelity_time(f, f->stamp_cycles, a, sizeof(a)),
			kp_fidelity_time(f, 10 * (uint64_t)f->stamp_cycles, b, sizeof(b)));
	if (f->unstable_checks)
		verdict(f, "the TSC was found UNSTABLE against the reference clock (%" PRIu64 " check%s): the stamps "
			   "were corrected by one slewed line for all CPUs; order across CPUs closer than the correction's "
			   "error is not certain",
			f->unstable_checks, f->unstable_checks == 1 ? "" : "s");
	if (f->steps)
		verdict(f, "the TSC went back %" PRIu64 " time%s (the largest %s, cpu %u): the stamps were held there, "
			   "so spans across such a step are short by up to that",
			f->steps, f->steps == 1 ? "" : "s", kp_fidelity_time(f, f->step_max, a, sizeof(a)), f->step_cpu);
	if (f->skew_moved)
		verdict(f, "a CPU's TSC offset moved while it was measured at boot: order across CPUs is not certain");
	if (f->invariant == 0 && !f->unstable_checks)
		verdict(f, "CPUID does not promise an invariant TSC (virtual CPUs rarely do); %s",
			f->watchdog_ms ? "the watchdog found it steady against the reference clock"
				       : "no reference clock checked it");

	/* The headline: durations, order across CPUs, timed events, the
	 * machine's share. */
	size_t n = 0;
	const size_t size = sizeof(f->headline);
	if (f->stamp_cycles)
		n += (size_t)snprintf(f->headline + n, size - n, "durations exact to %s (a time stamp)",
				      kp_fidelity_time(f, f->stamp_cycles, a, sizeof(a)));
	else
		n += (size_t)snprintf(f->headline + n, size - n, "time-stamp cost not recorded");
	if (f->skew_measured && n < size)
		n += (size_t)snprintf(f->headline + n, size - n, ", order across CPUs to +-%s",
				      kp_fidelity_ns(f->skew_error_ns, c, sizeof(c)));
	if (f->interrupts && n < size)
		n += (size_t)snprintf(f->headline + n, size - n, ", timed events to %s (p99 lateness)",
				      kp_fidelity_time(f, f->late_p99, b, sizeof(b)));
	if (f->stalls_traced && f->span && n < size)
		n += (size_t)snprintf(f->headline + n, size - n, ", the machine took %s",
				      kp_pct(c, sizeof(c), f->stalled, f->span, 1));
	if (n < size)
		snprintf(f->headline + n, size - n, "%s", f->nverdicts ? "; see the warnings below" : "");
}

void kp_fidelity_gather(struct kp_log *log, const struct kp_model *m, struct kp_fidelity *f)
{
	memset(f, 0, sizeof(*f));
	f->invariant = -1;
	f->hz = m->hz;
	f->cpus = log->ncpus;
	gather_records(log, f);
	gather_trace(log, m, f);
	if (f->interrupts) {
		f->late_p50 = percentile(f, 50);
		f->late_p99 = percentile(f, 99);
	}
	judge(f);
}
