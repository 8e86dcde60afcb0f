/*
 * trace.c - the trace session: buffers on every CPU and getting the
 * records out as frames (the writer is in writer.c).
 *
 * Start (boot CPU, after every CPU is online): allocate each CPU's buffer,
 * send the run header frame, then switch the configured groups on.
 *
 * Getting records out: in stream mode a logger thread sends every full
 * sub-buffer, at PASSIVE_LEVEL so that DPCs, timers and preemption go on
 * around it, fullest ring first, at idle priority while the rings have
 * room and at priority 31 (like ETW's logger thread) for bounded turns
 * when one fills (send_policy.c).  A writer
 * that fills a sub-buffer, or CPU 0's clock tick (trace_poll) when it sees
 * one, queues a DPC that wakes the logger; writers never wait for it: when
 * the port cannot keep up the ring fills and records are dropped, counted.
 * In dump mode nothing is sent until the end.
 *
 * On the wire (docs/wire-format.md, version 2) a sub-buffer goes out as
 * chunk frames of at most KPROF_CHUNK_BYTES of whole records (chunk.c),
 * each TSC-delta transformed and LZ4 compressed when that pays
 * (trace.compress, encode_chunk),
 * each naming the run (run_id, made at start from the TSC and the RTC),
 * its sub-buffer and its records, so that damage on the link costs one
 * chunk.  A run info frame goes out after the run header and before every
 * KPROF_RUN_INFO_EVERY-th chunk, for captures that start mid-run.
 *
 * Finish: groups off, wait (bounded) for writers in flight to commit, send
 * every remaining sub-buffer and each CPU's partly filled last one, then a
 * CPU end frame per CPU (records, bytes, losses by cause) and the run end.
 *
 * Frames go to the outputs trace.out= selects through out.c (the serial
 * port with the console output claimed, so text lines and frames never
 * interleave; the trace file on the USB stick); no lock is held
 * while the bytes go out, and the buffers themselves take no locks.  Only one reader at a time: the logger thread while the run
 * goes on, then trace_finish() after the logger has ended.
 */
#include "kernel/trace/trace.h"

#include <arch/barrier.h>
#include <arch/cpu.h>
#include <arch/mmu.h>
#include <arch/dev/rtc.h>

#include "generated/version.h"
#include "include/kprof/user_event.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/time/clock.h"
#include "kernel/console/console.h"
#include "kernel/ke/dpc.h"
#include "kernel/ke/irql.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/libk.h"
#include "kernel/debug/panic.h"
#include "kernel/mm/pmm.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/sched.h"
#include "kernel/ke/time/time.h"
#include "kernel/timekeep/watchdog.h"
#include "kernel/trace/out/out.h"
#include "kernel/trace/out/chunk.h"
#include "kernel/trace/out/frame.h"
#include "kernel/trace/out/send_policy.h"
#include "kernel/trace/config/trace_configure.h"
#include "kernel/lib/codec/crc32.h"

#define SETTLE_US 100000 /* how long the end waits for writers in flight */

static struct {
	bool started;                 /* buffers exist                        */
	bool finished;                /* end frames sent                      */
	uint32_t ncpu;                /* CPUs with buffers                    */
	uint32_t nsub;                /* sub-buffers in each CPU's ring       */
	uint32_t scenario;            /* in the run header and run info       */
	char scenario_name[32];       /* in the run info (NUL-padded)         */
	uint32_t run_seq;             /* sequence of run-level frames         */
	PERFINFO_GROUPMASK groups;    /* what trace_start() switched on       */
	KDPC flush_dpc;               /* wakes the logger thread              */
	KEVENT flush_event;           /* the logger waits on it               */
	KTHREAD *logger;              /* stream mode: sends full sub-buffers  */
	volatile bool stopping;       /* the logger is asked to end           */
	uint32_t hold;                /* > 0: streaming paused (measurements); */
	                              /* __atomic only (trace_hold_stream)    */
	uint64_t start_tsc;
	uint64_t boot_unix_s;         /* RTC when tracing started             */
	uint32_t run_id;              /* in every v2 frame                     */
	uint32_t chunks_sent;         /* run info goes out every 64 chunks     */
	struct send_policy policy;    /* the logger's priority (send_policy.c) */
} trace;

/* Compression scratch (trace.compress=on, chunk.c), one per CPU: a chunk
 * is encoded in the scratch of the CPU it starts on.  Only one sender
 * runs at a time: the logger thread, then trace_finish() after it has
 * ended, or the bug check path, which may run while the logger is halted
 * or preempted mid-chunk (it never resumes), hence one per CPU rather than
 * one per session.  The idle-priority logger may be preempted and moved to
 * another CPU mid-chunk; it keeps using the scratch it started with, which
 * no other sender touches meanwhile.  The sub-buffer itself is never
 * changed: the delta transform writes a copy. */
static struct trace_chunk_scratch *senders[KPROF_MAX_CPUS];

static const uint32_t item_group[TRACE_ITEM_NONE] = {
	[TRACE_ITEM_CSWITCH] = PERF_CONTEXT_SWITCH,
	[TRACE_ITEM_SPINLOCK] = PERF_SPINLOCK,
	[TRACE_ITEM_RESOURCE] = PERF_SYNC_OBJECTS,
	[TRACE_ITEM_PROFILE] = PERF_PROFILE,
	[TRACE_ITEM_PMC] = PERF_PMC_PROFILE,
	[TRACE_ITEM_STACK] = PERF_KPROF_STACKWALK,
	[TRACE_ITEM_TRACETEST] = PERF_KPROF_TRACETEST,
	[TRACE_ITEM_CLOCK] = PERF_KPROF_CLOCK,
};

/* Is streaming paused (trace_hold_stream)?  trace.hold is only ever
 * touched through __atomic builtins: a relaxed load is enough here, since
 * a reader that misses a change in flight only looks again at the next
 * tick or the next filled sub-buffer. */
static bool streaming_held(void)
{
	return __atomic_load_n(&trace.hold, __ATOMIC_RELAXED) != 0;
}

/* ---------------------------------------------------------------- frames */

static void send_frame(uint8_t type, uint16_t cpu, uint32_t seq, const void *p1, uint32_t l1, const void *p2,
		       uint32_t l2)
{
	trace_out_frame(type, cpu, seq, p1, l1, p2, l2); /* to each sink of trace.out= (out.c) */
}

/* Run info: repeated so that a capture that starts mid-run still has the
 * run's clock and shape (wire v2). */
static void send_run_info(void)
{
	struct kprof_run_info ri = {
		.run_id = trace.run_id,
		.cpu_count = trace.ncpu,
		.tsc_hz = ke_tsc_hz,
		.start_tsc = trace.start_tsc,
		.boot_unix_s = trace.boot_unix_s,
		.trace_mode = trace_settings->mode,
		.scenario = trace.scenario,
		.buffer_size = trace_settings->subbuf_kb * 1024,
		.buffers_per_cpu = trace.nsub,
	};
	memcpy(ri.scenario_name, trace.scenario_name, sizeof(ri.scenario_name));
	send_frame(KPROF_FRAME_RUN_INFO, KPROF_FRAME_CPU_NONE, trace.run_seq++, &ri, sizeof(ri), 0, 0);
}

/* Compression stops for the rest of the run once it costs more than the
 * link time it saves (chunk.h): one sender at a time, like senders[]. */
static struct trace_compress_pay pay;

static const uint8_t *encode_chunk(struct kprof_chunk_header *c, const uint8_t *rec, uint32_t n, uint32_t *len)
{
	uint32_t cpu = ke_get_current_processor_number();
	struct trace_chunk_scratch *s = cpu < KPROF_MAX_CPUS && !pay.off ? senders[cpu] : NULL;
	if (!s)
		return trace_chunk_encode(c, rec, n, NULL, len);
	/* Timed without preemption: an idle-priority logger preempted
	 * mid-chunk would count the workload's time as the encoding's. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	uint64_t t0 = arch_rdtsc();
	const uint8_t *payload = trace_chunk_encode(c, rec, n, s, len);
	uint64_t cycles = arch_rdtsc() - t0;
	ke_lower_irql(old);
	uint64_t link_cycles, link_bytes;
	if (!trace_out_link_cost(&link_cycles, &link_bytes))
		return payload;
	if (trace_compress_pay_update(&pay, cycles, n, *len, link_cycles, link_bytes))
		kprintf("trace: chunks go raw from here: compressing %llu KiB cost %llu cycles a byte it saved, the link "
			"takes %llu a byte (trace.compress=on; =off sends raw from the start)\n",
			(unsigned long long)(pay.in_bytes >> 10),
			(unsigned long long)(pay.encode_cycles / (pay.in_bytes > pay.out_bytes ? pay.in_bytes - pay.out_bytes : 1)),
			(unsigned long long)(link_cycles / link_bytes));
	return payload;
}

/* One sub-buffer as chunk frames of whole records (chunk.c), so that
 * damage on the link costs one chunk.  Drops are placed by the
 * records-lost records among them (tracebuf.c); no chunk flag says so. */
static void send_view(struct trace_cpu *tc, const struct trace_view *v, uint32_t flags)
{
	uint32_t off = 0, records, next_records = 0;
	uint32_t ring = flags & KPROF_CHUNK_FINAL ? v->used : 1u << tc->shift;
	bool last;

	/* Each chunk's records are walked once: the chunk after this one is
	 * found before this one goes out, which says whether this is the last. */
	uint32_t end = trace_chunk_next(v->data, v->used, off, KPROF_CHUNK_BYTES, &records);
	do {
		uint32_t next = end == off ? end : trace_chunk_next(v->data, v->used, end, KPROF_CHUNK_BYTES, &next_records);
		last = next == end;
		struct kprof_chunk_header c = {
			.run_id = trace.run_id,
			.buffer_seq = (uint32_t)v->seq,
			.records = (uint16_t)records,
			.flags = (uint16_t)(last ? KPROF_CHUNK_LAST | flags : 0),
		};
		uint32_t len;
		const uint8_t *payload = encode_chunk(&c, v->data + off, end - off, &len);
		if (trace.chunks_sent++ % KPROF_RUN_INFO_EVERY == KPROF_RUN_INFO_EVERY - 1)
			send_run_info();
		send_frame(KPROF_FRAME_CHUNK, (uint16_t)tc->cpu, tc->frame_seq++, &c, sizeof(c), payload, len);
		tc->sent++;
		/* The dump's progress in ring bytes: the last chunk ends the view's
		 * share of the ring (a full sub-buffer's unused tail included), as
		 * trace_finish counted what is held. */
		trace_out_dump_sent((last ? ring : end) - off);
		off = end;
		end = next;
		records = next_records;
	} while (!last);
}

static void flush_full(struct trace_cpu *tc)
{
	struct trace_view v;
	while (tracebuf_peek_full(tc, &v)) {
		send_view(tc, &v, 0);
		tracebuf_release(tc);
	}
}

void trace_subbuffer_filled(void)
{
	/* Stream mode: wake the flusher on CPU 0 now rather than at its next
	 * clock tick.  Inserting a DPC that is already queued is a no-op. */
	if (trace_settings->mode == KPROF_TRACE_STREAM && trace.started && !trace.finished && !streaming_held())
		ke_insert_queue_dpc(&trace.flush_dpc, 0, 0);
}

void trace_hold_stream(bool hold)
{
	if (hold) {
		__atomic_fetch_add(&trace.hold, 1, __ATOMIC_ACQ_REL);
	} else if (__atomic_sub_fetch(&trace.hold, 1, __ATOMIC_ACQ_REL) == 0 && trace.started && !trace.finished &&
		   trace_settings->mode == KPROF_TRACE_STREAM) {
		ke_insert_queue_dpc(&trace.flush_dpc, 0, 0); /* catch up */
	}
}

/* The CPU with the most full sub-buffers waiting (ties: the next one after
 * the last CPU served), so that no ring waits behind another that keeps
 * filling; NULL when none waits. */
static struct trace_cpu *fullest_cpu(uint32_t *cursor, uint64_t *most)
{
	struct trace_cpu *best = NULL;

	*most = 0;
	for (uint32_t k = 1; k <= trace.ncpu; k++) {
		struct trace_cpu *tc = KiProcessorBlock[(*cursor + k) % trace.ncpu]->TraceCpu;
		uint64_t w = tc ? send_policy_waiting(tc) : 0;
		if (w > *most) {
			*most = w;
			best = tc;
		}
	}
	if (best)
		*cursor = best->cpu;
	return best;
}

static void flush_dpc_routine(KDPC *dpc, void *context, void *a1, void *a2)
{
	/* An idle-priority logger that workload threads keep from running
	 * cannot see for itself that a ring fills (send_policy.c). */
	uint32_t cursor = 0;
	uint64_t most;
	fullest_cpu(&cursor, &most);
	if (trace.logger && send_policy_wants_urgent(&trace.policy, most, trace.nsub, arch_rdtsc()))
		ke_set_priority_thread(trace.logger, SEND_PRIORITY_URGENT);
	ke_set_event(&trace.flush_event, IO_NO_INCREMENT, false);
}

static void logger_set_priority(int8_t priority)
{
	KTHREAD *self = ke_get_current_thread();

	if (__atomic_load_n(&self->Priority, __ATOMIC_RELAXED) != priority)
		ke_set_priority_thread(self, priority);
}

/* The logger sends one sub-buffer at a time, always from the CPU with the
 * largest backlog, at the priority send_policy.c chooses after each one:
 * idle priority while the rings have room (it then runs only on CPUs with
 * nothing else to do), 31 for bounded turns when one fills. */
static void logger_thread(void *context)
{
	uint32_t cursor = 0;

	while (!trace.stopping) {
		ke_wait_for_single_object(&trace.flush_event, WrExecutive, KernelMode, KE_WAIT_FOREVER);
		while (!trace.stopping && !streaming_held()) {
			uint64_t most;
			struct trace_cpu *tc = fullest_cpu(&cursor, &most);
			logger_set_priority(send_policy_update(&trace.policy, most, trace.nsub, arch_rdtsc(),
							       ke_clock_tick_cycles()));
			struct trace_view v;
			if (!tc || !tracebuf_peek_full(tc, &v))
				break; /* nothing, or its writer is still committing: the next tick looks again */
			send_view(tc, &v, 0);
			tracebuf_release(tc);
		}
	}
}

void trace_poll(void)
{
	if (!trace.started || trace.finished || trace_settings->mode != KPROF_TRACE_STREAM || streaming_held())
		return;
	for (uint32_t i = 0; i < trace.ncpu; i++) {
		struct trace_cpu *tc = KiProcessorBlock[i]->TraceCpu;
		if (tc && tc->consumed < (__atomic_load_n(&tc->offset, __ATOMIC_RELAXED) >> tc->shift)) {
			ke_insert_queue_dpc(&trace.flush_dpc, 0, 0);
			return;
		}
	}
}

/* CPU 0 sends the trace: the last of the clock's tick clients. */
static void trace_tick(struct kprcb *prcb, KTRAP_FRAME *tf)
{
	(void)tf;
	if (prcb->Number == 0)
		trace_poll();
}
KE_TICK_CLIENT(trace_tick_client, trace_tick, 30);

/* The clock's stretches a CPU could not run, as KprofClockLate records. */
static void trace_clock_late(const KPROF_CLOCK_LATE *r)
{
	trace_log(PERF_KPROF_CLOCK, KPROF_LOG_TYPE_CLOCK_LATE, CLOCK_LATE_VERSION, r, sizeof(*r));
}

/* ---------------------------------------------------------------- session */

/* The build id the run header carries, in a section of its own in the ELF
 * (linker.ld) where `kprof --kernel` finds it to check the ELF is this
 * build (tools/kprof/elf/build_id.h). */
__attribute__((section(".kprof_build_id"), used)) const char kprof_build_id[] = KPROF_BUILD_ID;

static void send_run_header(const char *cmdline)
{
	static uint8_t buf[sizeof(struct kprof_run_header) + 64 + BOOTINFO_CMDLINE_MAX];
	struct kprof_run_header *h = (void *)buf;
	size_t id_len = strlen(kprof_build_id) + 1, cl_len = strnlen(cmdline, BOOTINFO_CMDLINE_MAX - 1) + 1;

	*h = (struct kprof_run_header){
		.version = KPROF_RUN_HEADER_VERSION,
		.size = sizeof(*h),
		.cpu_count = trace.ncpu,
		.pointer_size = 8,
		.tsc_hz = ke_tsc_hz,
		.start_tsc = trace.start_tsc,
		.boot_unix_s = trace.boot_unix_s,
		.clock_type = KPROF_CLOCK_CYCLES,
		.trace_mode = trace_settings->mode,
		.buffer_size = trace_settings->subbuf_kb * 1024,
		.buffers_per_cpu = trace.nsub,
		.build_id_offset = sizeof(*h),
		.cmdline_offset = (uint32_t)(sizeof(*h) + MIN(id_len, 64)),
		.scenario = trace.scenario,
		.run_id = trace.run_id,
	};
	tsc_watchdog_header(h);
	memcpy(h->group_masks, trace.groups.Masks, sizeof(h->group_masks));
	memcpy(buf + h->build_id_offset, kprof_build_id, MIN(id_len, 64));
	buf[h->build_id_offset + MIN(id_len, 64) - 1] = '\0';
	memcpy(buf + h->cmdline_offset, cmdline, cl_len - 1);
	buf[h->cmdline_offset + cl_len - 1] = '\0';
	send_frame(KPROF_FRAME_RUN_HEADER, KPROF_FRAME_CPU_NONE, trace.run_seq++, buf, h->cmdline_offset + (uint32_t)cl_len,
		   0, 0);
	send_run_info();
}

static bool alloc_cpu(KPRCB *prcb, uint32_t shift, uint32_t nsub)
{
	size_t bytes = (size_t)nsub << shift;
	uint64_t pa = pmm_alloc_pages(bytes / PAGE_SIZE);
	struct trace_cpu *tc = kzalloc(sizeof(*tc) + nsub * sizeof(struct trace_subbuf) + 64);

	if (!pa || !tc) {
		if (pa)
			pmm_free_pages(pa, bytes / PAGE_SIZE);
		kfree(tc);
		return false;
	}
	tc = (struct trace_cpu *)ALIGN_UP((uintptr_t)tc, 64); /* kfree never sees it again: kept for the run */
	tracebuf_init(tc, prcb->Number, phys_to_virt(pa), (struct trace_subbuf *)(tc + 1), shift, nsub);
	prcb->TraceCpu = tc;
	return true;
}

void trace_start(const char *cmdline, uint32_t scenario, const char *scenario_name)
{
	uint32_t items = trace_settings->items, shift = 10, nsub = trace_settings->nsub;

	ke_clock_set_late_recorder(trace_clock_late); /* before the groups turn on */
	while ((1u << shift) < trace_settings->subbuf_kb * 1024)
		shift++;
	if (items & (1u << TRACE_ITEM_ALL))
		items |= (1u << TRACE_ITEM_NONE) - 1;
	if (items & (1u << TRACE_ITEM_NONE))
		items = 0;
	for (uint32_t i = 0; i < TRACE_ITEM_NONE; i++)
		if (items & (1u << i))
			perfinfo_group_set(&trace.groups, item_group[i]);
	/* Thread names whenever records that carry thread ids are traced. */
	if (items & ~((1u << TRACE_ITEM_TRACETEST) | (1u << TRACE_ITEM_CLOCK)))
		perfinfo_group_set(&trace.groups, PERF_KPROF_THREAD);
	/* Workloads' own events whenever anything is traced (user_event.h). */
	if (items)
		perfinfo_group_set(&trace.groups, PERF_KPROF_USER);

	trace.ncpu = ke_number_processors;
	trace.nsub = nsub;
	trace.scenario = scenario;
	memset(trace.scenario_name, 0, sizeof(trace.scenario_name));
	memcpy(trace.scenario_name, scenario_name, strnlen(scenario_name, sizeof(trace.scenario_name) - 1));
	for (uint32_t i = 0; trace_settings->compress && i < trace.ncpu && i < KPROF_MAX_CPUS; i++)
		senders[i] = kzalloc(sizeof(*senders[i])); /* none: that CPU sends raw */
	ke_initialize_dpc(&trace.flush_dpc, flush_dpc_routine, NULL);
	ke_initialize_event(&trace.flush_event, SynchronizationEvent, false);
	uint32_t failed = 0;
	for (uint32_t i = 0; i < trace.ncpu; i++)
		failed += !alloc_cpu(KiProcessorBlock[i], shift, nsub);
	/* The sizes were checked against free memory at probe time
	 * (trace_configure); a CPU without a buffer would lose every record
	 * with nothing to count them, so a failure here is a bug, said loudly. */
	if (failed)
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, failed, nsub, shift, 0,
				"no memory for the trace buffers of %u CPU%s after the probe-time check passed", failed,
				failed == 1 ? "" : "s");
	tsc_watchdog_start_all(); /* boot skew corrections, then the checks (the run header says) */
	trace_out_start(trace.ncpu); /* the stick opens now: its errors are known before the workload */
	trace.start_tsc = arch_rdtsc();
	trace.boot_unix_s = arch_rtc_unix_time();
	/* The run's name on the wire: the start TSC and the wall clock mixed,
	 * never 0 (0 means "no run id", as in v1 logs). */
	uint64_t seed[2] = { trace.start_tsc, trace.boot_unix_s };
	trace.run_id = crc32_update(0, seed, sizeof(seed)) | 1;
	trace.started = true;
	send_run_header(cmdline);
	if (trace_settings->mode == KPROF_TRACE_STREAM)
		trace.logger = ps_create_system_thread(NULL, logger_thread, NULL, SEND_PRIORITY_IDLE, NULL,
							"TraceLogger");
	kprintf("trace: %u CPUs x %u KiB (%u sub-buffers of %u KiB), %s mode, groups %08x %08x\n", trace.ncpu,
		trace_settings->buffer_kb, nsub, trace_settings->subbuf_kb,
		trace_settings->mode == KPROF_TRACE_STREAM ? "stream" : "dump", trace.groups.Masks[1],
		trace.groups.Masks[7]);
	/* Last: from here on writers find their buffers.  The buffers and the
	 * state above are stored before the group masks that let writers in:
	 * a writer reads the masks (trace_enabled), then its buffer. */
	arch_smp_wmb();
	memcpy(&trace_groups, &trace.groups, sizeof(trace_groups));
}

static void send_final(struct trace_cpu *tc, uint64_t *stuck)
{
	struct trace_view v;

	flush_full(tc);
	if (tracebuf_peek_final(tc, &v)) {
		*stuck += v.unsettled;
		send_view(tc, &v, KPROF_CHUNK_FINAL);
		tracebuf_release(tc);
	}
}

static void send_end_frames(enum kprof_exit_status status, const uint64_t *stuck)
{
	for (uint32_t i = 0; i < trace.ncpu; i++) {
		struct trace_cpu *tc = KiProcessorBlock[i]->TraceCpu;
		struct kprof_cpu_end e = { .cpu = i, .run_id = trace.run_id };
		if (tc) {
			e.buffers = tc->sent;
			e.records = tc->records;
			e.bytes = tc->bytes;
			memcpy(e.lost, tc->lost, sizeof(e.lost));
			uint64_t pending = 0; /* drops in no records-lost record */
			for (int c = 0; c < KPROF_LOSS_CAUSES; c++)
				pending += tc->pending[c];
			e.pending = pending > UINT32_MAX ? UINT32_MAX : (uint32_t)pending;
			e.stuck = stuck[i];
		}
		send_frame(KPROF_FRAME_CPU_END, (uint16_t)i, tc ? tc->frame_seq++ : 0, &e, sizeof(e), 0, 0);
	}
	struct kprof_run_end r = {
		.status = status, .cpu_count = trace.ncpu, .end_tsc = arch_rdtsc(), .run_id = trace.run_id
	};
	send_frame(KPROF_FRAME_RUN_END, KPROF_FRAME_CPU_NONE, trace.run_seq++, &r, sizeof(r), 0, 0);
}

/* Nothing: that every CPU ran it is what counts (trace_finish). */
static void grace_on_cpu(uint32_t cpu, void *ctx)
{
}

void trace_finish(enum kprof_exit_status status)
{
	static uint64_t stuck[KPROF_MAX_CPUS];

	if (!trace.started || trace.finished)
		return;
	/* Every CPU takes an interrupt while the records still flow: one the
	 * host has not been running takes its overdue clock interrupt first
	 * (a higher IRQL than the broadcast's DPC), so with trace=clock the
	 * stall is in the trace and readers can tell it from the kernel's
	 * own delays, up to the end. */
	ke_run_on_all_processors(grace_on_cpu, NULL);
	trace_out_workload_ended(); /* the end line's times count from here */
	tsc_watchdog_report();
	memset(&trace_groups, 0, sizeof(trace_groups));
	/* The masks cleared (no record starts after this) before the reads of
	 * the CPUs' rings and the logger's state below: a store, then loads,
	 * which only a full barrier orders. */
	arch_smp_mb();
	if (trace.logger) { /* one reader at a time: the logger ends first */
		trace.stopping = true;
		ke_set_event(&trace.flush_event, IO_NO_INCREMENT, false);
		ke_wait_for_single_object(trace.logger, Executive, KernelMode, KE_WAIT_FOREVER);
	}

	/* What is left to send, for the dump's progress lines. */
	uint64_t held = 0;
	for (uint32_t i = 0; i < trace.ncpu; i++)
		if (KiProcessorBlock[i]->TraceCpu)
			held += tracebuf_held(KiProcessorBlock[i]->TraceCpu);
	trace_out_dump_begin(held);

	/* Writers already past the group check finish within microseconds:
	 * wait for every CPU's reserved bytes to be committed, bounded. */
	uint64_t start = arch_rdtsc(), limit = ke_us_to_tsc(SETTLE_US);
	for (uint32_t i = 0; i < trace.ncpu; i++) {
		struct trace_cpu *tc = KiProcessorBlock[i]->TraceCpu;
		struct trace_view v;
		if (!tc)
			continue;
		for (;;) {
			flush_full(tc);
			if (!tracebuf_peek_final(tc, &v) || !v.unsettled || arch_rdtsc() - start > limit)
				break;
			arch_cpu_relax();
		}
		send_final(tc, &stuck[i]);
	}
	trace.finished = true;
	send_end_frames(status, stuck);

	uint64_t records, lost;
	trace_totals(&records, &lost);
	kprintf("trace: %llu records sent, %llu lost (see the decoder's summary for causes)\n",
		(unsigned long long)records, (unsigned long long)lost);
	trace_out_finish(); /* the stick's last block, and what was saved */
}

void trace_panic_flush(void)
{
	static uint64_t stuck[KPROF_MAX_CPUS];

	if (!trace.started || trace.finished)
		return;
	memset(&trace_groups, 0, sizeof(trace_groups));
	trace.finished = true;
	for (uint32_t i = 0; i < trace.ncpu; i++)
		if (KiProcessorBlock[i]->TraceCpu)
			send_final(KiProcessorBlock[i]->TraceCpu, &stuck[i]);
	send_end_frames(KPROF_EXIT_PANIC, stuck);
	trace_out_finish();
}

void trace_totals(uint64_t *records, uint64_t *lost)
{
	*records = *lost = 0;
	for (uint32_t i = 0; i < trace.ncpu; i++) {
		struct trace_cpu *tc = KiProcessorBlock[i]->TraceCpu;
		if (!tc)
			continue;
		*records += tc->records;
		for (int c = 0; c < KPROF_LOSS_CAUSES; c++)
			*lost += tc->lost[c];
	}
}
