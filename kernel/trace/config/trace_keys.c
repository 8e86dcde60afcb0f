/*
 * trace_keys.c - the trace's command-line keys (trace_keys.h): what is
 * recorded, the buffers, where the frames go.  Order 50 among every
 * subsystem's tables (docs/cmdline.md).
 */
#include "kernel/trace/config/trace_keys.h"

#include "include/kprof/wire.h"
#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"
#include "kernel/trace/trace.h"

#include <stddef.h>

#define SUBBUF_MIN_KB 4    /* one page */
#define SUBBUF_MAX_KB 1024 /* 1 MiB    */

static struct trace_config parsed_config;
const struct trace_config *const trace_config = &parsed_config;

static const struct trace_config defaults = {
	.items = 1u << TRACE_ITEM_ALL,
	.mode = KPROF_TRACE_STREAM,
	.buffer_kb = 4096,
	.subbuf_kb = 64,
	.buffer_fit = TRACE_FIT_AUTO,
	.out = TRACE_OUT_AUTO,
	.compress = 1,
};

static const char *const trace_names[TRACE_ITEM_COUNT + 1] = {
	[TRACE_ITEM_CSWITCH] = "cswitch",
	[TRACE_ITEM_SPINLOCK] = "spinlock",
	[TRACE_ITEM_RESOURCE] = "resource",
	[TRACE_ITEM_PROFILE] = "profile",
	[TRACE_ITEM_PMC] = "pmc",
	[TRACE_ITEM_STACK] = "stack",
	[TRACE_ITEM_TRACETEST] = "tracetest",
	[TRACE_ITEM_CLOCK] = "clock",
	[TRACE_ITEM_NONE] = "none",
	[TRACE_ITEM_ALL] = "all",
};

static const char *const trace_mode_names[] = {
	[KPROF_TRACE_STREAM] = "stream",
	[KPROF_TRACE_DUMP] = "dump",
	NULL,
};

static const char *const off_on_names[] = {
	"off",
	"on",
	NULL,
};

static const char *const trace_fit_names[TRACE_FIT_COUNT + 1] = {
	[TRACE_FIT_AUTO] = "auto",
	[TRACE_FIT_REFUSE] = "refuse",
	[TRACE_FIT_SHRINK] = "shrink",
};

const char *const trace_out_names[TRACE_OUT_COUNT + 1] = {
	[TRACE_OUT_AUTO] = "auto",
	[TRACE_OUT_SERIAL] = "serial",
	[TRACE_OUT_USB] = "usb",
	[TRACE_OUT_BOTH] = "both",
};

#define FIELD(f) .offset = offsetof(struct trace_config, f)
#define EVERY_RUN "every run"

enum { KEY_ITEMS, KEY_MODE, KEY_BUFFER_KB }; /* positions in keys[] that finish() reads */

static const struct cmdline_key keys[] = {
	[KEY_ITEMS] = { .name = "trace", .type = CMDLINE_SET, FIELD(items), .names = trace_names, .used_by = EVERY_RUN,
	  .help = "event groups to record (none: nothing; all: every group)" },
	[KEY_MODE] = { .name = "trace.mode", .type = CMDLINE_ENUM, FIELD(mode), .names = trace_mode_names, .used_by = EVERY_RUN,
	  .help = "send full buffers while running, or everything at the end" },
	[KEY_BUFFER_KB] = { .name = "trace.buffer_kb", .type = CMDLINE_UINT, FIELD(buffer_kb), .min = TRACE_MIN_SUBBUFS * SUBBUF_MIN_KB,
	  .max = 262144, .used_by = EVERY_RUN, .help = "trace buffer per CPU, KiB (whole sub-buffers of it are used)",
	  .probe = "refused (exit CONFIG) when the buffers of every CPU started do not fit in free memory less a "
		   "reserve for the kernel (16 MiB + 256 KiB per CPU), unless trace.buffer_fit makes them smaller" },
	{ .name = "trace.subbuf_kb", .type = CMDLINE_UINT, FIELD(subbuf_kb), .min = SUBBUF_MIN_KB, .max = SUBBUF_MAX_KB,
	  .pow2 = true, .used_by = EVERY_RUN, .help = "one sub-buffer (the unit sent), KiB" },
	{ .name = "trace.buffer_fit", .type = CMDLINE_ENUM, FIELD(buffer_fit), .names = trace_fit_names,
	  .used_by = EVERY_RUN,
	  .help = "when the buffers of every CPU do not fit in free memory: refuse the run, or shrink each to the "
		  "largest size that fits, and say so (auto: shrink when trace.buffer_kb is left at its default, else "
		  "refuse)" },
	{ .name = "trace.out", .type = CMDLINE_ENUM, FIELD(out), .names = trace_out_names, .used_by = EVERY_RUN,
	  .help = "where the trace's frames go: the serial port, the trace file on the USB stick the kernel booted "
		  "from (\\kprof\\trace.bin), or both (auto: the stick alone when booted from a USB stick with a "
		  "usable trace file, serial taking over if the stick fails; else serial)",
	  .probe = "usb or both is refused (exit CONFIG) when the kernel was not booted from a USB stick with a "
		   "usable trace file (the loader's bootinfo says why); auto then keeps serial and says why in one line" },
	{ .name = "trace.compress", .type = CMDLINE_ENUM, FIELD(compress), .names = off_on_names, .used_by = EVERY_RUN,
	  .help = "send each chunk's records TSC-delta transformed and LZ4-compressed (encoding 2) when that makes "
		  "it smaller, else raw; on, to serial alone: raw for the rest of the run once compressing costs "
		  "more time than the link saves (kernel/trace/out/chunk.h)" },
};

/* trace.buffer_fit=auto: a size the user chose is refused if it does not
 * fit, a default one is made smaller (trace_configure, at probe time). */
static void finish(void *config, const bool *given)
{
	struct trace_config *c = config;

	if (c->buffer_fit == TRACE_FIT_AUTO)
		c->buffer_fit = given[KEY_BUFFER_KB] ? TRACE_FIT_REFUSE : TRACE_FIT_SHRINK;
}

CMDLINE_TABLE(trace_table, .keys = keys, .count = ARRAY_SIZE(keys), .config = &parsed_config, .defaults = &defaults,
	      .size = sizeof(parsed_config), .owner = "trace", .order = 50, .finish = finish);
