/*
 * noise.c - the report's noise section: scenario=noise's KprofNoiseGap
 * and KprofNoiseScan records (include/kprof/wmi.h, docs/noise.md) per pass
 * and per CPU: time scanned, gaps, correlated ones (and those every other
 * CPU saw at once), total, longest, noise per second, SMIs counted over
 * them, and a log2 histogram of the kept gaps' lengths; then the timer
 * latency pass (KprofTimerLatency): p50, p99, max and mean per CPU.  Left
 * out of logs without such records.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/noise/noise.h"
#include "tools/kprof/report/report.h"
#include "tools/kprof/util/alloc.h"

#define NOISE_PASSES KP_NOISE_PASSES
#define NOISE_BUCKETS KP_NOISE_BUCKETS
#define noise_cpu kp_noise_cpu

static uint32_t bucket(uint64_t ns)
{
	uint32_t b = 0;
	while (ns > 1 && b < NOISE_BUCKETS - 1) {
		ns >>= 1;
		b++;
	}
	return b;
}

static void add(struct noise_cpu *c, const KPROF_NOISE_GAP *g, uint32_t ncpus)
{
	c->any = true;
	c->gaps++;
	c->correlated += (g->Flags & KPROF_NOISE_GAP_CORRELATED) != 0;
	c->everyone += ncpus > 1 && g->OtherCpus == ncpus - 1;
	c->total_ns += g->LengthNs;
	c->max_ns = g->LengthNs > c->max_ns ? g->LengthNs : c->max_ns;
	if (g->Flags & KPROF_NOISE_GAP_SMI_COUNTED) {
		c->smi_counted = true;
		c->smis += g->SmiAfter - g->SmiBefore;
	}
	c->hist[bucket(g->LengthNs)]++;
}

bool kp_noise_next_gap(struct kp_cpu_cursor *c, KPROF_NOISE_GAP *g)
{
	struct kp_record rec;

	while (kp_cursor_next(c, &rec))
		if (rec.h.HookId == KPROF_LOG_TYPE_NOISE_GAP && rec.version == NOISE_GAP_VERSION &&
		    rec.payload_size >= sizeof(*g)) {
			memcpy(g, rec.payload, sizeof(*g));
			return true;
		}
	return false;
}

void kp_noise_free(struct kp_noise_cpu *cpus[KP_NOISE_PASSES])
{
	for (uint32_t p = 0; p < KP_NOISE_PASSES; p++)
		free(cpus[p]);
}

bool kp_noise_gather(struct kp_log *log, struct kp_noise_cpu *cpus[KP_NOISE_PASSES])
{
	for (uint32_t p = 0; p < KP_NOISE_PASSES; p++)
		cpus[p] = kp_xcalloc(log->ncpus ? log->ncpus : 1, sizeof(*cpus[p]));
	bool any = false;
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &rec)) {
			KPROF_NOISE_GAP g;
			KPROF_NOISE_SCAN k;
			if (rec.h.HookId == KPROF_LOG_TYPE_TIMER_LATENCY && rec.version == TIMER_LATENCY_VERSION &&
			    rec.payload_size >= sizeof(cpus[0][cpu].timer)) {
				memcpy(&cpus[0][cpu].timer, rec.payload, sizeof(cpus[0][cpu].timer));
				cpus[0][cpu].timed = any = true;
				continue;
			}
			if (rec.h.HookId == KPROF_LOG_TYPE_NOISE_SCAN && rec.version == NOISE_SCAN_VERSION &&
			    rec.payload_size >= sizeof(k)) {
				memcpy(&k, rec.payload, sizeof(k));
				if (k.Pass >= 1 && k.Pass <= NOISE_PASSES) {
					cpus[k.Pass - 1][cpu].scanned = true;
					cpus[k.Pass - 1][cpu].scan = k;
					any = true;
				}
				continue;
			}
			if (rec.h.HookId != KPROF_LOG_TYPE_NOISE_GAP || rec.version != NOISE_GAP_VERSION ||
			    rec.payload_size < sizeof(g))
				continue;
			memcpy(&g, rec.payload, sizeof(g));
			if (g.Pass < 1 || g.Pass > NOISE_PASSES)
				continue;
			add(&cpus[g.Pass - 1][cpu], &g, log->ncpus);
			any = true;
		}
	}
	return any;
}

/* "8us" for 8000 ns, "1.0ms", "2.1s": a bucket's lower bound. */
static const char *short_ns(char *buf, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%" PRIu64 "us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.1fms", ns / 1e6);
	else
		snprintf(buf, size, "%.1fs", ns / 1e9);
	return buf;
}

static void histogram(FILE *f, const struct noise_cpu *c)
{
	char line[1024] = "", b[24];
	size_t n = 0;
	for (uint32_t i = 0; i < NOISE_BUCKETS && n < sizeof(line); i++)
		if (c->hist[i])
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s>=%s:%" PRIu64, n ? " " : "",
					      short_ns(b, sizeof(b), (uint64_t)1 << i), c->hist[i]);
	kp_wrap(f, "      lengths ", 0, 8, " ", line);
}

/* A CPU's row: from its KprofNoiseScan where there is one (every gap,
 * kept or not, and the time scanned), else from its gap records alone. */
static void cpu_row(FILE *f, uint32_t cpu, const struct noise_cpu *c, double hz)
{
	char smis[24], per_s[24] = "-", scanned[24] = "-";
	uint64_t gaps = c->gaps;
	double total_ms = c->total_ns / 1e6, max_us = c->max_ns / 1e3;

	if (c->scanned && hz > 0) {
		gaps = c->scan.Gaps;
		total_ms = c->scan.GapCycles / hz * 1e3;
		max_us = c->scan.MaxCycles / hz * 1e6;
		snprintf(scanned, sizeof(scanned), "%.1f", c->scan.ScannedCycles / hz * 1e3);
		if (c->scan.ScannedCycles)
			snprintf(per_s, sizeof(per_s), "%.0f", (double)c->scan.GapCycles / c->scan.ScannedCycles * 1e6);
	}
	if (c->smi_counted || (c->scanned && (c->scan.Flags & KPROF_NOISE_GAP_SMI_COUNTED)))
		snprintf(smis, sizeof(smis), "%" PRIu64, c->smis);
	else
		snprintf(smis, sizeof(smis), "not counted");
	fprintf(f, "  %3u %9s %8" PRIu64 " %6" PRIu64 " %8" PRIu64 " %10.3f %10.0f %9s  %s\n", cpu, scanned, gaps,
		c->correlated, c->everyone, total_ms, max_us, per_s, smis);
	if (c->gaps)
		histogram(f, c);
}

static void pass_table(FILE *f, uint32_t pass, const struct noise_cpu *cpus, uint32_t ncpus, double hz)
{
	fprintf(f, "pass %u: %s\n", pass, pass == 1 ? "every CPU at once" : "one CPU a window in turn");
	fprintf(f, "  cpu scanned ms     gaps correl all-cpus   total ms     max us  noise/s  SMIs\n");
	for (uint32_t i = 0; i < ncpus; i++)
		if (cpus[i].any || cpus[i].scanned)
			cpu_row(f, i, &cpus[i], hz);
}

/* The timer latency pass: one row a CPU with a KprofTimerLatency record. */
static void timer_table(FILE *f, const struct noise_cpu *cpus, uint32_t ncpus)
{
	bool head = false;
	for (uint32_t i = 0; i < ncpus; i++) {
		const KPROF_TIMER_LATENCY *t = &cpus[i].timer;
		if (!cpus[i].timed)
			continue;
		if (!head)
			fprintf(f, "timer latency: each CPU's timer every %u us, interrupts on (cyclictest)\n"
				   "  cpu  wake-ups  missed   p50 us   p99 us     max us    mean us\n", t->IntervalUs);
		head = true;
		fprintf(f, "  %3u %9u %7u %7u%s %7u%s %10.1f %10.1f\n", i, t->Samples, t->Missed, t->P50Us,
			t->P50Us >= 1000 ? "+" : " ", t->P99Us, t->P99Us >= 1000 ? "+" : " ", t->MaxNs / 1e3,
			t->Samples ? (double)t->SumNs / t->Samples / 1e3 : 0.0);
	}
}

void kp_report_noise(FILE *f, const struct kp_report *r)
{
	struct noise_cpu *cpus[NOISE_PASSES];
	uint32_t n = r->log->ncpus;

	if (kp_noise_gather(r->log, cpus)) {
		kp_report_section(f, "Noise");
		kp_wrap(f, "", 0, 0, " ",
			"Gaps between two reads of the TSC with interrupts off (scenario=noise, KprofNoiseGap): "
			"time the machine took from the CPU. gaps, total and max count every gap (KprofNoiseScan); "
			"correl: kept gaps another CPU's gap overlapped; all-cpus: every other CPU's did (the whole "
			"machine stopped: an SMI, the hypervisor); noise/s: us of gaps per second scanned; SMIs: "
			"counted over the kept gaps (MSR_SMI_COUNT); lengths: the kept gaps' log2 histogram (a "
			"window keeps its 256 longest). Timer latency: how late each CPU's periodic timer came "
			"(KprofTimerLatency; p50/p99 in 1 us buckets, + for 1000 us or more).");
		for (uint32_t p = 0; p < NOISE_PASSES; p++)
			pass_table(f, p + 1, cpus[p], n, r->m->hz);
		timer_table(f, cpus[0], n);
	}
	kp_noise_free(cpus);
}
