/*
 * skew_interval.c - where a CPU's TSC offset from CPU 0's lies, from the
 * ping-pong rounds of skew.c: each round bounds it to [t1 - t2, t1 - t0]
 * (the other CPU read t1 after CPU 0's t0 and before its t2, in true
 * time), and the rounds' bounds intersect.
 */
#include "kernel/timekeep/skew.h"

void skew_interval_init(struct skew_interval *iv)
{
	*iv = (struct skew_interval){ .lo = INT64_MIN, .hi = INT64_MAX };
}

void skew_interval_add(struct skew_interval *iv, uint64_t t0, uint64_t t1, uint64_t t2)
{
	int64_t lo = (int64_t)(t1 - t2), hi = (int64_t)(t1 - t0);

	iv->lo = lo > iv->lo ? lo : iv->lo;
	iv->hi = hi < iv->hi ? hi : iv->hi;
	iv->rounds++;
}

bool skew_interval_valid(const struct skew_interval *iv)
{
	return iv->rounds && iv->lo <= iv->hi;
}

int64_t skew_interval_mid(const struct skew_interval *iv)
{
	return iv->lo + (iv->hi - iv->lo) / 2;
}

struct skew_interval skew_interval_sub(const struct skew_interval *a, const struct skew_interval *b)
{
	if (!skew_interval_valid(a) || !skew_interval_valid(b))
		return (struct skew_interval){ .lo = 1, .hi = 0, .rounds = a->rounds }; /* not known */
	return (struct skew_interval){ .lo = a->lo - b->hi, .hi = a->hi - b->lo, .rounds = a->rounds };
}
