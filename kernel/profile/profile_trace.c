/*
 * profile_trace.c - the kernel's built-in profile callback objects, which
 * turn profile interrupts into records (docs/profile.md: Windows starts the same
 * objects when PERF_PROFILE or PERF_PMC_PROFILE is enabled):
 *   trace=profile  one callback object for ProfileTime on every CPU,
 *                  writing a SampledProfile record (hook 0x0F2E) per
 *                  interrupt;
 *   trace=pmc      one per counter source in pmc.sources (up to four),
 *                  writing a PmcInterrupt record (hook 0x0F2F) per overflow;
 *   trace=stack    after each of those records, a StackWalk record (hook
 *                  0x1820) of the interrupted code, from frame pointers,
 *                  whose EventTimeStamp is the sample's time stamp.
 * Sources this machine cannot provide are reported, one line each, and
 * the run goes on without them.
 *
 * The callbacks run in the profile interrupt at PROFILE_LEVEL: they only
 * read the current thread and CPU state and write records (lock-free).
 */
#include "kernel/profile/profile_trace.h"

#include <arch/cpu.h>
#include <arch/stackwalk.h>

#include "kernel/profile/profile_keys.h"
#include "kernel/console/console.h"
#include "kernel/ke/ntstatus.h"
#include "kernel/ke/prcb.h"
#include "kernel/profile/profile.h"
#include "kernel/profile/profile_timer.h"
#include "kernel/profile/source.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"

_Static_assert(KAFFINITY_WORDS <= 4, "KPROF_PROFILE_OBJECT.Affinity holds 256 CPUs");

#define MAX_PMC_PROFILES 4

static uint64_t last_write_cycles[KPROF_MAX_CPUS];
static KPROFILE *time_profile;
static KPROFILE *pmc_profile[MAX_PMC_PROFILES];
static uint32_t pmc_profiles;

static void write_stack(uint64_t sample_time, const KTRAP_FRAME *tf, const KTHREAD *t)
{
	uintptr_t pcs[STACKWALK_MAX_FRAMES];
	struct trace_record rec;

	if (!trace_enabled(PERF_KPROF_STACKWALK))
		return;
	pcs[0] = trap_frame_ip(tf);
	unsigned n = 1 + arch_stack_walk_trap(tf, pcs + 1, STACKWALK_MAX_FRAMES - 1);
	STACK_WALK_EVENT_DATA *p = trace_record_begin(&rec, PERFINFO_LOG_TYPE_STACKWALK, STACKWALK_VERSION,
						      (uint16_t)(sizeof(*p) + n * sizeof(uint64_t)));
	if (!p)
		return;
	p->EventTimeStamp = sample_time;
	p->StackProcess = t && t->Process ? t->Process->ProcessId : 0;
	p->StackThread = t ? t->ThreadId : 0;
	for (unsigned i = 0; i < n; i++)
		p->Stack[i] = pcs[i];
	trace_record_commit(&rec);
}

/* The time stamp trace_record_begin() put in the header before payload p. */
static uint64_t record_time(const void *payload)
{
	return ((const PERFINFO_TRACE_HEADER *)payload - 1)->TimeStamp;
}

static void sampled_profile(KTRAP_FRAME *tf, void *context)
{
	uint64_t t0 = arch_rdtsc(); /* the whole callback is "the record write" */
	KPRCB *prcb = ke_get_current_prcb();
	KTHREAD *t = ke_get_current_thread();
	struct trace_record rec;

	if (!trace_enabled(PERF_PROFILE))
		return;
	PERFINFO_SAMPLED_PROFILE_INFORMATION *p = trace_record_begin(&rec, PERFINFO_LOG_TYPE_SAMPLED_PROFILE,
								     SAMPLED_PROFILE_VERSION, sizeof(*p));
	if (!p)
		return;
	p->InstructionPointer = trap_frame_ip(tf);
	p->ThreadId = t ? t->ThreadId : 0;
	p->Count = (uint16_t)ki_profile_timer_weight(); /* periods this sample stands for */
	/* This interrupt is counted in InterruptNesting: more than one means
	 * it came in on top of another interrupt. */
	p->Flags = (uint8_t)((prcb->DpcRoutineActive ? SAMPLED_PROFILE_FLAG_DPC : 0) |
			     (prcb->InterruptNesting > 1 ? SAMPLED_PROFILE_FLAG_ISR : 0) |
			     ((t ? (uint8_t)t->Priority & 0x1F : 0) << SAMPLED_PROFILE_PRIORITY_SHIFT));
	p->Rank = 0;
	uint64_t when = record_time(p);
	trace_record_commit(&rec);
	write_stack(when, tf, t);
	last_write_cycles[prcb->Number] = arch_rdtsc() - t0;
}

uint64_t ke_profile_trace_last_write_cycles(void)
{
	return last_write_cycles[ke_get_current_processor_number()];
}

bool ke_profile_trace_object(const KPROFILE *profile)
{
	struct trace_record rec;

	if (!trace_enabled(PERF_PROFILE) || profile->Type != ProfileObject)
		return false;
	uint32_t buckets = profile->BufferSize / 4, n = buckets;
	uint8_t flags = profile->Process ? KPROF_PROFILE_OBJECT_PROCESS : 0;
	if (n > KPROF_PROFILE_OBJECT_MAX_BUCKETS) {
		n = KPROF_PROFILE_OBJECT_MAX_BUCKETS;
		flags |= KPROF_PROFILE_OBJECT_TRUNCATED;
	}
	KPROF_PROFILE_OBJECT *p = trace_record_begin(&rec, KPROF_LOG_TYPE_PROFILE_OBJECT, PROFILE_OBJECT_VERSION,
						     (uint16_t)(sizeof(*p) + n * sizeof(uint32_t)));
	if (!p)
		return false;
	p->RangeBase = profile->RangeBase;
	p->RangeLimit = profile->RangeLimit;
	p->Hits = __atomic_load_n(&profile->Hits, __ATOMIC_RELAXED);
	p->ProfileId = profile->ProfileId;
	p->ProcessId = profile->Process ? profile->Process->ProcessId : 0;
	p->Source = (uint16_t)profile->Source;
	p->BucketShift = (uint8_t)profile->BucketShift;
	p->Flags = flags;
	p->BucketCount = buckets;
	for (unsigned w = 0; w < 4; w++)
		p->Affinity[w] = w < KAFFINITY_WORDS ? profile->Affinity.Bitmap[w] : 0;
	for (uint32_t i = 0; i < n; i++)
		p->Buckets[i] = __atomic_load_n(&profile->Buffer[i], __ATOMIC_RELAXED);
	trace_record_commit(&rec);
	return true;
}

static void pmc_sample(KTRAP_FRAME *tf, void *context)
{
	KTHREAD *t = ke_get_current_thread();
	struct trace_record rec;

	if (!trace_enabled(PERF_PMC_PROFILE))
		return;
	PERFINFO_PMC_SAMPLE *p = trace_record_begin(&rec, PERFINFO_LOG_TYPE_PMC_INTERRUPT, PMC_INTERRUPT_VERSION,
						    sizeof(*p));
	if (!p)
		return;
	p->InstructionPointer = trap_frame_ip(tf);
	p->ThreadId = t ? t->ThreadId : 0;
	p->ProfileSource = (uint16_t)(uintptr_t)context;
	p->Reserved = 0;
	uint64_t when = record_time(p);
	trace_record_commit(&rec);
	write_stack(when, tf, t);
}

static void start_time_profile(void)
{
	NTSTATUS st = ke_create_callback_profile(&time_profile, NULL, sampled_profile, NULL, ProfileTime, NULL);
	if (st == STATUS_SUCCESS)
		st = nt_start_profile(time_profile);
	if (st == STATUS_SUCCESS) {
		uint32_t iv = ki_profile_source_interval(ProfileTime);
		kprintf("profile: ProfileTime every %u.%u us on every CPU (SampledProfile records)\n", iv / 10, iv % 10);
		return;
	}
	const char *why = ki_profile_source_why_unsupported(ProfileTime);
	kprintf("profile: ProfileTime not started: %s%s%s\n", nt_status_name(st), why ? ": " : "", why ? why : "");
	if (time_profile)
		ke_delete_profile(time_profile);
	time_profile = NULL;
}

static void start_pmc_profile(int16_t source)
{
	KPROFILE *p = NULL;
	NTSTATUS st = ke_create_callback_profile(&p, NULL, pmc_sample, (void *)(uintptr_t)source, source, NULL);
	if (st == STATUS_SUCCESS)
		st = nt_start_profile(p);
	if (st == STATUS_SUCCESS) {
		pmc_profile[pmc_profiles++] = p;
		kprintf("pmc: %s every %u events on every CPU (PmcInterrupt records)\n", kprofile_source_name(source),
			ki_profile_source_interval(source));
		return;
	}
	const char *why = ki_profile_source_why_unsupported(source);
	kprintf("pmc: %s is not supported here: %s%s%s; the run goes on without it\n", kprofile_source_name(source),
		nt_status_name(st), why ? ": " : "", why ? why : "");
	if (p)
		ke_delete_profile(p);
}

void ke_profile_trace_start(void)
{
	if (trace_enabled(PERF_PROFILE))
		start_time_profile();
	if (!trace_enabled(PERF_PMC_PROFILE))
		return;
	for (int16_t s = 1; s < ProfileMaximum; s++)
		if (profile_config->pmc_sources & (1u << s))
			start_pmc_profile(s);
}

void ke_profile_trace_stop(void)
{
	if (time_profile)
		ke_delete_profile(time_profile);
	time_profile = NULL;
	for (uint32_t i = 0; i < pmc_profiles; i++)
		ke_delete_profile(pmc_profile[i]);
	pmc_profiles = 0;
}
