/*
 * flame.c - `kprof flamegraph LOG --kernel ELF -o FILE.svg`: a flame
 * graph of the sampled stacks, in the style of Brendan Gregg's
 * flamegraph.pl, that the reader explores in a browser (flame_svg.c,
 * flame.js: details line, click to zoom, search).
 *
 * Each StackWalk record (innermost address first; the first is the
 * sampled instruction pointer) is one stack.  It weighs the Count of its
 * SampledProfile (the one on the same CPU whose TimeStamp is the stack's
 * EventTimeStamp: the profile periods the sample stands for), or 1 for the
 * stack of a PMC sample or one whose sample is not in the log.  It goes
 * into the tree (flame.h) under its process and thread - the record's
 * StackProcess and StackThread, named as the model names them from the
 * KprofThread records - then its addresses from the outermost caller in,
 * each become a function name through the kernel's symbols (return
 * addresses looked up one byte back, at the call).
 *
 * Memory does not grow with the log: the thread names are all the model
 * it builds (kp_model_build_names), and each CPU's samples are read by a
 * second cursor beside its stacks (a stack follows its sample), none
 * kept, unless a stack's EventTimeStamp goes back (then that CPU's are
 * gathered and searched).  Of samples sharing a stamp, the first counts.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/pictures/flame/flame.h"
#include "tools/kprof/elf/symbols.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/outfile.h"
#include "tools/kprof/util/sort.h"

/* What the records are read with. */
struct reader {
	struct kp_flame *fl;
	const struct kp_model *m;
	const struct kp_symbols *syms;
};

/* ---------------------------------------------------------------- names */

/* The function at a stack entry: the sampled address itself, a return
 * address one byte back (the call, which may be a function's last
 * instruction). */
static const char *frame_name(const struct reader *rd, uint64_t addr, bool is_return, char *buf, size_t size)
{
	const char *name;
	uint64_t start, len;

	if (kp_symbols_lookup(rd->syms, is_return ? addr - 1 : addr, &name, &start, &len))
		return name;
	snprintf(buf, size, "0x%016" PRIx64, addr);
	return buf;
}

/* "System (4)": the process name a KprofThread record gave one of its
 * threads (the stack's own thread first); "Idle" for process 0 and
 * "process 4" when no record names it. */
static const char *process_name(const struct reader *rd, uint32_t pid, uint32_t tid, char *buf, size_t size)
{
	const struct kp_model_thread *t = kp_model_thread(rd->m, tid);

	if (!(t && t->named && t->pid == pid && t->process[0])) {
		t = NULL;
		for (size_t i = 0; i < rd->m->nthreads && !t; i++) {
			const struct kp_model_thread *u = &rd->m->threads[i];
			if (u->named && u->pid == pid && u->process[0])
				t = u;
		}
	}
	if (!t && pid == 0)
		return "Idle";
	if (t)
		snprintf(buf, size, "%s (%" PRIu32 ")", t->process, pid);
	else
		snprintf(buf, size, "process %" PRIu32, pid);
	return buf;
}

/* The idle thread (id 0) and the trace sender, known by the name the
 * kernel gives it (kernel/trace/trace.c: "TraceLogger"). */
static enum kp_flame_tone thread_tone(const struct reader *rd, uint32_t tid)
{
	const struct kp_model_thread *t = kp_model_thread(rd->m, tid);

	if (tid == 0)
		return KP_TONE_IDLE;
	if (t && t->named && !strcmp(t->name, "TraceLogger"))
		return KP_TONE_SENDER;
	return KP_TONE_WORK;
}

/* ---------------------------------------------------------------- stacks */

static void add_stack(struct reader *rd, const STACK_WALK_EVENT_DATA *head, const uint8_t *stack, size_t n,
		      uint64_t weight)
{
	struct kp_flame *fl = rd->fl;
	enum kp_flame_tone tone = thread_tone(rd, head->StackThread);
	char buf[96];
	size_t node;

	fl->nodes[0].weight += weight;
	fl->total += weight;
	node = kp_flame_child(fl, 0, process_name(rd, head->StackProcess, head->StackThread, buf, sizeof(buf)),
			      KP_FLAME_PROCESS, tone);
	fl->nodes[node].weight += weight;
	node = kp_flame_child(fl, node, kp_model_thread_label(rd->m, head->StackThread, buf, sizeof(buf)),
			      KP_FLAME_THREAD, tone);
	fl->nodes[node].weight += weight;
	for (size_t i = n; i-- > 0;) { /* outermost caller first */
		uint64_t addr;
		memcpy(&addr, stack + 8 * i, 8);
		node = kp_flame_child(fl, node, frame_name(rd, addr, i > 0, buf, sizeof(buf)), KP_FLAME_FUNCTION,
				      tone);
		fl->nodes[node].weight += weight;
	}
	if (n + 2 > fl->depth)
		fl->depth = (unsigned)n + 2;
}

/* A sample: its stamp, its Count (1 for PMC), whether a PMC's. */
struct sample_key {
	uint64_t ts;
	uint16_t count;
	bool pmc;
};

/* The samples of one CPU, read beside its stacks.  A stack's sample comes
 * before it in the CPU's records, so while the stacks' EventTimeStamps go
 * up a second cursor walks the samples in step, holding one.  The first
 * stack whose EventTimeStamp goes back (a hostile log) turns it into what
 * was kept before: the CPU's samples gathered and searched (in the
 * cursor's order, which is by time: its stamps never go back). */
struct sample_walk {
	struct kp_cpu_cursor c;
	bool have, done;        /* cur read and not passed; none left        */
	struct sample_key cur;
	uint64_t last;          /* the last stack's EventTimeStamp           */
	struct sample_key *all; /* gathered, once a stamp went back          */
	size_t nall;
	bool gathered;
};

/* The next sample record of the CPU (as the model reads them: the
 * cursor's stamp, a payload long enough), false at the end. */
static bool next_sample(struct kp_cpu_cursor *c, struct sample_key *k)
{
	struct kp_record r;

	while (kp_cursor_next(c, &r)) {
		if (r.h.HookId == PERFINFO_LOG_TYPE_SAMPLED_PROFILE &&
		    r.payload_size >= sizeof(PERFINFO_SAMPLED_PROFILE_INFORMATION)) {
			PERFINFO_SAMPLED_PROFILE_INFORMATION p;
			memcpy(&p, r.payload, sizeof(p));
			*k = (struct sample_key){ r.h.TimeStamp, p.Count, false };
			return true;
		}
		if (r.h.HookId == PERFINFO_LOG_TYPE_PMC_INTERRUPT && r.payload_size >= sizeof(PERFINFO_PMC_SAMPLE)) {
			*k = (struct sample_key){ r.h.TimeStamp, 1, true };
			return true;
		}
	}
	return false;
}

static int cmp_key_ts(const void *key, const void *elem)
{
	return kp_cmp_u64(*(const uint64_t *)key, ((const struct sample_key *)elem)->ts);
}

static void gather(struct sample_walk *w, struct kp_log *log, uint32_t cpu)
{
	struct kp_cpu_cursor c;
	struct sample_key k;
	size_t cap = 0;

	kp_cursor_init(&c, log, cpu);
	while (next_sample(&c, &k))
		KP_PUSH(w->all, w->nall, cap, k);
	w->gathered = true;
}

/* The sample on the CPU whose stamp is event_ts: the first such in the
 * CPU's records; NULL when there is none. */
static const struct sample_key *sample_at(struct sample_walk *w, struct kp_log *log, uint32_t cpu,
					  uint64_t event_ts)
{
	if (!w->gathered && event_ts < w->last)
		gather(w, log, cpu);
	w->last = event_ts;
	if (w->gathered) {
		const struct sample_key *hit = w->nall ? bsearch(&event_ts, w->all, w->nall, sizeof(*w->all), cmp_key_ts)
						       : NULL;
		while (hit && hit > w->all && hit[-1].ts == event_ts)
			hit--; /* the first of equal stamps */
		return hit;
	}
	while (!w->done && (!w->have || w->cur.ts < event_ts)) {
		w->have = next_sample(&w->c, &w->cur);
		w->done = !w->have;
	}
	return w->have && w->cur.ts == event_ts ? &w->cur : NULL;
}

/* The weight of a stack: its SampledProfile's Count (at least 1), else 1. */
static uint64_t stack_weight(struct kp_flame *fl, const struct sample_key *hit)
{
	if (!hit) {
		fl->unmatched++;
		return 1;
	}
	if (hit->pmc) {
		fl->pmc++;
		return 1;
	}
	fl->matched++;
	return hit->count ? hit->count : 1;
}

static void read_cpu_stacks(struct reader *rd, struct kp_log *log, uint32_t cpu)
{
	struct sample_walk w = { 0 };
	struct kp_cpu_cursor c;
	struct kp_record r;
	uint8_t *stack = kp_xcalloc(UINT16_MAX + 1, 1); /* a payload's most */

	kp_cursor_init(&c, log, cpu);
	kp_cursor_init(&w.c, log, cpu);
	while (kp_cursor_next(&c, &r)) {
		if (r.h.HookId != PERFINFO_LOG_TYPE_STACKWALK || r.payload_size < sizeof(STACK_WALK_EVENT_DATA))
			continue;
		STACK_WALK_EVENT_DATA head;
		size_t frames = (r.payload_size - sizeof(STACK_WALK_EVENT_DATA)) / 8;
		memcpy(&head, r.payload, sizeof(head));
		rd->fl->stacks++;
		if (!frames) {
			rd->fl->empty++;
			continue;
		}
		/* the samples' cursor may decode chunks: the ring can let go
		 * of the one this record lies in, so its addresses are copied
		 * first */
		memcpy(stack, r.payload + sizeof(STACK_WALK_EVENT_DATA), frames * 8);
		uint64_t weight = stack_weight(rd->fl, sample_at(&w, log, cpu, head.EventTimeStamp));
		add_stack(rd, &head, stack, frames, weight);
	}
	free(stack);
	free(w.all);
}

void kp_flame_read(struct kp_flame *fl, struct kp_log *log, const struct kp_model *m, const struct kp_symbols *syms)
{
	struct reader rd = { .fl = fl, .m = m, .syms = syms };

	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++)
		read_cpu_stacks(&rd, log, cpu);
}

/* ---------------------------------------------------------------- command */

static bool has_stacks(struct kp_log *log)
{
	for (uint32_t cpu = 0; cpu < log->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &r))
			if (r.h.HookId == PERFINFO_LOG_TYPE_STACKWALK &&
			    r.payload_size >= sizeof(STACK_WALK_EVENT_DATA) + 8)
				return true;
	}
	return false;
}

int kp_cmd_flamegraph(struct kp_log *log, const struct kp_options *o)
{
	struct kp_flame fl;
	struct kp_symbols *syms;
	struct kp_model m;

	if (!o->kernel) {
		fprintf(stderr, "kprof: flamegraph needs --kernel ELF (the kernel that recorded the log, for "
				"its function names)\n");
		return 2;
	}
	if (!has_stacks(log)) {
		fprintf(stderr, "kprof: %s: no StackWalk records: run with trace=stack (and trace=profile or "
				"trace=pmc)\n", o->input);
		return 3;
	}
	if (!kp_symbols_for(o->kernel, &syms))
		return 3;
	kp_model_build_names(&m, log);
	kp_flame_init(&fl);
	kp_flame_read(&fl, log, &m, syms);
	FILE *f = kp_out_open(o->output);
	int rc = 3;
	if (f) {
		kp_flame_svg(f, &fl, log, o->kernel);
		rc = kp_out_close(f, o->output);
	}
	kp_flame_free(&fl);
	kp_model_free(&m);
	kp_symbols_close(syms);
	return rc ? rc : kp_summary(log, o, o->output);
}
