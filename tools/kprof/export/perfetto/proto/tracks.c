/*
 * tracks.c - the protobuf trace's tracks (proto.h): a uuid per JSON
 * process and thread track, in the JSON's order (pf_tracks), and one per
 * counter; their TrackDescriptors.  uuids count from 1 in the order the
 * tracks are made, so they take one or two bytes in each event.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/proto/proto.h"
#include "tools/kprof/export/perfetto/proto/schema.h"
#include "tools/kprof/util/alloc.h"

static uint64_t track_hash(uint32_t pid, uint32_t tid, const char *counter)
{
	return counter ? kp_hash_str(counter, 1) : kp_hash_u64((uint64_t)pid << 32 | tid, 0);
}

static uint32_t find(const struct pb_writer *w, uint32_t pid, uint32_t tid, const char *counter)
{
	size_t it;

	for (size_t at = kp_index_first(&w->track_ix, track_hash(pid, tid, counter), &it); at != KP_INDEX_NONE;
	     at = kp_index_next(&w->track_ix, track_hash(pid, tid, counter), &it)) {
		const struct pb_track *t = &w->tracks[at];
		if (counter ? t->counter && !strcmp(t->name, counter) : !t->counter && t->pid == pid && t->tid == tid)
			return (uint32_t)at + 1;
	}
	return 0;
}

static uint32_t add(struct pb_writer *w, struct pb_track t)
{
	kp_index_add(&w->track_ix, track_hash(t.pid, t.tid, t.counter ? t.name : NULL), w->ntracks);
	t.name = kp_xstrdup(t.name);
	KP_PUSH(w->tracks, w->ntracks, w->captracks, t);
	return (uint32_t)w->ntracks;
}

/* Every event looks its track up: the last ones found are kept by a hash
 * of (pid, tid), so that most look-ups are one compare.  The tracks are
 * all made before the events (pf_tracks), and a uuid never changes. */
uint32_t pb_track_uuid(struct pb_writer *w, uint32_t pid, uint32_t tid)
{
	uint64_t key = (uint64_t)pid << 32 | tid;
	struct pb_track_hit *hit = &w->track_hits[kp_hash_u64(key, 0) & (PB_TRACK_HITS - 1)];

	if (!hit->used || hit->key != key)
		*hit = (struct pb_track_hit){ key, find(w, pid, tid, NULL), true };
	return hit->uuid;
}

uint32_t pb_counter_uuid(struct pb_writer *w, const char *name)
{
	uint32_t uuid = find(w, 0, 0, name);

	if (!uuid)
		uuid = add(w, (struct pb_track){ .parent = find(w, PF_CPUS_PID, PB_PROCESS, NULL), .counter = true,
						 .sort = (long)w->ntracks, .name = (char *)name });
	return uuid;
}

static void process(struct pf *p, uint32_t pid, uint32_t tid, const char *name, long sort)
{
	struct pb_writer *w = (struct pb_writer *)p;

	(void)tid;
	add(w, (struct pb_track){ .pid = pid, .tid = PB_PROCESS, .sort = sort, .name = (char *)name });
}

static void track(struct pf *p, uint32_t pid, uint32_t tid, const char *name, long sort)
{
	struct pb_writer *w = (struct pb_writer *)p;

	add(w, (struct pb_track){ .pid = pid, .tid = tid, .parent = find(w, pid, PB_PROCESS, NULL), .sort = sort,
				  .name = (char *)name });
}

void pb_tracks_declare(struct pb_writer *w)
{
	static const struct pf_track_sink sink = { process, track };

	pf_tracks(&w->pf, &sink);
}

void pb_write_descriptors(struct pb_writer *w)
{
	for (size_t k = 0; k < w->ntracks; k++) {
		const struct pb_track *t = &w->tracks[k];
		size_t packet = pb_packet_open(w, (uint32_t)k + 1, 0), d = pb_open(&w->out);
		pb_uint(&w->out, TRACK_UUID, k + 1);
		pb_string(&w->out, TRACK_NAME, t->name);
		if (t->parent)
			pb_uint(&w->out, TRACK_PARENT_UUID, t->parent);
		if (t->tid == PB_PROCESS)
			pb_uint(&w->out, TRACK_CHILD_ORDERING, ORDERING_EXPLICIT);
		/* int32: a negative rank would be ten bytes; ranks are >= 0 */
		pb_uint(&w->out, TRACK_SIBLING_RANK, (uint64_t)(t->sort < 0 ? 0 : t->sort));
		if (t->counter) {
			size_t c = pb_open(&w->out);
			pb_uint(&w->out, COUNTER_UNIT, COUNTER_UNIT_COUNT);
			pb_close(&w->out, TRACK_COUNTER, c);
		}
		pb_close(&w->out, PACKET_TRACK_DESCRIPTOR, d);
		pb_packet_close(w, packet);
	}
}

void pb_tracks_free(struct pb_writer *w)
{
	for (size_t k = 0; k < w->ntracks; k++)
		free(w->tracks[k].name);
	free(w->tracks);
	kp_index_free(&w->track_ix);
}
