/*
 * queue.c - pf_add (pf.h): an event into the queue that collect.c's part
 * files fill and either writer sorts and writes.  A file of its own so
 * that the parts call down into it and never back into collect.c, which
 * calls them.
 */
#include "tools/kprof/export/perfetto/pf.h"

#include "tools/kprof/util/alloc.h"

void pf_add(struct pf *p, struct pf_item it)
{
	it.seq = p->nitems;
	KP_PUSH(p->items, p->nitems, p->capitems, it);
}
