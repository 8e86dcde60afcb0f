/*
 * fields.c - the event descriptions (see fields.h), and the names of
 * field values read from them.  Offsets are checked against the C
 * layouts in include/kprof/wmi.h at compile time.
 */
#include "tools/kprof/read/fields.h"

#include <stdio.h>
#include <string.h>

#include "include/kprof/user_event.h"
#include "include/kprof/wmi.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define U(type, field) \
	{ #field, offsetof(type, field), sizeof(((type *)0)->field), KP_UNSIGNED, 0, 0, NULL, 0 }
#define S(type, field) \
	{ #field, offsetof(type, field), sizeof(((type *)0)->field), KP_SIGNED, 0, 0, NULL, 0 }
#define P(type, field) { #field, offsetof(type, field), 8, KP_POINTER, 0, 0, NULL, 0 }
#define X(type, field) \
	{ #field, offsetof(type, field), sizeof(((type *)0)->field), KP_HEX, 0, 0, NULL, 0 }
#define E(type, field, names) \
	{ #field, offsetof(type, field), sizeof(((type *)0)->field), KP_UNSIGNED, 0, 0, names, N(names) }
#define B(name, type, field, shift, width) { name, offsetof(type, field), 1, KP_BITS, shift, width, NULL, 0 }
#define BE(name, type, field, shift, width, names) \
	{ name, offsetof(type, field), 1, KP_BITS, shift, width, names, N(names) }

static const char *const thread_states[] = {
	"Initialized", "Ready", "Running", "Standby", "Terminated", "Waiting", "Transition", "DeferredReady",
	"GateWaitObsolete", "WaitingForProcessInSwap",
};

static const char *const wait_reasons[] = {
	"Executive", "FreePage", "PageIn", "PoolAllocation", "DelayExecution", "Suspended", "UserRequest",
	"WrExecutive", "WrFreePage", "WrPageIn", "WrPoolAllocation", "WrDelayExecution", "WrSuspended",
	"WrUserRequest", "WrEventPair", "WrQueue", "WrLpcReceive", "WrLpcReply", "WrVirtualMemory", "WrPageOut",
	"WrRendezvous", "WrKeyedEvent", "WrTerminated", "WrProcessInSwap", "WrCpuRateControl", "WrCalloutStack",
	"WrKernel", "WrResource", "WrPushLock", "WrMutex", "WrQuantumEnd", "WrDispatchInt", "WrPreempted",
	"WrYieldExecution", "WrFastMutex", "WrGuardedMutex", "WrRundown", "WrAlertByThreadId", "WrDeferredPreempt",
};

static const char *const wait_modes[] = { "KernelMode", "UserMode" };

static const char *const reference_clocks[] = { "None", "HPET", "PmTimer" };

static const char *const acquire_modes[] = {
	"SpinLock", "QueuedSpinLock", "ExecutiveShared", "ExecutiveExclusive", "ExecutiveConverted",
};

static const char *const profile_sources[] = {
	"ProfileTime", "ProfileAlignmentFixup", "ProfileTotalIssues", "ProfilePipelineDry",
	"ProfileLoadInstructions", "ProfilePipelineFrozen", "ProfileBranchInstructions", "ProfileTotalNonissues",
	"ProfileDcacheMisses", "ProfileIcacheMisses", "ProfileCacheMisses", "ProfileBranchMispredictions",
	"ProfileStoreInstructions", "ProfileFpInstructions", "ProfileIntegerInstructions", "Profile2Issue",
	"Profile3Issue", "Profile4Issue", "ProfileSpecialInstructions", "ProfileTotalCycles", "ProfileIcacheIssues",
	"ProfileDcacheAccesses", "ProfileMemoryBarrierCycles", "ProfileLoadLinkedIssues",
};

static const struct kp_field cswitch_fields[] = {
	U(WMI_CONTEXTSWAP, NewThreadId),
	U(WMI_CONTEXTSWAP, OldThreadId),
	S(WMI_CONTEXTSWAP, NewThreadPriority),
	S(WMI_CONTEXTSWAP, OldThreadPriority),
	U(WMI_CONTEXTSWAP, PreviousCState),
	S(WMI_CONTEXTSWAP, NewThreadPriorityDecrement),
	E(WMI_CONTEXTSWAP, OldThreadWaitReason, wait_reasons),
	BE("OldThreadWaitMode", WMI_CONTEXTSWAP, Flags, 0, 1, wait_modes),
	B("OldThreadBamQosLevel", WMI_CONTEXTSWAP, Flags, 1, 3),
	B("NewThreadBamQosLevel", WMI_CONTEXTSWAP, Flags, 4, 3),
	E(WMI_CONTEXTSWAP, OldThreadState, thread_states),
	U(WMI_CONTEXTSWAP, OldThreadIdealProcessor),
	U(WMI_CONTEXTSWAP, NewThreadWaitTime),
	S(WMI_CONTEXTSWAP, OldThreadRemainingQuantum),
};

static const char *const adjust_reasons[] = { "None", "Unwait", "Boost" };

static const struct kp_field ready_thread_fields[] = {
	U(WMI_READY_THREAD, TThreadId),
	E(WMI_READY_THREAD, AdjustReason, adjust_reasons),
	S(WMI_READY_THREAD, AdjustIncrement),
	S(WMI_READY_THREAD, Flag),
};

static const struct kp_field spinlock_fields[] = {
	P(WMI_SPINLOCK, SpinLockAddress),
	P(WMI_SPINLOCK, CallerAddress),
	U(WMI_SPINLOCK, AcquireTime),
	U(WMI_SPINLOCK, ReleaseTime),
	U(WMI_SPINLOCK, WaitTimeInCycles),
	U(WMI_SPINLOCK, SpinCount),
	U(WMI_SPINLOCK, ThreadId),
	U(WMI_SPINLOCK, InterruptCount),
	U(WMI_SPINLOCK, Irql),
	U(WMI_SPINLOCK, AcquireDepth),
	BE("AcquireMode", WMI_SPINLOCK, Flags, 0, 6, acquire_modes),
	B("ExecuteDpc", WMI_SPINLOCK, Flags, 6, 1),
	B("ExecuteIsr", WMI_SPINLOCK, Flags, 7, 1),
};

static const char *const resource_actions[] = { 0 }; /* by value, see kp_field_value_name */

static const struct kp_field resource_fields[] = {
	U(WMI_RESOURCE, AcquireTime),
	U(WMI_RESOURCE, HoldTime),
	U(WMI_RESOURCE, WaitTime),
	U(WMI_RESOURCE, MaxRecursionDepth),
	U(WMI_RESOURCE, ThreadId),
	P(WMI_RESOURCE, Resource),
	{ "Action", offsetof(WMI_RESOURCE, Action), 4, KP_HEX, 0, 0, resource_actions, 0 },
	U(WMI_RESOURCE, ContentionDelta),
};

static const struct kp_field profile_fields[] = {
	P(PERFINFO_SAMPLED_PROFILE_INFORMATION, InstructionPointer),
	U(PERFINFO_SAMPLED_PROFILE_INFORMATION, ThreadId),
	U(PERFINFO_SAMPLED_PROFILE_INFORMATION, Count),
	B("ExecutingDpc", PERFINFO_SAMPLED_PROFILE_INFORMATION, Flags, 0, 1),
	B("ExecutingIsr", PERFINFO_SAMPLED_PROFILE_INFORMATION, Flags, 1, 1),
	B("Priority", PERFINFO_SAMPLED_PROFILE_INFORMATION, Flags, 3, 5),
	U(PERFINFO_SAMPLED_PROFILE_INFORMATION, Rank),
};

static const struct kp_field pmc_fields[] = {
	P(PERFINFO_PMC_SAMPLE, InstructionPointer),
	U(PERFINFO_PMC_SAMPLE, ThreadId),
	E(PERFINFO_PMC_SAMPLE, ProfileSource, profile_sources),
	U(PERFINFO_PMC_SAMPLE, Reserved),
};

static const struct kp_field stackwalk_fields[] = {
	U(STACK_WALK_EVENT_DATA, EventTimeStamp),
	U(STACK_WALK_EVENT_DATA, StackProcess),
	U(STACK_WALK_EVENT_DATA, StackThread),
};

static const struct kp_field clock_late_fields[] = {
	U(KPROF_CLOCK_LATE, DueTime),
	U(KPROF_CLOCK_LATE, LateCycles),
	P(KPROF_CLOCK_LATE, InstructionPointer),
};

static const struct kp_field clock_step_fields[] = {
	U(KPROF_CLOCK_STEP, BackCycles),
	U(KPROF_CLOCK_STEP, RawTsc),
	U(KPROF_CLOCK_STEP, LastStamp),
	U(KPROF_CLOCK_STEP, Steps),
	X(KPROF_CLOCK_STEP, ClampedHook),
};

static const struct kp_field clock_check_fields[] = {
	U(KPROF_CLOCK_CHECK, IntervalNs),
	S(KPROF_CLOCK_CHECK, TscNs),
	S(KPROF_CLOCK_CHECK, Adjust),
	U(KPROF_CLOCK_CHECK, MarginNs),
	B("Unstable", KPROF_CLOCK_CHECK, Flags, 0, 1),
	B("Corrected", KPROF_CLOCK_CHECK, Flags, 1, 1),
	E(KPROF_CLOCK_CHECK, Reference, reference_clocks),
};

static const struct kp_field noise_gap_fields[] = {
	U(KPROF_NOISE_GAP, Start),
	U(KPROF_NOISE_GAP, Cycles),
	U(KPROF_NOISE_GAP, LengthNs),
	U(KPROF_NOISE_GAP, SmiBefore),
	U(KPROF_NOISE_GAP, SmiAfter),
	U(KPROF_NOISE_GAP, Window),
	U(KPROF_NOISE_GAP, OtherCpus),
	U(KPROF_NOISE_GAP, Pass),
	B("Correlated", KPROF_NOISE_GAP, Flags, 0, 1),
	B("SmiCounted", KPROF_NOISE_GAP, Flags, 1, 1),
	U(KPROF_NOISE_GAP, Unkept),
};

static const struct kp_field noise_scan_fields[] = {
	U(KPROF_NOISE_SCAN, ScannedCycles),
	U(KPROF_NOISE_SCAN, GapCycles),
	U(KPROF_NOISE_SCAN, MaxCycles),
	U(KPROF_NOISE_SCAN, Gaps),
	U(KPROF_NOISE_SCAN, Windows),
	U(KPROF_NOISE_SCAN, Correlated),
	U(KPROF_NOISE_SCAN, Pass),
	B("SmiCounted", KPROF_NOISE_SCAN, Flags, 1, 1),
};

static const struct kp_field timer_latency_fields[] = {
	U(KPROF_TIMER_LATENCY, MaxNs),
	U(KPROF_TIMER_LATENCY, SumNs),
	U(KPROF_TIMER_LATENCY, Samples),
	U(KPROF_TIMER_LATENCY, Missed),
	U(KPROF_TIMER_LATENCY, P50Us),
	U(KPROF_TIMER_LATENCY, P99Us),
	U(KPROF_TIMER_LATENCY, IntervalUs),
	U(KPROF_TIMER_LATENCY, Overflow),
};

static const struct kp_field measure_fields[] = {
	U(KPROF_MEASURE, DurationCycles),
	U(KPROF_MEASURE, Rounds),
	U(KPROF_MEASURE, What),
};

static const struct kp_field smi_count_fields[] = {
	U(KPROF_SMI_COUNT, StartTime),
	U(KPROF_SMI_COUNT, StartCount),
	U(KPROF_SMI_COUNT, EndCount),
	U(KPROF_SMI_COUNT, Flags),
	U(KPROF_SMI_COUNT, Reserved),
};

static const struct kp_field fidelity_fields[] = {
	U(KPROF_FIDELITY, RoundTripCycles),
	U(KPROF_FIDELITY, ClockInterrupts),
	U(KPROF_FIDELITY, LateMaxCycles),
	U(KPROF_FIDELITY, StampCycles),
	U(KPROF_FIDELITY, StampBestCycles),
	U(KPROF_FIDELITY, Flags),
	U(KPROF_FIDELITY, Buckets),
};

static const struct kp_field profile_object_fields[] = {
	P(KPROF_PROFILE_OBJECT, RangeBase),
	P(KPROF_PROFILE_OBJECT, RangeLimit),
	U(KPROF_PROFILE_OBJECT, Hits),
	U(KPROF_PROFILE_OBJECT, ProfileId),
	U(KPROF_PROFILE_OBJECT, ProcessId),
	E(KPROF_PROFILE_OBJECT, Source, profile_sources),
	U(KPROF_PROFILE_OBJECT, BucketShift),
	X(KPROF_PROFILE_OBJECT, Flags),
	U(KPROF_PROFILE_OBJECT, BucketCount),
	{ "Affinity0", offsetof(KPROF_PROFILE_OBJECT, Affinity), 8, KP_HEX, 0, 0, NULL, 0 },
	{ "Affinity1", offsetof(KPROF_PROFILE_OBJECT, Affinity) + 8, 8, KP_HEX, 0, 0, NULL, 0 },
	{ "Affinity2", offsetof(KPROF_PROFILE_OBJECT, Affinity) + 16, 8, KP_HEX, 0, 0, NULL, 0 },
	{ "Affinity3", offsetof(KPROF_PROFILE_OBJECT, Affinity) + 24, 8, KP_HEX, 0, 0, NULL, 0 },
};

#define C(type, field) { #field, offsetof(type, field), sizeof(((type *)0)->field), KP_CHARS, 0, 0, NULL, 0 }

static const struct kp_field thread_fields[] = {
	U(KPROF_THREAD, ThreadId),
	U(KPROF_THREAD, ProcessId),
	S(KPROF_THREAD, BasePriority),
	C(KPROF_THREAD, ThreadName),
	C(KPROF_THREAD, ProcessName),
};

static const struct kp_field thread_v1_fields[] = {
	U(KPROF_THREAD_V1, ThreadId),
	U(KPROF_THREAD_V1, ProcessId),
	S(KPROF_THREAD_V1, BasePriority),
	C(KPROF_THREAD_V1, ThreadName),
	C(KPROF_THREAD_V1, ProcessName),
};

static const struct kp_field spinlock_config_fields[] = {
	U(KPROF_SPINLOCK_CONFIG, SpinLockSpinThreshold),
	U(KPROF_SPINLOCK_CONFIG, SpinLockAcquireSampleRate),
	U(KPROF_SPINLOCK_CONFIG, SpinLockContentionSampleRate),
	U(KPROF_SPINLOCK_CONFIG, SpinLockHoldThreshold),
};

static const struct kp_field records_lost_fields[] = {
	U(KPROF_RECORDS_LOST, FirstLossTime),
	U(KPROF_RECORDS_LOST, BuffersFull),
	U(KPROF_RECORDS_LOST, TooLarge),
	U(KPROF_RECORDS_LOST, NotStarted),
};

static const char *const object_kinds[] = { "SpinLock", "QueuedSpinLock", "ExecutiveSpinLock", "Resource" };
_Static_assert(N(object_kinds) == KprofObjectKinds, "a name for every enum kprof_object_kind");

static const struct kp_field object_name_fields[] = {
	P(KPROF_OBJECT_NAME, Object),
	E(KPROF_OBJECT_NAME, Kind, object_kinds),
	B("Rundown", KPROF_OBJECT_NAME, Flags, 0, 1),
	C(KPROF_OBJECT_NAME, Name),
};

static const struct kp_field phase_fields[] = {
	U(KPROF_PHASE, Index),
	B("End", KPROF_PHASE, Flags, 0, 1),
	C(KPROF_PHASE, Name),
};

/* User event types and, raw, the events whose type is not known (the
 * decoders show an event of a known type by its type: read/user_types.c). */
static const char *const event_kinds[] = { "Instant", "Span", "Counter" };
_Static_assert(N(event_kinds) == KprofEventKinds, "a name for every enum kprof_event_kind");
const char *const kp_event_phases[] = { "Instant", "Begin", "End" };
_Static_assert(sizeof(kp_event_phases) / sizeof(kp_event_phases[0]) == KprofEventPhases, "a name for every phase");

static const struct kp_field event_type_fields[] = {
	U(KPROF_EVENT_TYPE, TypeId),
	E(KPROF_EVENT_TYPE, Kind, event_kinds),
	U(KPROF_EVENT_TYPE, FieldCount),
	U(KPROF_EVENT_TYPE, DataSize),
	B("Rundown", KPROF_EVENT_TYPE, Flags, 0, 1),
	C(KPROF_EVENT_TYPE, Name),
};

static const struct kp_field user_event_fields[] = {
	U(KPROF_USER_EVENT, TypeId),
	{ "Phase", offsetof(KPROF_USER_EVENT, Phase), 1, KP_UNSIGNED, 0, 0, kp_event_phases, KprofEventPhases },
};

static const struct kp_field tracetest_fields[] = {
	U(KPROF_TRACETEST, Cpu),
	U(KPROF_TRACETEST, Writer),
	U(KPROF_TRACETEST, Sequence),
	U(KPROF_TRACETEST, Length),
};

const struct kp_event kp_events[] = {
	{ PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "CSwitch", "WMI_CONTEXTSWAP", sizeof(WMI_CONTEXTSWAP),
	  KP_TAIL_NONE, NULL, cswitch_fields, N(cswitch_fields) },
	{ PERFINFO_LOG_TYPE_READY_THREAD, READY_THREAD_VERSION, "ReadyThread", "WMI_READY_THREAD",
	  sizeof(WMI_READY_THREAD), KP_TAIL_NONE, NULL, ready_thread_fields, N(ready_thread_fields) },
	{ PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, "SpinLock", "WMI_SPINLOCK", sizeof(WMI_SPINLOCK),
	  KP_TAIL_NONE, NULL, spinlock_fields, N(spinlock_fields) },
	{ PERFINFO_LOG_TYPE_RESOURCE, RESOURCE_VERSION, "Resource", "WMI_RESOURCE", sizeof(WMI_RESOURCE),
	  KP_TAIL_NONE, NULL, resource_fields, N(resource_fields) },
	{ PERFINFO_LOG_TYPE_SAMPLED_PROFILE, SAMPLED_PROFILE_VERSION, "SampledProfile",
	  "PERFINFO_SAMPLED_PROFILE_INFORMATION", sizeof(PERFINFO_SAMPLED_PROFILE_INFORMATION), KP_TAIL_NONE, NULL,
	  profile_fields, N(profile_fields) },
	{ PERFINFO_LOG_TYPE_PMC_INTERRUPT, PMC_INTERRUPT_VERSION, "PmcInterrupt", "PERFINFO_PMC_SAMPLE",
	  sizeof(PERFINFO_PMC_SAMPLE), KP_TAIL_NONE, NULL, pmc_fields, N(pmc_fields) },
	{ PERFINFO_LOG_TYPE_STACKWALK, STACKWALK_VERSION, "StackWalk", "STACK_WALK_EVENT_DATA",
	  sizeof(STACK_WALK_EVENT_DATA), KP_TAIL_ADDRESSES, "Stack", stackwalk_fields, N(stackwalk_fields) },
	{ KPROF_LOG_TYPE_TRACETEST, TRACETEST_VERSION, "KprofTraceTest", "KPROF_TRACETEST", sizeof(KPROF_TRACETEST),
	  KP_TAIL_BYTES, "Pattern", tracetest_fields, N(tracetest_fields) },
	{ KPROF_LOG_TYPE_CLOCK_LATE, CLOCK_LATE_VERSION, "KprofClockLate", "KPROF_CLOCK_LATE", sizeof(KPROF_CLOCK_LATE),
	  KP_TAIL_NONE, NULL, clock_late_fields, N(clock_late_fields) },
	{ KPROF_LOG_TYPE_CLOCK_STEP, CLOCK_STEP_VERSION, "KprofClockStep", "KPROF_CLOCK_STEP", sizeof(KPROF_CLOCK_STEP),
	  KP_TAIL_NONE, NULL, clock_step_fields, N(clock_step_fields) },
	{ KPROF_LOG_TYPE_CLOCK_CHECK, CLOCK_CHECK_VERSION, "KprofClockCheck", "KPROF_CLOCK_CHECK",
	  sizeof(KPROF_CLOCK_CHECK), KP_TAIL_NONE, NULL, clock_check_fields, N(clock_check_fields) },
	{ KPROF_LOG_TYPE_NOISE_GAP, NOISE_GAP_VERSION, "KprofNoiseGap", "KPROF_NOISE_GAP", sizeof(KPROF_NOISE_GAP),
	  KP_TAIL_NONE, NULL, noise_gap_fields, N(noise_gap_fields) },
	{ KPROF_LOG_TYPE_NOISE_SCAN, NOISE_SCAN_VERSION, "KprofNoiseScan", "KPROF_NOISE_SCAN", sizeof(KPROF_NOISE_SCAN),
	  KP_TAIL_NONE, NULL, noise_scan_fields, N(noise_scan_fields) },
	{ KPROF_LOG_TYPE_TIMER_LATENCY, TIMER_LATENCY_VERSION, "KprofTimerLatency", "KPROF_TIMER_LATENCY",
	  sizeof(KPROF_TIMER_LATENCY), KP_TAIL_NONE, NULL, timer_latency_fields, N(timer_latency_fields) },
	{ KPROF_LOG_TYPE_MEASURE, MEASURE_VERSION, "KprofMeasure", "KPROF_MEASURE", sizeof(KPROF_MEASURE), KP_TAIL_NONE,
	  NULL, measure_fields, N(measure_fields) },
	{ KPROF_LOG_TYPE_SMI_COUNT, SMI_COUNT_VERSION, "KprofSmiCount", "KPROF_SMI_COUNT", sizeof(KPROF_SMI_COUNT),
	  KP_TAIL_NONE, NULL, smi_count_fields, N(smi_count_fields) },
	/* LateBuckets, a fixed array, decoded as the record's tail of counts */
	{ KPROF_LOG_TYPE_FIDELITY, FIDELITY_VERSION, "KprofFidelity", "KPROF_FIDELITY",
	  offsetof(KPROF_FIDELITY, LateBuckets), KP_TAIL_COUNTS, "LateBuckets", fidelity_fields, N(fidelity_fields) },
	{ KPROF_LOG_TYPE_PROFILE_OBJECT, PROFILE_OBJECT_VERSION, "KprofProfileObject", "KPROF_PROFILE_OBJECT",
	  sizeof(KPROF_PROFILE_OBJECT), KP_TAIL_COUNTS, "Buckets", profile_object_fields, N(profile_object_fields) },
	{ KPROF_LOG_TYPE_THREAD, KPROF_THREAD_VERSION, "KprofThread", "KPROF_THREAD", sizeof(KPROF_THREAD), KP_TAIL_NONE,
	  NULL, thread_fields, N(thread_fields) },
	{ KPROF_LOG_TYPE_THREAD, 1, "KprofThread", "KPROF_THREAD_V1", sizeof(KPROF_THREAD_V1), KP_TAIL_NONE, NULL,
	  thread_v1_fields, N(thread_v1_fields) },
	{ KPROF_LOG_TYPE_SPINLOCK_CONFIG, SPINLOCK_CONFIG_VERSION, "KprofSpinlockConfig", "KPROF_SPINLOCK_CONFIG",
	  sizeof(KPROF_SPINLOCK_CONFIG), KP_TAIL_NONE, NULL, spinlock_config_fields, N(spinlock_config_fields) },
	{ KPROF_LOG_TYPE_RECORDS_LOST, RECORDS_LOST_VERSION, "KprofRecordsLost", "KPROF_RECORDS_LOST",
	  sizeof(KPROF_RECORDS_LOST), KP_TAIL_NONE, NULL, records_lost_fields, N(records_lost_fields) },
	{ KPROF_LOG_TYPE_OBJECT_NAME, OBJECT_NAME_VERSION, "KprofObjectName", "KPROF_OBJECT_NAME",
	  sizeof(KPROF_OBJECT_NAME), KP_TAIL_NONE, NULL, object_name_fields, N(object_name_fields) },
	{ KPROF_LOG_TYPE_PHASE, PHASE_VERSION, "KprofPhase", "KPROF_PHASE", sizeof(KPROF_PHASE), KP_TAIL_NONE, NULL,
	  phase_fields, N(phase_fields) },
	{ KPROF_LOG_TYPE_EVENT_TYPE, EVENT_TYPE_VERSION, "KprofEventType", "KPROF_EVENT_TYPE", sizeof(KPROF_EVENT_TYPE),
	  KP_TAIL_BYTES, "Fields", event_type_fields, N(event_type_fields) },
	{ KPROF_LOG_TYPE_USER_EVENT, USER_EVENT_VERSION, "KprofUserEvent", "KPROF_USER_EVENT", sizeof(KPROF_USER_EVENT),
	  KP_TAIL_BYTES, "Data", user_event_fields, N(user_event_fields) },
};
const size_t kp_nevents = N(kp_events);

const struct kp_event *kp_event_find(uint16_t hook, uint8_t version)
{
	for (size_t i = 0; i < kp_nevents; i++)
		if (kp_events[i].hook == hook && kp_events[i].version == version)
			return &kp_events[i];
	return NULL;
}

uint64_t kp_field_value(const struct kp_field *f, const uint8_t *payload)
{
	uint64_t v = 0;
	if (f->kind == KP_CHARS)
		return 0;
	memcpy(&v, payload + f->offset, f->size); /* little-endian host */
	if (f->kind == KP_BITS)
		return (v >> f->shift) & ((1u << f->width) - 1);
	if (f->kind == KP_SIGNED && f->size < 8) {
		unsigned bits = f->size * 8;
		if (v & (1ULL << (bits - 1)))
			v |= ~0ULL << bits;
	}
	return v;
}

const char *kp_field_value_name(const struct kp_field *f, uint64_t v)
{
	if (f->names == resource_actions) {
		switch (v) {
		case WMI_RESOURCE_ACTION_INITIALIZE: return "Initialize";
		case WMI_RESOURCE_ACTION_REINITIALIZE: return "Reinitialize";
		case WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE: return "CompleteReleaseExclusive";
		case WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED: return "CompleteReleaseShared";
		case WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE: return "WaitExcessiveForExclusive";
		case WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED: return "WaitExcessiveForShared";
		default: return NULL;
		}
	}
	return f->names && v < f->nnames ? f->names[v] : NULL;
}

/* ---------------------------------------------------------------- value names */

const char *kp_value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v)
{
	const struct kp_event *e = kp_event_find(hook, version);
	for (unsigned i = 0; e && i < e->nfields; i++)
		if (!strcmp(e->fields[i].name, field))
			return kp_field_value_name(&e->fields[i], v);
	return NULL;
}

static const char *or_unknown(const char *name)
{
	return name ? name : "?";
}

const char *kp_state_name(uint8_t state)
{
	return or_unknown(kp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadState", state));
}

const char *kp_wait_reason_name(uint8_t reason)
{
	return or_unknown(
		kp_value_name(PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, "OldThreadWaitReason", reason));
}

const char *kp_acquire_mode_name(uint8_t mode)
{
	return or_unknown(kp_value_name(PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, "AcquireMode", mode));
}

const char *kp_object_kind_name(uint8_t kind)
{
	return or_unknown(kp_value_name(KPROF_LOG_TYPE_OBJECT_NAME, OBJECT_NAME_VERSION, "Kind", kind));
}

const char *kp_adjust_reason_name(uint8_t reason)
{
	return or_unknown(kp_value_name(PERFINFO_LOG_TYPE_READY_THREAD, READY_THREAD_VERSION, "AdjustReason", reason));
}

const char *kp_source_name(unsigned source, char *buf, size_t size)
{
	const char *n = kprofile_source_name(source);
	if (n)
		return n;
	snprintf(buf, size, "source %u", source);
	return buf;
}
