/*
 * ticketlock.c - an example workload built from outside the tree
 * (make run WORKLOADS=examples/ticketlock SCENARIO=ticketlock): a ticket
 * lock of its own against the kernel's queued spin lock
 * (KeAcquireInStackQueuedSpinLock) under the same contention.
 *
 * Two phases, one per lock, each ticketlock.ms long with the same
 * ticketlock.threads threads (pinned round-robin to the CPUs, priority 10)
 * holding the lock for ticketlock.hold_ns and thinking ticketlock.think_ns
 * between acquisitions, both at DISPATCH_LEVEL while held.  Each prints
 * the acquisitions per second and the hand-off time: from one holder's
 * release to the next holder's acquisition, when that one was already
 * waiting (measured the same way for both locks).  The kernel's queued
 * lock is traced as every kernel lock (WMI_SPINLOCK records, named
 * "ticketlock.queued" in the report); the phases are KprofPhase records.
 *
 * Its own events (docs/user-events.md), written outside the lock so they
 * add nothing to a hold:
 *   - ticketlock_handoff, an instant per hand-off measured: Lock (ticket,
 *     queued) and HandoffNs, the time from the release to this
 *     acquisition; as many as the console's hand-off line counts;
 *   - ticketlock_run, a span around each thread's run in a phase (Begin
 *     and End on its CPU: the threads are pinned): Lock and Thread.
 *
 * Invariant checked: each lock guards a counter updated non-atomically
 * inside it; at the end it must equal the acquisitions the threads
 * counted, or the lock let two holders in (the run fails).
 *
 * Its keys and their rule are in ticketlock_keys.c.  Uses only the
 * workload API (kernel/workloads/api/workload.h).
 */
#include "kernel/workloads/api/workload.h"

#include "ticket.h"
#include "ticketlock_keys.h"

#define MAX_THREADS TICKETLOCK_MAX_THREADS
#define SAMPLES_PER_THREAD 4096

/* The two locks under test, behind one interface. */
enum kind { TICKET, QUEUED };
static const char *const kind_names[] = { "ticket", "queued" };

static const struct user_event_field handoff_fields[] = {
	USER_EVENT_ENUM("Lock", 1, kind_names),
	USER_EVENT_UNSIGNED("HandoffNs", 4),
};
static const struct user_event_field run_fields[] = {
	USER_EVENT_ENUM("Lock", 1, kind_names),
	USER_EVENT_UNSIGNED("Thread", 4),
};
static struct user_event_type handoff_type =
	USER_EVENT_TYPE("ticketlock_handoff", KprofEventKindInstant, handoff_fields);
static struct user_event_type run_type = USER_EVENT_TYPE("ticketlock_run", KprofEventKindSpan, run_fields);

/* The values in place (the fastest form): the fields in order, packed. */
struct handoff_values {
	uint8_t Lock;
	uint32_t HandoffNs;
} __attribute__((packed));

static void handoff_event(enum kind kind, uint64_t cycles)
{
	struct user_event e;

	if (user_event_begin(&e, &handoff_type, KprofEventInstant)) {
		struct handoff_values *v = USER_EVENT_VALUES(&e, struct handoff_values);
		if (v) {
			uint64_t ns = workload_cycles_to_ns(cycles);
			v->Lock = (uint8_t)kind;
			v->HandoffNs = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
		}
		user_event_commit(&e);
	}
}

static void run_event(enum kprof_event_phase phase, enum kind kind, uint32_t thread)
{
	struct user_event e;

	if (user_event_begin(&e, &run_type, phase)) {
		user_event_int(&e, kind);
		user_event_int(&e, thread);
		user_event_commit(&e);
	}
}

static struct {
	struct ticket_lock ticket __attribute__((aligned(64)));
	KSPIN_LOCK queued __attribute__((aligned(64)));
	/* Guarded by the lock under test. */
	uint64_t counter __attribute__((aligned(64)));
	uint64_t released_at; /* cycles: the last holder's release */
	enum kind kind;
	uint64_t deadline;
	KEVENT go;
	struct worker {
		uint32_t index;
		uint64_t acquisitions;
		struct workload_samples handoff; /* cycles */
	} workers[MAX_THREADS];
} s;

/* One acquisition, hold, release; a hand-off sample when this thread
 * waited for another's release. */
static void turn(struct worker *w, uint32_t hold_ns)
{
	KLOCK_QUEUE_HANDLE handle;
	KIRQL old = DISPATCH_LEVEL;
	uint64_t asked = workload_cycles();

	if (s.kind == TICKET) {
		old = ke_raise_irql(DISPATCH_LEVEL);
		ticket_acquire(&s.ticket);
	} else {
		ke_acquire_in_stack_queued_spin_lock(&s.queued, &handle);
	}
	uint64_t got = workload_cycles(), handoff = 0;
	bool waited = s.released_at > asked; /* the lock was held when asked for */
	if (waited) {
		handoff = got - s.released_at;
		workload_samples_add(&w->handoff, handoff);
	}
	s.counter++;
	workload_spin_ns(hold_ns);
	s.released_at = workload_cycles();
	if (s.kind == TICKET) {
		ticket_release(&s.ticket);
		ke_lower_irql(old);
	} else {
		ke_release_in_stack_queued_spin_lock(&handle);
	}
	w->acquisitions++;
	if (waited)
		handoff_event(s.kind, handoff);
}

static void worker(void *context)
{
	struct worker *w = context;
	uint32_t hold_ns = ticketlock_config->hold_ns, think_ns = ticketlock_config->think_ns;

	ke_wait_for_single_object(&s.go, Executive, KernelMode, KE_WAIT_FOREVER);
	run_event(KprofEventBegin, s.kind, w->index);
	while (workload_cycles() < s.deadline) {
		turn(w, hold_ns);
		workload_spin_ns(think_ns);
	}
	run_event(KprofEventEnd, s.kind, w->index);
}

/* One phase: every thread on one lock.  false when the counter shows two
 * holders at once (or a thread did not start). */
static bool phase(uint32_t index, enum kind kind, uint32_t nthreads, uint32_t ms)
{
	KTHREAD *threads[MAX_THREADS];
	struct workload_samples all;
	uint64_t acquisitions = 0;
	char what[48];
	bool ok = true;

	s.kind = kind;
	s.counter = 0;
	s.released_at = 0;
	ke_initialize_event(&s.go, NotificationEvent, false);
	workload_samples_init(&all, nthreads * SAMPLES_PER_THREAD);
	for (uint32_t i = 0; i < nthreads; i++) {
		KAFFINITY_EX one;
		affinity_clear_all(&one);
		affinity_add(&one, i % ke_number_processors);
		s.workers[i].index = i;
		s.workers[i].acquisitions = 0;
		workload_samples_init(&s.workers[i].handoff, SAMPLES_PER_THREAD);
		threads[i] = ps_create_system_thread(NULL, worker, &s.workers[i], 10, &one, kind_names[kind]);
		ok &= threads[i] != NULL;
	}
	workload_phase(index, kind_names[kind], false);
	uint64_t start = workload_cycles();
	s.deadline = start + workload_ns_to_cycles((uint64_t)ms * 1000000);
	ke_set_event(&s.go, IO_NO_INCREMENT, false);
	for (uint32_t i = 0; i < nthreads; i++)
		if (threads[i])
			ke_wait_for_single_object(threads[i], Executive, KernelMode, KE_WAIT_FOREVER);
	uint64_t took = workload_cycles() - start;
	workload_phase(index, kind_names[kind], true);

	for (uint32_t i = 0; i < nthreads; i++) {
		acquisitions += s.workers[i].acquisitions;
		workload_samples_merge(&all, &s.workers[i].handoff);
		workload_samples_free(&s.workers[i].handoff);
	}
	ksnprintf(what, sizeof(what), "ticketlock: %s acquisitions", kind_names[kind]);
	workload_print_rate(what, acquisitions, took);
	for (uint32_t i = 0; i < all.count; i++)
		all.v[i] = workload_cycles_to_ns(all.v[i]);
	struct workload_summary sum = workload_samples_summary(&all);
	ksnprintf(what, sizeof(what), "ticketlock: %s hand-off", kind_names[kind]);
	workload_print_summary(what, "ns", &sum);
	workload_samples_free(&all);
	if (s.counter != acquisitions) {
		kprintf("ticketlock: %s: the guarded counter is %llu, the threads counted %llu: two holders at once\n",
			kind_names[kind], (unsigned long long)s.counter, (unsigned long long)acquisitions);
		ok = false;
	}
	return ok;
}

static enum kprof_exit_status run(const struct workload_run *r)
{
	uint32_t ms = r->ms ? r->ms / 2 : ticketlock_config->ms;
	uint32_t nthreads = ticketlock_config->threads ? ticketlock_config->threads : ke_number_processors;
	bool ok;

	if (nthreads > MAX_THREADS)
		nthreads = MAX_THREADS;
	if (user_event_declare(&handoff_type) || user_event_declare(&run_type))
		return KPROF_EXIT_FAILURE; /* the console says why */
	ticket_init(&s.ticket);
	ke_initialize_spin_lock(&s.queued);
	trace_name_object(&s.queued, KprofObjectQueuedSpinLock, "ticketlock.queued");
	kprintf("ticketlock: %u threads, %u ms per lock, hold %u ns, think %u ns\n", nthreads, ms,
		ticketlock_config->hold_ns, ticketlock_config->think_ns);
	ok = phase(1, TICKET, nthreads, ms);
	ok &= phase(2, QUEUED, nthreads, ms);
	kprintf("ticketlock: %s\n", ok ? "done" : "SOME CHECKS FAILED");
	return ok ? KPROF_EXIT_SUCCESS : KPROF_EXIT_FAILURE;
}

WORKLOAD_DEFINE(ticketlock, .name = "ticketlock",
		.description = "a ticket lock of its own against the kernel's queued spin lock", .run = run);
