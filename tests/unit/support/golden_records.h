/*
 * golden_records.h - the trace records of a captured serial log
 * (the logs in tests/golden, wire format v1), per CPU, for the compression tests
 * and benchmark (tests/unit/support/golden_records.c).
 */
#ifndef KPROF_TESTS_GOLDEN_RECORDS_H
#define KPROF_TESTS_GOLDEN_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#define GOLDEN_MAX_CPUS 8

/* One CPU's records: the records of its valid buffer frames, in order,
 * each padded to 8 bytes as in the frames (a CPU's time-ordered stream,
 * as a chunker would cut it if sub-buffers were unbounded). */
struct golden_stream {
	uint8_t *bytes;     /* malloc'd; NULL when the CPU sent nothing */
	size_t len;         /* bytes, padding included */
	size_t records;
	size_t record_bytes; /* sum of the records' Size, padding excluded */
};

/* Fills cpu[0..GOLDEN_MAX_CPUS) from the log at path.  Returns the number
 * of records found, or -1 if the file cannot be read. */
long golden_load(const char *path, struct golden_stream cpu[GOLDEN_MAX_CPUS]);
void golden_free(struct golden_stream cpu[GOLDEN_MAX_CPUS]);

/* The next record-aligned block of s from offset off: whole records, as
 * many as fit in max bytes (padding included), at least one.  Returns its
 * length (0 at the end); *size_sum gets the sum of their Size fields. */
size_t golden_block(const struct golden_stream *s, size_t off, size_t max, size_t *size_sum);

#endif
