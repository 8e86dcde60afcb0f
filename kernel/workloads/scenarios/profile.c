/*
 * profile.c - scenario=profile: profile objects against a
 * workload whose time is split across four functions in known shares.
 *
 * One thread per CPU (for profile.ms, stretched up to 4x while fewer than
 * 12,000 samples have landed in the work functions) (pinned; even CPUs in process "profA", odd ones in
 * "profB") repeats rounds of: prof_work_a for 4 units, prof_work_b for 3,
 * prof_work_c for 2, prof_work_d for 1 (40/30/20/10 %), each spinning on
 * the TSC, then the edge spin (arch_profile_edge_spin) for one unit.  The
 * unit varies from round to round (pseudo-randomly, 0.5x to 1.5x) so the
 * rounds do not beat against the profile interval.  The time each function
 * took is measured with the TSC around each call.  Under emulation a
 * virtual CPU the host does not run keeps its TSC going but takes no
 * samples (the periods are missed, and counted), which adds noise to both
 * sides: the accuracy goal wants at least 10,000 samples.
 *
 * Profile objects, all ProfileTime, started before the workers and
 * stopped after them, so every sample in their ranges falls inside their
 * lifetime:
 *   work[i]   global, every CPU, over function i, 4-byte buckets: the
 *             sampled shares (their Hits) against the measured shares;
 *             error = half the sum of absolute differences (goal: <= 5 %
 *             with >= 10,000 samples);
 *   proc_a    process profA only, over prof_work_a;
 *   one_cpu   global, only the last CPU, over prof_work_b;
 *   edge      global, over [arch_profile_edge_spin, arch_profile_edge_loop):
 *             RangeLimit is the edge loop's hot instruction, and the buffer
 *             (exactly the size NtCreateProfile requires) ends at a page
 *             boundary followed by an unmapped guard page: counting a
 *             sample at RangeLimit (the Windows 8 mistake, docs/profile.md)
 *             would fault;
 *   probe     a callback object that counts what the basic objects should
 *             have: samples at exactly the edge's RangeLimit, and samples
 *             in prof_work_a by threads of profA.
 * The basic objects' histograms go into the trace (KprofProfileObject) for
 * the boot test, which holds them against the SampledProfile records.
 *
 * First the cost of a profile interrupt is measured next to an empty one
 * (both self-IPIs at IPI_LEVEL on this CPU): the profile interrupt
 * dispatches ProfileTime through the lists as they are before the
 * scenario adds its objects (the built-in callback object writing the
 * SampledProfile and StackWalk records, whose own cost is reported
 * separately).
 */
#include <arch/cpu.h>
#include <arch/dev/profile_edge.h>

#include "kernel/console/console.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/libk.h"
#include "kernel/debug/ksyms.h"
#include "kernel/mm/kva.h"
#include "kernel/workloads/measure.h"
#include "kernel/workloads/phase.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/profile/profile.h"
#include "kernel/profile/profile_timer.h"
#include "kernel/profile/profile_trace.h"
#include "kernel/profile/source.h"
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"

#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"
#include "kernel/ke/time/time.h"

#define WORKS      4
#define UNIT_US    40
#define PAGE       4096u
#define TARGET_SAMPLES 12000
#define STRETCH    4

static const uint32_t work_units[WORKS] = { 4, 3, 2, 1 };

/* Distinct bodies (and noipa) so the compiler cannot fold them into one. */
/* No pause instruction in them: under emulation it gives the host CPU
 * away, which would bias one function's samples. */
__attribute__((noipa)) void prof_work_a(uint64_t until)
{
	volatile uint32_t n = 0;
	while (arch_rdtsc() < until)
		n += 3;
}

__attribute__((noipa)) void prof_work_b(uint64_t until)
{
	while (arch_rdtsc() < until)
		compiler_barrier();
}

__attribute__((noipa)) void prof_work_c(uint64_t until)
{
	volatile uint64_t n = 0;
	while (arch_rdtsc() < until)
		n++;
}

__attribute__((noipa)) void prof_work_d(uint64_t until)
{
	volatile uint64_t n = 1;
	while (arch_rdtsc() < until)
		n <<= 1;
}

static void (*const work_fn[WORKS])(uint64_t) = { prof_work_a, prof_work_b, prof_work_c, prof_work_d };
static const char *const work_name[WORKS] = { "prof_work_a", "prof_work_b", "prof_work_c", "prof_work_d" };

struct range {
	uintptr_t base, limit;
};

static struct {
	KEVENT go;
	uint64_t end_tsc;
	uint64_t unit_cycles;
	uint64_t measured[KPROF_MAX_CPUS][WORKS];
	struct range work[WORKS];
	struct range edge;
	KPROCESS *proc_a, *proc_b;
	uint64_t probe_edge_hits;  /* samples at exactly edge.limit        */
	uint64_t probe_proc_a;     /* samples in work[0] by profA threads  */
	uint64_t samples;          /* samples in the work functions         */
	uint64_t hard_end_tsc;     /* the longest the run is stretched to  */
	uint64_t periods[WORKS];   /* samples in each work function, each  */
	                           /* weighted by the periods it stands for */
} s;

/* The end of the function that starts at `start`: the first address the
 * symbol table gives to something else. */
static uintptr_t function_end(uintptr_t start)
{
	uintptr_t off;
	const char *name = ksym_lookup(start, &off);
	for (uintptr_t a = start + 1; a < start + 65536; a++) {
		uintptr_t o;
		const char *n = ksym_lookup(a, &o);
		if (n != name || o == 0)
			return a;
	}
	return start + 65536;
}

static void probe(KTRAP_FRAME *tf, void *ctx)
{
	uintptr_t ip = trap_frame_ip(tf);
	KTHREAD *t = ke_get_current_thread();

	if (ip == s.edge.limit)
		__atomic_fetch_add(&s.probe_edge_hits, 1, __ATOMIC_RELAXED);
	if (ip >= s.work[0].base && ip < s.work[0].limit && t && t->Process == s.proc_a)
		__atomic_fetch_add(&s.probe_proc_a, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < WORKS; i++)
		if (ip >= s.work[i].base && ip < s.work[i].limit) {
			__atomic_fetch_add(&s.periods[i], ki_profile_timer_weight(), __ATOMIC_RELAXED);
			__atomic_fetch_add(&s.samples, 1, __ATOMIC_RELAXED);
		}
}

/* The run lasts profile.ms, longer (up to STRETCH times) while fewer than
 * TARGET_SAMPLES samples have landed in the work functions: a busy host
 * runs virtual CPUs for only part of the time. */
static bool keep_going(void)
{
	uint64_t now = arch_rdtsc();
	return now < s.end_tsc ||
	       (now < s.hard_end_tsc && __atomic_load_n(&s.samples, __ATOMIC_RELAXED) < TARGET_SAMPLES);
}

static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void profile_worker(void *arg)
{
	uint32_t cpu = (uint32_t)(uintptr_t)arg;
	uint64_t rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)cpu << 32 | 1);

	ke_wait_for_single_object(&s.go, WrSuspended, KernelMode, KE_WAIT_FOREVER);
	while (keep_going()) {
		uint64_t unit = s.unit_cycles / 2 + next_random(&rng) % s.unit_cycles;
		for (int i = 0; i < WORKS; i++) {
			uint64_t t0 = arch_rdtsc();
			work_fn[i](t0 + unit * work_units[i]);
			s.measured[cpu][i] += arch_rdtsc() - t0;
		}
		arch_profile_edge_spin(arch_rdtsc() + unit);
	}
	ps_terminate_system_thread();
}

/* ---- objects ---- */

struct object {
	const char *what;
	KPROFILE *p;
	uint32_t *buffer;
	bool guarded;
};

static uint32_t buffer_bytes(size_t range, uint32_t bucket_size)
{
	return (uint32_t)((((range - 1) >> (bucket_size - 2)) & ~(size_t)3) + 4);
}

static bool create_basic(struct object *o, const char *what, KPROCESS *proc, struct range r,
			 const KAFFINITY_EX *cpus, bool guarded)
{
	uint32_t size = buffer_bytes(r.limit - r.base, 2);
	o->what = what;
	o->guarded = guarded;
	if (guarded) {
		/* Exactly `size` bytes, ending at a page boundary followed by
		 * the guard page kva_alloc_guarded() leaves unmapped. */
		size_t pages = (size + PAGE - 1) / PAGE;
		uint8_t *base = kva_alloc_guarded(pages * PAGE);
		o->buffer = base ? (uint32_t *)(base + pages * PAGE - size) : NULL;
	} else {
		o->buffer = kzalloc(size);
	}
	if (!o->buffer) {
		kprintf("profile: no memory for the %s object's buffer\n", what);
		return false;
	}
	NTSTATUS st = nt_create_profile_ex(&o->p, proc, r.base, r.limit - r.base, 2, o->buffer, size, ProfileTime, cpus);
	if (st == STATUS_SUCCESS)
		st = nt_start_profile(o->p);
	if (st != STATUS_SUCCESS) {
		kprintf("profile: the %s object could not be created and started: %s\n", what, nt_status_name(st));
		return false;
	}
	return true;
}

static uint64_t bucket_sum(const struct object *o)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < o->p->BufferSize / 4; i++)
		sum += o->buffer[i];
	return sum;
}

/* A few of the API's refusals, on the real objects (the unit tests cover
 * every status; this shows them on the machine). */
static bool check_api(const struct object *o)
{
	uint32_t small[1];
	KPROFILE *p = NULL;
	bool ok = true;
	NTSTATUS st = nt_create_profile(&p, NULL, s.work[0].base, s.work[0].limit - s.work[0].base, 2, small,
					sizeof(small), ProfileTime);
	ok &= st == STATUS_BUFFER_TOO_SMALL;
	ok &= nt_start_profile(o->p) == STATUS_PROFILING_NOT_STOPPED;
	st = nt_create_profile(&p, NULL, s.work[0].base, s.work[0].limit - s.work[0].base, 2, small, sizeof(small),
			       ProfileMaximum);
	ok &= st != STATUS_SUCCESS;
	kprintf("check: NtCreateProfile with a one-bucket buffer: %s; NtStartProfile twice: %s\n",
		nt_status_name(STATUS_BUFFER_TOO_SMALL), nt_status_name(STATUS_PROFILING_NOT_STOPPED));
	return ok;
}

/* ---- the cost of a profile interrupt ---- */

static void profile_work(KTRAP_FRAME *tf)
{
	ke_profile_interrupt_with_source(tf, ProfileTime);
}

static void report_cost(void)
{
	uint64_t start = arch_rdtsc();
	struct irq_cost empty = measure_interrupt_round_trip(2000);
	struct irq_cost write;
	/* Its profile interrupts write real SampledProfile records (at
	 * arch_send_ipi, where the self-IPI lands): a KprofMeasure record tags
	 * their span so the report leaves them out of its hot spots.  On one
	 * CPU throughout (DISPATCH_LEVEL), so the record is that CPU's. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	uint64_t t0 = arch_rdtsc();
	struct irq_cost prof = measure_handler_round_trip(profile_work, 2000, ke_profile_trace_last_write_cycles, &write);
	KPROF_MEASURE tag = { .DurationCycles = arch_rdtsc() - t0, .Rounds = prof.rounds,
			      .What = KPROF_MEASURE_PROFILE_INTERRUPT };
	trace_log(PERF_PROFILE, KPROF_LOG_TYPE_MEASURE, MEASURE_VERSION, &tag, sizeof(tag));
	ke_lower_irql(old);
	/* A fixed number of rounds, whatever profile.ms: the slow-phase line names them. */
	workload_phase_rounds("empty and profile interrupt round trips", empty.rounds + prof.rounds, arch_rdtsc() - start);
	uint64_t without = prof.median > write.median ? prof.median - write.median : 0;
	uint64_t r100 = empty.median ? without * 100 / empty.median : 0;
	uint64_t f100 = empty.median ? prof.median * 100 / empty.median : 0;

	kprintf("profile: interrupt cost (self-IPI at IRQL 14, medians of %u and %u): empty %llu cycles; profile interrupt "
		"%llu cycles (%llu.%02llux), of which %llu writing the SampledProfile and StackWalk records; without "
		"them %llu cycles = %llu.%02llux the empty interrupt (goal: at most 1.30x plus the record write)\n",
		empty.rounds, prof.rounds, (unsigned long long)empty.median, (unsigned long long)prof.median,
		(unsigned long long)(f100 / 100),
		(unsigned long long)(f100 % 100), (unsigned long long)write.median, (unsigned long long)without,
		(unsigned long long)(r100 / 100), (unsigned long long)(r100 % 100));
	/* A timing: reported, not asserted (emulation is noisy). */
}

/* ---- the summary ---- */

/* Shares of the four functions: measured (TSC) against sampled.  Each
 * sample counts for the profile periods it stands for (the SampledProfile
 * Count): a CPU that was stopped, as a virtual CPU the host did not run
 * is, missed periods while its TSC, and so the measured time, went on. */
static bool report_shares(const struct object work[WORKS])
{
	uint64_t measured[WORKS] = { 0 }, mtotal = 0, ptotal = 0, stotal = 0;

	for (uint32_t c = 0; c < ke_number_processors; c++)
		for (int i = 0; i < WORKS; i++)
			measured[i] += s.measured[c][i];
	for (int i = 0; i < WORKS; i++) {
		mtotal += measured[i];
		ptotal += s.periods[i];
		stotal += work[i].p->Hits;
	}
	if (!mtotal || !ptotal) {
		kprintf("profile: no samples in the work functions (measured %llu cycles)\n", (unsigned long long)mtotal);
		return false;
	}
	uint64_t err = 0; /* in 1/100000 */
	for (int i = 0; i < WORKS; i++) {
		uint64_t m = measured[i] * 100000 / mtotal, p = s.periods[i] * 100000 / ptotal;
		err += m > p ? m - p : p - m;
		kprintf("profile: %-12s measured %3llu.%02llu%%  sampled %3llu.%02llu%%  (%llu samples, %llu periods)\n",
			work_name[i], (unsigned long long)(m / 1000), (unsigned long long)(m % 1000 / 10),
			(unsigned long long)(p / 1000), (unsigned long long)(p % 1000 / 10),
			(unsigned long long)work[i].p->Hits, (unsigned long long)s.periods[i]);
	}
	err /= 2;
	bool enough = stotal >= 10000;
	kprintf("profile: accuracy error %llu.%02llu%% (half the sum of absolute differences) over %llu samples (%llu "
		"periods); goal: at most 5%% with at least 10000 samples%s\n",
		(unsigned long long)(err / 1000), (unsigned long long)(err % 1000 / 10), (unsigned long long)stotal,
		(unsigned long long)ptotal,
		enough ? "" : " (too few samples here to judge: raise profile.ms or lower profile.interval)");
	return !enough || err <= 5000;
}

static enum kprof_exit_status profile_run(uint32_t ms, uint32_t stretch);

static enum kprof_exit_status scenario_profile(uint32_t ms, bool quick)
{
	return profile_run(ms, quick ? 1 : STRETCH);
}

/* Every object created so far deleted (stopped first, if it runs) and its
 * buffer freed (a guarded one stays: its guard page is never mapped
 * again); those never created have no KPROFILE. */
static void delete_objects(struct object *const *all, unsigned count, KPROFILE *probe_obj)
{
	for (unsigned i = 0; i < count; i++) {
		ke_delete_profile(all[i]->p);
		all[i]->p = NULL;
		if (!all[i]->guarded)
			kfree(all[i]->buffer);
		all[i]->buffer = NULL;
	}
	ke_delete_profile(probe_obj);
}

/* The objects of one run: four basic ones over the work functions, one
 * per process (profA), one on the last CPU only, one whose buffer ends at
 * a guard page; and the probe's callback object, which counts what the
 * checks compare with. */
struct run_objects {
	struct object work[WORKS], proc_a, one_cpu, edge;
	struct object *all[WORKS + 3];
	KPROFILE *probe;
	KAFFINITY_EX last;
};

/* Set-up: the functions' ranges, the processes, the probe and every
 * object created and started.  False with nothing left running (the
 * objects it did create would interrupt every later workload). */
static bool profile_setup(struct run_objects *o, uint32_t stretch)
{
	bool ok = true;

	*o = (struct run_objects){ .all = { &o->work[0], &o->work[1], &o->work[2], &o->work[3], &o->proc_a,
					    &o->one_cpu, &o->edge } };
	for (int i = 0; i < WORKS; i++) {
		s.work[i].base = (uintptr_t)work_fn[i];
		s.work[i].limit = function_end(s.work[i].base);
	}
	s.edge.base = arch_profile_edge_start();
	s.edge.limit = (uintptr_t)arch_profile_edge_loop;
	s.proc_a = ps_create_process("profA", 8);
	s.proc_b = ps_create_process("profB", 8);
	affinity_clear_all(&o->last);
	affinity_add(&o->last, ke_number_processors - 1);

	/* The cost first, with only the built-in objects on the lists.  Its
	 * 2000 profile interrupts are real ones and write SampledProfile
	 * records (at arch_send_ipi, where the self-IPI lands): the quick form
	 * (scenario=mix) leaves the measurement out so they do not swamp a
	 * short run's hot spots. */
	if (stretch > 1)
		report_cost();

	NTSTATUS st = ke_create_callback_profile(&o->probe, NULL, probe, NULL, ProfileTime, NULL);
	if (st == STATUS_SUCCESS)
		st = nt_start_profile(o->probe);
	if (st != STATUS_SUCCESS) {
		kprintf("profile: the probe callback object: %s\n", nt_status_name(st));
		ke_delete_profile(o->probe);
		return false;
	}
	for (int i = 0; i < WORKS; i++)
		ok &= create_basic(&o->work[i], work_name[i], NULL, s.work[i], NULL, false);
	ok &= create_basic(&o->proc_a, "profA", s.proc_a, s.work[0], NULL, false);
	ok &= create_basic(&o->one_cpu, "last-CPU", NULL, s.work[1], &o->last, false);
	ok &= create_basic(&o->edge, "guard-page", NULL, s.edge, NULL, true);
	if (!ok)
		delete_objects(o->all, ARRAY_SIZE(o->all), o->probe);
	return ok;
}

/* The run: a worker on every CPU (profA's threads on even CPUs, profB's
 * on odd ones) until ms have passed and enough samples came, or up to
 * stretch x ms. */
static void profile_workers(uint32_t ms, uint32_t stretch)
{
	uint32_t n = ke_number_processors;
	KTHREAD *threads[KPROF_MAX_CPUS];

	ke_initialize_event(&s.go, NotificationEvent, false);
	s.unit_cycles = ke_us_to_tsc(UNIT_US);
	for (uint32_t i = 0; i < n; i++) {
		KAFFINITY_EX one;
		affinity_clear_all(&one);
		affinity_add(&one, i);
		threads[i] = ps_create_system_thread(i % 2 ? s.proc_b : s.proc_a, profile_worker, (void *)(uintptr_t)i, 12, &one,
						     i % 2 ? "profB" : "profA");
	}
	s.end_tsc = arch_rdtsc() + ke_us_to_tsc((uint64_t)ms * 1000);
	s.hard_end_tsc = s.end_tsc + ke_us_to_tsc((uint64_t)ms * 1000 * (stretch - 1));
	ke_set_event(&s.go, IO_NO_INCREMENT, false);
	for (uint32_t i = 0; i < n; i++)
		ke_wait_for_single_object(threads[i], Executive, KernelMode, KE_WAIT_FOREVER);
}

/* Every object stopped, its record written and its buckets adding up to
 * its hit count. */
static bool profile_stop(struct run_objects *o)
{
	bool ok = true;

	for (unsigned i = 0; i < ARRAY_SIZE(o->all); i++) {
		struct object *x = o->all[i];
		nt_stop_profile(x->p);
		if (!ke_profile_trace_object(x->p))
			kprintf("profile: the %s object's record was not written\n", x->what);
		uint64_t sum = bucket_sum(x);
		if (sum != x->p->Hits) {
			kprintf("profile: the %s object's buckets add up to %llu, but it counted %llu\n", x->what,
				(unsigned long long)sum, (unsigned long long)x->p->Hits);
			ok = false;
		}
	}
	nt_stop_profile(o->probe);
	return ok;
}

/* The checks against the probe: the per-process object counted profA's
 * samples only, the one-CPU object fewer than the global one, the guard
 * page object nothing at its limit; then each CPU's timer figures. */
static bool profile_check(const struct run_objects *o)
{
	uint32_t n = ke_number_processors;
	bool proc_ok = o->proc_a.p->Hits == s.probe_proc_a && o->proc_a.p->Hits <= o->work[0].p->Hits;
	kprintf("check: per-process object (profA) counted %llu samples of prof_work_a; profA's threads took %llu there, "
		"all threads %llu\n", (unsigned long long)o->proc_a.p->Hits, (unsigned long long)s.probe_proc_a,
		(unsigned long long)o->work[0].p->Hits);
	bool cpu_ok = o->one_cpu.p->Hits <= o->work[1].p->Hits && (n == 1 || o->one_cpu.p->Hits < o->work[1].p->Hits);
	kprintf("check: CPU %u's object counted %llu of prof_work_b's %llu samples\n", n - 1,
		(unsigned long long)o->one_cpu.p->Hits, (unsigned long long)o->work[1].p->Hits);
	kprintf("check: guard-page object: %llu samples exactly at RangeLimit %p were not counted (buffer of %u bytes "
		"ends at %p, guard page after it); %llu counted inside the range\n",
		(unsigned long long)s.probe_edge_hits, (void *)s.edge.limit, o->edge.p->BufferSize,
		(void *)((uintptr_t)o->edge.buffer + o->edge.p->BufferSize), (unsigned long long)o->edge.p->Hits);
	for (uint32_t c = 0; c < n; c++) {
		uint64_t fired, missed;
		ki_profile_timer_stats(c, &fired, &missed);
		kprintf("profile: cpu %u: %llu profile timer interrupts, %llu periods missed (interrupts masked or the "
			"virtual CPU not running)\n", c, (unsigned long long)fired, (unsigned long long)missed);
	}
	return proc_ok && cpu_ok;
}

/* stretch: the run may last up to stretch x ms to reach TARGET_SAMPLES
 * samples (1: exactly ms).  Set-up, run, stop, checks; every object is
 * deleted on every way out. */
static enum kprof_exit_status profile_run(uint32_t ms, uint32_t stretch)
{
	struct run_objects o;

	kprintf("scenario profile: %u CPUs for %u ms (up to %u ms until %u samples), ProfileTime every %u.%u us\n",
		ke_number_processors, ms, ms * stretch, TARGET_SAMPLES, ki_profile_source_interval(ProfileTime) / 10,
		ki_profile_source_interval(ProfileTime) % 10);
	if (!ki_profile_source_supported(ProfileTime)) {
		kprintf("scenario profile: the profile timer is not available: %s\n",
			ki_profile_source_why_unsupported(ProfileTime));
		return KPROF_EXIT_FAILURE;
	}
	if (!profile_setup(&o, stretch))
		return KPROF_EXIT_FAILURE; /* nothing left running */
	bool ok = check_api(&o.work[0]);
	profile_workers(ms, stretch);
	ok &= profile_stop(&o);
	ok &= report_shares(o.work);
	ok &= profile_check(&o);
	delete_objects(o.all, ARRAY_SIZE(o.all), o.probe);
	kprintf("scenario profile: %s\n", ok ? "done" : "SOME CHECKS FAILED");
	return ok ? KPROF_EXIT_SUCCESS : KPROF_EXIT_FAILURE;
}

/* The descriptor: scenario=profile (or one workload of scenario=mix, for
 * the duration the mix gives it), with its own keys (workload_keys.c). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	uint32_t ms = r->ms ? r->ms : workload_config->profile_ms;

	workload_phase_asked(r->in_mix ? ms : ms * STRETCH); /* alone it may stretch (keep_going) */
	return scenario_profile(ms, r->in_mix);
}

WORKLOAD_DEFINE(profile, .name = "profile", .description = "profile objects and known shares of time", .run = run);
