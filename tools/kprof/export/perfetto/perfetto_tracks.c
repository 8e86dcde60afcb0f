/*
 * perfetto_tracks.c - the metadata events ("M") that name the trace's
 * processes and tracks and order them: process "CPUs" first (sort index
 * 0) with, per CPU in order, "CPU n", "CPU n lock waits", "CPU n stalled"
 * and "CPU n no trace" (the last three only where they hold events); then
 * one process per thread, by thread id, named "name (tid)" from its
 * KprofThread record, with its "running" and "waits" tracks (and more
 * lanes, "running 2", ..., where its slices overlap).  pf_tracks gives
 * the same list to another writer's callbacks (the protobuf trace's).
 */
#include <inttypes.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/util/json.h"

static void meta_name(struct pf *p, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	pf_begin(p, "M", pid, tid);
	fprintf(p->f, ",\"name\":\"%s\",\"args\":{\"name\":", what);
	kp_json_string(p->f, name);
	fputs("}}", p->f);
}

static void meta_sort(struct pf *p, const char *what, uint32_t pid, uint32_t tid, long sort)
{
	pf_begin(p, "M", pid, tid);
	fprintf(p->f, ",\"name\":\"%s\",\"args\":{\"sort_index\":%ld}}", what, sort);
}

static void json_track(struct pf *p, uint32_t pid, uint32_t tid, const char *name, long sort)
{
	meta_name(p, "thread_name", pid, tid, name);
	meta_sort(p, "thread_sort_index", pid, tid, sort);
}

static void json_process(struct pf *p, uint32_t pid, uint32_t tid, const char *name, long sort)
{
	meta_name(p, "process_name", pid, tid, name);
	meta_sort(p, "process_sort_index", pid, tid, sort);
}

static void cpu_tracks(struct pf *p, const struct pf_track_sink *s)
{
	void (*track)(struct pf *, uint32_t, uint32_t, const char *, long) = s->track;
	char name[64];

	s->process(p, PF_CPUS_PID, CPU_TID, "CPUs", 0);
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &p->m->cpu[cpu];
		snprintf(name, sizeof(name), "CPU %u", cpu);
		track(p, PF_CPUS_PID, CPU_TID + cpu, name, 4L * cpu);
		if (c->waited) { /* the protobuf writer's model keeps none */
			snprintf(name, sizeof(name), "CPU %u lock waits", cpu);
			track(p, PF_CPUS_PID, WAIT_TID + cpu, name, 4L * cpu + 1);
		}
		if (c->nstalls) {
			snprintf(name, sizeof(name), "CPU %u stalled", cpu);
			track(p, PF_CPUS_PID, STALL_TID + cpu, name, 4L * cpu + 2);
		}
		if (c->nholes) {
			snprintf(name, sizeof(name), "CPU %u no trace", cpu);
			track(p, PF_CPUS_PID, HOLE_TID + cpu, name, 4L * cpu + 3);
		}
		if (p->noise_cpus && p->noise_cpus[cpu]) {
			snprintf(name, sizeof(name), "CPU %u noise", cpu);
			track(p, PF_CPUS_PID, NOISE_TID + cpu, name, 4L * cpu + 2);
		}
	}
}

/* "running", "running 2", ... */
static void lanes(struct pf *p, const struct pf_track_sink *s, uint32_t tid, const char *what, uint32_t n, bool waits)
{
	char name[32];

	for (uint32_t k = 0; k < n; k++) {
		if (k)
			snprintf(name, sizeof(name), "%s %u", what, k + 1);
		else
			snprintf(name, sizeof(name), "%s", what);
		s->track(p, PF_THREAD_PID(tid), waits ? PF_WAIT_TID(tid, k) : PF_RUN_TID(tid, k), name,
		      (waits ? PF_LANES : 0) + k);
	}
}

static void thread_tracks(struct pf *p, const struct pf_track_sink *s)
{
	char label[64];

	for (size_t i = 0; i < p->m->nthreads; i++) {
		const struct kp_model_thread *t = &p->m->threads[i];
		const struct pf_lanes *l = &p->lanes[i];
		if (!t->tid || (!l->runs && !l->waits))
			continue;
		s->process(p, PF_THREAD_PID(t->tid), PF_RUN_TID(t->tid, 0),
			   kp_model_thread_label(p->m, t->tid, label, sizeof(label)), 1 + (long)i);
		lanes(p, s, t->tid, "running", l->runs, false);
		lanes(p, s, t->tid, "waits", l->waits, true);
	}
}

void pf_tracks(struct pf *p, const struct pf_track_sink *sink)
{
	cpu_tracks(p, sink);
	thread_tracks(p, sink);
	pf_user_tracks(p, sink->track);
}

void pf_write_metadata(struct pf *p)
{
	static const struct pf_track_sink json = { json_process, json_track };

	pf_tracks(p, &json);
}
