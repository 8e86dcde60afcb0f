/*
 * flame.c - `kprof flamegraph LOG --kernel ELF -o FILE.svg`: a flame
 * graph of the sampled stacks, in the style of Brendan Gregg's
 * flamegraph.pl.
 *
 * Each StackWalk record (innermost address first; the first is the
 * sampled instruction pointer) is one stack.  It weighs the Count of its
 * SampledProfile (the one on the same CPU whose TimeStamp is the stack's
 * EventTimeStamp: the profile periods the sample stands for), or 1 for the
 * stack of a PMC sample or one whose sample is not in the log.  Addresses
 * become function names through the kernel's symbols (return addresses
 * looked up one byte back, at the call), and identical names are merged
 * level by level into a prefix tree: the root "all" at the bottom, each
 * frame as wide as its share of the samples, callers under callees,
 * siblings in alphabetical order as flamegraph.pl sorts them, colours
 * from a hash of the name in the warm palette.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/read/symbols.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/format.h"
#include "tools/kprof/util/outfile.h"
#include "tools/kprof/util/sort.h"

#define WIDTH       1200.0  /* the picture, px                            */
#define XPAD        10.0
#define FRAME_H     16.0
#define TOP         64.0    /* title and subtitle                         */
#define BOTTOM      34.0    /* the command line under the frames          */
#define FONT_SIZE   12.0
#define CHAR_W      (FONT_SIZE * 0.59) /* average glyph width              */
#define MIN_WIDTH   0.1     /* narrower frames (and their callers) are    */
                            /* left out, as flamegraph.pl's --minwidth     */

/* ---------------------------------------------------------------- tree */

struct node {
	char *name;
	uint64_t weight;
	size_t child, sibling;  /* index + 1 of the first child / next sibling; 0 none */
};

struct flame {
	struct node *nodes;
	size_t nnodes, cap;
	unsigned depth;         /* deepest stack, frames                      */
	uint64_t total;         /* weight of all stacks                       */
	uint64_t stacks, matched, pmc, unmatched, empty;
	const struct kp_symbols *syms;
};

static size_t add_node(struct flame *fl, const char *name)
{
	if (fl->nnodes == fl->cap) {
		fl->cap = fl->cap ? 2 * fl->cap : 256;
		fl->nodes = kp_xrealloc(fl->nodes, fl->cap, sizeof(*fl->nodes));
	}
	fl->nodes[fl->nnodes] = (struct node){ .name = kp_xstrdup(name) };
	return fl->nnodes++;
}

static size_t child_named(struct flame *fl, size_t parent, const char *name)
{
	for (size_t c = fl->nodes[parent].child; c; c = fl->nodes[c - 1].sibling)
		if (!strcmp(fl->nodes[c - 1].name, name))
			return c - 1;
	size_t n = add_node(fl, name);
	fl->nodes[n].sibling = fl->nodes[parent].child;
	fl->nodes[parent].child = n + 1;
	return n;
}

/* The function at a stack entry: the sampled address itself, a return
 * address one byte back (the call, which may be a function's last
 * instruction). */
static const char *frame_name(const struct flame *fl, uint64_t addr, bool is_return, char *buf, size_t size)
{
	const char *name;
	uint64_t start, len;

	if (kp_symbols_lookup(fl->syms, is_return ? addr - 1 : addr, &name, &start, &len))
		return name;
	snprintf(buf, size, "0x%016" PRIx64, addr);
	return buf;
}

static void add_stack(struct flame *fl, const uint8_t *stack, size_t n, uint64_t weight)
{
	size_t node = 0;
	char buf[32];

	fl->nodes[0].weight += weight;
	fl->total += weight;
	for (size_t i = n; i-- > 0;) { /* outermost caller first */
		uint64_t addr;
		memcpy(&addr, stack + 8 * i, 8);
		node = child_named(fl, node, frame_name(fl, addr, i > 0, buf, sizeof(buf)));
		fl->nodes[node].weight += weight;
	}
	if (n > fl->depth)
		fl->depth = (unsigned)n;
}

/* ---------------------------------------------------------------- samples */

static int cmp_sample_ts(const void *key, const void *elem)
{
	return kp_cmp_u64(*(const uint64_t *)key, ((const struct kp_sample *)elem)->ts);
}

/* The weight of a stack: its SampledProfile's Count (at least 1), else 1;
 * the CPU's samples are sorted by time. */
static uint64_t stack_weight(struct flame *fl, const struct kp_model_cpu *c, uint64_t event_ts)
{
	const struct kp_sample *hit =
		c->nsamples ? bsearch(&event_ts, c->samples, c->nsamples, sizeof(*c->samples), cmp_sample_ts) : NULL;

	if (!hit) {
		fl->unmatched++;
		return 1;
	}
	if (hit->pmc) {
		fl->pmc++;
		return 1;
	}
	fl->matched++;
	return hit->count ? hit->count : 1;
}

static void read_cpu_stacks(struct flame *fl, struct kp_log *log, const struct kp_model *m, uint32_t cpu)
{
	struct kp_cpu_cursor c;
	struct kp_record r;

	kp_cursor_init(&c, log, cpu);
	while (kp_cursor_next(&c, &r)) {
		if (r.h.HookId != PERFINFO_LOG_TYPE_STACKWALK || r.payload_size < sizeof(STACK_WALK_EVENT_DATA))
			continue;
		uint64_t event_ts;
		size_t frames = (r.payload_size - sizeof(STACK_WALK_EVENT_DATA)) / 8;
		memcpy(&event_ts, r.payload, 8);
		fl->stacks++;
		if (!frames) {
			fl->empty++;
			continue;
		}
		add_stack(fl, r.payload + sizeof(STACK_WALK_EVENT_DATA), frames, stack_weight(fl, &m->cpu[cpu], event_ts));
	}
}

/* ---------------------------------------------------------------- drawing */

struct draw {
	FILE *f;
	const struct flame *fl;
	double height;          /* of the picture                             */
	double scale;           /* px per unit of weight                      */
};

static int cmp_node_name(const void *a, const void *b)
{
	return strcmp((*(const struct node *const *)a)->name, (*(const struct node *const *)b)->name);
}

/* The label that fits w px: the name, or its start and "..", or none. */
static void frame_label(FILE *f, const char *name, double x, double y, double w)
{
	int fit = (int)((w - 6) / CHAR_W);
	char buf[512];

	if (fit < 3)
		return;
	kp_cut(buf, sizeof(buf), name, (size_t)fit, "..");
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">", x + 3, y + FRAME_H - 4.5);
	kp_xml_text(f, buf);
	fputs("</text>", f);
}

static void draw_node(struct draw *d, const struct node *n, double x, unsigned level)
{
	double w = (double)n->weight * d->scale, y = d->height - BOTTOM - (level + 1) * FRAME_H;
	char hex[8], pct[16];

	if (w < MIN_WIDTH)
		return;
	fputs("<g class=\"frame\"><title>", d->f);
	kp_xml_text(d->f, n->name);
	fprintf(d->f, " (%" PRIu64 " samples, %s)</title>", n->weight, kp_pct(pct, sizeof(pct), n->weight, d->fl->total, 2));
	fprintf(d->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" fill=\"%s\"/>", x, y, w,
		FRAME_H - 1, kp_colour_hex(level ? kp_colour_warm(n->name) : (struct kp_rgb){ 0xE0, 0x70, 0x40 }, hex));
	frame_label(d->f, n->name, x, y, w);
	fputs("</g>\n", d->f);

	size_t nc = 0;
	for (size_t c = n->child; c; c = d->fl->nodes[c - 1].sibling)
		nc++;
	const struct node **kids = kp_xrealloc(NULL, nc ? nc : 1, sizeof(*kids));
	nc = 0;
	for (size_t c = n->child; c; c = d->fl->nodes[c - 1].sibling)
		kids[nc++] = &d->fl->nodes[c - 1];
	kp_sort(kids, nc, sizeof(*kids), cmp_node_name);
	for (size_t i = 0; i < nc; i++) {
		draw_node(d, kids[i], x, level + 1);
		x += (double)kids[i]->weight * d->scale;
	}
	free(kids);
}

static void draw_header(FILE *f, const struct flame *fl, const struct kp_log *log, double height)
{
	char scenario[64];

	kp_scenario_text(log, scenario, sizeof(scenario));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"%.0f\">\n",
		WIDTH, height, WIDTH, height, FONT_SIZE);
	fputs("<style>.frame:hover rect{stroke:#000;stroke-width:0.6} .frame text{fill:#000;pointer-events:none}\n"
	      ".title{font-size:17px;text-anchor:middle} .subtitle{fill:#444;text-anchor:middle}"
	      " .footer{fill:#666;font-size:10px}</style>\n", f);
	fputs("<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#background)\"/>\n", WIDTH, height);
	fprintf(f, "<text class=\"title\" x=\"%.0f\" y=\"26\">kprof flame graph%s", WIDTH / 2,
		scenario[0] ? ": scenario " : "");
	kp_xml_text(f, scenario);
	fprintf(f, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"48\">%" PRIu64 " samples in %" PRIu64
		   " stacks on %u CPU%s (a stack weighs its SampledProfile's Count", WIDTH / 2, fl->total,
		fl->stacks - fl->empty, log->ncpus, log->ncpus == 1 ? "" : "s");
	if (fl->pmc || fl->unmatched)
		fprintf(f, "; %" PRIu64 " PMC and %" PRIu64 " unmatched stacks weigh 1", fl->pmc, fl->unmatched);
	fputs(")</text>\n", f);
}

static void draw_footer(FILE *f, const struct kp_log *log, const char *kernel, double height)
{
	fprintf(f, "<text class=\"footer\" x=\"%.0f\" y=\"%.0f\">", XPAD, height - 12);
	if (log->cmdline[0]) {
		fputs("command line: ", f);
		kp_xml_text(f, log->cmdline);
		fputs("; ", f);
	}
	fputs("symbols: ", f);
	kp_xml_text(f, kernel);
	fputs("</text>\n</svg>\n", f);
}

static void draw(FILE *f, const struct flame *fl, const struct kp_log *log, const char *kernel)
{
	struct draw d = { .f = f, .fl = fl, .height = TOP + (fl->depth + 1) * FRAME_H + BOTTOM,
			  .scale = (WIDTH - 2 * XPAD) / (double)fl->total };

	draw_header(f, fl, log, d.height);
	fputs("<g id=\"frames\">\n", f);
	draw_node(&d, &fl->nodes[0], XPAD, 0);
	fputs("</g>\n", f);
	draw_footer(f, log, kernel, d.height);
}

/* ---------------------------------------------------------------- command */

static bool has_stacks(struct kp_log *log)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &r))
			if (r.h.HookId == PERFINFO_LOG_TYPE_STACKWALK &&
			    r.payload_size >= sizeof(STACK_WALK_EVENT_DATA) + 8)
				return true;
	}
	return false;
}

static void flame_free(struct flame *fl)
{
	for (size_t i = 0; i < fl->nnodes; i++)
		free(fl->nodes[i].name);
	free(fl->nodes);
}

int kp_cmd_flamegraph(struct kp_log *log, const struct kp_options *o)
{
	struct flame fl = { 0 };
	struct kp_symbols *syms;
	struct kp_model m;

	if (!o->kernel) {
		fprintf(stderr, "kprof: flamegraph needs --kernel ELF (the kernel that recorded the log, for "
				"its function names)\n");
		return 2;
	}
	if (!has_stacks(log)) {
		fprintf(stderr, "kprof: %s: no StackWalk records: run with trace=stack (and trace=profile or "
				"trace=pmc)\n", o->input);
		return 3;
	}
	if (!kp_symbols_for(o->kernel, &syms))
		return 3;
	fl.syms = syms;
	kp_model_build(&m, log);
	add_node(&fl, "all");
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++)
		read_cpu_stacks(&fl, log, &m, cpu);
	FILE *f = kp_out_open(o->output);
	int rc = 3;
	if (f) {
		draw(f, &fl, log, o->kernel);
		rc = kp_out_close(f, o->output);
	}
	flame_free(&fl);
	kp_model_free(&m);
	kp_symbols_close(syms);
	return rc ? rc : kp_summary(log, o, o->output);
}
