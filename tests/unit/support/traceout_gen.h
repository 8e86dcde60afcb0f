/*
 * traceout_gen.h - what the trace output tests (test_traceout*.c) share:
 * a run of frames made the way kernel/trace/trace.c makes them, handed to
 * trace_out_frame(); the serial port as a growing buffer; a stick from
 * bootinfo on the fake disk (fake_stick.h); fake RAM for the page
 * allocator; and the host tool's verdict on a log (build/kprof decode).
 * One test thread.
 */
#ifndef KPROF_TESTS_TRACEOUT_GEN_H
#define KPROF_TESTS_TRACEOUT_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"
#include "kernel/usb/storage/stick.h"

#define GEN_MAX_CPUS 8

/* A run as trace.c sends it: run header and run info, chunks of tracetest
 * records (raw encoding) with a run info before every 64th, then the CPU
 * end frames and the run end. */
struct gen {
	uint32_t ncpu, run_id, run_seq, chunks_sent;
	uint32_t seq[GEN_MAX_CPUS];       /* next frame seq per CPU         */
	uint64_t records[GEN_MAX_CPUS];   /* records sent per CPU           */
	uint64_t bytes[GEN_MAX_CPUS];
	uint32_t pattern_seq[GEN_MAX_CPUS];
	uint64_t ts;
};

void gen_start(struct gen *g, uint32_t ncpu);
/* One chunk of n records of payload_len pattern bytes each on cpu. */
void gen_chunk(struct gen *g, uint32_t cpu, uint32_t n, uint32_t payload_len);
void gen_end(struct gen *g);
/* gen_start(), then chunks of 20 records of payload bytes round-robin
 * over the CPUs until at least `bytes` went out. */
void gen_run(struct gen *g, uint32_t ncpu, uint64_t bytes, uint32_t payload);
/* gen_end(), then trace_out_finish(), as trace_finish() does. */
void gen_finish(struct gen *g);
/* A whole run through the output layer: gen_open(), gen_run(), gen_finish(). */
void gen_whole_run(struct gen *g, uint32_t trace_out_sel, const struct bootinfo_stick *bs, uint32_t ncpu,
		   uint64_t bytes, uint32_t payload);
/* The trace file read back from the fake stick (malloc'ed, file_bytes). */
uint8_t *gen_read_file(const struct stick_file *sf);
/* Records sent over all CPUs. */
uint64_t gen_records(const struct gen *g);
/* Bytes one gen_chunk() frame takes on the wire. */
uint32_t gen_chunk_bytes(uint32_t n, uint32_t payload_len);

/* The serial port: every byte arch_serial_write_raw() got. */
extern uint8_t *serial_bytes;
extern size_t serial_len;
extern unsigned serial_claims;   /* console_claim_output() calls */
void serial_reset(void);

/* 16 MiB of fake RAM behind the real page allocator (kernel/mm/pmm.c). */
void fake_ram_init(void);
uint64_t fake_ram_free_pages(void);

/* A stick on a fresh fake disk: the trace file of file_bytes (rounded up
 * to blocks) in nextents runs with gaps between them, described as the
 * loader would (status OK); *sf gets the same extents for reading back. */
struct bootinfo_stick gen_stick(uint64_t file_bytes, uint32_t block_size, uint32_t nextents, struct stick_file *sf);

/* The frames of a log, one by one: false at the end.  *at is the offset
 * to scan from (updated); text between frames is skipped. */
bool gen_next_frame(const uint8_t *log, size_t len, size_t *at, const uint8_t **frame, uint32_t *frame_len);

/* Run `kprof decode --json --summary-json` on the bytes; false (and a "skipped"
 * line) when the host tool is not there.  Fills records, lost_file,
 * lost_link, the number of issues, the loss lines and the exit status. */
struct kprof_verdict {
	int status;
	uint64_t records, lost_file, lost_link;
	unsigned issues;
	bool file_form;
	uint64_t fill_bytes;  /* of a trace file, after its run end */
	char summary[4096];  /* its stderr */
	char losses[4096];   /* `decode --json` lines that are losses       */
};
bool gen_kprof_check(const uint8_t *log, size_t len, struct kprof_verdict *v);
/* The trace file holds the whole of g's run: kprof reads it with status
 * 0, every record sent and no issue (skipped, saying so, without kprof). */
void gen_assert_file_whole(const struct stick_file *sf, const struct gen *g);

/* cmdline_refuse_at_probe() as main.c has it, reduced to the last message
 * and a count. */
extern char probe_refusal[1024];
extern unsigned probe_refusals;

/* Fresh state for a test: fake RAM, serial, console capture, refusals,
 * trace.out=sel. */
void gen_test_reset(uint32_t trace_out_sel);
/* trace.out= as the last gen_test_reset() chose it (enum kprof_trace_out). */
extern uint32_t gen_trace_out;
/* gen_test_reset(), then probe and trace start as main.c and trace.c do
 * them (trace_out_configure, trace_out_start) for ncpu CPUs; bs stays
 * referenced, and the fake stick's faults set before are kept. */
void gen_open(uint32_t trace_out_sel, const struct bootinfo_stick *bs, uint32_t ncpu);

#endif
