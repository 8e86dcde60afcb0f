/*
 * hash.h - an index from 64-bit hashes to array positions, for the
 * lookups the tool makes once per record or per name (a thread by id, a
 * figure by name, a flame-graph child by name): without it each is a scan
 * of everything seen so far, and a log of many distinct names costs the
 * square of its length.
 *
 * The index keeps only (hash, position); the array it indexes stays the
 * caller's, and so does equality: a lookup yields every position whose
 * hash is the one asked for, and the caller compares the keys.  Open
 * addressing with linear probing, at most half full; positions are never
 * removed (every user only adds).
 *
 *	struct kp_index ix = { 0 };
 *	for (size_t at = kp_index_first(&ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&ix, h, &it))
 *		if (same(&array[at], key)) return at;
 *	kp_index_add(&ix, h, n);   (then array[n++] = key)
 */
#ifndef KPROF_TOOL_HASH_H
#define KPROF_TOOL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KP_INDEX_NONE ((size_t)-1)

struct kp_index {
	uint64_t *hash;               /* per slot: the key's hash                 */
	size_t *at;                   /* per slot: position + 1, 0: empty         */
	size_t cap, n;                /* slots (a power of two, or 0), used       */
};

/* FNV-1a of n bytes, then mixed, from seed (0, or an earlier hash to
 * chain several parts of a key). */
uint64_t kp_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t kp_hash_str(const char *s, uint64_t seed);
/* A 64-bit value mixed (splitmix64's finaliser) with seed. */
uint64_t kp_hash_u64(uint64_t v, uint64_t seed);

/* The first position added under hash h, or KP_INDEX_NONE; *it is then
 * where the search goes on. */
size_t kp_index_first(const struct kp_index *ix, uint64_t h, size_t *it);
/* The next one, or KP_INDEX_NONE. */
size_t kp_index_next(const struct kp_index *ix, uint64_t h, size_t *it);
void kp_index_add(struct kp_index *ix, uint64_t h, size_t at);
void kp_index_free(struct kp_index *ix);

#endif
