/*
 * trace_configure.c - the trace's settings from its keys and what probing
 * found (trace_configure.h): the output (out.c resolves trace.out=) and
 * the size of every CPU's ring against free memory (tracefit.h).
 *
 * A trace.buffer_kb the user gave that does not fit is refused, like a
 * probe-time key; with trace.buffer_fit=shrink (the default when
 * trace.buffer_kb is not given) each CPU gets the largest ring that fits
 * and the console says so.  Either way no CPU is left without a buffer.
 * Boot CPU, once, before trace_start().
 */
#include "kernel/trace/config/trace_configure.h"

#include "kernel/console/console.h"
#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/printf.h"
#include "kernel/lib/size.h"
#include "kernel/trace/out/out.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/config/tracefit.h"

static struct trace_settings settings;
const struct trace_settings *const trace_settings = &settings;

/* "256 MiB", "510.6 MiB" (rounded down), or "640 KiB" below a MiB. */
static const char *size_text(uint64_t kb, char *buf, size_t size)
{
	return size_format(buf, size, kb * 1024, SIZE_MIB | SIZE_SMALL_K | SIZE_WHOLE);
}

/* The per-CPU buffer size for the run: kb if every CPU's ring fits in
 * free memory with the reserve left, else the largest that does
 * (trace.buffer_fit=shrink), else kb refused (it is not used: the run
 * ends at the end of probing). */
static uint32_t fit_buffers(uint32_t kb, uint32_t sub, uint32_t fit, uint32_t ncpu, uint64_t free_kb)
{
	char want[32], free_text[32], reserve[32];
	uint64_t need = (uint64_t)ncpu * trace_fit_cpu_kb(kb, sub), keep = trace_fit_reserve_kb(ncpu);

	if (need + keep <= free_kb)
		return kb;
	uint32_t most = trace_fit_most_kb(free_kb, ncpu, sub, kb);
	size_text((uint64_t)kb / sub * sub, want, sizeof(want));
	size_text(free_kb, free_text, sizeof(free_text));
	size_text(keep, reserve, sizeof(reserve));
	if (!most) {
		cmdline_refuse_at_probe("cmdline: trace.buffer_kb=%u: %u CPU%s x %s do not fit in the %s free (%s of it kept "
					"for the kernel), and not even %u sub-buffers of trace.subbuf_kb=%u per CPU do; "
					"accepted here: fewer CPUs (cpus=) or more memory (MEM= with make run)",
					kb, ncpu, ncpu == 1 ? "" : "s", want, free_text, reserve, TRACE_MIN_SUBBUFS, sub);
		return kb;
	}
	if (fit != TRACE_FIT_SHRINK) {
		cmdline_refuse_at_probe("cmdline: trace.buffer_kb=%u: %u CPU%s x %s do not fit in the %s free (%s of it kept "
					"for the kernel); accepted here: at most %u (or fewer CPUs, or more memory: MEM= "
					"with make run; or trace.buffer_fit=shrink)",
					kb, ncpu, ncpu == 1 ? "" : "s", want, free_text, reserve, most);
		return kb;
	}
	char got[32];
	kprintf("trace: buffers sized down to fit: %u CPU%s x %s do not fit in the %s free (%s of it kept for the "
		"kernel), so each CPU gets %s, trace.buffer_kb=%u (trace.buffer_fit=shrink: the size was a default, "
		"not the user's choice; more memory keeps it whole)\n", ncpu, ncpu == 1 ? "" : "s", want, free_text,
		reserve, size_text(most, got, sizeof(got)), most);
	return most;
}

void trace_configure(const struct trace_config *cfg, const struct trace_probe *p)
{
	settings = (struct trace_settings){
		.items = cfg->items,
		.mode = cfg->mode,
		.subbuf_kb = cfg->subbuf_kb,
		.compress = cfg->compress,
	};
	settings.buffer_kb = fit_buffers(cfg->buffer_kb, cfg->subbuf_kb, cfg->buffer_fit, p->ncpu, p->free_kb);
	/* At least TRACE_MIN_SUBBUFS: the command line was refused otherwise. */
	settings.nsub = settings.buffer_kb / settings.subbuf_kb;
	settings.out = trace_out_configure(p->stick, p->ncpu, cfg->out);
}
