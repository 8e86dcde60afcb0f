/*
 * noise.c - the report's noise section: scenario=noise's KprofNoiseGap
 * records (include/kprof/wmi.h, docs/noise.md) per pass and per CPU:
 * gaps, correlated ones (and those every other CPU saw at once), total,
 * longest, SMIs counted over them, the gaps a window did not keep, and a
 * log2 histogram of the lengths.  Left out of logs without such records.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/report/report.h"
#include "tools/kprof/util/alloc.h"

#define NOISE_PASSES 2
#define NOISE_BUCKETS 40 /* log2 of ns: bucket b holds [2^b, 2^(b+1)) */

struct noise_cpu {
	uint64_t gaps, correlated, everyone, total_ns, max_ns, smis, unkept;
	bool smi_counted, any;
	uint32_t last_window; /* Unkept is per window: counted at its first record */
	bool window_seen;
	uint64_t hist[NOISE_BUCKETS];
};

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
	if (!c->window_seen || g->Window != c->last_window)
		c->unkept += g->Unkept;
	c->window_seen = true;
	c->last_window = g->Window;
	c->hist[bucket(g->LengthNs)]++;
}

/* Read every CPU's gaps into cpus[pass - 1][cpu]; false if there are none. */
static bool gather(struct kp_log *log, struct noise_cpu *cpus[NOISE_PASSES])
{
	bool any = false;
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record rec;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &rec)) {
			KPROF_NOISE_GAP g;
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

static void pass_table(FILE *f, uint32_t pass, const struct noise_cpu *cpus, uint32_t ncpus)
{
	fprintf(f, "pass %u: %s\n", pass, pass == 1 ? "every CPU at once" : "one CPU a window in turn");
	fprintf(f, "  cpu     gaps correl  all-cpus   total ms     max us   not kept  SMIs\n");
	for (uint32_t i = 0; i < ncpus; i++) {
		const struct noise_cpu *c = &cpus[i];
		char smis[24];
		if (!c->any)
			continue;
		if (c->smi_counted)
			snprintf(smis, sizeof(smis), "%" PRIu64, c->smis);
		else
			snprintf(smis, sizeof(smis), "not counted");
		fprintf(f, "  %3u %8" PRIu64 " %6" PRIu64 " %9" PRIu64 " %10.3f %10" PRIu64 " %10" PRIu64 "  %s\n", i,
			c->gaps, c->correlated, c->everyone, c->total_ns / 1e6, c->max_ns / 1000, c->unkept, smis);
		histogram(f, c);
	}
}

void kp_report_noise(FILE *f, const struct kp_report *r)
{
	struct noise_cpu *cpus[NOISE_PASSES];
	uint32_t n = r->log->ncpus;

	for (uint32_t p = 0; p < NOISE_PASSES; p++)
		cpus[p] = kp_xcalloc(n ? n : 1, sizeof(*cpus[p]));
	if (gather(r->log, cpus)) {
		kp_report_section(f, "Noise");
		kp_wrap(f, "", 0, 0, " ",
			"Gaps between two reads of the TSC with interrupts off (scenario=noise, KprofNoiseGap): "
			"time the machine took from the CPU. correl: gaps another CPU's gap overlapped; all-cpus: "
			"every other CPU's did (the whole machine stopped: an SMI, the hypervisor); not kept: "
			"shorter gaps beyond the 256 a window keeps, in no record (in no column but this one); "
			"SMIs: counted over the gaps (MSR_SMI_COUNT).");
		for (uint32_t p = 0; p < NOISE_PASSES; p++)
			pass_table(f, p + 1, cpus[p], n);
	}
	for (uint32_t p = 0; p < NOISE_PASSES; p++)
		free(cpus[p]);
}
