/*
 * hash.c - the hash index of hash.h: open addressing, linear probing,
 * doubled when half full, so a lookup is a few probes whatever the
 * number of keys.
 */
#include "tools/kprof/util/hash.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"

uint64_t kp_hash_u64(uint64_t v, uint64_t seed)
{
	uint64_t z = v + seed + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t kp_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return kp_hash_u64(h, n);
}

uint64_t kp_hash_str(const char *s, uint64_t seed)
{
	size_t n = 0;

	while (s[n])
		n++;
	return kp_hash_bytes(s, n, seed);
}

/* From slot *it on: the next slot holding hash h, or KP_INDEX_NONE at an
 * empty slot (where the probe sequence of h ends). */
static size_t probe(const struct kp_index *ix, uint64_t h, size_t *it)
{
	if (!ix->cap)
		return KP_INDEX_NONE;
	for (size_t s = *it;; s = (s + 1) & (ix->cap - 1)) {
		if (!ix->at[s])
			return KP_INDEX_NONE;
		if (ix->hash[s] == h) {
			*it = (s + 1) & (ix->cap - 1);
			return ix->at[s] - 1;
		}
	}
}

size_t kp_index_first(const struct kp_index *ix, uint64_t h, size_t *it)
{
	*it = ix->cap ? (size_t)h & (ix->cap - 1) : 0;
	return probe(ix, h, it);
}

size_t kp_index_next(const struct kp_index *ix, uint64_t h, size_t *it)
{
	return probe(ix, h, it);
}

static void put(struct kp_index *ix, uint64_t h, size_t at1)
{
	size_t s = (size_t)h & (ix->cap - 1);

	while (ix->at[s])
		s = (s + 1) & (ix->cap - 1);
	ix->hash[s] = h;
	ix->at[s] = at1;
}

void kp_index_add(struct kp_index *ix, uint64_t h, size_t at)
{
	if (2 * (ix->n + 1) > ix->cap) {
		struct kp_index old = *ix;
		ix->cap = old.cap ? 2 * old.cap : 64;
		ix->hash = kp_xcalloc(ix->cap, sizeof(*ix->hash));
		ix->at = kp_xcalloc(ix->cap, sizeof(*ix->at));
		for (size_t s = 0; s < old.cap; s++)
			if (old.at[s])
				put(ix, old.hash[s], old.at[s]);
		kp_index_free(&old);
	}
	put(ix, h, at + 1);
	ix->n++;
}

void kp_index_free(struct kp_index *ix)
{
	free(ix->hash);
	free(ix->at);
	ix->hash = NULL;
	ix->at = NULL;
	ix->cap = ix->n = 0;
}
