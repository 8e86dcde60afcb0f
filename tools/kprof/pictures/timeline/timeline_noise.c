/*
 * timeline_noise.c - scenario=noise's gaps (KprofNoiseGap: time the
 * machine took from a CPU scanning the TSC with interrupts off;
 * docs/noise.md) on that CPU's row of `kprof timeline`: a purple band
 * across the run band from each gap's Start for its Cycles (the raw TSC
 * reads around it).  Gaps that start within a pixel of the band before
 * are drawn as one band, its tooltip counting them, their total and the
 * longest, so a CPU's row holds at most about one band a pixel however
 * many gaps it has.
 */
#include <inttypes.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/noise/noise.h"
#include "tools/kprof/pictures/timeline/timeline.h"
#include "tools/kprof/read/records.h"

#define TL_NOISE_COLOUR "#8a2be2"

struct band {
	uint64_t start, end, total, longest;
	uint32_t gaps, correlated;
};

static void draw_band(const struct tl *t, uint32_t cpu, const struct band *b)
{
	double y = tl_row_y(cpu) + TL_RUN_Y;
	double x0 = tl_px(t, b->start < t->t0 ? t->t0 : b->start), x1 = tl_px(t, b->end > t->t1 ? t->t1 : b->end);
	char total[32], longest[32];

	if (x1 - x0 < TL_MIN_PX)
		x1 = x0 + TL_MIN_PX;
	fprintf(t->f, "<rect class=\"noise\" x=\"%.2f\" y=\"%.1f\" width=\"%.3f\" height=\"%.0f\" fill=\"%s\" "
		      "fill-opacity=\"0.7\"><title>CPU %u: %" PRIu32 " noise gap%s (%" PRIu32 " correlated) from +%.6f "
		      "ms, %s in all, the longest %s: the machine took the CPU while it read the TSC with interrupts off"
		      "</title></rect>\n",
		x0, y, x1 - x0, TL_RUN_H, TL_NOISE_COLOUR, cpu, b->gaps, b->gaps == 1 ? "" : "s", b->correlated,
		kp_model_ms(t->m, b->start), tl_duration(t, b->total, total, sizeof(total)),
		tl_duration(t, b->longest, longest, sizeof(longest)));
}

void tl_draw_noise(const struct tl *t, uint32_t cpu)
{
	struct kp_cpu_cursor c;
	struct band b = { 0 };
	double px = tl_px_cycles(t);
	KPROF_NOISE_GAP g;

	kp_cursor_init(&c, (struct kp_log *)t->log, cpu);
	while (kp_noise_next_gap(&c, &g)) {
		uint64_t s = g.Start, e = g.Start + g.Cycles;
		if (e <= t->t0 || s >= t->t1)
			continue; /* outside this view (a phase's picture) */
		if (b.gaps && s >= b.start && (double)s <= (double)b.end + px) {
			b.end = e > b.end ? e : b.end;
		} else {
			if (b.gaps)
				draw_band(t, cpu, &b);
			b = (struct band){ .start = s, .end = e };
		}
		b.gaps++;
		b.correlated += (g.Flags & KPROF_NOISE_GAP_CORRELATED) != 0;
		b.total += g.Cycles;
		b.longest = g.Cycles > b.longest ? g.Cycles : b.longest;
	}
	if (b.gaps)
		draw_band(t, cpu, &b);
}
