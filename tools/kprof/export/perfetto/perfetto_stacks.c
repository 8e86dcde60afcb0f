/*
 * perfetto_stacks.c - the samples' stacks: each StackWalk record (its
 * EventTimeStamp is its sample's TimeStamp, on the same CPU) becomes a
 * path in one tree of frames, written as the trace's "stackFrames"
 * object ({"1":{"name":"idle_loop","parent":"0"},...}, ids as strings,
 * the outermost caller at the root), and its sample's instant gets
 * "sf": the id of its innermost frame, as the Chrome trace format has
 * it; the same path is in the instant's args as "Stack" (outermost
 * first), which every viewer shows.  A frame is named by its function
 * (with --kernel; its address otherwise): the sampled address itself
 * for the first entry, a return address one byte back (the call).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/json.h"
#include "tools/kprof/util/sort.h"

struct pf_frame {
	size_t parent;          /* 0: a root                                  */
	char name[96];
};

/* A stack walk of a sample: the leaf frame's id. */
struct pf_stack {
	uint64_t ts;            /* EventTimeStamp                             */
	size_t leaf;
};

static void frame_name(const struct pf *p, uint64_t addr, bool is_return, char *buf, size_t size)
{
	const char *name;
	uint64_t start, len;

	if (p->syms && kp_symbols_lookup(p->syms, is_return ? addr - 1 : addr, &name, &start, &len))
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "0x%016" PRIx64, addr);
}

struct pf_stacks {
	struct pf_frame *frames;
	size_t nframes, capframes;
	struct pf_stack **cpu;  /* per CPU, by ts                             */
	size_t *n, *cap;
};

/* The child of parent named name, made if new (frames[0] stands for no
 * frame: ids count from 1). */
static size_t child(struct pf_stacks *s, size_t parent, const char *name)
{
	for (size_t i = 1; i < s->nframes; i++)
		if (s->frames[i].parent == parent && !strcmp(s->frames[i].name, name))
			return i;
	struct pf_frame f = { .parent = parent };
	snprintf(f.name, sizeof(f.name), "%s", name);
	KP_PUSH(s->frames, s->nframes, s->capframes, f);
	return s->nframes - 1;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct pf_stack *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

void pf_stacks_build(struct pf *p, struct kp_log *log)
{
	struct pf_stacks *s = kp_xcalloc(1, sizeof(*s));
	uint32_t n = p->m->ncpus ? p->m->ncpus : 1;
	char name[96];

	s->cpu = kp_xcalloc(n, sizeof(*s->cpu));
	s->n = kp_xcalloc(n, sizeof(*s->n));
	s->cap = kp_xcalloc(n, sizeof(*s->cap));
	KP_PUSH(s->frames, s->nframes, s->capframes, (struct pf_frame){ 0 });
	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		struct kp_cpu_cursor c;
		struct kp_record r;
		kp_cursor_init(&c, log, cpu);
		while (kp_cursor_next(&c, &r)) {
			STACK_WALK_EVENT_DATA head;
			if (r.h.HookId != PERFINFO_LOG_TYPE_STACKWALK || r.payload_size < sizeof(head) + 8)
				continue;
			memcpy(&head, r.payload, sizeof(head));
			size_t frames = (r.payload_size - sizeof(head)) / 8, node = 0;
			for (size_t i = frames; i-- > 0;) { /* outermost caller first */
				uint64_t addr;
				memcpy(&addr, r.payload + sizeof(head) + 8 * i, 8);
				frame_name(p, addr, i > 0, name, sizeof(name));
				node = child(s, node, name);
			}
			struct pf_stack st = { head.EventTimeStamp, node };
			KP_PUSH(s->cpu[cpu], s->n[cpu], s->cap[cpu], st);
		}
		kp_sort(s->cpu[cpu], s->n[cpu], sizeof(*s->cpu[cpu]), cmp_stack);
	}
	p->stacks = s;
}

size_t pf_stack_of(const struct pf *p, uint32_t cpu, uint64_t ts)
{
	const struct pf_stacks *s = p->stacks;
	size_t lo = s ? kp_bound_u64(s->cpu[cpu], s->n[cpu], sizeof(*s->cpu[cpu]), offsetof(struct pf_stack, ts), ts,
				     false)
		      : 0;

	return s && lo < s->n[cpu] && s->cpu[cpu][lo].ts == ts ? s->cpu[cpu][lo].leaf : 0;
}

static void path(struct pf *p, size_t id, bool *first)
{
	if (!id)
		return;
	path(p, p->stacks->frames[id].parent, first);
	fputs(*first ? "" : ",", p->f);
	kp_json_string(p->f, p->stacks->frames[id].name);
	*first = false;
}

void pf_stack_args(struct pf *p, size_t leaf)
{
	bool first = true;

	fprintf(p->f, ",\"Stack\":[");
	path(p, leaf, &first);
	fputs("]", p->f);
}

void pf_write_stack_frames(struct pf *p)
{
	const struct pf_stacks *s = p->stacks;

	fputs(",\n\"stackFrames\":{", p->f);
	for (size_t i = 1; i < s->nframes; i++) {
		fprintf(p->f, "%s\n\"%zu\":{\"name\":", i > 1 ? "," : "", i);
		kp_json_string(p->f, s->frames[i].name);
		if (s->frames[i].parent)
			fprintf(p->f, ",\"parent\":\"%zu\"", s->frames[i].parent);
		fputs("}", p->f);
	}
	fputs("}", p->f);
}

void pf_stacks_free(struct pf *p)
{
	struct pf_stacks *s = p->stacks;

	for (uint32_t cpu = 0; s && cpu < p->m->ncpus; cpu++)
		free(s->cpu[cpu]);
	if (s) {
		free(s->cpu);
		free(s->n);
		free(s->cap);
		free(s->frames);
	}
	free(s);
}
