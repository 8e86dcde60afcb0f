/*
 * etl_buffer.c - the buffers of an ETL file (etl.h): the queue of events
 * waiting for a buffer, the clock that dates them, filling and writing a
 * 64 KiB buffer, and buffer 0, the header
 * event (SYSTEM_TRACE_HEADER + TRACE_LOGFILE_HEADER + the logger's and the
 * file's names in UTF-16LE).  etl.c explains the values chosen.
 */
#include "tools/kprof/export/etl/etl.h"

#include <errno.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/utf8.h"

/* ---------------------------------------------------------------- the event queue */

void etl_queue_push(struct etl_queue *q, const void *p, size_t n)
{
	if (q->len + n > q->cap) {
		q->cap = (q->len + n) * 2;
		q->b = kp_xrealloc(q->b, q->cap, 1);
	}
	memcpy(q->b + q->len, p, n);
	q->len += n;
}

/* ---------------------------------------------------------------- clock */

#define FILETIME_UNIX_EPOCH 116444736000000000ull /* 1970-01-01 in FILETIME */
#define FILETIME_PER_SECOND 10000000ull

void etl_clock_init(struct etl_clock *c, const struct kp_log *log)
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
uint64_t etl_clock_filetime(const struct etl_clock *c, uint64_t tsc)
{
	__int128 d = (__int128)tsc - (__int128)c->start_tsc;
	__int128 ft = (__int128)c->start_ft + d * (__int128)FILETIME_PER_SECOND / (__int128)c->hz;

	return ft < 0 ? 0 : (uint64_t)ft;
}

uint32_t etl_cpu_mhz(const struct etl_clock *c)
{
	return (uint32_t)((c->hz + 500000) / 1000000);
}

/* ---------------------------------------------------------------- buffers */

void etl_buffer_begin(struct etl_writer *w)
{
	memset(w->buf, 0xFF, ETL_BUFFER_SIZE);
	w->used = sizeof(struct wmi_buffer_header);
}

bool etl_buffer_has_room(const struct etl_writer *w, uint32_t size)
{
	return w->used + ETL_ALIGN_UP(size) <= ETL_BUFFER_SIZE;
}

/* Copy an event in, zero its alignment padding. */
void etl_buffer_put(struct etl_writer *w, const void *bytes, uint32_t size)
{
	uint32_t padded = ETL_ALIGN_UP(size);

	memcpy(w->buf + w->used, bytes, size);
	memset(w->buf + w->used + size, 0, padded - size);
	w->used += padded;
}

/* Fill in the WMI_BUFFER_HEADER and write the buffer out.  CurrentOffset
 * is SavedOffset + BufferSize in data buffers, as in every real file
 * (docs/etw-records.md); the header buffer has them equal. */
void etl_buffer_finish(struct etl_writer *w, uint32_t cpu, uint16_t type, uint16_t flags, uint64_t ts)
{
	const struct etl_clock *c = w->clock;
	struct wmi_buffer_header h = {
		.BufferSize = ETL_BUFFER_SIZE,
		.SavedOffset = w->used,
		.CurrentOffset = type == ETW_BUFFER_TYPE_HEADER ? w->used : w->used + ETL_BUFFER_SIZE,
		.TimeStamp = ts,
		.SequenceNumber = w->next_seq++,
		.ClockTypeFrequency = (c->hz << 3) | ETW_CLOCK_QPC,
		.ProcessorIndex = (uint16_t)cpu,
		.LoggerId = ETW_KERNEL_LOGGER_ID,
		.State = ETW_BUFFER_STATE_FLUSH,
		.Offset = w->used,
		.BufferFlag = flags | ETW_BUFFER_FLAG_PROC_INDEX,
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

size_t etl_utf16(const char *s, uint16_t *out, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n = 0;

	while (left) {
		uint32_t cp;
		unsigned len = kp_utf8_decode(p, left, &cp);
		if (!len) {
			cp = 0xFFFD;
			len = 1; /* resynchronise on the next byte */
		}
		p += len;
		left -= len;
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

	for (uint32_t i = 0; i < log->ncpus; i++) {
		lost = kp_sat_add(lost, kp_cpu_lost(&log->cpus[i]));
		lost = kp_sat_add(lost, kp_cpu_lost_file(&log->cpus[i])); /* a trace file too small for them */
	}
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
uint32_t etl_number_of_processors(const struct kp_log *log)
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
		.NumberOfProcessors = etl_number_of_processors(log),
		.EndTime = plan->have_records ? etl_clock_filetime(c, plan->last_ts) : c->start_ft,
		.TimerResolution = ETL_TIMER_RESOLUTION,
		.LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL,
		.BuffersWritten = 1 + plan->buffers,
		.StartBuffers = 1,
		.PointerSize = 8,
		.EventsLost = events_lost(log, plan->too_large),
		.CpuSpeedInMHz = etl_cpu_mhz(c),
		.BootTime = etl_clock_filetime(c, 0),
		.PerfFreq = c->hz,
		.StartTime = c->start_ft,
		.ReservedFlags = ETW_CLOCK_QPC,
		.BuffersLost = buffers_lost(log),
	};
}

void etl_write_header_buffer(struct etl_writer *w, const struct kp_log *log, const struct etl_plan *plan)
{
	static uint16_t names[sizeof(ETL_LOGGER_NAME) + ETL_MAX_FILE_NAME];
	size_t n = etl_utf16(ETL_LOGGER_NAME, names, sizeof(ETL_LOGGER_NAME));

	n += etl_utf16(w->path, names + n, ETL_MAX_FILE_NAME);

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
	etl_buffer_begin(w);
	etl_buffer_put(w, event, sh.Size);
	etl_buffer_finish(w, 0, ETW_BUFFER_TYPE_HEADER, ETW_BUFFER_FLAG_FLUSH_MARKER, 0); /* TimeStamp 0, as real files */
}

