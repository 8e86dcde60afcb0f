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
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/pictures/flame/flame.h"
#include "tools/kprof/elf/symbols.h"
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

static int cmp_sample_ts(const void *key, const void *elem)
{
	return kp_cmp_u64(*(const uint64_t *)key, ((const struct kp_sample *)elem)->ts);
}

/* The weight of a stack: its SampledProfile's Count (at least 1), else 1;
 * the CPU's samples are sorted by time. */
static uint64_t stack_weight(struct kp_flame *fl, const struct kp_model_cpu *c, uint64_t event_ts)
{
	const struct kp_sample *hit =
		c->nsamples ? bsearch(&event_ts, c->samples, c->nsamples, sizeof(*c->samples), cmp_sample_ts) : NULL;

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
	struct kp_cpu_cursor c;
	struct kp_record r;

	kp_cursor_init(&c, log, cpu);
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
		add_stack(rd, &head, r.payload + sizeof(STACK_WALK_EVENT_DATA), frames,
			  stack_weight(rd->fl, &rd->m->cpu[cpu], head.EventTimeStamp));
	}
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
	kp_model_build(&m, log);
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
