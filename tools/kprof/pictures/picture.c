/*
 * picture.c - XML text, the scenario and colours for the pictures
 * (picture.h).
 */
#include "tools/kprof/pictures/picture.h"

#include <inttypes.h>
#include <string.h>

#include "include/kprof/scenario.h"
#include "tools/kprof/util/utf8.h"

void kp_xml_text(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		unsigned char c = p[i];
		uint32_t cp;
		unsigned len;

		switch (c) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (c >= 0x80 && (len = kp_utf8_decode(p + i, n - i, &cp))) {
				if (cp == 0xFFFE || cp == 0xFFFF)
					fputs("&#xFFFD;", f); /* not characters in XML 1.0 */
				else
					fwrite(p + i, 1, len, f);
				i += len;
				continue;
			}
			if (c >= 0x80)
				fprintf(f, "&#x%X;", c); /* Latin-1 */
			else if (c >= 0x20 || c == '\t' || c == '\n')
				fputc(c, f);
			break;
		}
		i++;
	}
}

const char *kp_scenario_text(const struct kp_log *log, char *buf, size_t size)
{
	/* The name the trace carries (any workload), else the number's (older
	 * logs: the kernel's own workloads). */
	const char *name = log->scenario_name[0] ? log->scenario_name
			   : log->have_header ? kprof_scenario_name(log->header.scenario) : "";

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "#%" PRIu32, log->header.scenario);
	return buf;
}

/* ---------------------------------------------------------------- colours */

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

struct kp_rgb kp_colour_warm(const char *name)
{
	/* flamegraph.pl's "hot": red 205..255, green 0..230, blue 0..55 */
	uint32_t h = fnv1a(name);
	double v1 = (h & 0x3FF) / 1023.0, v2 = ((h >> 10) & 0x3FF) / 1023.0, v3 = ((h >> 20) & 0x3FF) / 1023.0;
	return (struct kp_rgb){ (uint8_t)(205 + 50 * v3), (uint8_t)(230 * v1), (uint8_t)(55 * v2) };
}

static double hue_part(double p, double q, double t)
{
	if (t < 0)
		t += 1;
	if (t > 1)
		t -= 1;
	if (t < 1.0 / 6)
		return p + (q - p) * 6 * t;
	if (t < 0.5)
		return q;
	if (t < 2.0 / 3)
		return p + (q - p) * (2.0 / 3 - t) * 6;
	return p;
}

struct kp_rgb kp_colour_hsl(double h, double s, double l)
{
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	return (struct kp_rgb){ (uint8_t)(255 * hue_part(p, q, h + 1.0 / 3) + 0.5),
				(uint8_t)(255 * hue_part(p, q, h) + 0.5),
				(uint8_t)(255 * hue_part(p, q, h - 1.0 / 3) + 0.5) };
}

const char *kp_colour_hex(struct kp_rgb c, char *buf)
{
	snprintf(buf, 8, "#%02x%02x%02x", c.r, c.g, c.b);
	return buf;
}
