/*
 * etl_rundown.c - the Windows events `kprof etl` makes itself, so that
 * WPA, xperf and TraceEvent see processes, threads and the kernel image
 * as a kernel logger's file shows them (layouts: etl_events.h):
 *
 *   at the start, on CPU 0, time stamp start_tsc, in this order (as real
 *   kernel-logger files hold them, docs/etw-records.md):
 *     EventTrace Extension (group masks of the run header), SystemConfig
 *     CPU, PerfInfo CollectionStart (ProfileTime and its interval, when
 *     the run sampled), for each process of the kernel's thread rundown
 *     its Process DCStart then its threads' Thread DCStart with the
 *     thread name (a real file's order, test_etl_real), Image DCStart
 *     + KernelBase for the kernel (with --kernel ELF), the image hook
 *     (etl_image_rundown), RDComplete, EndExtension;
 *   in place of kprof's own records (hook group 0xFE): a KprofThread
 *     record of a thread created later becomes Thread Start (and Process
 *     Start before it when it is the earliest record of a process not in
 *     the rundown, on any CPU: so both passes of etl.c make the same
 *     events whatever order they walk the CPUs in); the kernel's rundown
 *     KprofThread records are left out (their DCStart events carry them);
 *     the other kprof records become TraceLogging events
 *     (etl_tracelogging.c, called by etl.c), as no Windows tool decodes
 *     group 0xFE; losses they place still flag the buffer (etl.c);
 *   at the end of CPU 0's records: PerfInfo CollectionEnd.
 *
 * The kernel's rundown (kernel/sched/thread_trace.c) is written before a
 * CPU traces anything else: the KprofThread records that come before any
 * Windows record of their CPU are the threads known at the start.
 *
 * Values kprof does not have are written as Windows writes an unknown or
 * kernel-only one: stacks, TEB and DirectoryTableBase 0; SessionId
 * 0xFFFFFFFF (no session); ExitStatus STATUS_PENDING (Idle: 0); the user SID
 * S-1-5-18 (LocalSystem) behind a non-zero TOKEN_USER pointer (TraceEvent
 * reads a zero pointer as "no SID, 4 bytes"); PagePriority 5 and
 * IoPriority 2 (normal); SubProcessTag 0; UniqueProcessKey a made-up
 * kernel address per process (ETL_PROCESS_KEY); Thread Start header ids 0.
 */
#include "tools/kprof/export/etl/etl.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/etl/etl_events.h"
#include "tools/kprof/export/etl/etl_image.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"

#define ETL_PROCESS_KEY(pid) (0xFFFFF78000000000ull + ((uint64_t)(pid) << 12))
#define STATUS_PENDING 259
#define SESSION_NONE 0xFFFFFFFFu
#define KERNEL_EVENT_VERSION 70u    /* a real Windows 10 18362 file's (test_etl_real) */
#define PROFILE_TIME_DEFAULT 10000u /* 100 ns units: kernel/profile/source.h */
#define PERF_PROFILE_BIT 0x00000002u /* PERF_PROFILE 0x20000002: mask 1       */
#define PROFILE_SOURCE_NAME "Timer" /* Windows' name of ProfileTime          */

/* ---------------------------------------------------------------- events */

/* One event being built. */
struct etl_ev {
	uint8_t b[2048];
	uint32_t n;
};

static void ev_put(struct etl_ev *e, const void *p, size_t n)
{
	memcpy(e->b + e->n, p, n);
	e->n += (uint32_t)n;
}

static void ev_system(struct etl_ev *e, uint16_t hook, uint8_t version, uint64_t ts)
{
	struct system_trace_header h = { .Marker = SYSTEM_TRACE_MARKER_64 | version, .HookId = hook,
					 .SystemTime = ts };
	e->n = 0;
	ev_put(e, &h, sizeof(h));
}

static void ev_perfinfo(struct etl_ev *e, uint16_t hook, uint8_t version, uint64_t ts)
{
	PERFINFO_TRACE_HEADER h = { .Marker = perfinfo_marker(version), .HookId = hook, .TimeStamp = ts };
	e->n = 0;
	ev_put(e, &h, sizeof(h));
}

/* The header a real kernel-logger file gives the hook (test_etl_real:
 * Windows 10 18362): PERFINFO64 for EventTrace's, Process DCStart and
 * KernelBase, PerfInfo's; SYSTEM64 (thread and process ids) for Thread
 * Start/DCStart, Process Start/End, the kernel's Image DCStart and
 * SystemConfig (not in the real files seen: assumed). */
static void ev_header(struct etl_ev *e, uint16_t hook, uint8_t version, uint64_t ts)
{
	switch (hook) {
	case ETL_HOOK_EXTENSION:
	case ETL_HOOK_END_EXTENSION:
	case ETL_HOOK_RDCOMPLETE:
	case ETL_HOOK_PROCESS_DCSTART:
	case ETL_HOOK_KERNEL_BASE:
	case ETL_HOOK_COLLECTION_START:
	case ETL_HOOK_COLLECTION_END:
		ev_perfinfo(e, hook, version, ts);
		break;
	default:
		ev_system(e, hook, version, ts);
	}
}

static void ev_utf16(struct etl_ev *e, const char *s)
{
	uint16_t u[256];
	ev_put(e, u, 2 * etl_utf16(s, u, 256));
}

/* Set the header's Size and queue the event, padded to 8 with zeros. */
static void ev_end(struct etl_ev *e, struct etl_queue *q)
{
	uint16_t size = (uint16_t)e->n;

	memcpy(e->b + 4, &size, 2);
	memset(e->b + e->n, 0, ETL_ALIGN_UP(e->n) - e->n);
	etl_queue_push(q, e->b, ETL_ALIGN_UP(e->n));
}

/* ---------------------------------------------------------------- processes and threads */

/* A KprofThread record's fields (version 1: 16-byte thread names). */
static bool thread_of(const struct kp_record *r, KPROF_THREAD *t)
{
	size_t name = r->version == 1 ? 16 : sizeof(t->ThreadName);

	if (r->h.HookId != KPROF_LOG_TYPE_THREAD || r->payload_size < 16 + name + sizeof(t->ProcessName))
		return false;
	memset(t, 0, sizeof(*t));
	memcpy(t, r->payload, 16);
	memcpy(t->ThreadName, r->payload + 16, name);
	memcpy(t->ProcessName, r->payload + 16 + name, sizeof(t->ProcessName));
	return true;
}

/* The position of pid in rd->pids, or KP_INDEX_NONE. */
static size_t pid_at(const struct etl_rundown *rd, uint32_t pid)
{
	uint64_t h = kp_hash_u64(pid, 0);
	size_t it;

	for (size_t i = kp_index_first(&rd->pid_ix, h, &it); i != KP_INDEX_NONE; i = kp_index_next(&rd->pid_ix, h, &it))
		if (rd->pids[i] == pid)
			return i;
	return KP_INDEX_NONE;
}

/* A thread's record: its CPU, time stamp and ThreadId. */
static uint64_t at_hash(uint32_t cpu, uint64_t ts, uint32_t tid)
{
	return kp_hash_u64(ts, kp_hash_u64(((uint64_t)cpu << 32) | tid, 0));
}

/* Whether v[] (indexed by ix) holds the record r of thread t. */
static bool known_at(const struct etl_known_thread *v, const struct kp_index *ix, const struct kp_record *r,
		     const KPROF_THREAD *t)
{
	uint64_t h = at_hash(r->cpu, r->h.TimeStamp, t->ThreadId);
	size_t it;

	for (size_t i = kp_index_first(ix, h, &it); i != KP_INDEX_NONE; i = kp_index_next(ix, h, &it))
		if (v[i].cpu == r->cpu && v[i].ts == r->h.TimeStamp && v[i].t.ThreadId == t->ThreadId)
			return true;
	return false;
}

static void process_event(struct etl_queue *q, uint16_t hook, uint64_t ts, const KPROF_THREAD *t)
{
	static const uint8_t sid[] = { 1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0 }; /* S-1-5-18 */
	struct etl_process p = {
		.UniqueProcessKey = ETL_PROCESS_KEY(t->ProcessId),
		.ProcessId = t->ProcessId,
		.ParentId = t->ProcessId == 0 || t->ProcessId == 4 ? 0 : 4, /* made by System */
		.SessionId = SESSION_NONE,
		.ExitStatus = t->ProcessId ? STATUS_PENDING : 0, /* Idle: 0, as real files */
	};
	uint64_t token[2] = { ETL_PROCESS_KEY(t->ProcessId) + 0x800, 0 }; /* TOKEN_USER */
	char name[sizeof(t->ProcessName) + 1] = "";
	struct etl_ev e;

	memcpy(name, t->ProcessName, sizeof(t->ProcessName));
	ev_header(&e, hook, ETL_PROCESS_VERSION, ts);
	ev_put(&e, &p, sizeof(p));
	ev_put(&e, token, sizeof(token));
	ev_put(&e, sid, sizeof(sid));
	ev_put(&e, name, strlen(name) + 1);
	ev_utf16(&e, name);          /* CommandLine: the image name           */
	ev_utf16(&e, "");            /* PackageFullName                       */
	ev_utf16(&e, "");            /* ApplicationId                         */
	ev_end(&e, q);
}

static void thread_event(const struct etl_rundown *rd, struct etl_queue *q, uint16_t hook, uint64_t ts,
			 const KPROF_THREAD *t)
{
	uint32_t ncpus = rd->ncpus < 64 ? rd->ncpus : 64;
	struct etl_thread th = {
		.ProcessId = t->ProcessId,
		.TThreadId = t->ThreadId,
		.Affinity = ncpus == 64 ? UINT64_MAX : (1ull << ncpus) - 1,
		.BasePriority = (uint8_t)t->BasePriority,
		.PagePriority = 5,
		.IoPriority = 2,
	};
	char name[sizeof(t->ThreadName) + 1] = "";
	struct etl_ev e;

	memcpy(name, t->ThreadName, sizeof(t->ThreadName));
	ev_header(&e, hook, ETL_THREAD_VERSION, ts);
	ev_put(&e, &th, sizeof(th));
	ev_utf16(&e, name);
	ev_end(&e, q);
}

/* The rundown KprofThread records: those before any Windows record of
 * their CPU; their processes get Process DCStart. */
static void find_rundown_threads(struct etl_rundown *rd, struct kp_log *log)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor cur;
		struct kp_record r;
		kp_cursor_init(&cur, log, cpu);
		while (kp_cursor_next(&cur, &r) && (r.h.HookId & 0xFF00) == EVENT_TRACE_GROUP_KPROF) {
			struct etl_known_thread k = { .cpu = cpu, .ts = r.h.TimeStamp };
			if (!thread_of(&r, &k.t))
				continue;
			kp_index_add(&rd->thread_ix, at_hash(cpu, k.ts, k.t.ThreadId), rd->nthreads);
			KP_PUSH(rd->threads, rd->nthreads, rd->threads_cap, k);
			if (pid_at(rd, k.t.ProcessId) == KP_INDEX_NONE) {
				kp_index_add(&rd->pid_ix, kp_hash_u64(k.t.ProcessId, 0), rd->npids);
				KP_PUSH(rd->pids, rd->npids, rd->pids_cap, k.t.ProcessId);
			}
		}
	}
}

static bool in_rundown(const struct etl_rundown *rd, const struct kp_record *r, const KPROF_THREAD *t);

/* Processes created later: the earliest KprofThread record of each (any
 * CPU) gets a Process Start before its Thread Start. */
static void find_process_starts(struct etl_rundown *rd, struct kp_log *log)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor cur;
		struct kp_record r;
		KPROF_THREAD t;
		kp_cursor_init(&cur, log, cpu);
		while (kp_cursor_next(&cur, &r)) {
			if (!thread_of(&r, &t) || t.ThreadId == 0 || pid_at(rd, t.ProcessId) != KP_INDEX_NONE ||
			    in_rundown(rd, &r, &t))
				continue;
			uint64_t h = kp_hash_u64(t.ProcessId, 0);
			size_t it, i = kp_index_first(&rd->start_ix, h, &it);
			while (i != KP_INDEX_NONE && rd->starts[i].t.ProcessId != t.ProcessId)
				i = kp_index_next(&rd->start_ix, h, &it);
			if (i == KP_INDEX_NONE) {
				kp_index_add(&rd->start_ix, h, rd->nstarts);
				rd->starts = kp_grow(rd->starts, &rd->starts_cap, rd->nstarts + 1, sizeof(*rd->starts));
				i = rd->nstarts++;
			} else if (rd->starts[i].ts < r.h.TimeStamp ||
				   (rd->starts[i].ts == r.h.TimeStamp && rd->starts[i].cpu <= cpu)) {
				continue;
			}
			rd->starts[i] = (struct etl_known_thread){ .cpu = cpu, .ts = r.h.TimeStamp, .t = t };
		}
	}
	for (size_t i = 0; i < rd->nstarts; i++)
		kp_index_add(&rd->start_at_ix, at_hash(rd->starts[i].cpu, rd->starts[i].ts, rd->starts[i].t.ThreadId), i);
}

static bool is_process_start(const struct etl_rundown *rd, const struct kp_record *r, const KPROF_THREAD *t)
{
	return known_at(rd->starts, &rd->start_at_ix, r, t);
}

static bool in_rundown(const struct etl_rundown *rd, const struct kp_record *r, const KPROF_THREAD *t)
{
	return known_at(rd->threads, &rd->thread_ix, r, t);
}

/* ---------------------------------------------------------------- the rundown */

/* The profile interval the run asked for: profile.interval= on its command
 * line, else the kernel's default (1 ms). */
static uint32_t profile_interval(const struct kp_log *log)
{
	for (const char *p = log->cmdline; (p = strstr(p, "profile.interval=")); p++)
		if (p == log->cmdline || p[-1] == ' ')
			return (uint32_t)strtoul(p + 17, NULL, 0);
	return PROFILE_TIME_DEFAULT;
}

static void extension_event(const struct etl_rundown *rd, struct etl_queue *q, uint16_t hook)
{
	struct etl_extension x = { .KernelEventVersion = KERNEL_EVENT_VERSION };
	struct etl_ev e;

	if (rd->log->have_header)
		memcpy(x.GroupMasks, rd->log->header.group_masks, sizeof(x.GroupMasks));
	/* Word 7 holds kprof's own groups (PERF_KPROF_*), which Windows reads
	 * as its control flags (PERF_CLUSTER_OFF, PERF_MEMORY_CONTROL, ...):
	 * no Windows event belongs to them, so the file says none are set. */
	x.GroupMasks[PERF_KPROF_TRACETEST >> 29] = 0;
	ev_header(&e, hook, ETL_EXTENSION_VERSION, rd->ts);
	ev_put(&e, &x, sizeof(x));
	ev_end(&e, q);
}

static void config_cpu_event(const struct etl_rundown *rd, struct etl_queue *q)
{
	static struct etl_config_cpu c;
	struct etl_ev e;

	memset(&c, 0, sizeof(c));
	c.MHz = etl_cpu_mhz(rd->clock);
	c.NumberOfProcessors = rd->ncpus;
	c.PageSize = 4096;
	c.AllocationGranularity = 65536;
	uint16_t name[256] = { 0 }; /* the rest of the field stays zero */
	etl_utf16("kprof", name, 256);
	memcpy(c.ComputerName, name, sizeof(name));
	ev_header(&e, ETL_HOOK_CONFIG_CPU, ETL_CONFIG_CPU_VERSION, rd->ts);
	ev_put(&e, &c, sizeof(c));
	ev_end(&e, q);
}

static void collection_event(const struct etl_rundown *rd, struct etl_queue *q, uint16_t hook, uint64_t ts)
{
	struct etl_collection c = { .Source = 0 /* ProfileTime */, .NewInterval = rd->interval,
				    .OldInterval = rd->interval };
	struct etl_ev e;

	ev_header(&e, hook, ETL_COLLECTION_VERSION, ts);
	ev_put(&e, &c, sizeof(c));
	ev_utf16(&e, PROFILE_SOURCE_NAME);
	ev_end(&e, q);
}

static void image_events(const struct etl_rundown *rd, struct etl_queue *q)
{
	struct etl_image im = { .ImageBase = rd->image_base, .ImageSize = rd->image_size,
				.ImageChecksum = rd->image_checksum, .TimeDateStamp = rd->image_timestamp,
				.DefaultBase = rd->image_base };
	struct etl_ev e;

	ev_header(&e, ETL_HOOK_IMAGE_DCSTART, ETL_IMAGE_VERSION, rd->ts);
	ev_put(&e, &im, sizeof(im));
	ev_utf16(&e, rd->image_name);
	ev_end(&e, q);
	/* The image's symbol events (ImageID, DbgID_RSDS, etl_image.c): right
	 * after their Image event, as in merged files, with exactly the Image
	 * DCStart event's time stamp, rd->ts. */
	etl_image_rundown(rd->pdb, q, rd->ts);
	ev_header(&e, ETL_HOOK_KERNEL_BASE, ETL_KERNEL_BASE_VERSION, rd->ts);
	ev_put(&e, &rd->image_base, 8);
	ev_end(&e, q);
}

void etl_rundown_start(struct etl_rundown *rd, struct etl_queue *q)
{
	extension_event(rd, q, ETL_HOOK_EXTENSION);
	config_cpu_event(rd, q);
	if (rd->profiling)
		collection_event(rd, q, ETL_HOOK_COLLECTION_START, rd->ts);
	/* each process, then its threads, as real files: the threads in
	 * their order, grouped by process (a counting sort by pid position) */
	size_t *start = kp_xcalloc(rd->npids + 1, sizeof(*start)), *order = kp_xcalloc(rd->nthreads, sizeof(*order));
	for (size_t i = 0; i < rd->nthreads; i++)
		start[pid_at(rd, rd->threads[i].t.ProcessId) + 1]++;
	for (size_t p = 0; p < rd->npids; p++)
		start[p + 1] += start[p];
	for (size_t i = 0; i < rd->nthreads; i++)
		order[start[pid_at(rd, rd->threads[i].t.ProcessId)]++] = i;
	for (size_t p = 0, i = 0; p < rd->npids; p++) { /* start[p]: the end of p's threads now */
		process_event(q, ETL_HOOK_PROCESS_DCSTART, rd->ts, &rd->threads[order[i]].t);
		for (; i < start[p]; i++)
			thread_event(rd, q, ETL_HOOK_THREAD_DCSTART, rd->ts, &rd->threads[order[i]].t);
	}
	free(start);
	free(order);
	if (rd->have_image)
		image_events(rd, q);
	struct etl_ev e;
	ev_header(&e, ETL_HOOK_RDCOMPLETE, ETL_EXTENSION_VERSION, rd->ts);
	ev_end(&e, q);
	extension_event(rd, q, ETL_HOOK_END_EXTENSION);
}

void etl_rundown_end(struct etl_rundown *rd, struct etl_queue *q, uint64_t ts)
{
	if (rd->profiling)
		collection_event(rd, q, ETL_HOOK_COLLECTION_END, ts);
}

void etl_record_events(struct etl_rundown *rd, const struct kp_record *r, struct etl_queue *q)
{
	KPROF_THREAD t;

	if ((r->h.HookId & 0xFF00) != EVENT_TRACE_GROUP_KPROF) {
		etl_queue_push(q, &r->h, sizeof(r->h)); /* the stamp as the cursor gives it: never back */
		etl_queue_push(q, r->payload, r->payload_size);
		etl_queue_push(q, "\0\0\0\0\0\0\0", ETL_ALIGN_UP(r->h.Size) - r->h.Size);
		return;
	}
	if (!thread_of(r, &t) || t.ThreadId == 0 || in_rundown(rd, r, &t)) /* 0: an idle thread */
		return;
	if (is_process_start(rd, r, &t))
		process_event(q, ETL_HOOK_PROCESS_START, r->h.TimeStamp, &t);
	thread_event(rd, q, ETL_HOOK_THREAD_START, r->h.TimeStamp, &t);
}

void etl_rundown_init(struct etl_rundown *rd, struct kp_log *log, const struct etl_clock *c, uint32_t ncpus)
{
	*rd = (struct etl_rundown){ .log = log, .clock = c, .ncpus = ncpus, .ts = c->start_tsc,
				    .interval = profile_interval(log) };
	rd->profiling = log->have_header && (log->header.group_masks[1] & PERF_PROFILE_BIT);
	find_rundown_threads(rd, log);
	find_process_starts(rd, log);
}

void etl_rundown_free(struct etl_rundown *rd)
{
	free(rd->threads);
	free(rd->pids);
	free(rd->starts);
	kp_index_free(&rd->thread_ix);
	kp_index_free(&rd->pid_ix);
	kp_index_free(&rd->start_ix);
	kp_index_free(&rd->start_at_ix);
}
