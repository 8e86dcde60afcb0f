/*
 * names.c - the protobuf trace's event names (proto.h): each interned
 * once, iid from 1 in the order they are first met.  A name made from a
 * key (a thread's label, "on CPU n": pf_key_name) or a sample's function
 * (with --kernel) is made once, the first time its key or instruction
 * pointer comes, and then found by it.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"

/* The look-ups' kinds besides the keys' (0): a sample's instruction
 * pointer, SampledProfile or PmcInterrupt. */
#define KEY_SAMPLE 0x5u
#define KEY_PMC    0x6u

uint32_t pb_intern(struct pb_writer *w, const char *name)
{
	uint64_t h = kp_hash_str(name, 0);
	size_t it;

	for (size_t at = kp_index_first(&w->name_ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&w->name_ix, h, &it))
		if (!strcmp(w->names[at], name))
			return (uint32_t)at + 1;
	KP_ASSERT(w->nnames < PB_TF_VALUE, "%zu names", w->nnames); /* a thread's fact holds an iid in 28 bits */
	kp_index_add(&w->name_ix, h, w->nnames);
	KP_PUSH(w->names, w->nnames, w->capnames, kp_xstrdup(name));
	return (uint32_t)w->nnames;
}

/* The iid kept for (kind, v), or 0. */
static uint32_t keyed(struct pb_writer *w, uint64_t kind, uint64_t v, uint64_t *h)
{
	size_t it;

	*h = kp_hash_u64(v, kind);
	for (size_t at = kp_index_first(&w->keyed_ix, *h, &it); at != KP_INDEX_NONE;
	     at = kp_index_next(&w->keyed_ix, *h, &it))
		if (w->keyed[at].key == v && w->keyed[at].kind == kind)
			return w->keyed[at].iid;
	return 0;
}

static uint32_t keep(struct pb_writer *w, uint64_t kind, uint64_t v, uint64_t h, const char *name)
{
	uint32_t iid = pb_intern(w, name);

	kp_index_add(&w->keyed_ix, h, w->nkeyed);
	KP_PUSH(w->keyed, w->nkeyed, w->capkeyed, ((struct pb_keyed){ v, kind, iid }));
	return iid;
}

uint32_t pb_intern_event(struct pb_writer *w, const struct pf_event *d)
{
	char name[sizeof(d->name)];
	uint64_t h;
	uint32_t iid;

	if (!d->name_key)
		return pb_intern(w, d->name);
	if ((iid = keyed(w, 0, d->name_key, &h)))
		return iid;
	pf_key_name(&w->pf, d->name_key, name, sizeof(name));
	return keep(w, 0, d->name_key, h, name);
}

uint32_t pb_intern_sample(struct pb_writer *w, uint64_t ip, bool pmc)
{
	char fn[256];
	uint64_t h;
	uint32_t iid;

	if (!w->pf.syms)
		return pb_intern(w, pmc ? "PmcInterrupt" : "SampledProfile");
	if ((iid = keyed(w, pmc ? KEY_PMC : KEY_SAMPLE, ip, &h)))
		return iid;
	return keep(w, pmc ? KEY_PMC : KEY_SAMPLE, ip, h, kp_symbols_format(w->pf.syms, ip, fn, sizeof(fn)));
}

void pb_names_free(struct pb_writer *w)
{
	for (size_t k = 0; k < w->nnames; k++)
		free(w->names[k]);
	free(w->names);
	kp_index_free(&w->name_ix);
	free(w->keyed);
	kp_index_free(&w->keyed_ix);
	free(w->sent_on);
}
