/*
 * names.c - locks, threads and functions by the names the report prints
 * (metrics.h): a lock by its KprofObjectName name or its address, a
 * thread by its name or id, a function by its symbol.  A name that is not
 * there comes back with its near matches (near.c).
 */
#include "tools/kprof/metrics/metrics.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/kprof/util/alloc.h"

const char *kp_run_lock_name(const struct kp_runlog *r, uint64_t addr, char *buf, size_t size)
{
	const struct kp_object_name *n = kp_model_object_name(&r->m, addr, UINT64_MAX);

	if (!n)
		snprintf(buf, size, "0x%016" PRIx64, addr);
	return n ? kp_model_object_label(&r->m, addr, UINT64_MAX, buf, size) : buf;
}

/* "0x..." as an address; false for anything else. */
static bool parse_address(const char *s, uint64_t *addr)
{
	char *end;

	if (strncasecmp(s, "0x", 2) || !s[2])
		return false;
	*addr = strtoull(s + 2, &end, 16);
	return !*end;
}

bool kp_run_lock(const struct kp_runlog *r, const char *name, struct kp_lock_rec **recs, size_t *n, char *near,
		 size_t size)
{
	const char **names = kp_xcalloc(r->nlocks ? 2 * r->nlocks : 1, sizeof(*names));
	char **owned = kp_xcalloc(r->nlocks ? r->nlocks : 1, sizeof(*owned));
	uint64_t addr = 0;
	bool by_addr = parse_address(name, &addr);
	size_t nn = 0, nlocks = 0;
	char buf[64];

	*recs = kp_xcalloc(r->nlocks ? r->nlocks : 1, sizeof(**recs));
	*n = 0;
	for (size_t i = 0, j; i < r->nlocks; i = j) {
		uint64_t lock = r->locks[i].lock;
		for (j = i; j < r->nlocks && r->locks[j].lock == lock; j++)
			;
		kp_run_lock_name(r, lock, buf, sizeof(buf));
		if (by_addr ? lock == addr : !strcmp(buf, name)) {
			memcpy(*recs + *n, &r->locks[i], (j - i) * sizeof(**recs));
			*n += j - i;
		}
		owned[nlocks] = kp_xstrdup(buf);
		names[nn++] = owned[nlocks++];
		if (kp_model_object_name(&r->m, lock, UINT64_MAX)) { /* its address names it too */
			snprintf(buf, sizeof(buf), "0x%016" PRIx64, lock);
			owned[nlocks] = kp_xstrdup(buf);
			names[nn++] = owned[nlocks++];
		}
	}
	if (!*n)
		kp_near_names(name, names, nn, near, size);
	for (size_t i = 0; i < nlocks; i++)
		free(owned[i]);
	free(owned);
	free(names);
	if (!*n) {
		free(*recs);
		*recs = NULL;
	}
	return *n > 0;
}

size_t kp_run_threads(const struct kp_runlog *r, const char *name, bool by_id, uint32_t id,
		      const struct kp_model_thread **out, char *near, size_t size)
{
	const struct kp_model *m = &r->m;
	char (*names)[40] = kp_xcalloc(m->nthreads ? m->nthreads : 1, sizeof(*names));
	const char **list = kp_xcalloc(m->nthreads ? m->nthreads : 1, sizeof(*list));
	size_t n = 0;

	for (size_t i = 0; i < m->nthreads; i++) {
		const struct kp_model_thread *t = &m->threads[i];
		list[i] = kp_report_thread_name(t, true, names[i], sizeof(names[i]));
		if (by_id ? t->tid == id : !strcmp(list[i], name))
			out[n++] = t;
	}
	if (!n && by_id)
		snprintf(near, size, "the thread ids run from %u to %u", m->nthreads ? m->threads[0].tid : 0,
			 m->nthreads ? m->threads[m->nthreads - 1].tid : 0);
	else if (!n)
		kp_near_names(name, list, m->nthreads, near, size);
	free(list);
	free(names);
	return n;
}

bool kp_run_function(const struct kp_runlog *r, const char *name, struct kp_hot_row *row, char *near, size_t size)
{
	size_t ns = kp_symbols_count(r->syms);
	const char **list = kp_xcalloc(ns ? ns : 1, sizeof(*list));
	bool found = false;

	*row = (struct kp_hot_row){ .known = true };
	for (size_t i = 0; i < ns; i++) {
		uint64_t start;
		list[i] = kp_symbols_at(r->syms, i, &start);
		if (strcmp(list[i], name))
			continue;
		found = true;
		for (size_t k = 0; k < r->nhot; k++)
			if (r->hot[k].known && r->hot[k].func == start) {
				row->weight += r->hot[k].weight;
				row->count += r->hot[k].count;
				row->w2 += r->hot[k].w2;
				row->func = start;
			}
	}
	if (!found)
		kp_near_names(name, list, ns, near, size);
	free(list);
	return found;
}
