/*
 * etl.c - `kprof etl LOG -o FILE.etl`: the records as a Windows ETL file,
 * as the NT Kernel Logger would have written them.
 *
 * Layout (docs: ../shared/reference/etw-records.md, section "ETL files"):
 *
 *   buffer 0          HEADER buffer: WMI_BUFFER_HEADER, then one event,
 *                     SYSTEM_TRACE_HEADER + TRACE_LOGFILE_HEADER + the
 *                     logger name and the log file name (UTF-16LE, NUL)
 *   buffers 1..N-1    GENERIC buffers, one CPU each: WMI_BUFFER_HEADER,
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
 *   after a loss (a kprof buffer flagged KPROF_BUFFER_LOSSES, or a gap in
 *   that CPU's frame sequence numbers: frames that never arrived); when a
 *   CPU's end frame counts losses but no buffer says where (records lost
 *   before its first buffer), its first ETL buffer.  Nothing else.
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
#include "tools/kprof/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ETL_BUFFER_SIZE 0x10000u
#define ETL_ALIGN 8u
#define ETL_ALIGN_UP(x) (((x) + ETL_ALIGN - 1) & ~(ETL_ALIGN - 1))

/* ---------------------------------------------------------------- layouts */

/* WMI_BUFFER_HEADER, 0x48 bytes. */
struct wmi_buffer_header {
	uint32_t BufferSize;         /* stride to the next buffer              */
	uint32_t SavedOffset;        /* bytes used, this header included       */
	uint32_t CurrentOffset;
	int32_t ReferenceCount;
	uint64_t TimeStamp;
	int64_t SequenceNumber;
	uint64_t ClockTypeFrequency; /* ClockType:3 (low bits) | Frequency:61  */
	uint8_t ProcessorNumber;     /* ClientContext (ETW_BUFFER_CONTEXT)     */
	uint8_t Alignment;
	uint16_t LoggerId;
	uint32_t State;              /* ETW_BUFFER_STATE                       */
	uint32_t Offset;
	uint16_t BufferFlag;
	uint16_t BufferType;
	uint64_t StartTime;          /* ReferenceTime: FILETIME ...            */
	uint64_t StartPerfClock;     /* ... and the clock at that moment       */
} __attribute__((packed));

#define ETW_BUFFER_FLAG_EVENTS_LOST 0x0002u
#define ETW_BUFFER_TYPE_GENERIC 0u
#define ETW_BUFFER_TYPE_HEADER 4u
#define ETW_BUFFER_STATE_FLUSH 3u
#define ETW_CLOCK_CYCLE_COUNTER 3u /* = KPROF_CLOCK_CYCLES                 */
#define ETW_KERNEL_LOGGER_ID 0xFFFFu

/* SYSTEM_TRACE_HEADER, 0x20 bytes (x64). */
struct system_trace_header {
	uint32_t Marker;
	uint16_t Size;
	uint16_t HookId;
	uint32_t ThreadId;
	uint32_t ProcessId;
	uint64_t SystemTime;         /* the logger's clock (TSC), see above    */
	uint32_t KernelTime;
	uint32_t UserTime;
} __attribute__((packed));

#define SYSTEM_TRACE_MARKER_64_V2 0xC0020002u /* FLAG | EVENT_TRACE | SYSTEM64 << 16 | version 2 */
#define WMI_LOG_TYPE_HEADER 0x0000u

/* TIME_ZONE_INFORMATION, 0xAC bytes. */
struct time_zone_information {
	int32_t Bias;
	uint16_t StandardName[32];
	uint16_t StandardDate[8];    /* SYSTEMTIME                             */
	int32_t StandardBias;
	uint16_t DaylightName[32];
	uint16_t DaylightDate[8];
	int32_t DaylightBias;
} __attribute__((packed));

/* TRACE_LOGFILE_HEADER, x64, 0x118 bytes. */
struct trace_logfile_header {
	uint32_t BufferSize;
	uint8_t MajorVersion;        /* Version, byte by byte                  */
	uint8_t MinorVersion;
	uint8_t SubVersion;
	uint8_t SubMinorVersion;
	uint32_t ProviderVersion;
	uint32_t NumberOfProcessors;
	uint64_t EndTime;
	uint32_t TimerResolution;
	uint32_t MaximumFileSize;
	uint32_t LogFileMode;
	uint32_t BuffersWritten;
	uint32_t StartBuffers;
	uint32_t PointerSize;
	uint32_t EventsLost;
	uint32_t CpuSpeedInMHz;
	uint64_t LoggerName;         /* PWSTR in memory; 0 in the file         */
	uint64_t LogFileName;
	struct time_zone_information TimeZone;
	uint32_t Padding;
	uint64_t BootTime;
	uint64_t PerfFreq;
	uint64_t StartTime;
	uint32_t ReservedFlags;      /* clock type: 3 = cycle counter          */
	uint32_t BuffersLost;
} __attribute__((packed));

#define EVENT_TRACE_FILE_MODE_SEQUENTIAL 0x00000001u
#define ETL_TIMER_RESOLUTION 156250u /* 15.625 ms in 100 ns units          */
#define ETL_PROVIDER_VERSION 19041u  /* Windows 10 2004                    */
#define ETL_LOGGER_NAME "NT Kernel Logger"
#define ETL_MAX_FILE_NAME 1024u      /* UTF-16 units kept of the -o path   */

#define ETL_ASSERT_OFFSET(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " is at offset " #off)

_Static_assert(sizeof(struct wmi_buffer_header) == 0x48, "WMI_BUFFER_HEADER is 0x48 bytes");
ETL_ASSERT_OFFSET(wmi_buffer_header, BufferSize, 0x00);
ETL_ASSERT_OFFSET(wmi_buffer_header, SavedOffset, 0x04);
ETL_ASSERT_OFFSET(wmi_buffer_header, CurrentOffset, 0x08);
ETL_ASSERT_OFFSET(wmi_buffer_header, ReferenceCount, 0x0C);
ETL_ASSERT_OFFSET(wmi_buffer_header, TimeStamp, 0x10);
ETL_ASSERT_OFFSET(wmi_buffer_header, SequenceNumber, 0x18);
ETL_ASSERT_OFFSET(wmi_buffer_header, ClockTypeFrequency, 0x20);
ETL_ASSERT_OFFSET(wmi_buffer_header, ProcessorNumber, 0x28);
ETL_ASSERT_OFFSET(wmi_buffer_header, Alignment, 0x29);
ETL_ASSERT_OFFSET(wmi_buffer_header, LoggerId, 0x2A);
ETL_ASSERT_OFFSET(wmi_buffer_header, State, 0x2C);
ETL_ASSERT_OFFSET(wmi_buffer_header, Offset, 0x30);
ETL_ASSERT_OFFSET(wmi_buffer_header, BufferFlag, 0x34);
ETL_ASSERT_OFFSET(wmi_buffer_header, BufferType, 0x36);
ETL_ASSERT_OFFSET(wmi_buffer_header, StartTime, 0x38);
ETL_ASSERT_OFFSET(wmi_buffer_header, StartPerfClock, 0x40);

_Static_assert(sizeof(struct system_trace_header) == 0x20, "SYSTEM_TRACE_HEADER is 0x20 bytes");
ETL_ASSERT_OFFSET(system_trace_header, Marker, 0x00);
ETL_ASSERT_OFFSET(system_trace_header, Size, 0x04);
ETL_ASSERT_OFFSET(system_trace_header, HookId, 0x06);
ETL_ASSERT_OFFSET(system_trace_header, ThreadId, 0x08);
ETL_ASSERT_OFFSET(system_trace_header, ProcessId, 0x0C);
ETL_ASSERT_OFFSET(system_trace_header, SystemTime, 0x10);
ETL_ASSERT_OFFSET(system_trace_header, KernelTime, 0x18);
ETL_ASSERT_OFFSET(system_trace_header, UserTime, 0x1C);

_Static_assert(sizeof(struct time_zone_information) == 0xAC, "TIME_ZONE_INFORMATION is 0xAC bytes");

_Static_assert(sizeof(struct trace_logfile_header) == 0x118, "TRACE_LOGFILE_HEADER (x64) is 0x118 bytes");
ETL_ASSERT_OFFSET(trace_logfile_header, BufferSize, 0x00);
ETL_ASSERT_OFFSET(trace_logfile_header, MajorVersion, 0x04);
ETL_ASSERT_OFFSET(trace_logfile_header, ProviderVersion, 0x08);
ETL_ASSERT_OFFSET(trace_logfile_header, NumberOfProcessors, 0x0C);
ETL_ASSERT_OFFSET(trace_logfile_header, EndTime, 0x10);
ETL_ASSERT_OFFSET(trace_logfile_header, TimerResolution, 0x18);
ETL_ASSERT_OFFSET(trace_logfile_header, MaximumFileSize, 0x1C);
ETL_ASSERT_OFFSET(trace_logfile_header, LogFileMode, 0x20);
ETL_ASSERT_OFFSET(trace_logfile_header, BuffersWritten, 0x24);
ETL_ASSERT_OFFSET(trace_logfile_header, StartBuffers, 0x28);
ETL_ASSERT_OFFSET(trace_logfile_header, PointerSize, 0x2C);
ETL_ASSERT_OFFSET(trace_logfile_header, EventsLost, 0x30);
ETL_ASSERT_OFFSET(trace_logfile_header, CpuSpeedInMHz, 0x34);
ETL_ASSERT_OFFSET(trace_logfile_header, LoggerName, 0x38);
ETL_ASSERT_OFFSET(trace_logfile_header, LogFileName, 0x40);
ETL_ASSERT_OFFSET(trace_logfile_header, TimeZone, 0x48);
ETL_ASSERT_OFFSET(trace_logfile_header, Padding, 0xF4);
ETL_ASSERT_OFFSET(trace_logfile_header, BootTime, 0xF8);
ETL_ASSERT_OFFSET(trace_logfile_header, PerfFreq, 0x100);
ETL_ASSERT_OFFSET(trace_logfile_header, StartTime, 0x108);
ETL_ASSERT_OFFSET(trace_logfile_header, ReservedFlags, 0x110);
ETL_ASSERT_OFFSET(trace_logfile_header, BuffersLost, 0x114);

/* A record must fit an empty data buffer. */
#define ETL_MAX_RECORD (ETL_BUFFER_SIZE - sizeof(struct wmi_buffer_header))

/* ---------------------------------------------------------------- state */

/* The trace's clock and where it sits in wall-clock time. */
struct etl_clock {
	uint64_t hz;                 /* TSC ticks per second                   */
	uint64_t start_tsc;          /* TSC at start_ft                        */
	uint64_t start_ft;           /* FILETIME of the start                  */
};

/* One CPU's records on their way into buffers. */
struct etl_cpu {
	struct kp_cpu_cursor cur;
	struct kp_record head;       /* next record to place                   */
	bool have;                   /* head is valid                          */
	size_t next_kp_buffer;       /* kprof buffers before this are checked  */
	bool loss_unplaced;          /* losses no kprof buffer points at       */
	bool started;                /* an ETL buffer of this CPU was written  */
};

struct etl_writer {
	FILE *f;
	const char *path;
	uint8_t *buf;                /* ETL_BUFFER_SIZE bytes being filled     */
	uint32_t used;               /* bytes of buf used, header included     */
	int64_t next_seq;            /* SequenceNumber of the next buffer      */
	uint32_t written;            /* buffers written                        */
	const struct etl_clock *clock;
	bool failed;                 /* an fwrite failed (errno kept)          */
	int err;
};

/* What the first pass finds out before anything is written. */
struct etl_plan {
	uint32_t buffers;            /* data buffers                           */
	uint64_t too_large;          /* records skipped                        */
	bool have_records;
	uint64_t last_ts;            /* latest record TimeStamp                */
};

/* ---------------------------------------------------------------- time */

#define FILETIME_UNIX_EPOCH 116444736000000000ull /* 1970-01-01 in FILETIME */
#define FILETIME_PER_SECOND 10000000ull

static void clock_init(struct etl_clock *c, const struct kp_log *log)
{
	if (log->have_header && log->header.tsc_hz) {
		c->hz = log->header.tsc_hz;
		c->start_tsc = log->header.start_tsc;
		c->start_ft = FILETIME_UNIX_EPOCH + log->header.boot_unix_s * FILETIME_PER_SECOND;
		return;
	}
	fprintf(stderr, "kprof: no run header (or no TSC rate) in the log: the ETL file assumes a 1 GHz clock "
			"started at 1970-01-01\n");
	c->hz = 1000000000ull;
	c->start_tsc = 0;
	c->start_ft = FILETIME_UNIX_EPOCH;
}

/* The FILETIME of a TSC value (truncated to 100 ns, never below 0). */
static uint64_t clock_filetime(const struct etl_clock *c, uint64_t tsc)
{
	__int128 d = (__int128)tsc - (__int128)c->start_tsc;
	__int128 ft = (__int128)c->start_ft + d * (__int128)FILETIME_PER_SECOND / (__int128)c->hz;

	return ft < 0 ? 0 : (uint64_t)ft;
}

/* ---------------------------------------------------------------- buffers */

static void buffer_begin(struct etl_writer *w)
{
	memset(w->buf, 0xFF, ETL_BUFFER_SIZE);
	w->used = sizeof(struct wmi_buffer_header);
}

static bool buffer_has_room(const struct etl_writer *w, uint32_t size)
{
	return w->used + ETL_ALIGN_UP(size) <= ETL_BUFFER_SIZE;
}

/* Copy an event in, zero its alignment padding. */
static void buffer_put(struct etl_writer *w, const void *bytes, uint32_t size)
{
	uint32_t padded = ETL_ALIGN_UP(size);

	memcpy(w->buf + w->used, bytes, size);
	memset(w->buf + w->used + size, 0, padded - size);
	w->used += padded;
}

/* Fill in the WMI_BUFFER_HEADER and write the buffer out. */
static void buffer_finish(struct etl_writer *w, uint32_t cpu, uint16_t type, uint16_t flags, uint64_t ts)
{
	const struct etl_clock *c = w->clock;
	struct wmi_buffer_header h = {
		.BufferSize = ETL_BUFFER_SIZE,
		.SavedOffset = w->used,
		.CurrentOffset = w->used,
		.TimeStamp = ts,
		.SequenceNumber = w->next_seq++,
		.ClockTypeFrequency = (c->hz << 3) | ETW_CLOCK_CYCLE_COUNTER,
		.ProcessorNumber = (uint8_t)cpu,
		.Alignment = ETL_ALIGN,
		.LoggerId = ETW_KERNEL_LOGGER_ID,
		.State = ETW_BUFFER_STATE_FLUSH,
		.Offset = w->used,
		.BufferFlag = flags,
		.BufferType = type,
		.StartTime = c->start_ft,
		.StartPerfClock = c->start_tsc,
	};

	memcpy(w->buf, &h, sizeof(h));
	if (w->failed)
		return;
	errno = 0;
	if (fwrite(w->buf, ETL_BUFFER_SIZE, 1, w->f) != 1) {
		w->failed = true;
		w->err = errno ? errno : EIO;
		return;
	}
	w->written++;
}

/* ---------------------------------------------------------------- header */

/* Bytes in the UTF-8 sequence a lead byte starts, 0 if it starts none. */
static unsigned utf8_length(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		return 2;
	if ((c & 0xF0) == 0xE0)
		return 3;
	return (c & 0xF8) == 0xF0 ? 4 : 0;
}

/* UTF-8 to UTF-16LE units, at most max - 1 of them plus a NUL; bytes that
 * are not UTF-8 become U+FFFD.  Returns the units written, NUL included. */
static size_t utf8_to_utf16(const char *s, uint16_t *out, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	while (*p) {
		uint32_t cp = 0xFFFD;
		unsigned len = utf8_length(*p), i;
		for (i = 1; i < len && (p[i] & 0xC0) == 0x80; i++)
			;
		if (len && i == len) {
			cp = len == 1 ? *p : *p & (0x7F >> len);
			for (i = 1; i < len; i++)
				cp = (cp << 6) | (p[i] & 0x3F);
			if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
				cp = 0xFFFD;
		} else {
			len = 1; /* resynchronise on the next byte */
		}
		p += len;
		if (n + (cp >= 0x10000 ? 2 : 1) >= max)
			break;
		if (cp >= 0x10000) {
			out[n++] = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
			out[n++] = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
		} else {
			out[n++] = (uint16_t)cp;
		}
	}
	out[n++] = 0;
	return n;
}

static uint32_t events_lost(const struct kp_log *log, uint64_t too_large)
{
	uint64_t lost = too_large;

	for (uint32_t i = 0; i < log->ncpus; i++)
		if (log->cpus[i].have_end)
			for (int k = 0; k < KPROF_LOSS_CAUSES; k++)
				lost += log->cpus[i].end.lost[k];
	return lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost;
}

/* Buffer frames that never arrived, from the log's MISSING issues. */
static uint32_t buffers_lost(const struct kp_log *log)
{
	uint64_t n = 0;

	for (size_t i = 0; i < log->nissues; i++) {
		const struct kp_issue *is = &log->issues[i];
		if (is->kind == KP_ISSUE_MISSING && is->cpu != KPROF_FRAME_CPU_NONE && is->seq_last >= is->seq_first)
			n += (uint64_t)is->seq_last - is->seq_first + 1;
	}
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* At least one: strict readers refuse a file with no processors. */
static uint32_t number_of_processors(const struct kp_log *log)
{
	uint32_t n = log->have_header ? log->header.cpu_count : 0;

	n = n > log->ncpus ? n : log->ncpus;
	return n ? n : 1;
}

static void fill_logfile_header(struct trace_logfile_header *lh, const struct kp_log *log,
				const struct etl_clock *c, const struct etl_plan *plan)
{
	*lh = (struct trace_logfile_header){
		.BufferSize = ETL_BUFFER_SIZE,
		.MajorVersion = 10,
		.MinorVersion = 0,
		.SubVersion = 1,
		.SubMinorVersion = 5,
		.ProviderVersion = ETL_PROVIDER_VERSION,
		.NumberOfProcessors = number_of_processors(log),
		.EndTime = plan->have_records ? clock_filetime(c, plan->last_ts) : c->start_ft,
		.TimerResolution = ETL_TIMER_RESOLUTION,
		.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL,
		.BuffersWritten = 1 + plan->buffers,
		.StartBuffers = 1,
		.PointerSize = 8,
		.EventsLost = events_lost(log, plan->too_large),
		.CpuSpeedInMHz = (uint32_t)((c->hz + 500000) / 1000000),
		.BootTime = clock_filetime(c, 0),
		.PerfFreq = c->hz,
		.StartTime = c->start_ft,
		.ReservedFlags = KPROF_CLOCK_CYCLES,
		.BuffersLost = buffers_lost(log),
	};
}

static void write_header_buffer(struct etl_writer *w, const struct kp_log *log, const struct etl_plan *plan)
{
	static uint16_t names[sizeof(ETL_LOGGER_NAME) + ETL_MAX_FILE_NAME];
	size_t n = utf8_to_utf16(ETL_LOGGER_NAME, names, sizeof(ETL_LOGGER_NAME));

	n += utf8_to_utf16(w->path, names + n, ETL_MAX_FILE_NAME);

	struct system_trace_header sh = {
		.Marker = SYSTEM_TRACE_MARKER_64_V2,
		.Size = (uint16_t)(sizeof(sh) + sizeof(struct trace_logfile_header) + n * 2),
		.HookId = WMI_LOG_TYPE_HEADER,
		.SystemTime = w->clock->start_tsc,
	};
	struct trace_logfile_header lh;
	uint8_t event[sizeof(sh) + sizeof(lh) + sizeof(names)];

	fill_logfile_header(&lh, log, w->clock, plan);
	memcpy(event, &sh, sizeof(sh));
	memcpy(event + sizeof(sh), &lh, sizeof(lh));
	memcpy(event + sizeof(sh) + sizeof(lh), names, n * 2);
	buffer_begin(w);
	buffer_put(w, event, sh.Size);
	buffer_finish(w, 0, ETW_BUFFER_TYPE_HEADER, 0, w->clock->start_tsc);
}

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
 * the one holding the head record: a buffer flagged KPROF_BUFFER_LOSSES,
 * or frames missing from the CPU's sequence numbers. */
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
	return lost;
}

/* One ETL buffer of a CPU's records, as many as fit. */
static void write_cpu_buffer(struct etl_writer *w, struct etl_cpu *c, const struct kp_cpu *kc)
{
	uint16_t flags = 0;
	uint64_t first_ts = c->head.h.TimeStamp;

	if (!c->started && c->loss_unplaced)
		flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
	c->started = true;
	buffer_begin(w);
	while (c->have && buffer_has_room(w, c->head.h.Size)) {
		if (lost_before_head(c, kc))
			flags |= ETW_BUFFER_FLAG_EVENTS_LOST;
		buffer_put(w, c->head.raw, c->head.h.Size);
		cpu_advance(c);
	}
	buffer_finish(w, c->cur.cpu, ETW_BUFFER_TYPE_GENERIC, flags, first_ts);
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
	struct etl_cpu *cpus = calloc(log->ncpus ? log->ncpus : 1, sizeof(*cpus));
	int cpu;

	if (!cpus) {
		fprintf(stderr, "kprof: out of memory\n");
		exit(3);
	}
	for (uint32_t i = 0; i < log->ncpus; i++)
		cpu_init(&cpus[i], log, i);
	while (!w->failed && (cpu = earliest_cpu(cpus, log->ncpus)) >= 0)
		write_cpu_buffer(w, &cpus[cpu], &log->cpus[cpu]);
	free(cpus);
}

/* ---------------------------------------------------------------- command */

static int io_error(const char *path, int err)
{
	fprintf(stderr, "kprof: cannot write %s: %s (the ETL file is incomplete)\n", path, strerror(err));
	return 3;
}

int kp_cmd_etl(struct kp_log *log, const struct kp_options *o)
{
	struct etl_clock clock;
	struct etl_plan plan;
	struct etl_writer w = { .path = o->output, .clock = &clock };
	if (log->ncpus > 256) {
		fprintf(stderr, "kprof: %u CPUs: an ETL buffer names at most 256 (ProcessorNumber is a byte)\n",
			log->ncpus);
		return 3;
	}
	clock_init(&clock, log);
	plan_etl(log, &plan);
	w.buf = malloc(ETL_BUFFER_SIZE);
	if (!w.buf) {
		fprintf(stderr, "kprof: out of memory\n");
		return 3;
	}
	w.f = fopen(o->output, "wb");
	if (!w.f) {
		fprintf(stderr, "kprof: cannot create %s: %s\n", o->output, strerror(errno));
		free(w.buf);
		return 3;
	}
	write_header_buffer(&w, log, &plan);
	write_data_buffers(&w, log);
	free(w.buf);
	if (fclose(w.f) && !w.failed) {
		w.failed = true;
		w.err = errno;
	}
	if (w.failed)
		return io_error(o->output, w.err);
	if (w.written != 1 + plan.buffers) {
		fprintf(stderr, "kprof: internal error: planned %u ETL buffers, wrote %u\n", 1 + plan.buffers,
			w.written);
		return 3;
	}
	return kp_summary(log, o, o->output);
}
