/*
 * wire.h - how the trace leaves the machine: frames on the serial port.
 *
 * Console text and binary frames share one serial port.  Console text is
 * 7-bit ASCII; a frame starts with the byte 0xFE, which text never
 * contains, so a decoder finds frames by scanning for the magic and
 * confirms each by its header CRC.  docs/wire-format.md describes all of
 * this for someone writing a decoder; this header is the C version.
 *
 * Frame = 24-byte header + payload, no padding, little-endian:
 *
 *   off size field
 *   0   4    magic        0x46504BFE (bytes FE 4B 50 46, "\xFEKPF")
 *   4   1    version      KPROF_FRAME_VERSION
 *   5   1    type         enum kprof_frame_type
 *   6   2    cpu          CPU number, KPROF_FRAME_CPU_NONE for run frames
 *   8   4    seq          per-CPU frame sequence number (run frames: their own)
 *   12  4    length       payload bytes
 *   16  4    payload_crc  CRC-32 (IEEE 802.3, as zlib) of the payload
 *   20  4    header_crc   CRC-32 of bytes 0..19
 *
 * Version 2 (the kernel sends it; decoders still read version 1): each
 * sub-buffer goes out as chunk frames of at most 2 KiB of whole records
 * (LZ4-compressed unless trace.compress=off),
 * every frame names its run (run_id), and a run info frame is repeated so
 * that a capture that starts mid-run still decodes.
 *
 * A frame whose header CRC fails is not a frame (the decoder resumes at the
 * next magic); a frame whose payload CRC fails is reported as corrupt with
 * its byte offset; a gap in a CPU's seq numbers is reported as missing
 * frames.  A frame cut short by the end of the log is reported truncated.
 */
#ifndef KPROF_WIRE_H
#define KPROF_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define KPROF_FRAME_MAGIC        0x46504BFEu
#define KPROF_FRAME_VERSION      2    /* what the kernel sends               */
#define KPROF_FRAME_VERSION_1    1    /* old logs: one buffer frame per sub-buffer */
#define KPROF_FRAME_HEADER_SIZE  24
#define KPROF_FRAME_MAX_PAYLOAD  (1u << 20)   /* decoders reject longer frames */
#define KPROF_FRAME_CPU_NONE     0xFFFFu

enum kprof_frame_type {
	KPROF_FRAME_RUN_HEADER = 1,  /* struct kprof_run_header + strings        */
	KPROF_FRAME_BUFFER = 2,      /* v1 only: struct kprof_buffer_header + records */
	KPROF_FRAME_CPU_END = 3,     /* struct kprof_cpu_end                      */
	KPROF_FRAME_RUN_END = 4,     /* struct kprof_run_end                      */
	KPROF_FRAME_CHUNK = 5,       /* v2: struct kprof_chunk_header + records  */
	KPROF_FRAME_RUN_INFO = 6,    /* v2: struct kprof_run_info, repeated      */
};

struct kprof_frame_header {
	uint32_t magic;              /* KPROF_FRAME_MAGIC                         */
	uint8_t version;             /* KPROF_FRAME_VERSION                       */
	uint8_t type;                /* enum kprof_frame_type                     */
	uint16_t cpu;                /* writer CPU or KPROF_FRAME_CPU_NONE        */
	uint32_t seq;                /* per-CPU sequence number                   */
	uint32_t length;             /* payload bytes                             */
	uint32_t payload_crc;        /* CRC-32 of the payload                     */
	uint32_t header_crc;         /* CRC-32 of the 20 bytes before this field  */
};
_Static_assert(sizeof(struct kprof_frame_header) == KPROF_FRAME_HEADER_SIZE, "frame header size");

/* Trace modes (trace.mode=). */
enum kprof_trace_mode {
	KPROF_TRACE_STREAM = 0,      /* full buffers go out while the run goes on */
	KPROF_TRACE_DUMP = 1,        /* everything goes out at the end of the run */
};

/* Clock types, as TRACE_LOGFILE_HEADER.ReservedFlags. */
#define KPROF_CLOCK_CYCLES 3

/* Run header frame payload: fixed part, then build_id and cmdline strings
 * (NUL-terminated, at the offsets given). */
struct kprof_run_header {
	uint32_t version;            /* KPROF_RUN_HEADER_VERSION                  */
	uint32_t size;               /* sizeof(struct kprof_run_header)           */
	uint32_t cpu_count;          /* CPUs online, numbered 0..cpu_count-1      */
	uint32_t pointer_size;       /* 8                                          */
	uint64_t tsc_hz;             /* TimeStamp units per second                */
	uint64_t start_tsc;          /* TSC when tracing started                  */
	uint64_t boot_unix_s;        /* wall clock (CMOS RTC) at start, 0 unknown */
	uint32_t clock_type;         /* KPROF_CLOCK_CYCLES                         */
	uint32_t trace_mode;         /* enum kprof_trace_mode                      */
	uint32_t buffer_size;        /* bytes per trace sub-buffer                 */
	uint32_t buffers_per_cpu;    /* sub-buffers per CPU                        */
	uint32_t group_masks[8];     /* PERFINFO_GROUPMASK in force                */
	uint32_t build_id_offset;    /* from the start of this struct             */
	uint32_t cmdline_offset;     /* from the start of this struct             */
	uint32_t scenario;           /* enum kprof_scenario, KPROF_SCENARIO_NAMED  */
	uint32_t run_id;             /* v2: names the run in every frame (v1: 0)  */
	/* v4: time (kernel/timekeep/, docs/cpus-and-time.md); 0 before */
	int32_t tsc_skew_ns;         /* the largest offset of a CPU's TSC from
	                                CPU 0's, measured at boot (signed)       */
	uint32_t tsc_skew_error_ns;  /* its uncertainty (+-)                      */
	uint16_t tsc_skew_cpu;       /* that CPU                                  */
	uint16_t skew_cpus;          /* CPUs whose skew was measured              */
	uint16_t clock_reference;    /* KPROF_REFCLOCK_* the TSC watchdog uses    */
	uint16_t watchdog_ms;        /* the watchdog's interval, 0: none          */
	uint32_t ref_read_ns;        /* one read of that reference clock          */
	uint32_t clock_flags;        /* KPROF_RUN_CLOCK_*                          */
};
/* Version 3: the run info frames carry the workload's name
 * (kprof_run_info.scenario_name); the fixed part is unchanged.
 * Version 4: the time fields after run_id (the fixed part grows to 128
 * bytes; readers take `size` bytes of it and zero the rest). */
#define KPROF_RUN_HEADER_VERSION 4
#define KPROF_RUN_HEADER_V3_SIZE 104
_Static_assert(sizeof(struct kprof_run_header) == 128, "run header size");
#define KPROF_RUN_CLOCK_CLAMPED    0x1u /* the writer clamps stamps: none go back */
#define KPROF_RUN_CLOCK_SKEW_FIXED 0x2u /* a CPU's stamps corrected by its skew  */
#define KPROF_RUN_CLOCK_NOT_SYNCED 0x4u /* a CPU's offset moved while measured   */

/*
 * Version 2: chunk frames.  Each sub-buffer is sent as chunks of at most
 * KPROF_CHUNK_BYTES of whole records (a record larger than that goes
 * alone in its chunk), so that damage on the link costs the records of
 * one chunk, not of a sub-buffer.  The frame's seq is the CPU's chunk
 * sequence (the CPU end frame continues it).  Every chunk decodes on its
 * own: it names the run, its sub-buffer and its records.
 *
 * Encoding 1 (KPROF_CHUNK_DELTA_LZ4): the chunk's records went through the
 * TSC delta transform (kernel/trace/trace_delta.c) and then one LZ4 block
 * (kernel/lib/codec/lz4.c); the payload after this header is that block, and
 * raw_bytes is the exact size it decodes to (a different size is a damaged
 * chunk).  The kernel sends a chunk raw when LZ4 does not make it smaller
 * or with trace.compress=off.
 *
 * Encoding 2 (KPROF_CHUNK_DELTA2_LZ4): the same with the delta transform's
 * second set of rules (TD_RULES_2: also kprof's tracetest Sequence as a
 * difference per writer).  What kernels write since; encoding 1 still
 * decodes with the first rules, so older captures stay exact.
 */
struct kprof_chunk_header {
	uint32_t run_id;             /* the run's id (run header, run info)       */
	uint32_t buffer_seq;         /* sub-buffer it was cut from, per CPU       */
	uint16_t records;            /* whole records in it                        */
	uint16_t flags;              /* KPROF_CHUNK_*                              */
	uint8_t encoding;            /* KPROF_CHUNK_RAW, _DELTA_LZ4, _DELTA2_LZ4    */
	uint8_t reserved;            /* 0                                          */
	uint16_t raw_bytes;          /* encoding 1, 2: record bytes once decoded;
	                                raw: the payload's record bytes, or 0 (old) */
};
_Static_assert(sizeof(struct kprof_chunk_header) == 16, "chunk header size");
_Static_assert(sizeof(struct kprof_chunk_header) % 8 == 0, "records after it stay 8-byte aligned");
#define KPROF_CHUNK_LAST    0x1u  /* the last chunk of its sub-buffer            */
#define KPROF_CHUNK_FINAL   0x2u  /* ... and that sub-buffer is the CPU's last   */
#define KPROF_CHUNK_LOSSES  0x4u  /* retired: old logs only (drops: KPROF_RECORDS_LOST) */
#define KPROF_CHUNK_RAW       0   /* encoding: records as written               */
#define KPROF_CHUNK_DELTA_LZ4 1   /* encoding: the delta transform's first rules
                                     (TD_RULES_1), then one LZ4 block; decodes
                                     to raw_bytes of records (older kernels)    */
#define KPROF_CHUNK_DELTA2_LZ4 2  /* encoding: the same with TD_RULES_2          */
#define KPROF_CHUNK_COMPRESSED(e) ((e) == KPROF_CHUNK_DELTA_LZ4 || (e) == KPROF_CHUNK_DELTA2_LZ4)
#define KPROF_CHUNK_BYTES   2048  /* record bytes per chunk (tests/bench)       */

/* Run info frame payload (v2): enough to decode a capture that started
 * after the run header.  Sent before the first chunk and again every
 * KPROF_RUN_INFO_EVERY chunks. */
struct kprof_run_info {
	uint32_t run_id;
	uint32_t cpu_count;          /* CPUs traced                               */
	uint64_t tsc_hz;             /* TimeStamp units per second                */
	uint64_t start_tsc;          /* TSC when tracing started                  */
	uint64_t boot_unix_s;        /* wall clock at start, 0 unknown            */
	uint32_t trace_mode;         /* enum kprof_trace_mode                      */
	uint32_t scenario;           /* enum kprof_scenario, KPROF_SCENARIO_NAMED  */
	uint32_t buffer_size;        /* bytes per trace sub-buffer                 */
	uint32_t buffers_per_cpu;    /* sub-buffers per CPU                        */
	/* Since run header version 3: the workload's name (scenario=),
	 * NUL-padded; older kernels send the 48 bytes above only. */
	char scenario_name[32];
};
_Static_assert(sizeof(struct kprof_run_info) == 80, "run info size");
#define KPROF_RUN_INFO_V2_SIZE 48 /* what kernels before version 3 send */
#define KPROF_RUN_INFO_EVERY 64

/* Version 1 buffer frame payload: this header, then `used` bytes of records, each a
 * PERFINFO_TRACE_HEADER + payload, each starting 8-byte aligned. */
struct kprof_buffer_header {
	uint32_t buffer_seq;         /* sub-buffer number on this CPU, from 0      */
	uint32_t used;               /* bytes of records that follow               */
	uint32_t records;            /* records in it                              */
	uint32_t flags;              /* KPROF_BUFFER_*                             */
	uint64_t first_ts;           /* TimeStamp of the first record, 0 if none   */
	uint64_t last_ts;            /* TimeStamp of the last record               */
};
#define KPROF_BUFFER_FINAL   0x1u  /* the CPU's last buffer (partly filled)   */
#define KPROF_BUFFER_LOSSES  0x2u  /* records were lost since the previous one */
_Static_assert(sizeof(struct kprof_buffer_header) == 32, "buffer header size");

/* Why records were dropped (counted per CPU, never silent). */
enum kprof_loss_cause {
	KPROF_LOSS_BUFFERS_FULL = 0, /* no free sub-buffer: the port or dump space ran out */
	KPROF_LOSS_TOO_LARGE = 1,    /* record larger than a sub-buffer                    */
	KPROF_LOSS_NOT_STARTED = 2,  /* written before this CPU's buffers existed          */
	KPROF_LOSS_CAUSES = 3
};

/* Per-CPU end frame payload. */
struct kprof_cpu_end {
	uint32_t cpu;
	uint32_t buffers;            /* v1: buffer frames sent; v2: chunk frames  */
	uint64_t records;            /* records written (committed)                */
	uint64_t bytes;              /* record bytes written, padding included     */
	uint64_t lost[KPROF_LOSS_CAUSES]; /* records dropped, by cause             */
	uint64_t stuck;              /* records reserved but never committed       */
	uint32_t run_id;             /* v2 only (v1 frames end before it)          */
	uint32_t pending;            /* of lost[]: dropped after the CPU's last
	                                records-lost record, so in none (0 from
	                                kernels before KPROF_RECORDS_LOST)        */
};
#define KPROF_CPU_END_V1_SIZE 56
_Static_assert(sizeof(struct kprof_cpu_end) == 64, "cpu end size");

/* Run end frame payload. */
struct kprof_run_end {
	uint32_t status;             /* enum kprof_exit_status                     */
	uint32_t cpu_count;          /* CPU end frames sent                        */
	uint64_t end_tsc;
	uint32_t run_id;             /* v2 only (v1 frames end before it)          */
	uint32_t reserved;
};
#define KPROF_RUN_END_V1_SIZE 16
_Static_assert(sizeof(struct kprof_run_end) == 24, "run end size");

#endif /* KPROF_WIRE_H */
