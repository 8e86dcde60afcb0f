/*
 * etl.h - what the two files of `kprof etl` share: the clock, the writer
 * of 64 KiB buffers and the plan of the file.  etl_buffer.c fills and
 * writes buffers and the header buffer; etl.c places the records and runs
 * the command.
 */
#ifndef KPROF_TOOL_ETL_H
#define KPROF_TOOL_ETL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/export/etl_format.h"
#include "tools/kprof/read/log.h"


/* The trace's clock and where it sits in wall-clock time. */
struct etl_clock {
	uint64_t hz;                 /* TSC ticks per second                   */
	uint64_t start_tsc;          /* TSC at start_ft                        */
	uint64_t start_ft;           /* FILETIME of the start                  */
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

/* The trace's clock from the run header (or a nominal 1 GHz one, with a
 * warning, without one), and a TSC value as a FILETIME. */
void etl_clock_init(struct etl_clock *c, const struct kp_log *log);
uint64_t etl_clock_filetime(const struct etl_clock *c, uint64_t tsc);

/* A buffer: start filling it, ask for room, copy an event in (padding
 * zeroed), then finish it (its WMI_BUFFER_HEADER) and write it out. */
void etl_buffer_begin(struct etl_writer *w);
bool etl_buffer_has_room(const struct etl_writer *w, uint32_t size);
void etl_buffer_put(struct etl_writer *w, const void *bytes, uint32_t size);
void etl_buffer_finish(struct etl_writer *w, uint32_t cpu, uint16_t type, uint16_t flags, uint64_t ts);

/* UTF-8 to UTF-16LE units, at most max - 1 of them plus a NUL; bytes that
 * are not UTF-8 become U+FFFD.  Returns the units written, NUL included. */
size_t etl_utf8_to_utf16(const char *s, uint16_t *out, size_t max);

/* Buffer 0: the logfile header event. */
void etl_write_header_buffer(struct etl_writer *w, const struct kp_log *log, const struct etl_plan *plan);

#endif
