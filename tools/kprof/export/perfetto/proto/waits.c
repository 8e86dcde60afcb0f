/*
 * waits.c - the spin-lock waits of the protobuf trace (proto.h), from the
 * waits' sort (gather.c) in a sweep over each CPU's in start order (the
 * outer one first): nested by the model's own rule (kp_wait_nest: a wait
 * that starts inside another and ends after it is cut to end with it),
 * each a slice on "CPU n lock waits" named after its lock
 * (pf_wait_name), and, but the idle thread's, a slice for its thread's
 * "waits" (into the threads' sort: threads.c).  What is held is the
 * waits open at once on the CPU.
 */
#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/util/kpassert.h"
#include "tools/kprof/util/sort.h"

static inline int pb_wait_cmp_of(const struct pb_wait_fact *x, const struct pb_wait_fact *y)
{
	int c;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if ((c = kp_cmp_u64(x->start, y->start)))
		return c;
	if ((c = kp_cmp_u64(y->end, x->end))) /* the outer one first */
		return c;
	return kp_cmp_u64(x->seq, y->seq);
}

int pb_wait_cmp(const void *a, const void *b)
{
	return pb_wait_cmp_of(a, b);
}

PB_SORT_DEFINE(pb_wait_sort, struct pb_wait_fact, pb_wait_cmp_of)

void pb_waits_nest(struct pb_writer *w)
{
	const struct pb_wait_fact *f;
	struct kp_wait_nesting nest = { .depth = 0 };
	uint64_t k = 0;
	uint32_t cpu = UINT32_MAX;
	char name[64];

	pb_spill_sorted(&w->waits);
	while ((f = pb_spill_next(&w->waits))) {
		if (f->cpu != cpu) {
			cpu = f->cpu;
			nest.depth = 0;
			k = 0;
		}
		uint64_t start = f->start, end = kp_wait_nest(&nest, start, f->end);
		pf_wait_name(&w->pf, f->lock, start, name, sizeof(name));
		uint32_t iid = pb_intern(w, name);
		pb_add_slice(w, PF_CPUS_PID, WAIT_TID + cpu, start, end, iid);
		KP_ASSERT(k < (1ull << 44) && cpu <= UINT16_MAX, "wait %llu of cpu %u", (unsigned long long)k, cpu);
		if (f->tid) {
			struct pb_thread_fact t = { .t = start, .end = end, .order = (uint64_t)cpu << 44 | k,
						    .tid = f->tid, .what = iid | PB_TF_WAITS };
			pb_spill_add(&w->threads, &t);
		}
		k++;
	}
	pb_spill_free(&w->waits);
}
