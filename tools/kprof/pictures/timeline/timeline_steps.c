/*
 * timeline_steps.c - the steps back of a CPU's clock on its row of
 * `kprof timeline` (model.h: the kernel's KprofClockStep records, or the
 * stamps of an older kernel that went back and the decoder raised): an
 * orange bar across the run band where it happened, with a tooltip of how
 * far the clock went back and who clamped it.  The stamps after it lag the
 * clock by up to that much until it catches up.
 */
#include <inttypes.h>

#include "tools/kprof/pictures/timeline/timeline.h"

#define TL_STEP_COLOUR "#e07000"

void tl_draw_steps(const struct tl *t, const struct kp_model_cpu *c, uint32_t cpu)
{
	double y = tl_row_y(cpu) + TL_RUN_Y - 2;
	char d[32];

	for (size_t i = 0; i < c->nsteps; i++) {
		const struct kp_clock_step *s = &c->steps[i];
		if (s->ts < t->t0 || s->ts > t->t1)
			continue;
		fprintf(t->f, "<rect class=\"clockstep\" x=\"%.2f\" y=\"%.1f\" width=\"2\" height=\"%.0f\" fill=\"%s\">"
			      "<title>CPU %u: its %s went back %s (%" PRIu64 " cycles) at +%.6f ms; %s</title></rect>\n",
			tl_px(t, s->ts) - 1, y, TL_RUN_H + 4, TL_STEP_COLOUR, cpu, s->kernel ? "clock" : "stamps",
			tl_duration(t, s->back, d, sizeof(d)), s->back, kp_model_ms(t->m, s->ts),
			s->kernel ? "the kernel clamped the stamps after it (KprofClockStep)"
				  : "an older kernel: the decoder gave the record the stamp before it");
	}
}
