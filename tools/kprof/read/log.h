/*
 * log.h - reading a kprof serial log: frames, console text, issues.
 *
 * kp_log_read() scans the whole log once: every valid frame is kept (run
 * header, per-CPU buffers, CPU and run end frames), the bytes between
 * frames are console text, and everything wrong is an issue with its byte
 * offset: a corrupt frame (payload CRC), a damaged header, a frame cut
 * short by the end of the log, missing or repeated sequence numbers, a
 * missing end frame.  Nothing stops the scan: the rest still decodes.
 *
 * Both wire versions are read: v1 (one buffer frame per sub-buffer) and v2
 * (chunk frames of at most 2 KiB of records, each naming its run; the
 * compressed ones, encoding 2 as kernels send them now or 1 from older
 * kernels, are LZ4-decompressed with liblz4 and their TSC deltas undone by
 * the kernel's own trace_delta.c under the encoding's rules, into memory
 * the log owns: decoded).  Every record kept
 * comes from a frame whose CRCs checked.  Chunks and buffers are kept per
 * CPU in sequence order and a sequence number seen again is reported and
 * dropped, so `cat run.log run.log` decodes the run once.  Only one run is
 * decoded: the first one met (run_id of v2 frames; for v1, a second run
 * header with another start time starts another run); frames of any other
 * run are counted in other_run_frames and reported once.
 *
 * A trace file written by the kernel (the USB stick's, wire_file.h) is read
 * like a serial log, with two differences its end frames announce: the
 * scan stops at its run end (what follows is the file's fill), and the
 * frames the file had no room for are not a loss on the link but records
 * "not in the file", counted by the kernel (kprof_file_tail, file_form).
 */
#ifndef KPROF_TOOL_LOG_H
#define KPROF_TOOL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "include/kprof/wire.h"
#include "include/kprof/wire_file.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/sat.h"

enum kp_issue_kind {
	KP_ISSUE_CORRUPT,      /* payload CRC mismatch                        */
	KP_ISSUE_BAD_HEADER,   /* magic found, header CRC or fields wrong     */
	KP_ISSUE_TRUNCATED,    /* the log ends inside a frame                 */
	KP_ISSUE_MISSING,      /* sequence numbers skipped on a CPU           */
	KP_ISSUE_DUPLICATE,    /* a sequence number seen again or going back  */
	KP_ISSUE_BAD_RECORD,   /* a record inside a valid buffer is malformed */
	KP_ISSUE_INCOMPLETE,   /* no run header, no end frame, ...            */
	KP_ISSUE_OTHER_RUN,    /* frames of another run left out              */
	KP_ISSUE_LOSS_MISMATCH,/* records-lost records disagree with the end  */
	                       /* frame's loss counts (read/drops.c)          */
	KP_ISSUE_USER_TYPE,    /* user events whose type is missing or damaged */
	                       /* (read/user_types.c): shown raw              */
	KP_ISSUE_TIME_BACK,    /* a CPU's stamps go back (read/finish.c): the */
	                       /* cursor raises them (records.h)             */
	KP_ISSUE_KINDS
};

struct kp_issue {
	enum kp_issue_kind kind;
	uint64_t offset;       /* byte offset in the log                      */
	uint32_t cpu;          /* KPROF_FRAME_CPU_NONE if not about one CPU   */
	uint32_t seq_first;    /* MISSING/DUPLICATE: the sequence numbers     */
	uint32_t seq_last;
	char what[200];        /* one line for people                         */
};

struct kp_buffer {              /* one per frame kept: 24 bytes (a 4 GiB log
                                   has about four million of them)     */
	uint32_t offset;       /* of the frame in the log (a log is at most
	                          KP_LOG_LIMIT_MB): its records (used bytes;
	                          decoded: its LZ4 block, wire_bytes) follow
	                          the frame's header and its chunk's or
	                          buffer's (kp_buffer_payload_at);
	                          kp_buffer_records gives the records        */
	uint32_t frame_seq;
	uint32_t buffer_seq;   /* the sub-buffer's number (v2: the chunk's)   */
	uint32_t records;      /* records, as its header says                 */
	uint32_t used : 20;    /* bytes of records (a frame's payload is      */
	                       /* under KPROF_FRAME_MAX_PAYLOAD, 1 MiB)       */
	uint32_t cpu : 12;     /* < KP_MAX_CPUS                               */
	uint32_t wire_bytes : 20; /* decoded: the LZ4 block's size            */
	uint32_t flags : 2;    /* KPROF_BUFFER_FINAL, _LOSSES (v2: from the
	                          chunk's flags)                              */
	bool chunk : 1;        /* a v2 chunk frame, not a v1 buffer frame     */
	bool bad_reported : 1; /* a malformed record in it was reported       */
	bool decoded : 1;      /* encoding 1, 2: delta + LZ4, decoded when read */
	bool rules1 : 1;       /* ... encoding 1 (TD_RULES_1), else 2         */
	bool kept : 1;         /* ... kept decoded: the records are a copy
	                          (kp_log.kept), not in the log              */
};
_Static_assert(sizeof(struct kp_buffer) == 24, "a frame is 24 bytes of the log's index");
_Static_assert(KPROF_FRAME_MAX_PAYLOAD <= (1u << 20), "a frame's payload fits kp_buffer.used and .wire_bytes");
_Static_assert((KPROF_BUFFER_FINAL | KPROF_BUFFER_LOSSES) < 4u, "the buffer flags fit kp_buffer.flags");

/* Where b's payload lies past the frame's header: after the chunk's header
 * (v2) or the buffer's (v1). */
static inline uint64_t kp_buffer_payload_at(const struct kp_buffer *b)
{
	return b->offset + KPROF_FRAME_HEADER_SIZE +
	       (b->chunk ? sizeof(struct kprof_chunk_header) : sizeof(struct kprof_buffer_header));
}

/* The log offset given for byte off of b's records: where it is in the
 * log, or for a decoded chunk a point of its compressed payload in
 * proportion (log order kept, never outside the frame). */
static inline uint64_t kp_buffer_log_offset(const struct kp_buffer *b, uint32_t off)
{
	if (!b->decoded)
		return kp_buffer_payload_at(b) + off;
	return kp_buffer_payload_at(b) + (b->used ? (uint64_t)off * b->wire_bytes / b->used : 0);
}

/* A buffer's records (b->used bytes): in the log; for a compressed chunk
 * kept decoded, that copy (a log's are kept when all of them fit in
 * KP_DECODED_KEEP_MB MiB, KPROF_DECODED_KEEP_MB in the environment sets
 * another amount);
 * for any other compressed chunk decoded now into the next of the log's
 * KP_CHUNK_RING slots (KPROF_CHUNK_RING, at least 2, sets another number:
 * for tests), which hold it until as many other chunks are decoded after
 * it (frames.c).  So a small log is decoded once and a compressed log of
 * any size holds a bounded amount decoded. */
#define KP_DECODED_KEEP_MB 64
#define KP_CHUNK_RING 1024
struct kp_log;
const uint8_t *kp_buffer_records(struct kp_log *log, const struct kp_buffer *b);
/* Whether records, from kp_buffer_records(log, b), still hold b's. */
bool kp_buffer_held(const struct kp_log *log, const struct kp_buffer *b, const uint8_t *records);

/* Records lost on the link: frames of one CPU missing from the log,
 * placed in time between the records either side (0 when none). */
struct kp_gap {
	uint32_t cpu;
	uint32_t seq_first, seq_last; /* the frames missing                   */
	uint64_t offset;              /* where the scan noticed it            */
	uint64_t ts_before;           /* last record before it, 0 if none     */
	uint64_t ts_after;            /* first record after it, 0 if none     */
	bool not_in_file;             /* frames a trace file had no room for
	                                 (its end frames count their records),
	                                 not lost on the link                 */
};

/* Records the kernel dropped on one CPU (read/drops.c), placed in time:
 * from a KprofRecordsLost record (between the CPU's last record before it
 * and the record itself), or, for the drops in no such record (`tail`:
 * after the CPU's last records-lost record, counted by its end frame), from
 * the CPU's last record to the end of the trace. */
struct kp_drop {
	uint32_t cpu;
	bool tail;                    /* from the end frame, no record        */
	uint64_t ts_before;           /* the CPU's last record before, 0 none */
	uint64_t first_ts;            /* FirstLossTime; tail: ts_before       */
	uint64_t ts;                  /* the records-lost record's TimeStamp; */
	                              /* tail: the end of the trace           */
	uint64_t lost[KPROF_LOSS_CAUSES]; /* by cause                         */
	uint64_t total;
	const struct kp_buffer *buffer; /* holding the record (tail: NULL)    */
	uint64_t log_offset;          /* of the record (tail: 0)              */
	uint32_t at;                  /* the record's place in the buffer's   */
	                              /* records (tail: 0)                    */
};

struct kp_cpu {
	struct kp_buffer *buffers;  /* in sequence order once read (store.c)  */
	size_t nbuffers, cap;
	bool have_end;
	struct kprof_cpu_end end;
	bool have_file_tail;        /* end frame of a trace file: its tail    */
	struct kprof_file_tail file_tail;
	uint64_t next_seq;          /* frame sequence expected next (can be 2^32) */
	bool seen;                  /* any frame from it                      */
	uint64_t *seq_set;          /* once unsorted: the buffers' frame_seq + 1,
	                               hashed (store.c)                       */
	size_t seq_n, seq_cap;
	bool unsorted;              /* a buffer came late: sorted at the end  */
	size_t gaps;                /* gaps in its frames (finish.c)          */
	size_t link_gaps;           /* ... of them lost on the link            */
	uint64_t steps_back;        /* stamps below the one before (finish.c): */
	uint64_t back_max;          /* a kernel that did not clamp; the largest */
	uint64_t clock_steps;       /* KprofClockStep: steps the kernel clamped */
	uint64_t clock_step_max;    /* ... the largest (cycles)                */
	uint64_t clock_unstable;    /* KprofClockCheck records saying UNSTABLE */
};

/* Records the kernel dropped on a CPU, all causes (its end frame; 0
 * without one), summed saturating (util/sat.h). */
static inline uint64_t kp_cpu_lost(const struct kp_cpu *c)
{
	uint64_t n = 0;
	for (int k = 0; c->have_end && k < KPROF_LOSS_CAUSES; k++)
		n = kp_sat_add(n, c->end.lost[k]);
	return n;
}

/* Records of a CPU that a trace file had no room for (0 in a serial log). */
static inline uint64_t kp_cpu_lost_file(const struct kp_cpu *c)
{
	return c->have_end && c->have_file_tail ? c->file_tail.records_lost : 0;
}

struct kp_log {
	uint8_t *bytes;             /* the whole log                          */
	size_t size;
	bool mapped;                /* bytes is the file mapped read-only, not
	                               a copy: pages walked are given back to
	                               the page cache (kp_log_release)      */
	uint64_t walked;            /* records walked (cursors), for that     */
	bool have_header;           /* header below is known (frame or run info) */
	bool header_frame;          /* ... from the run header frame itself    */
	struct kprof_run_header header;
	uint32_t version;           /* wire version of the run's frames (1, 2) */
	uint32_t run_id;            /* the run decoded (0: v1 or not yet known) */
	bool run_chosen;            /* run_id (or the v1 run) is settled       */
	bool v1_later_run;          /* v1: a run header of another run came     */
	size_t other_run_frames;    /* valid frames of other runs, left out    */
	uint32_t other_run_id;      /* the first of them                       */
	size_t duplicates;          /* frames seen again, decoded once         */
	struct kp_gap *gaps;        /* frames missing, per CPU, in time        */
	size_t ngaps, gaps_cap;
	struct kp_drop *drops;      /* kernel drops, per CPU in time (drops.c) */
	size_t ndrops, drops_cap;
	size_t *drop_index;         /* drops placed by a record, by its raw   */
	size_t ndrop_index;
	bool drops_flagged;         /* an old log: losses flagged on buffers
	                               (KPROF_BUFFER_LOSSES), not placed      */
	char build_id[65];
	char cmdline[1025];
	char scenario_name[33]; /* the run info's (v3), "" before */
	bool have_run_end;
	struct kprof_run_end run_end;
	bool file_form;             /* end frames with a file tail: a trace
	                               file, not a serial capture            */
	bool have_run_file_tail;    /* the run end's tail (then the scan
	                               stopped at the run end)               */
	struct kprof_file_tail run_file_tail;
	uint64_t fill_bytes;        /* bytes after a file's run end, not read */
	struct kp_cpu *cpus;        /* indexed by CPU number                  */
	uint32_t ncpus;             /* entries in cpus[]                      */
	struct kp_issue *issues;
	size_t nissues, issues_cap;
	size_t frames;              /* valid frames                           */
	uint64_t run_next_seq;      /* run-level frame expected next          */
	bool run_seen;              /* any run-level frame yet                */
	uint8_t **kept;             /* compressed chunks' records kept decoded */
	size_t nkept, kept_cap;     /* (all of them, or none: frames.c)       */
	uint64_t *kept_offset;      /* their frames' offsets, and the index of */
	size_t kept_offset_cap;
	struct kp_index kept_ix;    /* them (kp_buffer_records finds a copy)  */
	uint64_t kept_bytes;
	bool kept_partial;          /* a decoded chunk did not fit: keep none */
	struct kp_chunk_ring *ring; /* the others', decoded as they are read  */
	                            /* (frames.c)                             */
	size_t damaged_chunks;      /* CRC good but would not decode: dropped */
	size_t damage_run;          /* scan: the damaged-header issue (index
	                               + 1) a run of damage extends, 0: none  */
	uint64_t damage_count;      /* ... how many headers it holds, the last */
	uint64_t damage_last;
	uint64_t damaged_headers;   /* damaged frame headers met so far       */
	char *console;              /* text between frames, NUL-terminated    */
	struct kp_user_types *user_types; /* user event types (user_types.c) */
	size_t console_len;
};

/* drops.c: place the kernel's drops (log->drops) from the KprofRecordsLost
 * records and the CPU end frames, and report where the two disagree; the
 * scan does it last. */
void kp_drops_find(struct kp_log *log);
/* A loss cause (enum kprof_loss_cause) for people ("buffers full") and
 * as a JSON key ("buffers_full"). */
const char *kp_loss_cause_text(int cause);
const char *kp_loss_cause_key(int cause);
/* Where a drop's hole starts: the first drop's TSC, else the CPU's last
 * record before it (0: none known). */
static inline uint64_t kp_drop_start(const struct kp_drop *d)
{
	return d->first_ts && d->first_ts >= d->ts_before && d->first_ts <= d->ts ? d->first_ts : d->ts_before;
}

/* The largest log read, in MiB (the environment's KPROF_LOG_LIMIT_MB may
 * set a lower limit): a trace file from the stick is under 4 GiB. */
#define KP_LOG_LIMIT_MB 4096ull
_Static_assert(KP_LOG_LIMIT_MB << 20 <= 1ull << 32, "every offset in a log fits kp_buffer.offset");
/* Read and scan a log: a regular file, a pipe or a character device of
 * at most the limit; 0, or -1 with errno set if it cannot be read (EISDIR,
 * ENODEV: another kind of file; EFBIG: over the limit). */
int kp_log_read(const char *path, struct kp_log *log);
/* Why a log could not be read (errno of kp_log_read), for people. */
const char *kp_log_read_error(int err, char *buf, size_t size);
/* Scan bytes already in memory (taken over, freed by kp_log_free). */
void kp_log_scan(struct kp_log *log, uint8_t *bytes, size_t size);
void kp_log_free(struct kp_log *log);
/* A mapped log's pages leave the process's resident memory (the file
 * stays in the page cache; a page read again comes back from it), so that
 * walking a log of any size holds a bounded part of it: called every 16 MiB
 * of the scan and every 256 Ki records a cursor walks.  Nothing for a log
 * read into memory (a pipe). */
void kp_log_release(struct kp_log *log);
#define KP_LOG_RELEASE_RECORDS (1u << 18)
#define KP_LOG_RELEASE_BYTES ((size_t)16 << 20)
/* The records of the frames kept, over every CPU: what the commands walk
 * (a pass of the model, the progress line's whole). */
static inline uint64_t kp_log_records(const struct kp_log *log)
{
	uint64_t n = 0;

	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++)
		for (size_t i = 0; i < log->cpus[cpu].nbuffers; i++)
			n += log->cpus[cpu].buffers[i].records;
	return n;
}
/* finish.c: the checks once every frame is in (kp_log_scan's last step). */
void kp_log_finish(struct kp_log *log);

void kp_issue_add(struct kp_log *log, enum kp_issue_kind kind, uint64_t offset, uint32_t cpu, uint32_t first,
		  uint32_t last, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
const char *kp_issue_kind_name(enum kp_issue_kind kind);

#endif
