/*
 * flame_svg.c - the flame graph as SVG (flame.h): the root "all" at the
 * bottom, each frame as wide as its share of the samples, callers under
 * callees, siblings in alphabetical order as flamegraph.pl sorts them.
 *
 * Each frame is
 *   <g class="frame[ root|process|thread]" data-s="S" data-n="N">
 *     <title>NAME (N samples, P%)</title><rect/>[<text>label</text>]</g>
 * N is its samples, S the samples left of it (its offset from the root's
 * left edge), so the script (flame.js) zooms and searches in exact sample
 * counts, not pixels; the title is the tooltip without any script, and
 * the script reads the name back from it (all before the last " (").
 * Labels here are cut to an estimated glyph width; the script measures
 * the real text and fits them again, also after every zoom.
 *
 * Colours: functions from a hash of the name, in flamegraph.pl's warm
 * "hot" palette, greys for the idle thread's and blues for the trace
 * sender's; processes lavender, threads green, the root tan.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/pictures/flame/flame.h"
#include "tools/kprof/pictures/picture.h"
#include "tools/kprof/util/format.h"

#define WIDTH       1200.0  /* the picture, px                            */
#define XPAD        10.0
#define FRAME_H     16.0
#define TOP         64.0    /* title, subtitle and the two controls      */
#define BOTTOM      50.0    /* the details line and the command line     */
#define FONT_SIZE   12.0
#define CHAR_W      (FONT_SIZE * 0.59) /* average glyph width              */
#define MIN_WIDTH   0.1     /* narrower frames (so their callees too) are */
                            /* left out, as flamegraph.pl's --minwidth     */

struct draw {
	FILE *f;
	const struct kp_flame *fl;
	double height;          /* of the picture                             */
	double scale;           /* px per sample                              */
	const struct kp_flame_style *style; /* NULL: the plain one            */
};

/* ---------------------------------------------------------------- colours */

/* Three numbers in [0, 1] from a name, the same every run. */
static void name_hash(const char *name, double v[3])
{
	uint32_t h = 5381;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = h * 33 + *p;
	h ^= h >> 15;
	h *= 0x2C1B3C6Du;
	h ^= h >> 12;
	for (int i = 0; i < 3; i++)
		v[i] = ((h >> (10 * i)) & 0x3FF) / 1023.0;
}

static struct kp_rgb rgb(double r, double g, double b)
{
	return (struct kp_rgb){ (uint8_t)r, (uint8_t)g, (uint8_t)b };
}

static struct kp_rgb frame_colour(const struct kp_flame_node *n)
{
	double v[3];

	name_hash(n->name, v);
	switch (n->kind) {
	case KP_FLAME_ROOT: return rgb(0xD8, 0xC8, 0xB0);
	case KP_FLAME_PROCESS: return rgb(175 + 30 * v[0], 165 + 30 * v[0], 225 + 30 * v[1]);
	case KP_FLAME_THREAD: return rgb(140 + 40 * v[0], 200 + 40 * v[1], 140 + 40 * v[2]);
	default: break;
	}
	if (n->tone == KP_TONE_IDLE) {
		double l = 170 + 50 * v[0];
		return rgb(l, l, l);
	}
	if (n->tone == KP_TONE_SENDER)
		return rgb(70 + 60 * v[0], 150 + 60 * v[1], 205 + 50 * v[2]);
	return kp_colour_warm(n->name);
}

/* ---------------------------------------------------------------- frames */

static const char *const kind_class[] = {
	[KP_FLAME_ROOT] = "frame root",
	[KP_FLAME_PROCESS] = "frame process",
	[KP_FLAME_THREAD] = "frame thread",
	[KP_FLAME_FUNCTION] = "frame",
};

/* The label that fits w px by the estimate: the name, or its start and
 * "..", or none (the script adds a <text> where the real text fits). */
static void frame_label(FILE *f, const char *name, double x, double y, double w)
{
	int fit = (int)((w - 6) / CHAR_W);
	char buf[512];

	if (fit < 3)
		return;
	fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">", x + 3, y + FRAME_H - 4.5);
	kp_xml_text(f, kp_cut(buf, sizeof(buf), name, (size_t)fit, ".."));
	fputs("</text>", f);
}

/* node at level (0 the root), s samples from the root's left edge. */
static void draw_node(struct draw *d, const struct kp_flame_node *n, uint64_t s, unsigned level)
{
	double x = XPAD + (double)s * d->scale, w = (double)n->weight * d->scale;
	double y = d->height - BOTTOM - (level + 1) * FRAME_H;
	char hex[8], pct[16];

	if (w < MIN_WIDTH)
		return;
	fprintf(d->f, "<g class=\"%s\" data-s=\"%" PRIu64 "\" data-n=\"%" PRIu64 "\"><title>", kind_class[n->kind], s,
		n->weight);
	kp_xml_text(d->f, n->name);
	fprintf(d->f, " (%" PRIu64 " samples, %s", n->weight, kp_pct(pct, sizeof(pct), n->weight, d->fl->total, 2));
	if (d->style && d->style->note)
		d->style->note(d->f, d->fl, (size_t)(n - d->fl->nodes), d->style->ctx);
	fputs(")</title>", d->f);
	struct kp_rgb fill = d->style && d->style->colour ? d->style->colour(d->fl, (size_t)(n - d->fl->nodes),
									     d->style->ctx)
							   : frame_colour(n);
	fprintf(d->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.1f\" rx=\"2\" fill=\"%s\"/>", x, y, w,
		FRAME_H - 1, kp_colour_hex(fill, hex));
	frame_label(d->f, n->name, x, y, w);
	fputs("</g>\n", d->f);

	size_t nc;
	const struct kp_flame_node **kids = kp_flame_children(d->fl, n, &nc);
	for (size_t i = 0; i < nc; i++) {
		draw_node(d, kids[i], s, level + 1);
		s += kids[i]->weight;
	}
	free(kids);
}

/* ---------------------------------------------------------------- the rest */

static void draw_header(FILE *f, const struct kp_flame *fl, const struct kp_log *log, double height,
			const struct kp_flame_style *style)
{
	const char *title = style && style->title ? style->title : "kprof flame graph";
	char scenario[64];

	kp_scenario_text(log, scenario, sizeof(scenario));
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	fprintf(f, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, DejaVu Sans, sans-serif\" font-size=\"%.0f\">\n",
		WIDTH, height, WIDTH, height, FONT_SIZE);
	/* the document's name: a browser tab's title, what a screen reader says */
	fputs("<title>", f);
	kp_xml_text(f, title);
	if (scenario[0]) {
		fputs(": scenario ", f);
		kp_xml_text(f, scenario);
	}
	fputs("</title>\n", f);
	fputs("<style>.frame{cursor:pointer} .frame:hover rect{stroke:#000;stroke-width:0.6}\n"
	      ".frame text{fill:#000;pointer-events:none} .frame.match rect{fill:#d21ed2}\n"
	      ".frame.parent{opacity:0.55} .hide{display:none}\n"
	      ".control{fill:#333;cursor:pointer} .control:hover,.control:focus{fill:#000;text-decoration:underline}\n"
	      ".title{font-size:17px;text-anchor:middle} .subtitle{fill:#444;text-anchor:middle}"
	      " .footer{fill:#666;font-size:10px} .end{text-anchor:end}</style>\n", f);
	fputs("<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
	      "</linearGradient></defs>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#background)\"/>\n", WIDTH, height);
	fprintf(f, "<text class=\"title\" x=\"%.0f\" y=\"26\">", WIDTH / 2);
	kp_xml_text(f, title);
	fputs(scenario[0] ? ": scenario " : "", f);
	kp_xml_text(f, scenario);
	if (style && style->subtitle) {
		fprintf(f, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"48\">", WIDTH / 2);
		kp_xml_text(f, style->subtitle);
		fputs("</text>\n", f);
		return;
	}
	fprintf(f, "</text>\n<text class=\"subtitle\" x=\"%.0f\" y=\"48\">%" PRIu64 " samples in %" PRIu64
		   " stacks on %u CPU%s (a stack weighs its SampledProfile's Count", WIDTH / 2, fl->total,
		fl->stacks - fl->empty, log->ncpus, log->ncpus == 1 ? "" : "s");
	if (fl->pmc || fl->unmatched)
		fprintf(f, "; %" PRIu64 " PMC and %" PRIu64 " unmatched stacks weigh 1", fl->pmc, fl->unmatched);
	fputs(")</text>\n", f);
}

/* Reset Zoom (shown while zoomed), Search, the details line and the
 * search's Matched share: the script's; without it only Search shows. */
static void draw_controls(FILE *f, double height)
{
	fprintf(f, "<text id=\"unzoom\" class=\"control hide\" x=\"%.0f\" y=\"26\" tabindex=\"0\" role=\"button\">"
		   "<title>Show the whole graph again</title>Reset Zoom</text>\n", XPAD);
	fprintf(f, "<text id=\"search\" class=\"control end\" x=\"%.0f\" y=\"26\" tabindex=\"0\" role=\"button\">"
		   "<title>Highlight the frames whose name matches a regular expression (Ctrl-F)</title>Search</text>\n",
		WIDTH - XPAD);
	fprintf(f, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", XPAD, height - 30);
	fprintf(f, "<text id=\"matched\" class=\"end\" x=\"%.0f\" y=\"%.0f\"> </text>\n", WIDTH - XPAD, height - 30);
}

static void draw_footer(FILE *f, const struct kp_log *log, const char *kernel, double height)
{
	fprintf(f, "<text class=\"footer\" x=\"%.0f\" y=\"%.0f\">", XPAD, height - 10);
	if (log->cmdline[0]) {
		fputs("command line: ", f);
		kp_xml_text(f, log->cmdline);
		fputs("; ", f);
	}
	fputs("symbols: ", f);
	kp_xml_text(f, kernel);
	fputs("</text>\n", f);
}

void kp_flame_svg(FILE *f, const struct kp_flame *fl, const struct kp_log *log, const char *kernel)
{
	kp_flame_svg_styled(f, fl, log, kernel, NULL);
}

void kp_flame_svg_styled(FILE *f, const struct kp_flame *fl, const struct kp_log *log, const char *kernel,
			 const struct kp_flame_style *style)
{
	struct draw d = { .f = f, .fl = fl, .height = TOP + (fl->depth + 1) * FRAME_H + BOTTOM,
			  .scale = (WIDTH - 2 * XPAD) / (double)fl->total, .style = style };

	draw_header(f, fl, log, d.height, style);
	draw_controls(f, d.height);
	fputs("<g id=\"frames\">\n", f);
	draw_node(&d, &fl->nodes[0], 0, 0);
	fputs("</g>\n", f);
	draw_footer(f, log, kernel, d.height);
	/* tools.mk makes sure flame.js has no "]]>" to end the section */
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n", kp_flame_js);
}
