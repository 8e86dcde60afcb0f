/*
 * timeline_resources.c - the ERESOURCE row of `kprof timeline`, under the
 * CPUs: the executive-resource waits, in their own colour
 * (TL_RES_COLOUR), merged and shaded by their waiting share as the
 * spin-lock waits are (timeline_bands.c).
 *
 * A waiting thread is blocked, not on a CPU, so its wait belongs to no
 * CPU's row.  The waits are those the report's Executive resources section
 * counts (report/locks/resources.c, docs/resources.md): every release
 * (CompleteReleaseExclusive or CompleteReleaseShared) with a WaitTime,
 * from AcquireTime - WaitTime to AcquireTime.  Waits of several threads at
 * once count once in a band's share (their union); the tooltip names the
 * resource (KprofObjectName), the thread and the hold that followed.  The
 * waits are the plan's (timeline_plan.c), gathered as the model is made:
 * the model keeps no Resource record.
 */
#include "tools/kprof/pictures/timeline/timeline.h"

#include <inttypes.h>
#include <stdlib.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

bool tl_resource_waited(const WMI_RESOURCE *r)
{
	bool release = r->Action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE ||
		       r->Action == WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED;

	return release && r->WaitTime && r->WaitTime <= r->AcquireTime;
}

bool tl_has_resources(const struct tl *t)
{
	return t->plan->res->records > 0;
}

static int by_start(const void *a, const void *b)
{
	const struct tl_interval *x = a, *y = b;
	if (x->start != y->start)
		return kp_cmp_u64(x->start, y->start);
	return kp_cmp_u64(x->i, y->i);
}

static void wait_title(const struct tl *t, const struct tl_res_wait *r)
{
	char d[32], h[32], label[64];

	fprintf(t->f, "ERESOURCE wait of %s from +%.6f ms\nresource ", tl_duration(t, r->wait, d, sizeof(d)),
		kp_model_ms(t->m, r->acquire - r->wait));
	tl_object_label(t, r->resource, r->acquire);
	fprintf(t->f, " (%s)\nthread ", r->exclusive ? "exclusive" : "shared");
	kp_xml_text(t->f, kp_model_thread_label(t->m, r->tid, label, sizeof(label)));
	fprintf(t->f, ", then held it for %s", tl_duration(t, r->hold, h, sizeof(h)));
}

/* The bands' intervals (by start) and the waits they index. */
struct res_ctx {
	const struct tl_interval *v;
	const struct tl_res_wait *waits;
};

static const struct tl_res_wait *res_of(size_t i, const void *ctx)
{
	const struct res_ctx *c = ctx;
	return &c->waits[c->v[i].i];
}

static void res_title(const struct tl *t, size_t i, const void *ctx)
{
	wait_title(t, res_of(i, ctx));
}

static uint64_t res_object(size_t i, const void *ctx, uint64_t *ts)
{
	const struct tl_res_wait *r = res_of(i, ctx);
	*ts = r->acquire;
	return r->resource;
}

static const struct tl_wait_kind eresource = { "ERESOURCE", "resource", TL_RES_COLOUR, "reswait", res_title,
					       res_object };

unsigned tl_draw_resources(const struct tl *t, uint32_t row)
{
	const struct tl_res_waits *w = t->plan->res;
	struct tl_interval *v;
	size_t n = w->n, shown = 0;
	double y = tl_row_y(row);

	if (!tl_has_resources(t))
		return 0;
	v = kp_xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = (struct tl_interval){ w->v[i].acquire - w->v[i].wait, w->v[i].acquire, i };
	kp_sort(v, n, sizeof(*v), by_start);
	for (size_t i = 0; i < n; i++)
		shown += v[i].end > t->t0 && v[i].start < t->t1;
	fprintf(t->f, "<g class=\"resources\" id=\"resources\">\n<text class=\"cpulabel\" x=\"%.0f\" y=\"%.1f\">"
		      "ERESOURCE</text>\n<text class=\"cpubusy\" x=\"%.0f\" y=\"%.1f\">%zu waits</text>\n"
		      "<rect class=\"lane\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"#f4f4f4\"/>\n",
		TL_LEFT - 10, y + TL_RES_Y + 11, TL_LEFT - 10, y + TL_RES_Y + 24, shown, TL_LEFT, y + TL_RES_Y, TL_PLOT_W,
		TL_RES_H);
	struct res_ctx ctx = { v, w->v };
	tl_draw_bands(t, v, sizeof(*v), n, y + TL_RES_Y, TL_RES_H, &eresource, &ctx);
	fputs("</g>\n", t->f);
	free(v);
	return 1;
}
