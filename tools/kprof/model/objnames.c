/*
 * objnames.c - the names of locks and resources (KprofObjectName
 * records, include/kprof/wmi.h) and their lookup by address and time.
 *
 * The kernel writes a name when it names an object and again in the
 * rundown at the start of the trace, and an address may be named anew
 * when its object is gone (an ERESOURCE on a stack), so the name in use
 * at a time is the latest record at or before it; an object used before
 * its first name record (an ERESOURCE's Initialize comes first) takes
 * that first one.  Logs from kernels without the record have none: the
 * readers then show the address.
 */
#include "tools/kprof/model/model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

void kp_object_name_take(struct kp_model *m, size_t *cap, const struct kp_record *r)
{
	KPROF_OBJECT_NAME k;
	struct kp_object_name n = { .ts = r->h.TimeStamp };

	memcpy(&k, r->payload, sizeof(k));
	n.object = k.Object;
	n.kind = k.Kind;
	memcpy(n.name, k.Name, sizeof(k.Name));
	n.name[sizeof(k.Name)] = 0;
	KP_PUSH(m->object_names, m->nobject_names, *cap, n);
}

const struct kp_object_name *kp_model_object_name(const struct kp_model *m, uint64_t object, uint64_t ts)
{
	const struct kp_object_name *before = NULL, *after = NULL;

	for (size_t i = 0; i < m->nobject_names; i++) { /* in time order */
		const struct kp_object_name *n = &m->object_names[i];
		if (n->object != object)
			continue;
		if (n->ts <= ts)
			before = n;
		else if (!after)
			after = n;
	}
	return before ? before : after;
}

const char *kp_model_object_label(const struct kp_model *m, uint64_t object, uint64_t ts, char *buf, size_t size)
{
	const struct kp_object_name *n = kp_model_object_name(m, object, ts);
	size_t i = 0;

	if (!n || !n->name[0]) {
		snprintf(buf, size, "0x%" PRIx64, object);
		return buf;
	}
	for (; n->name[i] && i + 1 < size; i++)
		buf[i] = n->name[i] >= 0x20 && n->name[i] < 0x7F ? n->name[i] : '?';
	buf[i] = 0;
	return buf;
}
