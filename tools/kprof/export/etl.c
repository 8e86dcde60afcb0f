/*
 * etl.c - `kprof etl LOG -o FILE.etl`: the records as a Windows ETL file,
 * as the NT Kernel Logger would have written them.
 *
 * Layout (docs: ../shared/reference/etw-records.md, section "ETL files"):
 *
 *   buffer 0          HEADER buffer: WMI_BUFFER_HEADER, then one event,
 *                     SYSTEM_TRACE_HEADER + TRACE_LOGFILE_HEADER + the
 *                     logger name and the log file name (UTF-16LE, NUL)
 *   (with --kernel)   a GENERIC buffer of CPU 0 with the kernel image's
 *                     ImageID and DbgID_RSDS events, tying it to the PDB
 *                     written next to the file (etl_image.c, pdb.h)
 *   then              GENERIC buffers, one CPU each: WMI_BUFFER_HEADER,
 *                     then that CPU's records in order, byte for byte as
 *                     kprof wrote them (PERFINFO_TRACE_HEADER + payload),
 *                     each starting 8-byte aligned, padding bytes zero
 *
 * Every buffer is ETL_BUFFER_SIZE (64 KiB) long; after the used part
 * (SavedOffset = CurrentOffset = Offset, WMI_BUFFER_HEADER included,
 * always a multiple of 8) it is filled with 0xFF, as Windows does.
 *
 * Choices where the reference is silent:
 *
 * - File order.  Data buffers are written in the order of their first
 *   record's TimeStamp (ties: lower CPU), as a live logger would roughly
 *   flush them, so a reader that walks the file once sees time go
 *   forward buffer by buffer.  Each CPU's records stay in their own order.
 * - SequenceNumber is one counter over the whole file, like the logger's:
 *   0 for the header buffer, 1, 2, ... for data buffers in file order.  So
 *   it increases on every CPU and never exceeds BuffersWritten - 1.
 * - Buffer TimeStamp is the TimeStamp of the buffer's first record (the
 *   header buffer: the run header's start_tsc), in the TSC clock.
 * - ClockType:3 / Frequency:61 at 0x20: ClockType 3 (cycle counter, the
 *   same numbering as ReservedFlags / WNODE ClientContext), Frequency the
 *   TSC rate in Hz (tsc_hz).
 * - 0x38 ReferenceTime {StartTime, StartPerfClock}: the run's start as a
 *   FILETIME and the TSC at that moment (start_tsc), in every buffer.
 * - ClientContext: ProcessorNumber = CPU, Alignment = 8, LoggerId 0xFFFF
 *   (KERNEL_LOGGER_ID, what Windows writes for the kernel logger).  The
 *   PROC_INDEX flag is never set (it would make the first two bytes one
 *   16-bit processor index), so kprof refuses CPUs above 255.
 * - State = 3 (EtwBufferStateFlush: the buffer went to disk);
 *   ReferenceCount 0.
 * - BufferFlag: EVENTS_LOST on the ETL buffer holding the first record
 *   after a loss: the KprofRecordsLost record that places drops of the
 *   kernel (read/drops.c; it is in the file, as kprof's other records), or
 *   in old logs the first record of a kprof buffer flagged
 *   KPROF_BUFFER_LOSSES; or after a gap in that CPU's frame sequence
 *   numbers (frames that never arrived).  Drops after a CPU's last record
 *   have no buffer after them: EventsLost counts them.  When an old log's
 *   CPU end frame counts losses but nothing says where, its first ETL
 *   buffer.  Nothing else.
 * - SYSTEM_TRACE_HEADER.SystemTime of the header event is start_tsc, a
 *   TSC value, not a FILETIME: in ETL files every event time stamp,
 *   including the header event's, is in the logger's clock, and readers
 *   (ProcessTrace, TraceEvent) pair exactly this value with
 *   TRACE_LOGFILE_HEADER.StartTime to put wall-clock times on events.
 * - Times.  The run header's boot_unix_s is the CMOS clock read when
 *   tracing started, i.e. at start_tsc (to the second).  StartTime is that
 *   as a FILETIME (100 ns since 1601); BootTime = StartTime - start_tsc
 *   ticks (the TSC counts from reset); EndTime = the FILETIME of the
 *   latest record (StartTime if there are none).  When boot_unix_s is 0
 *   (unknown) the same arithmetic is used, so the trace reads as having
 *   started at 1970-01-01 00:00:00 UTC.  TimeZone is all zero (UTC).
 * - Version bytes 10.0.1.5: Windows 10 (major 10, minor 0), then the
 *   logfile format version 1.5 that Windows' logger puts in SubVersion /
 *   SubMinorVersion.  ProviderVersion 19041 (Windows 10 2004 build).
 * - StartBuffers 1, MaximumFileSize 0, LogFileMode 1 (SEQUENTIAL),
 *   TimerResolution 156250 (15.625 ms), LoggerName / LogFileName pointers
 *   0 (kernel addresses mean nothing in a file), CpuSpeedInMHz = tsc_hz /
 *   1e6 rounded, NumberOfProcessors = max(run header cpu_count, CPUs seen,
 *   1).
 * - EventsLost = the sum of the CPU end frames' losses, plus any record
 *   too large for an ETL buffer (kprof never writes one; skipped with a
 *   warning).  BuffersLost = buffer frames that never arrived (the
 *   MISSING issues of the log, counted per CPU).
 * - LogFileName is the -o path as given, converted from UTF-8.
 * - No run header in the log: tsc_hz and start_tsc are unknown; the file
 *   is still written with a nominal 1 GHz clock and start 0 (with a
 *   warning), so the records are not lost.
 */
#include "tools/kprof/export/etl.h"
#include "tools/kprof/export/etl_image.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/outfile.h"

/* One CPU's records on their way into buffers. */
struct etl_cpu {
	struct kp_cpu_cursor cur;
	struct kp_record head;       /* next record to place                   */
	bool have;                   /* head is valid                          */
	size_t next_kp_buffer;       /* kprof buffers before this are checked  */
	bool loss_unplaced;          /* losses no kprof buffer points at       */
	bool started;                /* an ETL buffer of this CPU was written  */
};

/* ---------------------------------------------------------------- records */

static bool record_fits(const struct kp_record *r)
{
	return ETL_ALIGN_UP((uint32_t)r->h.Size) <= ETL_MAX_RECORD;
}

/* The next record of a CPU that can go into a buffer; records too large
 * for one are skipped (counted by the plan, reported there). */
static void cpu_advance(struct etl_cpu *c)
{
	do
		c->have = kp_cursor_next(&c->cur, &c->head);
	while (c->have && !record_fits(&c->head));
}

/* First pass: how many buffers each CPU needs (packed as write_cpu_buffer
 * packs them), the latest TimeStamp, the records that cannot be written. */
static void plan_etl(struct kp_log *log, struct etl_plan *p)
{
	*p = (struct etl_plan){ 0 };
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor cur;
		struct kp_record r;
		uint32_t used = ETL_BUFFER_SIZE; /* "full": the first record opens one */

		kp_cursor_init(&cur, log, cpu);
		while (kp_cursor_next(&cur, &r)) {
			if (!record_fits(&r)) {
				fprintf(stderr, "kprof: cpu %u: a %u-byte record at log offset %" PRIu64
						" does not fit a %u-byte ETL buffer; left out (counted as lost)\n",
					cpu, r.h.Size, r.log_offset, ETL_BUFFER_SIZE);
				p->too_large++;
				continue;
			}
			if (used + ETL_ALIGN_UP((uint32_t)r.h.Size) > ETL_BUFFER_SIZE) {
				p->buffers++;
				used = sizeof(struct wmi_buffer_header);
			}
			used += ETL_ALIGN_UP((uint32_t)r.h.Size);
			if (!p->have_records || r.h.TimeStamp > p->last_ts)
				p->last_ts = r.h.TimeStamp;
			p->have_records = true;
		}
	}
}

/* Whether records were lost between the kprof buffers already placed and
 * the one holding the head record: a buffer flagged KPROF_BUFFER_LOSSES
 * (old logs), frames missing from the CPU's sequence numbers, or the head
 * is a KprofRecordsLost record placing drops (read/drops.c). */
static bool lost_before_head(struct etl_cpu *c, const struct kp_cpu *kc)
{
	size_t upto = (size_t)(c->head.buffer - kc->buffers);
	bool lost = false;

	for (size_t k = c->next_kp_buffer; k <= upto; k++) {
		const struct kp_buffer *b = &kc->buffers[k];
		uint32_t expected = k ? kc->buffers[k - 1].frame_seq + 1 : 0;
		if ((b->hdr.flags & KPROF_BUFFER_LOSSES) || b->frame_seq > expected)
			lost = true;
	}
	c->next_kp_buffer = upto + 1;
	return lost || kp_drop_at(c->cur.log, &c->head); /* it places drops just before it */
}

/* One ETL buffer of a CPU's records, as many as fit. */
static void write_cpu_buffer(struct etl_writer *w, struct etl_cpu *c, const struct kp_cpu *kc)
{
	uint16_t flags = 0;
	uint64_t first_ts = c->head.h.TimeStamp;

	if (!c->started && c->loss_unplaced)
		flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
	c->started = true;
	etl_buffer_begin(w);
	while (c->have && etl_buffer_has_room(w, c->head.h.Size)) {
		if (lost_before_head(c, kc))
			flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
		etl_buffer_put(w, c->head.raw, c->head.h.Size);
		cpu_advance(c);
	}
	etl_buffer_finish(w, c->cur.cpu, ETW_BUFFER_TYPE_GENERIC, flags, first_ts);
}

static void cpu_init(struct etl_cpu *c, struct kp_log *log, uint32_t cpu)
{
	const struct kp_cpu *kc = &log->cpus[cpu];
	bool flagged = false;
	uint64_t lost = 0;

	*c = (struct etl_cpu){ 0 };
	kp_cursor_init(&c->cur, log, cpu);
	cpu_advance(c);
	for (size_t k = 0; k < kc->nbuffers; k++)
		flagged |= (kc->buffers[k].hdr.flags & KPROF_BUFFER_LOSSES) != 0;
	for (size_t k = 0; k < log->ndrops; k++)
		flagged |= log->drops[k].cpu == cpu; /* placed: by a record, or after the last */
	if (kc->have_end)
		for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
			lost += kc->end.lost[k];
	c->loss_unplaced = lost && !flagged;
}

/* The CPU whose next buffer starts earliest (ties: the lower CPU), or -1. */
static int earliest_cpu(const struct etl_cpu *cpus, uint32_t n)
{
	int best = -1;

	for (uint32_t i = 0; i < n; i++)
		if (cpus[i].have && (best < 0 || cpus[i].head.h.TimeStamp < cpus[best].head.h.TimeStamp))
			best = (int)i;
	return best;
}

static void write_data_buffers(struct etl_writer *w, struct kp_log *log)
{
	struct etl_cpu *cpus = kp_xcalloc(log->ncpus, sizeof(*cpus));
	int cpu;

	for (uint32_t i = 0; i < log->ncpus; i++)
		cpu_init(&cpus[i], log, i);
	while (!w->failed && (cpu = earliest_cpu(cpus, log->ncpus)) >= 0)
		write_cpu_buffer(w, &cpus[cpu], &log->cpus[cpu]);
	free(cpus);
}

/* ---------------------------------------------------------------- command */

int kp_cmd_etl(struct kp_log *log, const struct kp_options *o)
{
	struct etl_clock clock;
	struct etl_plan plan;
	struct etl_writer w = { .path = o->output, .clock = &clock };
	struct kp_pdb_identity image;
	int have_image = 0;

	if (log->ncpus > 256) {
		fprintf(stderr, "kprof: %u CPUs: an ETL buffer names at most 256 (ProcessorNumber is a byte)\n",
			log->ncpus);
		return 3;
	}
	if (o->kernel && (have_image = etl_image_prepare(o, &image)) < 0)
		return 3;
	etl_clock_init(&clock, log);
	plan_etl(log, &plan);
	plan.buffers += have_image == 1;
	w.buf = kp_xrealloc(NULL, ETL_BUFFER_SIZE, 1);
	if (!(w.f = kp_out_open(o->output))) {
		free(w.buf);
		return 3;
	}
	etl_write_header_buffer(&w, log, &plan);
	/* The image's ImageID + DbgID_RSDS (etl_image.c) at the run's start.
	 * TODO(merge with etlrundown): pass the Image DCStart's time stamp and
	 * write them in its buffer, right after it. */
	if (have_image == 1)
		etl_image_write_buffer(&w, &image, clock.start_tsc);
	write_data_buffers(&w, log);
	free(w.buf);
	if (w.failed) { /* the first write error, as kp_out_close() says it */
		fclose(w.f);
		fprintf(stderr, "kprof: cannot write %s: %s (the file is incomplete)\n", o->output, strerror(w.err));
		return 3;
	}
	if (kp_out_close(w.f, o->output))
		return 3;
	if (w.written != 1 + plan.buffers) {
		fprintf(stderr, "kprof: internal error: planned %u ETL buffers, wrote %u\n", 1 + plan.buffers,
			w.written);
		return 3;
	}
	return kp_summary(log, o, o->output);
}
