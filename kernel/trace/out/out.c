/*
 * out.c - the trace output layer: trace.out= resolved at probe time, the
 * sinks opened at trace start, every frame's header built once and the
 * same bytes handed to each sink in order (out.h, docs/trace-out.md).
 *
 * Sinks, in the order they get a frame: the serial port (unless
 * trace.out=usb, which auto means from a stick), then the stick
 * (trace.out=usb|both).  When the stick cannot be opened, serial carries
 * the whole trace; when it stops mid-run (its recovery ladder exhausted),
 * serial takes over with trace.out=usb: first the whole frames the stick
 * took but does not hold (its unsent()), then the end frames already
 * sent, then the frame it failed on and every frame after.  A capture
 * that starts there still decodes (run info frames, docs/wire-format.md
 * section 2), and the stick and serial together hold every frame.
 *
 * Each sink's bytes and the TSC cycles spent in it are counted, and the
 * time since the workload ended (trace_out_workload_ended), for the end
 * line: "trace: output N ms after the workload ended: serial 2.6 MB in
 * 1200 ms (2.2 MB/s), USB stick ..." (make bench reads it).
 *
 * A dump that takes long says so as it goes: every DUMP_PROGRESS_S
 * seconds one line with the records' bytes sent of those held when the
 * dump began, the rate so far and the time the rest will take at it
 * (trace_out_dump_begin, trace_out_dump_sent).  The bytes are the
 * records' as they sit in the buffers, not the link's (chunks are
 * compressed), so the time left holds whatever the compression does.
 * The line goes between frames, as all console text does.
 *
 * Context: see out.h (probe time on the boot CPU; then the one trace
 * sender of the moment).  No locks.
 */
#include "kernel/trace/out/out.h"

#include <arch/cpu.h>

#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/cmdline_key.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/lib/size.h"
#include "kernel/trace/out/frame.h"
#include "kernel/trace/out/out_file.h"
#include "kernel/trace/out/out_sink.h"
#include "kernel/trace/config/trace_keys.h"

#define OUT_SINKS 2
#define END_FRAME_MAX (KPROF_FRAME_HEADER_SIZE + sizeof(struct kprof_cpu_end))
#define STICK_MIN_BYTES (64u * 1024) /* a file smaller than this beyond the end frames is refused */
#define DUMP_PROGRESS_S 10            /* a line this often while a dump goes on */

static struct {
	const struct bootinfo_stick *stick; /* the kernel's bootinfo copy     */
	uint32_t sel;                       /* trace.out= resolved: not AUTO  */
	struct trace_sink *sinks[OUT_SINKS];
	uint32_t nsinks;
	bool serial;                        /* serial is among the sinks      */
	bool finished;                      /* trace_out_finish() ran         */
	bool stick_failed;                  /* the stick stopped mid-run      */
	bool split;                         /* ... holding the trace's start,
					     * serial the rest                */
	uint64_t end_tsc;                   /* the workload ended; 0: not yet */
	uint32_t carried;                   /* bytes serial took over from it */
	uint32_t ends_len;                  /* bytes in ends[]                */
	uint64_t dump_total;                /* record bytes held at the dump's
					     * start; 0: no dump under way    */
	uint64_t dump_done;                 /* ... of them sent               */
	uint64_t dump_start, dump_said;     /* TSC: its start, the last line  */
	/* The end frames sent so far, as serial has them: if the stick stops
	 * after taking them, serial carries them (the stick's are its own). */
	uint8_t ends[(KPROF_MAX_CPUS + 1) * END_FRAME_MAX];
} out;

static const char *const stick_status_why[] = {
	[BOOTINFO_STICK_NONE] = "the kernel was not booted from a USB stick",
	[BOOTINFO_STICK_OK] = NULL,
	[BOOTINFO_STICK_NO_FILE] = "the stick has no \\kprof\\trace.bin (make image makes one: docs/usb-stick.md)",
	[BOOTINFO_STICK_FRAGMENTED] = "\\kprof\\trace.bin is in more pieces on the stick than the kernel takes "
				      "(write the image to the stick anew: docs/usb-stick.md)",
	[BOOTINFO_STICK_UNSUPPORTED] = "the boot device is not a USB mass-storage stick on an xHCI controller",
	[BOOTINFO_STICK_BAD_FS] = "the loader could not read the stick's partition table or FAT file system, or "
				  "found them damaged",
};

/* Why the stick bootinfo describes cannot take a trace of ncpu CPUs, or
 * NULL when it can. */
static const char *stick_unusable(const struct bootinfo_stick *bs, uint32_t ncpu, char *buf, size_t size)
{
	if (!bs)
		return stick_status_why[BOOTINFO_STICK_NONE];
	if (bs->status >= ARRAY_SIZE(stick_status_why)) {
		ksnprintf(buf, size, "the loader reported stick status %u, which this kernel does not know", bs->status);
		return buf;
	}
	if (bs->status != BOOTINFO_STICK_OK)
		return stick_status_why[bs->status];
	if (bs->block_size < 512 || bs->block_size > 65536 || (bs->block_size & (bs->block_size - 1))) {
		ksnprintf(buf, size, "the loader gave a block size of %u bytes; accepted: a power of two from 512 to 65536",
			  bs->block_size);
		return buf;
	}
	if (!bs->nextents || bs->nextents > BOOTINFO_STICK_EXTENTS_MAX) {
		ksnprintf(buf, size, "the loader gave %u extents for the trace file; accepted: 1 to %u", bs->nextents,
			  BOOTINFO_STICK_EXTENTS_MAX);
		return buf;
	}
	uint64_t blocks = 0, need = out_file_end_bytes(ncpu) + STICK_MIN_BYTES;
	for (uint32_t i = 0; i < bs->nextents; i++)
		blocks += bs->extents[i].blocks;
	if (blocks * bs->block_size < bs->file_bytes) {
		ksnprintf(buf, size, "the trace file's extents cover %llu bytes, less than its size of %llu",
			  (unsigned long long)(blocks * bs->block_size), (unsigned long long)bs->file_bytes);
		return buf;
	}
	if (bs->file_bytes < need) {
		ksnprintf(buf, size, "the trace file holds %llu bytes; a trace of %u CPUs needs at least %llu",
			  (unsigned long long)bs->file_bytes, ncpu, (unsigned long long)need);
		return buf;
	}
	return NULL;
}

uint32_t trace_out_configure(const struct bootinfo_stick *stick, uint32_t ncpu, uint32_t requested)
{
	char buf[160];
	const char *why = stick_unusable(stick, ncpu, buf, sizeof(buf));

	out.stick = stick;
	out.sel = requested;
	if (requested == TRACE_OUT_AUTO) {
		/* From a stick, the trace goes to the stick alone: serial keeps
		 * the console and takes the trace only if the stick fails. */
		out.sel = why ? TRACE_OUT_SERIAL : TRACE_OUT_USB;
		if (why && stick && stick->status != BOOTINFO_STICK_NONE)
			kprintf("trace: not written to the USB stick, serial only: %s\n", why);
	} else if (requested != TRACE_OUT_SERIAL && why) {
		cmdline_refuse_at_probe("cmdline: trace.out=%s: %s; accepted here: trace.out=serial (or auto)",
					trace_out_names[requested % TRACE_OUT_COUNT], why);
		out.sel = TRACE_OUT_SERIAL; /* as if the key had its default; the run ends anyway */
	}
	return out.sel;
}

static uint64_t cycles_to_ms(uint64_t cycles)
{
	return ke_tsc_hz ? mul_div_u64(cycles, 1000, ke_tsc_hz) : 0;
}

bool trace_out_link_cost(uint64_t *cycles, uint64_t *bytes)
{
	*cycles = out_serial_sink.cycles;
	*bytes = out_serial_sink.bytes;
	for (uint32_t i = 0; i < out.nsinks; i++)
		if (out.sinks[i] != &out_serial_sink && !out.sinks[i]->stopped)
			return false;
	return out.serial && !out_serial_sink.stopped;
}

void trace_out_workload_ended(void)
{
	out.end_tsc = arch_rdtsc();
}

int64_t trace_out_since_end_ms(void)
{
	return out.end_tsc ? (int64_t)cycles_to_ms(arch_rdtsc() - out.end_tsc) : -1;
}

int trace_out_progress_format(char *buf, size_t size, uint64_t done, uint64_t total, uint64_t ms)
{
	char sent[32], all[32], rate[32];
	uint64_t per_s = ms ? mul_div_u64(done, 1000, ms) : 0;

	size_format(sent, sizeof(sent), done, SIZE_MB | SIZE_SMALL_K);
	size_format(all, sizeof(all), total, SIZE_MB | SIZE_SMALL_K);
	size_format(rate, sizeof(rate), per_s, SIZE_MB | SIZE_SMALL_K);
	if (!per_s)
		return ksnprintf(buf, size, "trace: %s of the %s of records sent in %llu s", sent, all,
				 (unsigned long long)(ms / 1000));
	return ksnprintf(buf, size, "trace: %s of the %s of records sent in %llu s (%s/s), about %llu s left", sent,
			 all, (unsigned long long)(ms / 1000), rate,
			 (unsigned long long)((total > done ? total - done : 0) / per_s));
}

void trace_out_dump_begin(uint64_t bytes)
{
	out.dump_total = bytes;
	out.dump_done = 0;
	out.dump_start = out.dump_said = arch_rdtsc();
}

void trace_out_dump_sent(uint64_t bytes)
{
	char line[160];

	if (!out.dump_total)
		return;
	out.dump_done += bytes;
	uint64_t now = arch_rdtsc();
	if (now - out.dump_said < ke_us_to_tsc(DUMP_PROGRESS_S * 1000000ull) || out.dump_done >= out.dump_total)
		return;
	out.dump_said = now;
	trace_out_progress_format(line, sizeof(line), out.dump_done, out.dump_total, cycles_to_ms(now - out.dump_start));
	kprintf("%s\n", line);
}

static void add_sink(struct trace_sink *s)
{
	if (out.nsinks < OUT_SINKS)
		out.sinks[out.nsinks++] = s;
	out.serial |= s == &out_serial_sink;
}

void trace_out_start(uint32_t ncpu)
{
	struct trace_sink *stick = NULL;

	out.nsinks = 0;
	out.serial = out.finished = out.stick_failed = out.split = false;
	out.end_tsc = 0;
	out.carried = out.ends_len = 0;
	out.dump_total = 0;
	out_serial_sink.bytes = out_serial_sink.cycles = 0;
	if (out.sel == TRACE_OUT_USB || out.sel == TRACE_OUT_BOTH) {
		stick = out.stick ? out_stick_open(out.stick, ncpu) : NULL;
		if (!stick)
			kprintf("trace: the USB stick is not written; the trace goes to serial\n");
	}
	if (!stick || out.sel != TRACE_OUT_USB)
		add_sink(&out_serial_sink);
	if (stick)
		add_sink(stick);
}

/* The stick stopped for good and serial was not among the sinks: serial
 * takes over, first with the whole frames the stick took but does not
 * hold, then the end frames already sent, so that nothing sent is lost
 * between the two outputs. */
static void serial_takes_over(struct trace_sink *s)
{
	const uint8_t *p = NULL;
	uint32_t n = s->unsent ? s->unsent(s, &p) : 0;

	kprintf("trace: serial carries the trace from here on, starting with the %u bytes of frames the stick did not "
		"hold whole\n", n + out.ends_len);
	add_sink(&out_serial_sink);
	out.split = s->held && s->held(s) > 0;
	out.carried = n + out.ends_len;
	if (n)
		out_serial_raw(p, n);
	if (out.ends_len)
		out_serial_raw(out.ends, out.ends_len);
	out_serial_sink.bytes += out.carried;
}

/* Keep an end frame as serial would have had it (see out.ends). */
static void keep_end_frame(const struct kprof_frame_header *h, const struct trace_out_frame *f)
{
	if ((h->type != KPROF_FRAME_CPU_END && h->type != KPROF_FRAME_RUN_END) ||
	    sizeof(*h) + f->l1 + f->l2 > END_FRAME_MAX || out.ends_len + END_FRAME_MAX > sizeof(out.ends))
		return;
	memcpy(out.ends + out.ends_len, h, sizeof(*h));
	memcpy(out.ends + out.ends_len + sizeof(*h), f->p1, f->l1);
	if (f->l2)
		memcpy(out.ends + out.ends_len + sizeof(*h) + f->l1, f->p2, f->l2);
	out.ends_len += (uint32_t)(sizeof(*h) + f->l1 + f->l2);
}

void trace_out_frame(uint8_t type, uint16_t cpu, uint32_t seq, const void *p1, uint32_t l1, const void *p2,
		     uint32_t l2)
{
	struct kprof_frame_header h;
	struct trace_out_frame f = { .h = &h, .p1 = p1, .l1 = l1, .p2 = l2 ? p2 : NULL, .l2 = l2 };
	struct trace_sink *failed = NULL;

	if (!out.nsinks) /* trace_out_start() not run: the port, as before */
		add_sink(&out_serial_sink);
	frame_header_build(&h, type, cpu, seq, p1, l1, p2, l2);
	for (uint32_t i = 0; i < out.nsinks; i++) {
		struct trace_sink *s = out.sinks[i];
		if (s->stopped)
			continue;
		uint64_t t0 = arch_rdtsc();
		s->frame(s, &f);
		s->cycles += arch_rdtsc() - t0;
		s->bytes += sizeof(h) + l1 + l2;
		if (s->stopped)
			failed = s;
	}
	if (failed) {
		out.stick_failed = true;
		if (!out.serial) {
			serial_takes_over(failed);
			out_serial_sink.frame(&out_serial_sink, &f);
			out_serial_sink.bytes += sizeof(h) + l1 + l2;
		}
	}
	keep_end_frame(&h, &f);
}

/* One line: how long the output took after the workload, and each sink's
 * bytes, time and rate ("under 1 ms" for a sink that took less), sizes as
 * "2.6 MB" (decimal; "0.3 MB" below 1 MB).  Not on the bug check path (the
 * workload never ended there). */
static void say_throughput(void)
{
	char line[256], size[32], rate[32];
	int n;

	if (!out.end_tsc)
		return;
	n = ksnprintf(line, sizeof(line), "trace: output %lld ms after the workload ended:",
		      (long long)trace_out_since_end_ms());
	for (uint32_t i = 0; i < out.nsinks && n > 0 && (size_t)n < sizeof(line); i++) {
		const struct trace_sink *s = out.sinks[i];
		uint64_t ms = cycles_to_ms(s->cycles);
		size_format(size, sizeof(size), s->bytes, SIZE_MB);
		if (ms)
			size_format(rate, sizeof(rate), s->bytes * 1000 / ms, SIZE_MB);
		n += ksnprintf(line + n, sizeof(line) - (size_t)n, "%s %s %s in %llu ms (%s%s)", i ? "," : "", s->name,
			       size, (unsigned long long)ms, ms ? rate : "under 1 ms", ms ? "/s" : "");
	}
	kprintf("%s\n", line);
}

void trace_out_finish(void)
{
	if (out.finished)
		return;
	out.finished = true;
	for (uint32_t i = 0; i < out.nsinks; i++) {
		struct trace_sink *s = out.sinks[i];
		uint64_t t0 = arch_rdtsc();
		bool was_stopped = s->stopped;
		if (s->finish)
			s->finish(s);
		s->cycles += arch_rdtsc() - t0;
		if (s != &out_serial_sink && s->stopped) {
			out.stick_failed = true;
			if (!was_stopped && !out.serial) /* it failed at the end: its last stage and the end frames */
				serial_takes_over(s);
		}
	}
	for (uint32_t i = 0; i < out.nsinks; i++)
		if (out.sinks[i]->release)
			out.sinks[i]->release(out.sinks[i]);
	say_throughput();
	/* Where the trace is when the stick did not take it all. */
	if (out.stick_failed && !out.split)
		kprintf("trace: the whole trace went to serial\n");
	else if (out.stick_failed)
		kprintf("trace: the USB stick holds the trace up to where it failed and serial the rest, from the first "
			"frame the stick did not hold whole (%u bytes carried over): no output holds the whole trace\n",
			out.carried);
}

enum kprof_exit_status trace_out_exit_status(enum kprof_exit_status status)
{
	if (status == KPROF_EXIT_SUCCESS && out.split) {
		kprintf("trace: the run ends with status 0x%x: its trace is split between the stick and serial\n",
			KPROF_EXIT_TRACE_SPLIT);
		return KPROF_EXIT_TRACE_SPLIT;
	}
	return status;
}
