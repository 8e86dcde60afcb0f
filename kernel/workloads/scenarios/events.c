/*
 * events.c - scenario=events: a workload's own event types, declared and
 * written through the public API a workload outside the tree uses
 * (kernel/trace/user_event.h, docs/user-events.md).
 *
 * Three types, one of each kind:
 *   - "ev_request", an instant: Bytes u32, Buffer pointer, Who string of
 *     12 bytes, Mode enumeration (read, write, flush), Delta s16;
 *   - "ev_transfer", a span: Id u32; each Begin is closed by an End on the
 *     same CPU, and every fourth one encloses a nested span;
 *   - "ev_depth", a counter: Depth u32.
 * The three are written in the API's three forms: ev_request field by
 * field through the type (user_event_int/str), ev_transfer value by value
 * in the fast form (user_event_begin_values, user_event_u32), ev_depth its
 * values in place (USER_EVENT_VALUES).
 * Every CPU writes EVENTS_PER_CPU rounds of them; each value is a function
 * of the CPU and the round (documented here so the boot test can check
 * every decoded field): round i on CPU c writes ev_request with
 * Bytes = c * 1000 + i, Buffer = 0xffff800000000000 + i * 64, Who =
 * "cpuC-worker-number-I" cut to its 12 bytes, Mode = i % 3, Delta = i - 50;
 * then ev_transfer Begin and End with Id = c << 16 | i (nested Id | 0x8000
 * inside when i % 4 == 0); then ev_depth with Depth = i % 17.
 */
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/api/descriptor.h"

#include "kernel/console/console.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/prcb.h"
#include "kernel/lib/printf.h"
#include "kernel/trace/user_event.h"

#define EVENTS_PER_CPU 100

static const char *const modes[] = { "read", "write", "flush" };

static const struct user_event_field request_fields[] = {
	USER_EVENT_UNSIGNED("Bytes", 4),
	USER_EVENT_POINTER("Buffer"),
	USER_EVENT_STRING("Who", 12),
	USER_EVENT_ENUM("Mode", 1, modes),
	USER_EVENT_SIGNED("Delta", 2),
};
static const struct user_event_field transfer_fields[] = {
	USER_EVENT_UNSIGNED("Id", 4),
};
static const struct user_event_field depth_fields[] = {
	USER_EVENT_UNSIGNED("Depth", 4),
};

static struct user_event_type request = USER_EVENT_TYPE("ev_request", KprofEventKindInstant, request_fields);
static struct user_event_type transfer = USER_EVENT_TYPE("ev_transfer", KprofEventKindSpan, transfer_fields);
static struct user_event_type depth = USER_EVENT_TYPE("ev_depth", KprofEventKindCounter, depth_fields);

/* ev_transfer, value by value in the fast form (the writer knows Id is a
 * u32: 4 bytes of values, checked once at the begin). */
static void transfer_event(enum kprof_event_phase phase, uint32_t id)
{
	struct user_event e;

	if (user_event_begin_values(&e, &transfer, phase, sizeof(uint32_t))) {
		user_event_u32(&e, id);
		user_event_commit(&e);
	}
}

/* ev_depth, its values in place (the fastest form). */
struct depth_values {
	uint32_t Depth;
} __attribute__((packed));

static void depth_event(uint32_t value)
{
	struct user_event e;

	if (user_event_begin(&e, &depth, KprofEventInstant)) {
		struct depth_values *v = USER_EVENT_VALUES(&e, struct depth_values);
		if (v)
			v->Depth = value;
		user_event_commit(&e);
	}
}

static void events_cpu(uint32_t cpu, void *ctx)
{
	(void)ctx;
	for (uint32_t i = 0; i < EVENTS_PER_CPU; i++) {
		struct user_event e;
		char who[32];

		if (user_event_begin(&e, &request, KprofEventInstant)) {
			ksnprintf(who, sizeof(who), "cpu%u-worker-number-%u", cpu, i);
			user_event_int(&e, cpu * 1000 + i);
			user_event_int(&e, 0xffff800000000000ull + i * 64);
			user_event_str(&e, who);
			user_event_int(&e, i % 3);
			user_event_int(&e, (uint64_t)(int64_t)((int)i - 50));
			user_event_commit(&e);
		}
		uint32_t id = cpu << 16 | i;
		transfer_event(KprofEventBegin, id);
		if (i % 4 == 0) {
			transfer_event(KprofEventBegin, id | 0x8000);
			transfer_event(KprofEventEnd, id | 0x8000);
		}
		transfer_event(KprofEventEnd, id);
		depth_event(i % 17);
	}
}

static enum kprof_exit_status scenario_events(void)
{
	if (user_event_declare(&request) || user_event_declare(&transfer) || user_event_declare(&depth))
		return KPROF_EXIT_FAILURE; /* the console says why */
	ke_run_on_all_processors(events_cpu, NULL);
	kprintf("scenario events: %u rounds of ev_request, ev_transfer and ev_depth on %u CPUs\n", EVENTS_PER_CPU,
		ke_number_processors);
	return KPROF_EXIT_SUCCESS;
}

/* The descriptor: scenario=events (no keys; the same rounds in a mix). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	return scenario_events();
}

WORKLOAD_DEFINE(events, .name = "events", .description = "a workload's own event types and events", .run = run);
