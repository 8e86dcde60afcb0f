/*
 * fidelity_out.c - the fidelity statement as the report's first section,
 * the summary's lines and the summary JSON's object (fidelity.h).  Each
 * item is one line with its unit; what the log does not hold says so
 * ("not recorded": a kernel before KprofFidelity, or a trace without the
 * clock and thread groups), never a made-up 0.
 */
#include "tools/kprof/fidelity/fidelity.h"

#include <inttypes.h>
#include <stdarg.h>

#include "tools/kprof/util/format.h"
#include "tools/kprof/util/json.h"

#define LABEL 22 /* columns of an item's name */

static void item(FILE *out, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void item(FILE *out, const char *name, const char *fmt, ...)
{
	char text[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	kp_wrap(out, name, LABEL, LABEL, " ", text);
}

static const char *ns_of(const struct kp_fidelity *f, uint64_t cycles, char *buf, size_t size)
{
	return kp_fidelity_time(f, cycles, buf, size);
}

void kp_fidelity_section(FILE *out, const struct kp_fidelity *f)
{
	char a[32], b[32], c[32];

	fprintf(out, "\n== fidelity: what this run's figures are worth on this machine ");
	for (int n = 66; n < KP_TEXT_WIDTH; n++)
		fputc('=', out);
	fputs("\n\n", out);
	if (f->stamp_cycles)
		item(out, "time stamp", "%u cycles (%s) a TSC read, median on cpu %u (the slowest); quickest %u cycles",
		     f->stamp_cycles, ns_of(f, f->stamp_cycles, a, sizeof(a)), f->stamp_cpu, f->stamp_best);
	else
		item(out, "time stamp", "not recorded (no KprofFidelity record)");
	if (f->hz > 0)
		item(out, "TSC", "%.0f Hz, %s", f->hz,
		     f->invariant < 0 ? "invariance not recorded"
		     : f->invariant ? "invariant (CPUID)" : "not invariant per CPUID");
	else
		item(out, "TSC", "rate unknown (no run header)");
	if (f->skew_measured)
		item(out, "skew between CPUs", "largest %s%s (cpu %u, +-%s) from cpu 0 at boot%s%s", f->skew_ns < 0 ? "-" : "+",
		     kp_fidelity_ns(f->skew_ns < 0 ? -(double)f->skew_ns : (double)f->skew_ns, a, sizeof(a)), f->skew_cpu,
		     kp_fidelity_ns(f->skew_error_ns, b, sizeof(b)), f->skew_corrected ? ", corrected in the stamps" : "",
		     f->skew_moved ? "; MOVED while measured" : "");
	else if (!f->time_fields)
		item(out, "skew between CPUs", "not recorded (a kernel before run header 4)");
	else
		item(out, "skew between CPUs", "not measured (one CPU)");
	if (!f->time_fields)
		item(out, "TSC watchdog", "not recorded (a kernel before run header 4)");
	else if (f->watchdog_ms)
		item(out, "TSC watchdog", "every %u ms: %s", f->watchdog_ms,
		     f->unstable_checks ? "found it UNSTABLE, stamps corrected" : "found it steady");
	else
		item(out, "TSC watchdog", "none (no reference clock the kernel could trust)");
	if (f->steps)
		item(out, "steps back", "%" PRIu64 ", the largest %s on cpu %u (stamps held, never back)", f->steps,
		     ns_of(f, f->step_max, a, sizeof(a)), f->step_cpu);
	else
		item(out, "steps back", "none");
	if (f->interrupts)
		item(out, "clock interrupt late", "p50 <= %s, p99 <= %s, max %s (cpu %u) over %" PRIu64 " interrupts",
		     ns_of(f, f->late_p50, a, sizeof(a)), ns_of(f, f->late_p99, b, sizeof(b)),
		     ns_of(f, f->late_max, c, sizeof(c)), f->late_max_cpu, f->interrupts);
	else
		item(out, "clock interrupt late", "not recorded");
	if (f->stalls_traced && f->span)
		item(out, "stalled", "%s of the CPUs' traced time (the worst, cpu %u: %s), from late interrupts over "
				     "200 us", kp_pct(a, sizeof(a), f->stalled, f->span, 2), f->worst_cpu,
		     kp_pct(b, sizeof(b), f->worst_stalled, f->worst_span, 2));
	else
		item(out, "stalled", "not recorded (trace=clock records the stalls)");
	if (f->round_trip)
		item(out, "interrupt round trip", "%" PRIu64 " cycles (%s), an empty self-IPI, median at boot",
		     f->round_trip, ns_of(f, f->round_trip, a, sizeof(a)));
	else
		item(out, "interrupt round trip", "not recorded");
	fputc('\n', out);
	kp_wrap(out, "verdict", 10, 10, " ", f->headline);
	for (uint32_t i = 0; i < f->nverdicts; i++)
		kp_wrap(out, "WARNING", 10, 10, " ", f->verdict[i]);
}

void kp_fidelity_summary(FILE *out, const struct kp_fidelity *f)
{
	kp_wrap(out, "fidelity", 10, 10, " ", f->headline);
	for (uint32_t i = 0; i < f->nverdicts; i++)
		kp_wrap(out, "WARNING", 10, 10, " ", f->verdict[i]);
}

/* ns at the run's rate, or null without one */
static void json_ns(FILE *out, const char *key, const struct kp_fidelity *f, uint64_t cycles, bool known)
{
	if (known && f->hz > 0)
		fprintf(out, ",\"%s\":%.0f", key, (double)cycles * 1e9 / f->hz);
	else
		fprintf(out, ",\"%s\":null", key);
}

void kp_fidelity_json(FILE *out, const struct kp_fidelity *f)
{
	fprintf(out, "{\"cpus_recorded\":%u", f->recorded);
	if (f->stamp_cycles)
		fprintf(out, ",\"stamp_cycles\":%u,\"stamp_best_cycles\":%u", f->stamp_cycles, f->stamp_best);
	else
		fprintf(out, ",\"stamp_cycles\":null,\"stamp_best_cycles\":null");
	json_ns(out, "stamp_ns", f, f->stamp_cycles, f->stamp_cycles != 0);
	if (f->hz > 0)
		fprintf(out, ",\"tsc_hz\":%.0f", f->hz);
	else
		fprintf(out, ",\"tsc_hz\":null");
	fprintf(out, ",\"tsc_invariant\":%s", f->invariant < 0 ? "null" : f->invariant ? "true" : "false");
	if (f->skew_measured)
		fprintf(out, ",\"skew_ns\":%" PRId64 ",\"skew_error_ns\":%u,\"skew_cpu\":%u,\"skew_moved\":%s", f->skew_ns,
			f->skew_error_ns, f->skew_cpu, f->skew_moved ? "true" : "false");
	else
		fprintf(out, ",\"skew_ns\":null,\"skew_error_ns\":null,\"skew_cpu\":null,\"skew_moved\":null");
	fprintf(out, ",\"watchdog_ms\":%u,\"tsc_unstable\":%s,\"steps_back\":%" PRIu64, f->watchdog_ms,
		f->unstable_checks ? "true" : "false", f->steps);
	json_ns(out, "step_max_ns", f, f->step_max, true);
	fprintf(out, ",\"clock_interrupts\":%" PRIu64, f->interrupts);
	json_ns(out, "late_p50_ns", f, f->late_p50, f->interrupts != 0);
	json_ns(out, "late_p99_ns", f, f->late_p99, f->interrupts != 0);
	json_ns(out, "late_max_ns", f, f->late_max, f->interrupts != 0);
	if (f->stalls_traced && f->span)
		fprintf(out, ",\"stalled_share\":%.6f", (double)f->stalled / (double)f->span);
	else
		fprintf(out, ",\"stalled_share\":null");
	if (f->round_trip)
		fprintf(out, ",\"round_trip_cycles\":%" PRIu64, f->round_trip);
	else
		fprintf(out, ",\"round_trip_cycles\":null");
	json_ns(out, "round_trip_ns", f, f->round_trip, f->round_trip != 0);
	fprintf(out, ",\"verdict\":");
	kp_json_string(out, f->headline);
	fprintf(out, ",\"warnings\":[");
	for (uint32_t i = 0; i < f->nverdicts; i++) {
		if (i)
			fputc(',', out);
		kp_json_string(out, f->verdict[i]);
	}
	fprintf(out, "]}");
}
