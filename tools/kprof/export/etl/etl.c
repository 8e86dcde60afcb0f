/*
 * etl.c - `kprof etl LOG -o FILE.etl`: the records as a Windows ETL file,
 * as the NT Kernel Logger would have written them.
 *
 * Layout (docs/etw-records.md, "ETL files", with the sources of each
 * field; tests/tools/test_etl_real holds it to real Windows files):
 *
 *   buffer 0          HEADER buffer: WMI_BUFFER_HEADER, then one event,
 *                     SYSTEM_TRACE_HEADER + TRACE_LOGFILE_HEADER + the
 *                     logger name and the log file name (UTF-16LE, NUL)
 *   buffers 1..N-1    GENERIC buffers, one CPU each: WMI_BUFFER_HEADER,
 *                     then that CPU's events in order, each starting
 *                     8-byte aligned, padding bytes zero.  CPU 0's start
 *                     with the rundown and end with CollectionEnd
 *                     (etl_rundown.c); kprof's Windows records are copied
 *                     byte for byte (PERFINFO_TRACE_HEADER + payload);
 *                     its own records (group 0xFE) become TraceLogging
 *                     events of the provider "kprof" (etl_tracelogging.c),
 *                     but a KprofThread of a later thread becomes Thread
 *                     Start, KprofRecordsLost the EVENTS_LOST flag below,
 *                     and KprofEventType is each user event's schema
 *
 * Every buffer is ETL_BUFFER_SIZE (64 KiB) long; after the used part
 * (SavedOffset = Offset, WMI_BUFFER_HEADER included, always a multiple of
 * 8) it is filled with 0xFF, as Windows does.
 *
 * Choices where the sources are silent, or real files show the way:
 *
 * - File order.  Data buffers are written in the order of their first
 *   event's TimeStamp (ties: lower CPU), as a live logger would roughly
 *   flush them, so a reader that walks the file once sees time go
 *   forward buffer by buffer.  Each CPU's events stay in their own order.
 * - SequenceNumber is one counter over the whole file, like the logger's:
 *   0 for the header buffer, 1, 2, ... for data buffers in file order.  So
 *   it increases on every CPU and never exceeds BuffersWritten - 1.
 * - Buffer TimeStamp: the last event's (when the buffer was flushed, as
 *   in real files); 0 in the header buffer, as in real files.
 * - CurrentOffset = SavedOffset + BufferSize in data buffers, as real
 *   files have it (a reader must not demand it equal SavedOffset).
 * - ClockType:3 / Frequency:61 at 0x20: ClockType 1 (QPC, as
 *   ReservedFlags), Frequency the TSC rate in Hz (tsc_hz).  Real files
 *   hold in-memory list links there; no reader uses it.
 * - 0x38 ReferenceTime {StartTime, StartPerfClock}: the run's start as a
 *   FILETIME and the TSC at that moment (start_tsc), in every buffer.
 * - ClientContext: a 16-bit processor index (the CPU) and LoggerId 0xFFFF
 *   (KERNEL_LOGGER_ID), with BufferFlag PROC_INDEX (0x20) on every buffer
 *   and FLUSH_MARKER (0x01) too on the header and the last buffer, as
 *   every real Windows 8+ file; so up to 65536 CPUs.
 * - The clock: ReservedFlags 1 (QPC) with PerfFreq = tsc_hz, time stamps
 *   raw TSC values.  A QPC is any counter at PerfFreq: readers scale by
 *   PerfFreq (TraceEvent calls type 3, cycle counter, unsupported), and
 *   CpuSpeedInMHz (tsc_hz in MHz, rounded, also SystemConfig CPU's MHz)
 *   is then only informative.
 * - State = 3 (EtwBufferStateFlush: the buffer went to disk);
 *   ReferenceCount 0.
 * - BufferFlag: EVENTS_LOST on the ETL buffer holding the first event
 *   after a loss: after the KprofRecordsLost record that places drops of
 *   the kernel (read/drops.c; the record itself is left out), or
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
#include "tools/kprof/export/etl/etl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bootinfo.h"
#include "tools/kprof/export/etl/etl_image.h"
#include "tools/kprof/export/etl/etl_tracelogging.h"
#include "tools/kprof/kprof.h"
#include "tools/kprof/elf/elf_image.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/elf/symbols.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/outfile.h"

/* One CPU's events on their way into buffers: its records, turned into
 * ETL events by etl_rundown.c, after the rundown on CPU 0. */
struct etl_cpu {
	uint32_t cpu;
	struct kp_cpu_cursor cur;
	struct etl_queue q;          /* events made, not yet in a buffer      */
	bool records_done;           /* the cursor is exhausted               */
	size_t next_kp_buffer;       /* kprof buffers before this are checked  */
	bool lost_pending;           /* records lost before the next event    */
	bool loss_unplaced;          /* losses no kprof buffer points at       */
	bool started;                /* an ETL buffer of this CPU was written  */
	bool warn;                   /* report records too large (one pass)    */
	uint64_t too_large;          /* records left out: too large            */
	uint32_t tid;                /* the thread running: the last CSwitch's */
};

/* The state both passes share: the rundown and the latest time stamp. */
struct etl_pass {
	struct kp_log *log;
	struct etl_rundown *rd;
	struct etl_tl *tl;           /* kprof's own records' events            */
	uint64_t last_ts;            /* latest record TimeStamp (or start)     */
};

/* ---------------------------------------------------------------- records */

/* Follow the CPU's thread (a CSwitch of a version kprof reads) and each
 * thread's process (KprofThread), for the TraceLogging events' ThreadId
 * and ProcessId. */
static void follow_threads(struct etl_cpu *c, struct etl_tl *tl, const struct kp_record *r)
{
	uint32_t ids[2];

	if (r->h.HookId == PERFINFO_LOG_TYPE_CONTEXTSWAP) {
		if (r->version == CONTEXTSWAP_VERSION && r->payload_size >= sizeof(WMI_CONTEXTSWAP))
			memcpy(&c->tid, r->payload, 4); /* NewThreadId */
	} else if (r->h.HookId == KPROF_LOG_TYPE_THREAD && r->payload_size >= 8) {
		memcpy(ids, r->payload, 8);     /* ThreadId, ProcessId */
		etl_tl_thread(tl, ids[0], ids[1]);
	}
}

/* Whether records were lost between the kprof buffers already placed and
 * the one holding r: a buffer flagged KPROF_BUFFER_LOSSES (old logs),
 * frames missing from the CPU's sequence numbers, or r is a
 * KprofRecordsLost record placing drops (read/drops.c). */
static bool lost_before(struct etl_cpu *c, const struct kp_cpu *kc, const struct kp_record *r)
{
	size_t upto = (size_t)(r->buffer - kc->buffers);
	bool lost = false;

	for (size_t k = c->next_kp_buffer; k <= upto; k++) {
		const struct kp_buffer *b = &kc->buffers[k];
		uint32_t expected = k ? kc->buffers[k - 1].frame_seq + 1 : 0;
		if ((b->flags & KPROF_BUFFER_LOSSES) || b->frame_seq > expected)
			lost = true;
	}
	c->next_kp_buffer = upto + 1;
	return lost || kp_drop_at(c->cur.log, r); /* it places drops just before it */
}

/* Make sure the queue holds the CPU's next event, if it has one. */
static bool cpu_has_event(struct etl_cpu *c, const struct etl_pass *p)
{
	struct kp_record r;
	uint32_t tl_size, size;

	while (c->q.head == c->q.len && !c->records_done) {
		c->q.head = c->q.len = 0;
		if (!kp_cursor_next(&c->cur, &r)) {
			c->records_done = true;
			if (c->cpu == 0)
				etl_rundown_end(p->rd, &c->q, p->last_ts);
			break;
		}
		/* Its events must fit an empty buffer: a Windows record as it
		 * is, one of kprof's own as its TraceLogging event. */
		tl_size = etl_tl_size(p->tl, &r);
		size = tl_size ? tl_size : r.h.Size;
		if (ETL_ALIGN_UP(size) > ETL_MAX_RECORD) {
			if (c->warn)
				fprintf(stderr, "kprof: cpu %u: the %u-byte event of the record at log offset %" PRIu64
						" does not fit a %u-byte ETL buffer; left out (counted as lost)\n",
					c->cpu, size, r.log_offset, ETL_BUFFER_SIZE);
			c->too_large++;
			continue;
		}
		if (lost_before(c, &p->log->cpus[c->cpu], &r))
			c->lost_pending = true;
		etl_record_events(p->rd, &r, &c->q);
		follow_threads(c, p->tl, &r);
		if (tl_size)
			etl_tl_event(p->tl, &r, tl_size, c->tid, &c->q);
	}
	return c->q.head < c->q.len;
}

static const uint8_t *head_event(const struct etl_cpu *c, uint32_t *size)
{
	const uint8_t *e = c->q.b + c->q.head;
	uint16_t n;

	/* The kernel's headers keep Size at 4; a classic EVENT_TRACE_HEADER
	 * (FULL_HEADER64: ImageID, DbgID_RSDS) and an EVENT_HEADER (kprof's
	 * own records) have it first. */
	memcpy(&n, e + (e[2] == TRACE_HEADER_TYPE_FULL_HEADER64 || e[2] == EVENT_HEADER_EVENT64 ? 0 : 4), 2);
	*size = n;
	return e;
}

/* An event's time stamp: SYSTEM64, FULL_HEADER64 and EVENT_HEADER have
 * it at 0x10, PERFINFO64 at 0x08. */
static uint64_t event_ts(const uint8_t *e)
{
	uint64_t ts;

	memcpy(&ts, e + (e[2] == 0x02 || e[2] == TRACE_HEADER_TYPE_FULL_HEADER64 || e[2] == EVENT_HEADER_EVENT64 ? 0x10 : 0x08), 8);
	return ts;
}

static void cpu_init(struct etl_cpu *c, const struct etl_pass *p, uint32_t cpu, bool warn)
{
	const struct kp_cpu *kc = &p->log->cpus[cpu];
	bool flagged = false;

	*c = (struct etl_cpu){ .cpu = cpu, .warn = warn };
	kp_cursor_init(&c->cur, p->log, cpu);
	if (cpu == 0)
		etl_rundown_start(p->rd, &c->q);
	for (size_t k = 0; k < kc->nbuffers; k++)
		flagged |= (kc->buffers[k].flags & KPROF_BUFFER_LOSSES) != 0;
	for (size_t k = 0; k < p->log->ndrops; k++)
		flagged |= p->log->drops[k].cpu == cpu; /* placed: by a record, or after the last */
	c->loss_unplaced = kp_cpu_lost(kc) && !flagged;
}

/* First pass: how many buffers each CPU needs (packed as write_cpu_buffer
 * packs them), the records that cannot be written. */
static void plan_etl(const struct etl_pass *pass, struct etl_plan *p)
{
	*p = (struct etl_plan){ .last_ts = pass->last_ts };
	for (uint32_t cpu = 0; cpu < pass->log->ncpus; cpu++) {
		struct etl_cpu c;
		uint32_t used = ETL_BUFFER_SIZE, size; /* "full": the first event opens one */

		cpu_init(&c, pass, cpu, true);
		while (cpu_has_event(&c, pass)) {
			head_event(&c, &size);
			if (used + ETL_ALIGN_UP(size) > ETL_BUFFER_SIZE) {
				p->buffers++;
				used = sizeof(struct wmi_buffer_header);
			}
			used += ETL_ALIGN_UP(size);
			c.q.head += ETL_ALIGN_UP(size);
			p->have_records = true;
		}
		p->too_large += c.too_large;
		free(c.q.b);
	}
}

/* One ETL buffer of a CPU's events, as many as fit.  Its TimeStamp is its
 * last event's (a buffer's flush time, as in real files). */
static void write_cpu_buffer(struct etl_writer *w, struct etl_cpu *c, const struct etl_pass *p, bool last)
{
	uint16_t flags = last ? ETW_BUFFER_FLAG_FLUSH_MARKER : 0;
	uint64_t ts = 0;
	uint32_t size;
	const uint8_t *e;

	if (!c->started && c->loss_unplaced)
		flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
	c->started = true;
	etl_buffer_begin(w);
	while (cpu_has_event(c, p) && (e = head_event(c, &size), etl_buffer_has_room(w, size))) {
		if (c->lost_pending)
			flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
		c->lost_pending = false;
		ts = event_ts(e);
		etl_buffer_put(w, e, size);
		c->q.head += ETL_ALIGN_UP(size);
	}
	etl_buffer_finish(w, c->cpu, ETW_BUFFER_TYPE_GENERIC, flags, ts);
}

/* The CPU whose next buffer starts earliest (ties: the lower CPU), or -1. */
static int earliest_cpu(struct etl_cpu *cpus, const struct etl_pass *p)
{
	int best = -1;
	uint64_t best_ts = 0;
	uint32_t size;

	for (uint32_t i = 0; i < p->log->ncpus; i++) {
		if (!cpu_has_event(&cpus[i], p))
			continue;
		uint64_t ts = event_ts(head_event(&cpus[i], &size));
		if (best < 0 || ts < best_ts) {
			best = (int)i;
			best_ts = ts;
		}
	}
	return best;
}

static void write_data_buffers(struct etl_writer *w, const struct etl_pass *p, const struct etl_plan *plan)
{
	struct etl_cpu *cpus = kp_xcalloc(p->log->ncpus, sizeof(*cpus));
	int cpu;

	for (uint32_t i = 0; i < p->log->ncpus; i++)
		cpu_init(&cpus[i], p, i, false);
	while (!w->failed && (cpu = earliest_cpu(cpus, p)) >= 0)
		write_cpu_buffer(w, &cpus[cpu], p, w->written == plan->buffers); /* the file's last */
	for (uint32_t i = 0; i < p->log->ncpus; i++)
		free(cpus[i].q.b);
	free(cpus);
}

/* The latest record TimeStamp of the log (start_tsc without records). */
static uint64_t last_record_ts(struct kp_log *log, const struct etl_clock *c)
{
	uint64_t last = c->start_tsc;

	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor cur;
		struct kp_record r;
		kp_cursor_init(&cur, log, cpu);
		while (kp_cursor_next(&cur, &r))
			last = r.h.TimeStamp > last ? r.h.TimeStamp : last;
	}
	return last;
}

/* The kernel image of --kernel for the Image rundown; false on a bad ELF. */
static bool kernel_image(struct etl_rundown *rd, const char *kernel)
{
	struct kp_symbols *syms;
	const char *base;

	if (!kernel)
		return true;
	if (!kp_symbols_for(kernel, &syms))
		return false;
	kp_symbols_close(syms);
	if (!kp_elf_image(kernel, &rd->image_base, &rd->image_size)) {
		fprintf(stderr, "kprof: --kernel %s: no loaded segment at or above the link address 0x%llx, or an "
				"image of 2 GiB or more\n", kernel, (unsigned long long)KPROF_KERNEL_LINK_VA);
		return false;
	}
	base = strrchr(kernel, '/');
	snprintf(rd->image_name_buf, sizeof(rd->image_name_buf), "\\SystemRoot\\system32\\%s",
		 base ? base + 1 : kernel);
	rd->image_name = rd->image_name_buf;
	rd->have_image = true;
	return true;
}

/* ---------------------------------------------------------------- command */

int kp_cmd_etl(struct kp_log *log, const struct kp_options *o)
{
	struct etl_clock clock;
	struct etl_plan plan;
	struct etl_rundown rd;
	struct etl_tl tl;
	struct etl_pass pass = { .log = log, .rd = &rd, .tl = &tl };
	struct etl_writer w = { .path = o->output, .clock = &clock };
	struct kp_pdb_identity pdb;
	int rc = 3;

	if (log->ncpus > ETL_MAX_CPUS) {
		fprintf(stderr, "kprof: %u CPUs: an ETL buffer names at most %u (a 16-bit processor index)\n",
			log->ncpus, ETL_MAX_CPUS);
		return 3;
	}
	etl_clock_init(&clock, log);
	etl_rundown_init(&rd, log, &clock, etl_number_of_processors(log));
	if (!kernel_image(&rd, o->kernel)) {
		etl_rundown_free(&rd);
		return 3;
	}
	etl_tl_init(&tl, log);
	if (o->kernel && etl_image_prepare(o, &pdb)) { /* its PDB next to the file, named by ImageID + DbgID_RSDS */
		rd.pdb = &pdb; /* the Image event describes the image the PDB was linked with */
		rd.image_base = pdb.image_base;
		rd.image_size = pdb.image_size;
		rd.image_checksum = pdb.checksum;
		rd.image_timestamp = pdb.timestamp;
	}
	pass.last_ts = last_record_ts(log, &clock);
	plan_etl(&pass, &plan);
	w.buf = kp_xrealloc(NULL, ETL_BUFFER_SIZE, 1);
	if (!(w.f = kp_out_open(o->output)))
		goto out;
	etl_write_header_buffer(&w, log, &plan);
	write_data_buffers(&w, &pass, &plan);
	if (w.failed) { /* the first write error, as kp_out_close() says it */
		fclose(w.f);
		fprintf(stderr, "kprof: cannot write %s: %s (the file is incomplete)\n", o->output, strerror(w.err));
		goto out;
	}
	if (kp_out_close(w.f, o->output))
		goto out;
	if (w.written != 1 + plan.buffers) {
		fprintf(stderr, "kprof: internal error: planned %u ETL buffers, wrote %u\n", 1 + plan.buffers,
			w.written);
		goto out;
	}
	rc = kp_summary(log, o, o->output);
out:
	free(w.buf);
	etl_tl_free(&tl);
	etl_rundown_free(&rd);
	return rc;
}
