/*
 * trace_delta.h - a reversible per-block transform of trace records that
 * turns absolute TSC values into small differences before compression
 * (kernel/trace/trace_delta.c).
 */
#ifndef KPROF_TRACE_DELTA_H
#define KPROF_TRACE_DELTA_H

#include <stddef.h>
#include <stdint.h>

/*
 * In place over the records in buf[0..n) (8-byte aligned, as in a buffer
 * frame): each record's TimeStamp becomes its difference from the previous
 * record's (the first from 0), and the TSC fields of known payloads become
 * their difference from the record's own TimeStamp.  Marker, Size and
 * HookId are left alone, so both directions walk the same records; at the
 * first record that is not valid (bad marker, Size < 16 or past n) both
 * stop, leaving the rest as it is.  Returns the number of records done.
 */
size_t trace_delta_encode(void *buf, size_t n);

/* Which rules: TD_RULES_1 (wire encoding 1) or TD_RULES_2, which also
 * turns each tracetest record's Sequence into the difference from its
 * writer's previous one (encoding 2, what the encoders here write). */
enum td_rules { TD_RULES_1 = 1, TD_RULES_2 = 2 };

/*
 * The same transform from src into dst (n bytes each, not overlapping):
 * dst ends up as src transformed in place would, in one pass, and src is
 * only read.  Returns the number of records done.
 */
size_t trace_delta_encode_copy(void *dst, const void *src, size_t n);

/* The exact inverse of trace_delta_encode(). */
size_t trace_delta_decode(void *buf, size_t n);

/* The inverse of the transform under the given rules (a chunk's encoding
 * says which: 1 -> TD_RULES_1, 2 -> TD_RULES_2). */
size_t trace_delta_decode_rules(void *buf, size_t n, enum td_rules rules);

#endif
