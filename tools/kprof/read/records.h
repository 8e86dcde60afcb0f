/*
 * records.h - the records inside buffer frames, one CPU at a time or all
 * CPUs merged in time order, and the totals every summary starts from.
 */
#ifndef KPROF_TOOL_RECORDS_H
#define KPROF_TOOL_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/read/log.h"

struct kp_record {
	uint32_t cpu;
	PERFINFO_TRACE_HEADER h;           /* copied: the log is unaligned  */
	const uint8_t *raw;                /* the record: in the log's bytes, */
	                                   /* or for a compressed chunk in  */
	                                   /* the ring it is decoded into   */
	                                   /* (log.h, kp_buffer_records):   */
	                                   /* whole until KP_CHUNK_RING     */
	                                   /* more chunks are decoded       */
	const uint8_t *payload;            /* raw + 16 (read with memcpy)   */
	uint16_t payload_size;             /* h.Size - 16                   */
	uint8_t version;                   /* from the marker               */
	uint64_t log_offset;               /* byte offset of hdr in the log */
	const struct kp_buffer *buffer;    /* the buffer it came from       */
	uint32_t at;                       /* its place in buffer's records */
	uint64_t back;                     /* > 0: its stamp in the log was */
	                                   /* this far below the CPU's last */
	                                   /* one; h.TimeStamp is raised to */
	                                   /* it (a kernel that did not     */
	                                   /* clamp, read/finish.c reports) */
};

/* Cursor over one CPU's records, in buffer order, with stamps that never
 * go back: a record stamped below the one before it (a log from a kernel
 * that did not clamp its clock's steps back) gets the one before's stamp,
 * and r->back says by how much, so that no output goes back. */
struct kp_cpu_cursor {
	struct kp_log *log;
	uint32_t cpu;
	size_t buffer;                     /* index in the CPU's buffers    */
	uint32_t offset;                   /* in that buffer's records      */
	uint64_t last_ts;                  /* the last stamp given          */
	bool timed;                        /* last_ts is one                */
	const struct kp_buffer *held;      /* the buffer whose records ...  */
	const uint8_t *records;            /* ... these are (decoded: while */
	                                   /* the ring still holds them)    */
};

void kp_cursor_init(struct kp_cpu_cursor *c, struct kp_log *log, uint32_t cpu);
/* Next valid record; false at the end.  A malformed record ends its
 * buffer with a BAD_RECORD issue (reported once per buffer). */
bool kp_cursor_next(struct kp_cpu_cursor *c, struct kp_record *r);

/* All CPUs, merged by TimeStamp (ties: lower CPU first).  The CPUs that
 * still have records are a binary heap on (TimeStamp, CPU) of their next
 * record, so a record costs log(CPUs with records), not a look at every
 * CPU slot (a log naming CPU 4095 once has 4096). */
struct kp_merge {
	struct kp_cpu_cursor *cursors;
	struct kp_record *heads;
	bool *have;
	uint32_t n;
	uint32_t *heap;                    /* CPUs with a head, heap order  */
	uint32_t nheap;
};

void kp_merge_init(struct kp_merge *m, struct kp_log *log);
/* The next record of all CPUs; its bytes whole (decoded again if the ring
 * let its chunk go while it waited as its CPU's next). */
bool kp_merge_next(struct kp_merge *m, struct kp_record *r);
void kp_merge_free(struct kp_merge *m);

/* drops.c: the kernel drop a KprofRecordsLost record r places (the first
 * record after those drops), or NULL for any other record. */
const struct kp_drop *kp_drop_at(const struct kp_log *log, const struct kp_record *r);

/* Totals for summaries: records decoded, and the CPU end frames' counts. */
struct kp_totals {
	uint64_t records;                  /* decoded                       */
	uint64_t lost[KPROF_LOSS_CAUSES];  /* from the end frames           */
	uint64_t lost_total;
	uint64_t stuck;
	uint64_t lost_link;                /* written (end frames) minus    */
	                                   /* decoded: lost on the link     */
	uint64_t lost_file;                /* a trace file's end frames: in */
	                                   /* chunks the file had no room for */
	uint32_t cpus_without_end;         /* whose link losses are unknown */
	uint64_t record_bytes;             /* sum of hdr->Size              */
	uint32_t cpus_with_records;
};

/* Count what the log holds (walks every record once, so any malformed
 * record is an issue afterwards); per_cpu[] (ncpus entries) gets each
 * CPU's records when not NULL. */
void kp_totals(struct kp_log *log, struct kp_totals *t, uint64_t *per_cpu);

#endif
