/*
 * picture.h - what the SVG pictures (flame.c, timeline.c) share: text as
 * XML, colours, and the scenario their titles name.
 */
#ifndef KPROF_TOOL_PICTURE_H
#define KPROF_TOOL_PICTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/read/log.h"

/* s as XML character data or an attribute value: & < > " ' escaped,
 * control characters other than tab and newline dropped (XML 1.0 allows
 * them nowhere), well-formed UTF-8 as it is (U+FFFE and U+FFFF, which XML
 * does not allow either, as U+FFFD), and any other byte from 0x80
 * as a reference to the Latin-1 character it would be - the rule of the
 * JSON writer (util/json.h), so the file stays valid UTF-8 and a name
 * reads the same in the SVG and the JSON. */
void kp_xml_text(FILE *f, const char *s);

/* The run's workload, from the run header's scenario number ("sched"),
 * "#N" for a number this tool does not know, "" without a run header;
 * returns buf. */
const char *kp_scenario_text(const struct kp_log *log, char *buf, size_t size);

struct kp_rgb {
	uint8_t r, g, b;
};

/* Flame-graph "hot" palette (reds, oranges, yellows) from a hash of name:
 * the same name always gets the same colour. */
struct kp_rgb kp_colour_warm(const char *name);
/* The colour of hue h, saturation s and lightness l (each 0..1). */
struct kp_rgb kp_colour_hsl(double h, double s, double l);
/* "#rrggbb" into buf (8 bytes); returns buf. */
const char *kp_colour_hex(struct kp_rgb c, char *buf);

#endif
