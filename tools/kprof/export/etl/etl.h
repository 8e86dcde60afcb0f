/*
 * etl.h - what the parts of `kprof etl` share: the clock, the writer of
 * 64 KiB buffers, the queue of events waiting for one, the plan of the
 * file and the rundown.  etl_buffer.c fills and writes buffers, the header
 * buffer and the queue; etl_rundown.c makes the Windows events kprof
 * writes itself (calling etl_image.c for the image's symbol events);
 * etl.c places the records and runs the command.  Calls go one way:
 * etl.c -> etl_rundown.c -> etl_image.c -> etl_buffer.c.
 */
#ifndef KPROF_TOOL_ETL_H
#define KPROF_TOOL_ETL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/export/etl/etl_format.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/hash.h"


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

/* Buffer 0: the logfile header event; flags: FLUSH_MARKER | PROC_INDEX. */
void etl_write_header_buffer(struct etl_writer *w, const struct kp_log *log, const struct etl_plan *plan);

/* UTF-8 to UTF-16LE units, at most max - 1 of them plus a NUL (bytes
 * that are not UTF-8 become U+FFFD); returns the units, NUL included. */
size_t etl_utf16(const char *s, uint16_t *out, size_t max);

/* max(run header cpu_count, CPUs in the log, 1): NumberOfProcessors. */
uint32_t etl_number_of_processors(const struct kp_log *log);

/* The TSC rate in MHz, rounded: CpuSpeedInMHz and SystemConfig CPU MHz. */
uint32_t etl_cpu_mhz(const struct etl_clock *c);

/* Events waiting for a buffer: whole events, each padded to 8 bytes. */
struct etl_queue {
	uint8_t *b;
	size_t len, cap;
	size_t head;                 /* next event to take                     */
};

/* Append n bytes (one or more whole, padded events). */
void etl_queue_push(struct etl_queue *q, const void *p, size_t n);

/* ---------------------------------------------------------------- etl_rundown.c */

/* A thread of the kernel's rundown (a KprofThread record before any
 * Windows record of its CPU). */
struct etl_known_thread {
	uint32_t cpu;
	uint64_t ts;                 /* the KprofThread record's TimeStamp     */
	KPROF_THREAD t;
};

struct kp_pdb_identity;

struct etl_rundown {
	const struct kp_log *log;
	const struct etl_clock *clock;
	uint32_t ncpus;              /* NumberOfProcessors                     */
	uint64_t ts;                 /* the rundown's time stamp: start_tsc    */
	bool profiling;              /* PERF_PROFILE in the run's group masks  */
	uint32_t interval;           /* ProfileTime interval, 100 ns units     */
	bool have_image;             /* --kernel given: the image is known     */
	uint64_t image_base, image_size;
	uint32_t image_checksum;     /* the PDB's image's CheckSum, ...        */
	uint32_t image_timestamp;    /* ... and TimeDateStamp (0 without PDB)  */
	const char *image_name;      /* Image DCStart FileName                 */
	const struct kp_pdb_identity *pdb; /* the PDB written for it, or NULL    */
	char image_name_buf[512];
	struct etl_known_thread *threads;
	size_t nthreads;
	uint32_t *pids;              /* processes of the rundown               */
	size_t npids;
	struct etl_known_thread *starts; /* first thread of each later process */
	size_t nstarts;
	size_t threads_cap, pids_cap, starts_cap;
	struct kp_index thread_ix;   /* threads by (cpu, ts, ThreadId)         */
	struct kp_index pid_ix;      /* pids by ProcessId                      */
	struct kp_index start_ix;    /* starts by ProcessId                    */
	struct kp_index start_at_ix; /* ... by (cpu, ts, ThreadId), once found */
};

void etl_rundown_init(struct etl_rundown *rd, struct kp_log *log, const struct etl_clock *c, uint32_t ncpus);
void etl_rundown_free(struct etl_rundown *rd);
/* The events at the start (queued for CPU 0) and after CPU 0's records. */
void etl_rundown_start(struct etl_rundown *rd, struct etl_queue *q);
void etl_rundown_end(struct etl_rundown *rd, struct etl_queue *q, uint64_t ts);
/* The ETL events for one record: the record itself (Windows hooks), a
 * Thread (and Process) Start for a KprofThread of a new thread, or none. */
void etl_record_events(struct etl_rundown *rd, const struct kp_record *r, struct etl_queue *q);

#endif
