/*
 * out_serial.c - the serial sink: frames on the port the console text
 * also uses (docs/wire-format.md, section 1).
 *
 * A frame goes out with the console output claimed (console_claim_output),
 * so text lines and frames never interleave; no lock is held while the
 * bytes go out (console text written meanwhile is kept and written after
 * the release).  Called by out.c only, at any IRQL up to DISPATCH_LEVEL
 * (and from the bug check path, where the console is in panic mode).
 */
#include "kernel/trace/out/out_sink.h"

#include <arch/dev/serial.h>

#include "kernel/console/console.h"

static void serial_frame(struct trace_sink *s, const struct trace_out_frame *f)
{
	console_claim_output();
	arch_serial_write_raw(f->h, sizeof(*f->h));
	arch_serial_write_raw(f->p1, f->l1);
	if (f->l2)
		arch_serial_write_raw(f->p2, f->l2);
	console_release_output();
}

void out_serial_raw(const void *p, uint32_t len)
{
	console_claim_output();
	arch_serial_write_raw(p, len);
	console_release_output();
}

struct trace_sink out_serial_sink = { .name = "serial", .frame = serial_frame };
