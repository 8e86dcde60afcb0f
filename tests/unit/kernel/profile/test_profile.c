/*
 * test_profile.c - profile objects and the NtCreateProfile family
 * (kernel/profile/profile.c, profile_dispatch.c) on the host, against the
 * test double of the interrupt-source layer (fake_profile_source.c).
 *
 * The environment the kernel files expect is stood in for here:
 *   - CPUs: one KPRCB per possible CPU; the test thread "is" a CPU by
 *     pointing the shadow per-CPU base at it (on_cpu), and the thread that
 *     CPU runs is its CurrentThread (ke_get_current_thread).
 *   - A profile interrupt: the test raises the shadow IRQL to PROFILE_LEVEL
 *     around ke_profile_interrupt_with_source.
 *   - ke_run_on_all_processors: the grace period.  CPUs played by pthreads
 *     (the concurrency test) run the broadcast function between two
 *     interrupts, as a DPC would, and the call waits for each; the
 *     function runs for the other CPUs in the caller.  Re-entry is a
 *     failure (profile.c and broadcast.c serialise callers).
 *   - The heap (kzalloc/kfree), with an injectable failure and a count of
 *     live blocks; the synchronization event profile.c uses as a mutex.
 * Also built with ThreadSanitizer (UNIT_TSAN_NAMES).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <arch/irql.h>
#include <arch/percpu.h>

#include "support/fake_profile_source.h"
#include "kernel/mm/heap.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/profile/profile.h"
#include "kernel/sched/sched.h"
#include "shadow.h"

#ifdef KPROF_UNDER_TSAN
#define STRESS_ITERATIONS 1000
#else
#define STRESS_ITERATIONS 5000
#endif

#define NCPU 4                       /* online CPUs in most tests */
#define RANGE_BASE ((uintptr_t)0x400000)

volatile uint32_t ke_number_processors;

static KPRCB prcbs[KPROF_MAX_CPUS];
static KPROCESS proc_sys, proc_a, proc_b, proc_idle;
static KTHREAD thr_sys, thr_a, thr_b, thr_idle;

/* ---------------------------------------------------------------- environment */

KTHREAD *ke_get_current_thread(void)
{
	return ke_get_current_prcb()->CurrentThread;
}

/* The calling host thread becomes CPU n. */
static void on_cpu(uint32_t n)
{
	prcbs[n].Self = &prcbs[n];
	prcbs[n].Number = n;
	arch_percpu_set(&prcbs[n]);
}

/* The current CPU runs thread t. */
static void running(KTHREAD *t)
{
	ke_get_current_prcb()->CurrentThread = t;
}

/* ---- the heap ---- */

static bool alloc_fail_next;
static int64_t allocs_live;

void *kmalloc(size_t size)
{
	if (__atomic_exchange_n(&alloc_fail_next, false, __ATOMIC_RELAXED))
		return NULL;
	__atomic_fetch_add(&allocs_live, 1, __ATOMIC_RELAXED);
	return malloc(size ? size : 1);
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&allocs_live, 1, __ATOMIC_RELAXED);
	free(p);
}

/* ---- the synchronization event profile.c uses as a mutex ---- */

static uint32_t mutex_waits, mutex_sets;

NTSTATUS ke_wait_for_single_object(void *object, uint8_t wait_reason, KPROCESSOR_MODE mode, uint64_t timeout_us)
{
	DISPATCHER_HEADER *h = object;
	int32_t one = 1;

	if (h->Type != EventSynchronizationObject || timeout_us != KE_WAIT_FOREVER ||
	    ke_get_current_irql() >= DISPATCH_LEVEL)
		abort();
	while (!__atomic_compare_exchange_n(&h->SignalState, &one, 0, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		one = 1;
		sched_yield();
	}
	__atomic_fetch_add(&mutex_waits, 1, __ATOMIC_RELAXED);
	return STATUS_WAIT_0;
}

int32_t ke_set_event(KEVENT *e, int increment, bool wait_next)
{
	__atomic_fetch_add(&mutex_sets, 1, __ATOMIC_RELAXED);
	return __atomic_exchange_n(&e->Header.SignalState, 1, __ATOMIC_RELEASE);
}

/* ---- the broadcast, and the grace period it gives ---- */

static struct {
	void (*fn)(uint32_t cpu, void *ctx);
	void *ctx;
	uint64_t gen;                   /* broadcasts begun                        */
	uint64_t seen[KPROF_MAX_CPUS];  /* the last one each played CPU has run    */
	bool live[KPROF_MAX_CPUS];      /* a pthread plays this CPU now            */
	int busy;                       /* one in progress                         */
	uint32_t calls;
	uint64_t last_seq;              /* fake_seq_next() when the last one ended */
	bool global_list_was_empty;     /* KiProfileListHead during the last one   */
} bc;

void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx)
{
	uint32_t n = ke_number_processors, self = ke_get_current_processor_number();

	if (__atomic_exchange_n(&bc.busy, 1, __ATOMIC_ACQUIRE) || ke_get_current_irql() >= DISPATCH_LEVEL)
		abort();
	sched_yield(); /* the real one waits for every CPU */
	bc.global_list_was_empty = list_empty(&KiProfileListHead);
	bc.fn = fn;
	bc.ctx = ctx;
	uint64_t g = __atomic_add_fetch(&bc.gen, 1, __ATOMIC_ACQ_REL);
	for (uint32_t c = 0; c < n; c++) {
		if (c == self || !__atomic_load_n(&bc.live[c], __ATOMIC_ACQUIRE))
			fn(c, ctx);
		else
			while (__atomic_load_n(&bc.live[c], __ATOMIC_ACQUIRE) &&
			       __atomic_load_n(&bc.seen[c], __ATOMIC_ACQUIRE) < g)
				sched_yield();
	}
	bc.calls++;
	bc.last_seq = fake_seq_next();
	__atomic_store_n(&bc.busy, 0, __ATOMIC_RELEASE);
}

/* A played CPU between two interrupts: run a pending broadcast (its DPC). */
static void cpu_poll_broadcast(uint32_t cpu)
{
	uint64_t g = __atomic_load_n(&bc.gen, __ATOMIC_ACQUIRE);
	if (g != bc.seen[cpu]) {
		bc.fn(cpu, bc.ctx);
		__atomic_store_n(&bc.seen[cpu], g, __ATOMIC_RELEASE);
	}
}

/* ---------------------------------------------------------------- helpers */

static void interrupt_at(uintptr_t ip, int16_t source)
{
	KTRAP_FRAME tf = { .ip = ip, .fp = 0 };
	KIRQL old = arch_get_irql();

	arch_set_irql(PROFILE_LEVEL);
	ke_profile_interrupt_with_source(&tf, source);
	arch_set_irql(old);
}

/* The header's formula, in 128 bits. */
static unsigned __int128 required_bytes(size_t range_size, uint32_t bucket_size)
{
	return ((((unsigned __int128)range_size - 1) >> (bucket_size - 2)) & ~(unsigned __int128)3) + 4;
}

static uint32_t *new_buffer(uint32_t bytes)
{
	return calloc(1, bytes);
}

static uint64_t hits(const KPROFILE *p)
{
	return __atomic_load_n(&p->Hits, __ATOMIC_RELAXED);
}

static uint64_t buffer_sum(const uint32_t *buf, uint32_t bytes)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < bytes / 4; i++)
		sum += __atomic_load_n(&buf[i], __ATOMIC_RELAXED);
	return sum;
}

/* A started basic object over [base, base + size) with its own buffer. */
static KPROFILE *started_basic(KPROCESS *process, uintptr_t base, size_t size, uint32_t bucket, int16_t source,
			       const KAFFINITY_EX *affinity)
{
	uint32_t bytes = (uint32_t)required_bytes(size, bucket);
	KPROFILE *p = NULL;

	assert_int_equal(nt_create_profile_ex(&p, process, base, size, bucket, new_buffer(bytes), bytes, source,
					      affinity),
			 STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);
	return p;
}

static void delete_with_buffer(KPROFILE *p)
{
	uint32_t *buf = p->Type == ProfileObject ? p->Buffer : NULL;
	ke_delete_profile(p);
	free(buf);
}

static KAFFINITY_EX cpus_of(const uint32_t *list, size_t n)
{
	KAFFINITY_EX a;
	affinity_clear_all(&a);
	for (size_t i = 0; i < n; i++)
		affinity_add(&a, list[i]);
	return a;
}

struct cb_record {
	uint32_t calls;
	KTRAP_FRAME *tf;
	uint32_t cpu;
	KIRQL irql;
};

static void record_callback(KTRAP_FRAME *tf, void *ctx)
{
	struct cb_record *r = ctx;
	r->calls++;
	r->tf = tf;
	r->cpu = ke_get_current_processor_number();
	r->irql = ke_get_current_irql();
}

/* ---------------------------------------------------------------- setup */

static void init_process(KPROCESS *p, uint32_t pid)
{
	memset(p, 0, sizeof(*p));
	p->Header.Type = ProcessObject;
	p->ProcessId = pid;
	list_init(&p->ProfileListHead);
}

static void init_thread(KTHREAD *t, KPROCESS *p, uint32_t tid)
{
	memset(t, 0, sizeof(*t));
	t->Header.Type = ThreadObject;
	t->ThreadId = tid;
	t->Process = p;
}

static int setup(void **state)
{
	fake_source_reset();
	memset(&bc, 0, sizeof(bc));
	init_process(&proc_sys, 4);
	init_process(&proc_a, 100);
	init_process(&proc_b, 200);
	init_process(&proc_idle, 0);
	init_thread(&thr_sys, &proc_sys, 8);
	init_thread(&thr_a, &proc_a, 104);
	init_thread(&thr_b, &proc_b, 204);
	init_thread(&thr_idle, &proc_idle, 0);
	thr_idle.Idle = 1;
	ke_number_processors = NCPU;
	alloc_fail_next = false;
	allocs_live = 0;
	mutex_waits = mutex_sets = 0;
	on_cpu(0);
	running(&thr_sys);
	arch_set_irql(PASSIVE_LEVEL);
	return 0;
}

/* Every test leaves nothing behind: lists empty, every use given back,
 * every object freed, the mutex free. */
static int teardown(void **state)
{
	assert_true(list_empty(&KiProfileListHead));
	assert_true(list_empty(&proc_sys.ProfileListHead));
	assert_true(list_empty(&proc_a.ProfileListHead));
	assert_true(list_empty(&proc_b.ProfileListHead));
	assert_true(list_empty(&proc_idle.ProfileListHead));
	assert_int_equal(fake_source_total_uses(), 0);
	assert_int_equal(fake_source.underflows, 0);
	assert_int_equal(allocs_live, 0);
	assert_int_equal(mutex_waits, mutex_sets);
	return 0;
}

/* ---------------------------------------------------------------- creation */

static void test_create_fields(void **state)
{
	uint32_t buf[4];
	KPROFILE *p = NULL, *q = NULL;

	assert_int_equal(nt_create_profile_ex(&p, &proc_a, RANGE_BASE, 64, 4, buf, sizeof(buf), ProfileTime, NULL),
			 STATUS_SUCCESS);
	assert_non_null(p);
	assert_int_equal(p->Type, ProfileObject);
	assert_int_equal(p->Type, 0x17);
	assert_int_equal(p->Size, sizeof(KPROFILE));
	assert_ptr_equal(p->Process, &proc_a);
	assert_int_equal(p->RangeBase, RANGE_BASE);
	assert_int_equal(p->RangeLimit, RANGE_BASE + 64);
	assert_int_equal(p->BucketShift, 2);
	assert_ptr_equal(p->Buffer, buf);
	assert_int_equal(p->BufferSize, sizeof(buf));
	assert_int_equal(p->Segment, 0);
	assert_int_equal(p->Source, ProfileTime);
	assert_false(p->Started);
	assert_int_equal(p->Hits, 0);
	assert_int_equal(affinity_count(&p->Affinity), NCPU);
	assert_int_equal(affinity_next(&p->Affinity, 0), 0);
	assert_int_equal(affinity_next(&p->Affinity, NCPU), KPROF_MAX_CPUS);
	assert_int_equal(fake_source.acquires, 0); /* not started */

	assert_int_equal(nt_create_profile(&q, NULL, RANGE_BASE, 64, 4, buf, sizeof(buf), ProfileTotalCycles),
			 STATUS_SUCCESS);
	assert_null(q->Process);
	assert_true(q->ProfileId > p->ProfileId);
	assert_int_equal(affinity_count(&q->Affinity), NCPU); /* NtCreateProfile: every CPU */
	ke_delete_profile(p);
	ke_delete_profile(q);
}

static void test_create_callback_fields(void **state)
{
	struct cb_record r = { 0 };
	uint32_t cpu2 = 2;
	KAFFINITY_EX one = cpus_of(&cpu2, 1);
	KPROFILE *p = NULL;

	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, ProfileTotalCycles, &one),
			 STATUS_SUCCESS);
	assert_int_equal(p->Type, ProfileCallbackObject);
	assert_int_equal(p->Type, 0x11);
	assert_int_equal(p->Size, sizeof(KPROFILE));
	assert_ptr_equal(p->Callback, record_callback);
	assert_ptr_equal(p->Context, &r);
	assert_int_equal(p->Source, ProfileTotalCycles);
	assert_int_equal(affinity_count(&p->Affinity), 1);
	assert_true(affinity_test(&p->Affinity, 2));
	assert_false(p->Started);
	ke_delete_profile(p);
}

/* ---------------------------------------------------------------- validation */

struct args {
	uintptr_t base;
	size_t size;
	uint32_t bucket;
	uint32_t *buffer;
	uint32_t buffer_size;
	int16_t source;
	const KAFFINITY_EX *affinity;
};

static uint32_t valid_buf[64];

static struct args valid_args(void)
{
	return (struct args){ RANGE_BASE, 256, 4, valid_buf, 64, ProfileTime, NULL };
}

/* Create with a, expecting st; a failure leaves *Profile and the heap
 * alone. */
static void create_expect(struct args a, NTSTATUS st)
{
	KPROFILE *sentinel = (KPROFILE *)(uintptr_t)0x5a5a5a5a, *p = sentinel;
	int64_t live = allocs_live;
	uint32_t source_calls = fake_source.acquires + fake_source.failed_acquires;

	assert_int_equal(nt_create_profile_ex(&p, NULL, a.base, a.size, a.bucket, a.buffer, a.buffer_size, a.source,
					      a.affinity),
			 st);
	if (NT_SUCCESS(st)) {
		assert_true(p != sentinel);
		ke_delete_profile(p);
	} else {
		assert_ptr_equal(p, sentinel);
		assert_int_equal(allocs_live, live);
	}
	assert_int_equal(fake_source.acquires + fake_source.failed_acquires, source_calls); /* create only checks */
}

static void test_validation_each(void **state)
{
	struct args a;
	KAFFINITY_EX empty, beyond;
	uint32_t online_last = NCPU - 1, not_online = NCPU;

	affinity_clear_all(&empty);
	create_expect(valid_args(), STATUS_SUCCESS);

	a = valid_args(); a.size = 0;
	create_expect(a, STATUS_INVALID_PARAMETER_2);

	a = valid_args(); a.base = UINTPTR_MAX - 15; a.size = 16; /* end 2^64: wraps */
	create_expect(a, STATUS_BUFFER_OVERFLOW);
	a = valid_args(); a.base = 1; a.size = SIZE_MAX;
	create_expect(a, STATUS_BUFFER_OVERFLOW);
	a = valid_args(); a.base = UINTPTR_MAX - 15; a.size = 15; /* end UINTPTR_MAX: fits */
	create_expect(a, STATUS_SUCCESS);

	a = valid_args(); a.bucket = 0;
	create_expect(a, STATUS_INVALID_PARAMETER);
	a = valid_args(); a.bucket = 1;
	create_expect(a, STATUS_INVALID_PARAMETER);
	a = valid_args(); a.bucket = 32;
	create_expect(a, STATUS_INVALID_PARAMETER);
	a = valid_args(); a.bucket = UINT32_MAX;
	create_expect(a, STATUS_INVALID_PARAMETER);
	a = valid_args(); a.bucket = 2; a.buffer_size = 256;
	create_expect(a, STATUS_SUCCESS);
	a = valid_args(); a.bucket = 31; a.buffer_size = 4;
	create_expect(a, STATUS_SUCCESS);

	a = valid_args(); a.buffer = NULL;
	create_expect(a, STATUS_INVALID_PARAMETER_5);
	a = valid_args(); a.buffer = (uint32_t *)((char *)valid_buf + 2);
	create_expect(a, STATUS_INVALID_PARAMETER_5);
	a = valid_args(); a.buffer = (uint32_t *)((char *)valid_buf + 1);
	create_expect(a, STATUS_INVALID_PARAMETER_5);

	a = valid_args(); a.buffer_size = 60; /* 64 needed */
	create_expect(a, STATUS_BUFFER_TOO_SMALL);
	a = valid_args(); a.buffer_size = 0;
	create_expect(a, STATUS_BUFFER_TOO_SMALL);
	a = valid_args(); a.buffer_size = 63;
	create_expect(a, STATUS_BUFFER_TOO_SMALL);

	a = valid_args(); a.source = ProfileMaximum;
	create_expect(a, STATUS_INVALID_PARAMETER_7);
	a = valid_args(); a.source = -1;
	create_expect(a, STATUS_INVALID_PARAMETER_7);
	a = valid_args(); a.source = INT16_MAX;
	create_expect(a, STATUS_INVALID_PARAMETER_7);
	a = valid_args(); a.source = ProfileMaximum - 1;
	create_expect(a, STATUS_SUCCESS);

	fake_source_set_supported(ProfileBranchMispredictions, false);
	a = valid_args(); a.source = ProfileBranchMispredictions;
	create_expect(a, STATUS_NOT_SUPPORTED);
	fake_source_set_supported(ProfileBranchMispredictions, true);
	create_expect(a, STATUS_SUCCESS);

	a = valid_args(); a.affinity = &empty;
	create_expect(a, STATUS_INVALID_PARAMETER_8);
	beyond = cpus_of(&not_online, 1);
	a = valid_args(); a.affinity = &beyond;
	create_expect(a, STATUS_INVALID_PARAMETER_8);
	affinity_add(&beyond, 0); /* a good CPU does not excuse a bad one */
	create_expect(a, STATUS_INVALID_PARAMETER_8);
	beyond = cpus_of(&online_last, 1);
	create_expect(a, STATUS_SUCCESS);

	a = valid_args();
	alloc_fail_next = true;
	create_expect(a, STATUS_INSUFFICIENT_RESOURCES);
	assert_false(alloc_fail_next);
}

/* One call with every fault at once reports the first in the header's
 * order; mending them one at a time walks down the list. */
static void test_validation_order(void **state)
{
	KAFFINITY_EX empty, good;
	struct args a = { UINTPTR_MAX - 15, 0, 1, NULL, 0, ProfileMaximum, &empty };

	affinity_clear_all(&empty);
	affinity_set_first(&good, NCPU);
	fake_source_set_supported(ProfileDcacheMisses, false);
	alloc_fail_next = true;

	create_expect(a, STATUS_INVALID_PARAMETER_2);
	a.size = 32; /* now wraps */
	create_expect(a, STATUS_BUFFER_OVERFLOW);
	a.base = RANGE_BASE;
	create_expect(a, STATUS_INVALID_PARAMETER);
	a.bucket = 4;
	create_expect(a, STATUS_INVALID_PARAMETER_5);
	a.buffer = valid_buf;
	create_expect(a, STATUS_BUFFER_TOO_SMALL);
	a.buffer_size = 8;
	create_expect(a, STATUS_INVALID_PARAMETER_7);
	a.source = ProfileDcacheMisses;
	create_expect(a, STATUS_NOT_SUPPORTED);
	a.source = ProfileTime;
	create_expect(a, STATUS_INVALID_PARAMETER_8);
	assert_true(alloc_fail_next); /* nothing allocated so far */
	a.affinity = &good;
	create_expect(a, STATUS_INSUFFICIENT_RESOURCES);
	assert_false(alloc_fail_next);
	create_expect(a, STATUS_SUCCESS);

	/* A few pairs, each the earlier of two. */
	a = valid_args(); a.buffer = (uint32_t *)((char *)valid_buf + 2); a.buffer_size = 0;
	create_expect(a, STATUS_INVALID_PARAMETER_5);
	a = valid_args(); a.buffer_size = 0; a.source = -5;
	create_expect(a, STATUS_BUFFER_TOO_SMALL);
	a = valid_args(); a.source = ProfileDcacheMisses; a.affinity = &empty;
	create_expect(a, STATUS_NOT_SUPPORTED);
	a = valid_args(); a.size = 0; a.bucket = 99;
	create_expect(a, STATUS_INVALID_PARAMETER_2);
}

static void test_callback_validation(void **state)
{
	struct cb_record r = { 0 };
	KAFFINITY_EX empty;
	KPROFILE *sentinel = (KPROFILE *)(uintptr_t)0x5a5a5a5a, *p = sentinel;

	affinity_clear_all(&empty);
	fake_source_set_supported(ProfileCacheMisses, false);
	assert_int_equal(ke_create_callback_profile(&p, NULL, NULL, &r, ProfileMaximum, &empty),
			 STATUS_INVALID_PARAMETER);
	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, ProfileMaximum, &empty),
			 STATUS_INVALID_PARAMETER_7);
	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, -1, NULL),
			 STATUS_INVALID_PARAMETER_7);
	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, ProfileCacheMisses, &empty),
			 STATUS_NOT_SUPPORTED);
	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, ProfileTime, &empty),
			 STATUS_INVALID_PARAMETER_8);
	alloc_fail_next = true;
	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, ProfileTime, NULL),
			 STATUS_INSUFFICIENT_RESOURCES);
	assert_ptr_equal(p, sentinel);
	assert_int_equal(allocs_live, 0);
	assert_int_equal(ke_create_callback_profile(&p, NULL, record_callback, &r, ProfileTime, NULL),
			 STATUS_SUCCESS);
	ke_delete_profile(p);
}

/* ---------------------------------------------------------------- buckets */

/* For one bucket size: the exact buffer-size boundary, and where the
 * first, last and bucket-boundary addresses are counted. */
static void check_buckets(uintptr_t base, size_t size, uint32_t bucket)
{
	unsigned __int128 need = required_bytes(size, bucket);
	uint32_t bytes = (uint32_t)need, nb = bytes / 4;
	uint32_t *buf = new_buffer(bytes);
	uint64_t bucket_bytes = 1ull << bucket;
	KPROFILE *p = NULL;

	assert_true(need <= UINT32_MAX);
	assert_int_equal(nt_create_profile_ex(&p, NULL, base, size, bucket, buf, bytes - 4, ProfileTime, NULL),
			 STATUS_BUFFER_TOO_SMALL);
	assert_int_equal(nt_create_profile_ex(&p, NULL, base, size, bucket, buf, bytes - 1, ProfileTime, NULL),
			 STATUS_BUFFER_TOO_SMALL);
	assert_int_equal(nt_create_profile_ex(&p, NULL, base, size, bucket, buf, bytes, ProfileTime, NULL),
			 STATUS_SUCCESS);
	assert_int_equal(p->BucketShift, bucket - 2);
	assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);

	interrupt_at(base, ProfileTime);
	assert_int_equal(buf[0], 1);
	interrupt_at(base + size - 1, ProfileTime);
	assert_int_equal(buf[nb - 1], nb == 1 ? 2 : 1);
	if (bucket_bytes < size) {
		interrupt_at(base + bucket_bytes - 1, ProfileTime); /* still bucket 0 */
		interrupt_at(base + bucket_bytes, ProfileTime);     /* bucket 1       */
		assert_int_equal(buf[0], 2);
		assert_int_equal(buf[1], nb == 2 ? 2 : 1);
	}
	/* A sweep against (ip - base) >> bucket. */
	uint64_t want[64] = { 0 };
	for (uint32_t i = 0; i < nb && i < 64; i++)
		want[i] = buf[i];
	for (uint64_t i = 0; i < 50; i++) {
		uintptr_t off = (uintptr_t)((size / 50) * i + i * 7) % size;
		interrupt_at(base + off, ProfileTime);
		uint64_t idx = (uint64_t)off >> bucket;
		assert_true(idx < nb);
		if (idx < 64)
			want[idx]++;
	}
	for (uint32_t i = 0; i < nb && i < 64; i++)
		assert_int_equal(buf[i], want[i]);
	assert_int_equal(buffer_sum(buf, bytes), hits(p));
	delete_with_buffer(p);
}

static void test_bucket_arithmetic(void **state)
{
	check_buckets(RANGE_BASE, 1, 2);
	check_buckets(RANGE_BASE, 16, 2);
	check_buckets(RANGE_BASE, 17, 2);
	check_buckets(RANGE_BASE, 17, 3);
	check_buckets(RANGE_BASE + 3, 1000, 4);
	check_buckets(RANGE_BASE, 4096, 8);
	check_buckets(RANGE_BASE, 4097, 12);
	check_buckets(RANGE_BASE, 100, 12); /* one bucket bigger than the range */
	check_buckets((uintptr_t)1 << 40, ((size_t)1 << 31) + 1, 31);
	check_buckets((uintptr_t)1 << 40, (size_t)1 << 33, 31);
	check_buckets(0, 255, 5);
	check_buckets(UINTPTR_MAX - 4095, 4095, 6); /* the top of the address space */
}

/* The size check never overflows: a range of almost the whole address
 * space needs 2^64 bytes at 4-byte buckets; big sizes at the boundary. */
static void test_buffer_size_huge(void **state)
{
	KPROFILE *p = NULL;

	assert_int_equal(nt_create_profile_ex(&p, NULL, 0, SIZE_MAX, 2, valid_buf, UINT32_MAX & ~3u, ProfileTime, NULL),
			 STATUS_BUFFER_TOO_SMALL);
	assert_int_equal(nt_create_profile_ex(&p, NULL, 0, SIZE_MAX, 31, valid_buf, UINT32_MAX, ProfileTime, NULL),
			 STATUS_BUFFER_TOO_SMALL);
	/* 2^40 bytes at 4 KiB buckets: exactly 1 GiB of counts (the buffer
	 * is never written: the object is not started). */
	assert_int_equal(nt_create_profile_ex(&p, NULL, 0, (size_t)1 << 40, 12, valid_buf, (1u << 30) - 4,
					      ProfileTime, NULL),
			 STATUS_BUFFER_TOO_SMALL);
	assert_int_equal(nt_create_profile_ex(&p, NULL, 0, (size_t)1 << 40, 12, valid_buf, 1u << 30, ProfileTime,
					      NULL),
			 STATUS_SUCCESS);
	assert_int_equal(p->RangeLimit, (uintptr_t)1 << 40);
	ke_delete_profile(p);
}

/* [RangeBase, RangeLimit): both ends, for an exact multiple of the bucket
 * (RangeLimit would be the first bucket past the buffer) and not. */
static void test_range_ends(void **state)
{
	static const size_t sizes[] = { 256, 250 };

	for (size_t i = 0; i < 2; i++) {
		size_t size = sizes[i];
		KPROFILE *p = started_basic(NULL, RANGE_BASE, size, 4, ProfileTime, NULL);
		uint32_t nb = p->BufferSize / 4;

		interrupt_at(RANGE_BASE - 1, ProfileTime);
		assert_int_equal(buffer_sum(p->Buffer, p->BufferSize), 0);
		interrupt_at(RANGE_BASE + size, ProfileTime); /* RangeLimit */
		interrupt_at(RANGE_BASE + size + 16, ProfileTime);
		interrupt_at(UINTPTR_MAX, ProfileTime);
		interrupt_at(0, ProfileTime);
		assert_int_equal(buffer_sum(p->Buffer, p->BufferSize), 0);
		assert_int_equal(hits(p), 0);

		interrupt_at(RANGE_BASE, ProfileTime);
		assert_int_equal(p->Buffer[0], 1);
		interrupt_at(RANGE_BASE + size - 1, ProfileTime); /* RangeLimit - 1 */
		assert_int_equal(p->Buffer[nb - 1], 1);
		assert_int_equal(hits(p), 2);
		assert_int_equal(buffer_sum(p->Buffer, p->BufferSize), 2);
		delete_with_buffer(p);
	}

	/* A range ending at the very top: RangeLimit = UINTPTR_MAX. */
	KPROFILE *p = started_basic(NULL, UINTPTR_MAX - 64, 64, 2, ProfileTime, NULL);
	interrupt_at(UINTPTR_MAX, ProfileTime);
	assert_int_equal(hits(p), 0);
	interrupt_at(UINTPTR_MAX - 1, ProfileTime);
	assert_int_equal(p->Buffer[15], 1);
	assert_int_equal(hits(p), 1);
	delete_with_buffer(p);
}

/* The Windows 8 bug (docs/profile.md): a buffer ending at a page boundary, an
 * interrupt exactly at RangeLimit.  The next page is PROT_NONE: counting
 * RangeLimit would fault. */
static void test_guard_page(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const struct {
		size_t size;
		uint32_t bucket;
	} cases[] = { { 256, 4 }, { 4096, 2 }, { 1 << 20, 12 }, { 250, 4 }, { (size_t)page, 2 } };

	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t bytes = (uint32_t)required_bytes(cases[i].size, cases[i].bucket);
		uint32_t *buf = (uint32_t *)(map + page - bytes); /* ends at the guard page */
		uintptr_t limit = RANGE_BASE + cases[i].size;
		KPROFILE *p = NULL;

		assert_true(bytes <= (uint32_t)page);
		memset(buf, 0, bytes);
		assert_int_equal(nt_create_profile_ex(&p, NULL, RANGE_BASE, cases[i].size, cases[i].bucket, buf, bytes,
						      ProfileTime, NULL),
				 STATUS_SUCCESS);
		assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);
		interrupt_at(limit, ProfileTime);
		interrupt_at(limit, ProfileTime);
		interrupt_at(limit - 1, ProfileTime);
		assert_int_equal(buf[bytes / 4 - 1], 1);
		assert_int_equal(hits(p), 1);
		ke_delete_profile(p);
	}
	munmap(map, (size_t)page * 2);
}

/* ---------------------------------------------------------------- start, stop */

static void test_start_stop_statuses(void **state)
{
	KPROFILE *p = NULL;

	assert_int_equal(nt_create_profile(&p, NULL, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTime), STATUS_SUCCESS);
	assert_int_equal(nt_stop_profile(p), STATUS_PROFILING_NOT_STARTED);
	assert_int_equal(fake_source.releases, 0);

	assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);
	assert_true(p->Started);
	assert_int_equal(nt_start_profile(p), STATUS_PROFILING_NOT_STOPPED);
	assert_int_equal(fake_source.acquires, 1);
	assert_int_equal(fake_source_uses(ProfileTime, 0), 1);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(p), 1); /* on the list once */

	assert_int_equal(nt_stop_profile(p), STATUS_SUCCESS);
	assert_false(p->Started);
	assert_int_equal(nt_stop_profile(p), STATUS_PROFILING_NOT_STARTED);
	assert_int_equal(fake_source.releases, 1);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(p), 1); /* stopped: not counted */

	/* Started again, counted again. */
	assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(p), 2);
	assert_int_equal(nt_stop_profile(p), STATUS_SUCCESS);
	ke_delete_profile(p);
	assert_int_equal(fake_source.acquires, fake_source.releases);
}

/* Stop: off the list, then a grace period, then the source released. */
static void test_stop_order(void **state)
{
	KPROFILE *p = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, NULL);
	uint32_t calls = bc.calls;

	assert_false(list_empty(&KiProfileListHead));
	assert_int_equal(nt_stop_profile(p), STATUS_SUCCESS);
	assert_int_equal(bc.calls, calls + 1);
	assert_true(bc.global_list_was_empty);
	assert_true(fake_source.last_release_seq > bc.last_seq);

	/* Deleting a started object does the same. */
	assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);
	calls = bc.calls;
	uint32_t releases = fake_source.releases;
	delete_with_buffer(p);
	assert_int_equal(bc.calls, calls + 1);
	assert_true(bc.global_list_was_empty);
	assert_true(fake_source.last_release_seq > bc.last_seq);
	assert_int_equal(fake_source.releases, releases + 1);
}

static void test_delete(void **state)
{
	KPROFILE *p = NULL;

	/* Never started: no release. */
	assert_int_equal(nt_create_profile(&p, NULL, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTime), STATUS_SUCCESS);
	ke_delete_profile(p);
	assert_int_equal(fake_source.releases, 0);
	assert_int_equal(bc.calls, 0);

	/* Started then stopped: released once, by the stop. */
	p = started_basic(&proc_a, RANGE_BASE, 256, 4, ProfileTime, NULL);
	assert_int_equal(nt_stop_profile(p), STATUS_SUCCESS);
	delete_with_buffer(p);
	assert_int_equal(fake_source.releases, 1);

	/* Started: stopped by the delete. */
	p = started_basic(&proc_a, RANGE_BASE, 256, 4, ProfileTime, NULL);
	assert_false(list_empty(&proc_a.ProfileListHead));
	delete_with_buffer(p);
	assert_int_equal(fake_source.releases, 2);

	ke_delete_profile(NULL);
}

/* A refused acquire leaves the object stopped, off its list, holding
 * nothing; the status is the source layer's. */
static void test_source_failures(void **state)
{
	KPROFILE *g = NULL, *pa = NULL;

	assert_int_equal(nt_create_profile(&g, NULL, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTotalCycles),
			 STATUS_SUCCESS);
	assert_int_equal(nt_create_profile(&pa, &proc_a, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTotalCycles),
			 STATUS_SUCCESS);
	running(&thr_a);

	fake_source_set_at_limit(ProfileTotalCycles, 3, true);
	assert_int_equal(nt_start_profile(g), STATUS_PROFILING_AT_LIMIT);
	assert_int_equal(nt_start_profile(pa), STATUS_PROFILING_AT_LIMIT);
	assert_false(g->Started);
	assert_false(pa->Started);
	assert_true(list_empty(&KiProfileListHead));
	assert_true(list_empty(&proc_a.ProfileListHead));
	assert_int_equal(fake_source_total_uses(), 0);
	interrupt_at(RANGE_BASE, ProfileTotalCycles);
	assert_int_equal(hits(g) + hits(pa), 0);
	assert_int_equal(nt_stop_profile(g), STATUS_PROFILING_NOT_STARTED);

	fake_source_set_at_limit(ProfileTotalCycles, 3, false);
	fake_source_set_supported(ProfileTotalCycles, false); /* gone since creation */
	assert_int_equal(nt_start_profile(g), STATUS_NOT_SUPPORTED);
	assert_false(g->Started);
	assert_true(list_empty(&KiProfileListHead));

	fake_source_set_supported(ProfileTotalCycles, true);
	assert_int_equal(nt_start_profile(g), STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(pa), STATUS_SUCCESS);
	interrupt_at(RANGE_BASE, ProfileTotalCycles);
	assert_int_equal(hits(g), 1);
	assert_int_equal(hits(pa), 1);
	ke_delete_profile(g);
	ke_delete_profile(pa);
	assert_int_equal(fake_source.releases, 2);
}

/* Uses per CPU follow the objects: overlapping affinities add up, and
 * stop and delete give back exactly what start took. */
static void test_acquire_release_balance(void **state)
{
	static const uint32_t l1[] = { 0, 1 }, l2[] = { 1, 2, 3 };
	KAFFINITY_EX a1 = cpus_of(l1, 2), a2 = cpus_of(l2, 3);
	KPROFILE *p1 = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, &a1);
	KPROFILE *p2 = started_basic(&proc_a, RANGE_BASE, 256, 4, ProfileTime, &a2);
	KPROFILE *p3 = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTotalCycles, NULL);

	assert_int_equal(fake_source_uses(ProfileTime, 0), 1);
	assert_int_equal(fake_source_uses(ProfileTime, 1), 2);
	assert_int_equal(fake_source_uses(ProfileTime, 2), 1);
	assert_int_equal(fake_source_uses(ProfileTime, 3), 1);
	for (uint32_t c = 0; c < NCPU; c++)
		assert_int_equal(fake_source_uses(ProfileTotalCycles, c), 1);

	assert_int_equal(nt_stop_profile(p2), STATUS_SUCCESS);
	assert_int_equal(fake_source_uses(ProfileTime, 1), 1);
	assert_int_equal(fake_source_uses(ProfileTime, 2), 0);
	assert_int_equal(nt_start_profile(p2), STATUS_SUCCESS);
	assert_int_equal(fake_source_uses(ProfileTime, 2), 1);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(nt_stop_profile(p1), STATUS_SUCCESS);
		assert_int_equal(nt_start_profile(p1), STATUS_SUCCESS);
	}
	assert_int_equal(fake_source_uses(ProfileTime, 1), 2);
	delete_with_buffer(p1);
	delete_with_buffer(p2);
	delete_with_buffer(p3);
	assert_int_equal(fake_source.acquires, fake_source.releases);
}

/* ---------------------------------------------------------------- dispatch */

/* Global objects count for every process; a process's objects only while
 * a thread of that process runs; stopped ones never. */
static void test_lists(void **state)
{
	KPROFILE *g = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, NULL);
	KPROFILE *pa = started_basic(&proc_a, RANGE_BASE, 256, 4, ProfileTime, NULL);
	KPROFILE *pidle = started_basic(&proc_idle, RANGE_BASE, 256, 4, ProfileTime, NULL);

	/* Where each went. */
	assert_ptr_equal(KiProfileListHead.Flink, &g->ProfileListEntry);
	assert_ptr_equal(proc_a.ProfileListHead.Flink, &pa->ProfileListEntry);
	assert_ptr_equal(proc_idle.ProfileListHead.Flink, &pidle->ProfileListEntry);
	assert_true(list_empty(&proc_b.ProfileListHead));

	running(&thr_sys);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(g), 1);
	assert_int_equal(hits(pa), 0);
	running(&thr_b);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(g), 2);
	assert_int_equal(hits(pa), 0);
	running(&thr_a);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(g), 3);
	assert_int_equal(hits(pa), 1);
	assert_int_equal(hits(pidle), 0);
	running(&thr_idle); /* the idle thread's process counts too */
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(pidle), 1);
	assert_int_equal(hits(g), 4);
	running(NULL); /* no thread yet (early boot): the global list only */
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(g), 5);
	assert_int_equal(hits(pa) + hits(pidle), 2);

	running(&thr_a);
	assert_int_equal(nt_stop_profile(pa), STATUS_SUCCESS);
	assert_true(list_empty(&proc_a.ProfileListHead));
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(pa), 1);
	assert_int_equal(hits(g), 6);
	assert_int_equal(nt_stop_profile(g), STATUS_SUCCESS);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(g), 6);
	delete_with_buffer(g);
	delete_with_buffer(pa);
	delete_with_buffer(pidle);
}

/* Several objects on one list, unlinked from the middle, head and tail:
 * the rest still counted, each once. */
static void test_list_unlink_positions(void **state)
{
	KPROFILE *p[5];

	for (int i = 0; i < 5; i++)
		p[i] = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, NULL);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(nt_stop_profile(p[2]), STATUS_SUCCESS);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(nt_stop_profile(p[0]), STATUS_SUCCESS);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(nt_stop_profile(p[4]), STATUS_SUCCESS);
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(p[0]), 2);
	assert_int_equal(hits(p[1]), 4);
	assert_int_equal(hits(p[2]), 1);
	assert_int_equal(hits(p[3]), 4);
	assert_int_equal(hits(p[4]), 3);
	assert_int_equal(nt_start_profile(p[2]), STATUS_SUCCESS); /* back, at the tail */
	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(p[2]), 2);
	assert_int_equal(hits(p[1]), 5);
	for (int i = 0; i < 5; i++)
		delete_with_buffer(p[i]);
}

static void test_source_matching(void **state)
{
	KPROFILE *t = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, NULL);
	KPROFILE *c = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTotalCycles, NULL);
	struct cb_record r = { 0 };
	KPROFILE *cb = NULL;

	assert_int_equal(ke_create_callback_profile(&cb, NULL, record_callback, &r, ProfileCacheMisses, NULL),
			 STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(cb), STATUS_SUCCESS);

	interrupt_at(RANGE_BASE, ProfileTime);
	assert_int_equal(hits(t), 1);
	assert_int_equal(hits(c), 0);
	assert_int_equal(r.calls, 0);
	interrupt_at(RANGE_BASE, ProfileTotalCycles);
	interrupt_at(RANGE_BASE, ProfileTotalCycles);
	assert_int_equal(hits(t), 1);
	assert_int_equal(hits(c), 2);
	assert_int_equal(r.calls, 0);
	interrupt_at(RANGE_BASE, ProfileCacheMisses);
	assert_int_equal(r.calls, 1);
	interrupt_at(RANGE_BASE, ProfileBranchMispredictions); /* nobody's */
	assert_int_equal(hits(t) + hits(c) + r.calls, 4);
	delete_with_buffer(t);
	delete_with_buffer(c);
	ke_delete_profile(cb);
}

/* Affinity, CPUs above 64 included: counted only on the CPUs named, and
 * the source used on exactly those. */
static void test_affinity_high_cpus(void **state)
{
	static const uint32_t named[] = { 1, 64, 65, 130, 255 };
	static const uint32_t probe[] = { 0, 1, 2, 63, 64, 65, 66, 127, 128, 129, 130, 131, 191, 192, 254, 255 };
	KAFFINITY_EX a = cpus_of(named, 5);
	struct cb_record r = { 0 };
	KPROFILE *cb = NULL;

	_Static_assert(KPROF_MAX_CPUS >= 256, "the test names CPU 255");
	ke_number_processors = KPROF_MAX_CPUS;
	KPROFILE *p = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, &a);
	assert_int_equal(ke_create_callback_profile(&cb, NULL, record_callback, &r, ProfileTime, &a), STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(cb), STATUS_SUCCESS);
	for (uint32_t c = 0; c < KPROF_MAX_CPUS; c++) {
		bool in = c == 1 || c == 64 || c == 65 || c == 130 || c == 255;
		assert_int_equal(fake_source_uses(ProfileTime, c), in ? 2 : 0);
	}

	uint64_t want = 0;
	for (size_t i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		on_cpu(probe[i]);
		running(&thr_sys);
		interrupt_at(RANGE_BASE + 16, ProfileTime);
		bool in = affinity_test(&a, probe[i]);
		want += in;
		assert_int_equal(hits(p), want);
		assert_int_equal(r.calls, want);
		if (in)
			assert_int_equal(r.cpu, probe[i]);
	}
	assert_int_equal(want, 5);
	assert_int_equal(p->Buffer[1], 5);
	on_cpu(0);
	delete_with_buffer(p);
	ke_delete_profile(cb);

	/* NULL: every online CPU, up to 255. */
	p = started_basic(NULL, RANGE_BASE, 256, 4, ProfileTime, NULL);
	assert_int_equal(affinity_count(&p->Affinity), KPROF_MAX_CPUS);
	assert_int_equal(fake_source_uses(ProfileTime, 255), 1);
	on_cpu(255);
	interrupt_at(RANGE_BASE, ProfileTime);
	on_cpu(0);
	assert_int_equal(hits(p), 1);
	delete_with_buffer(p);

	/* With 200 online, CPU 200 and up are refused, 199 taken. */
	ke_number_processors = 200;
	struct args args = valid_args();
	uint32_t c199 = 199, c200 = 200, c255 = 255;
	KAFFINITY_EX s199 = cpus_of(&c199, 1), s200 = cpus_of(&c200, 1), s255 = cpus_of(&c255, 1);
	args.affinity = &s199;
	create_expect(args, STATUS_SUCCESS);
	args.affinity = &s200;
	create_expect(args, STATUS_INVALID_PARAMETER_8);
	args.affinity = &s255;
	create_expect(args, STATUS_INVALID_PARAMETER_8);
	args.affinity = NULL;
	KPROFILE *q = NULL;
	assert_int_equal(nt_create_profile(&q, NULL, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTime), STATUS_SUCCESS);
	assert_int_equal(affinity_count(&q->Affinity), 200);
	assert_false(affinity_test(&q->Affinity, 200));
	ke_delete_profile(q);
}

static void test_callback_dispatch(void **state)
{
	struct cb_record rg = { 0 }, ra = { 0 };
	KPROFILE *g = NULL, *pa = NULL;
	KTRAP_FRAME tf = { .ip = 0x1234, .fp = 0x5678 };

	assert_int_equal(ke_create_callback_profile(&g, NULL, record_callback, &rg, ProfileTime, NULL), STATUS_SUCCESS);
	assert_int_equal(ke_create_callback_profile(&pa, &proc_a, record_callback, &ra, ProfileTime, NULL),
			 STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(g), STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(pa), STATUS_SUCCESS);

	on_cpu(3);
	running(&thr_a);
	arch_set_irql(PROFILE_LEVEL);
	ke_profile_interrupt_with_source(&tf, ProfileTime);
	arch_set_irql(PASSIVE_LEVEL);
	/* Called with the trap frame itself, the context, in the interrupt,
	 * whatever the address (no range for callbacks). */
	assert_int_equal(rg.calls, 1);
	assert_ptr_equal(rg.tf, &tf);
	assert_int_equal(rg.cpu, 3);
	assert_int_equal(rg.irql, PROFILE_LEVEL);
	assert_int_equal(ra.calls, 1);
	assert_ptr_equal(ra.tf, &tf);
	assert_int_equal(hits(g), 1);
	assert_int_equal(hits(pa), 1);

	running(&thr_b);
	interrupt_at(0, ProfileTime);
	assert_int_equal(rg.calls, 2);
	assert_int_equal(ra.calls, 1);
	assert_int_equal(hits(pa), 1);
	on_cpu(0);
	running(&thr_sys);
	ke_delete_profile(g);
	ke_delete_profile(pa);
	interrupt_at(0, ProfileTime);
	assert_int_equal(rg.calls, 2);
}

static void test_interrupt_count(void **state)
{
	uint64_t c0 = ke_profile_interrupt_count(0), c2 = ke_profile_interrupt_count(2);

	interrupt_at(0, ProfileTime);
	interrupt_at(0, ProfileTotalCycles); /* counted with no object at all */
	on_cpu(2);
	interrupt_at(0, ProfileTime);
	on_cpu(0);
	assert_int_equal(ke_profile_interrupt_count(0), c0 + 2);
	assert_int_equal(ke_profile_interrupt_count(2), c2 + 1);
	assert_int_equal(ke_profile_interrupt_count(KPROF_MAX_CPUS), 0);
	assert_int_equal(ke_profile_interrupt_count(UINT32_MAX), 0);
}

/* The walk is safe only above DISPATCH_LEVEL (the grace period is a DPC);
 * the calls that wait only below it. */
static void test_irql_checks(void **state)
{
	KTRAP_FRAME tf = { 0, 0 };
	KPROFILE *p = NULL;

	arch_set_irql(DISPATCH_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_profile_interrupt_with_source(&tf, ProfileTime)));
	arch_set_irql(PASSIVE_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_profile_interrupt_with_source(&tf, ProfileTime)));

	assert_int_equal(nt_create_profile(&p, NULL, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTime), STATUS_SUCCESS);
	arch_set_irql(DISPATCH_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(nt_start_profile(p)));
	arch_set_irql(PASSIVE_LEVEL);
	assert_false(p->Started);
	ke_delete_profile(p);
}

/* ---------------------------------------------------------------- intervals */

static void test_intervals(void **state)
{
	uint32_t v = 77;

	assert_int_equal(nt_query_interval_profile(ProfileTime, &v), STATUS_SUCCESS);
	assert_int_equal(v, PROFILE_TIME_DEFAULT_INTERVAL);
	assert_int_equal(nt_set_interval_profile(5000, ProfileTime), STATUS_SUCCESS);
	assert_int_equal(nt_query_interval_profile(ProfileTime, &v), STATUS_SUCCESS);
	assert_int_equal(v, 5000);
	assert_int_equal(fake_source.set_intervals, 1);

	/* Out of range: the source layer's status, the old value kept. */
	assert_int_equal(nt_set_interval_profile(PROFILE_TIME_MIN_INTERVAL - 1, ProfileTime), STATUS_INVALID_PARAMETER);
	assert_int_equal(nt_set_interval_profile(PROFILE_TIME_MAX_INTERVAL + 1, ProfileTime), STATUS_INVALID_PARAMETER);
	assert_int_equal(nt_query_interval_profile(ProfileTime, &v), STATUS_SUCCESS);
	assert_int_equal(v, 5000);

	/* Counter sources. */
	assert_int_equal(nt_query_interval_profile(ProfileTotalCycles, &v), STATUS_SUCCESS);
	assert_int_equal(v, PROFILE_PMC_DEFAULT_INTERVAL);
	assert_int_equal(nt_set_interval_profile(PROFILE_PMC_MIN_INTERVAL, ProfileTotalCycles), STATUS_SUCCESS);
	assert_int_equal(nt_query_interval_profile(ProfileTotalCycles, &v), STATUS_SUCCESS);
	assert_int_equal(v, PROFILE_PMC_MIN_INTERVAL);

	/* Unknown sources never reach the source layer. */
	uint32_t calls = fake_source.set_intervals;
	assert_int_equal(nt_set_interval_profile(5000, ProfileMaximum), STATUS_INVALID_PARAMETER);
	assert_int_equal(nt_set_interval_profile(5000, -1), STATUS_INVALID_PARAMETER);
	assert_int_equal(fake_source.set_intervals, calls);
	v = 77;
	assert_int_equal(nt_query_interval_profile(ProfileMaximum, &v), STATUS_INVALID_PARAMETER);
	assert_int_equal(nt_query_interval_profile(-3, &v), STATUS_INVALID_PARAMETER);

	/* Unsupported: NOT_SUPPORTED, and the query says 0. */
	fake_source_set_supported(ProfileDcacheMisses, false);
	assert_int_equal(nt_set_interval_profile(5000, ProfileDcacheMisses), STATUS_NOT_SUPPORTED);
	v = 77;
	assert_int_equal(nt_query_interval_profile(ProfileDcacheMisses, &v), STATUS_NOT_SUPPORTED);
	assert_int_equal(v, 0);

	assert_int_equal(nt_query_interval_profile(ProfileTime, NULL), STATUS_INVALID_PARAMETER);
	assert_int_equal(nt_query_interval_profile(ProfileDcacheMisses, NULL), STATUS_INVALID_PARAMETER);
}

/* ---------------------------------------------------------------- concurrency */

#define STRESS_CPUS 4                 /* pthreads taking interrupts      */
#define STRESS_SIZE 4096              /* profiled range of the objects   */
#define STRESS_BUCKET 4               /* 16-byte buckets: 256 of them    */
#define STRESS_BUCKETS (STRESS_SIZE >> STRESS_BUCKET)

static struct {
	bool stop;
	uint64_t progress[STRESS_CPUS];         /* interrupts taken so far  */
	uint64_t time_hits[STRESS_CPUS];        /* of them ProfileTime       */
	uint64_t bucket_hits[STRESS_CPUS][STRESS_BUCKETS];
	uint64_t callbacks[STRESS_CPUS];        /* the permanent callback's  */
	KTHREAD threads[STRESS_CPUS];
} stress;

static void stress_callback(KTRAP_FRAME *tf, void *ctx)
{
	uint64_t *per_cpu = ctx;
	__atomic_fetch_add(&per_cpu[ke_get_current_processor_number()], 1, __ATOMIC_RELAXED);
}

static void *stress_cpu(void *arg)
{
	uint32_t cpu = (uint32_t)(uintptr_t)arg;
	uint64_t n = 0, x = 0x9e3779b97f4a7c15ull * (cpu + 1);

	on_cpu(cpu);
	running(&stress.threads[cpu]);
	arch_set_irql(PASSIVE_LEVEL);
	while (!__atomic_load_n(&stress.stop, __ATOMIC_ACQUIRE)) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uintptr_t off = (uintptr_t)(x % STRESS_SIZE);
		int16_t source = (x >> 40) % 8 == 0 ? ProfileTotalCycles : ProfileTime;
		interrupt_at(RANGE_BASE + off, source);
		if (source == ProfileTime) {
			stress.time_hits[cpu]++;
			stress.bucket_hits[cpu][off >> STRESS_BUCKET]++;
		}
		__atomic_store_n(&stress.progress[cpu], ++n, __ATOMIC_RELEASE);
		cpu_poll_broadcast(cpu);
		if (n % 32 == 0) /* more played CPUs than host cores: let the others run */
			sched_yield();
	}
	__atomic_store_n(&bc.live[cpu], false, __ATOMIC_RELEASE);
	return NULL;
}

/* Until every played CPU has taken `more` interrupts after now. */
static void stress_wait_progress(uint64_t more)
{
	for (uint32_t c = 0; c < STRESS_CPUS; c++) {
		uint64_t from = __atomic_load_n(&stress.progress[c], __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&stress.progress[c], __ATOMIC_ACQUIRE) < from + more)
			sched_yield();
	}
}

/* One transient object: created, started, counted into, then stopped and
 * deleted or deleted while started.  After a stop nothing more is
 * counted; its buffer and context are freed at once (ASan and TSan would
 * see a late writer). */
static void stress_transient(uint32_t i)
{
	uint32_t bytes = (uint32_t)required_bytes(STRESS_SIZE, STRESS_BUCKET);
	uint32_t *buf = new_buffer(bytes);
	uint64_t *ctx = calloc(STRESS_CPUS + 1, sizeof(uint64_t));
	KPROCESS *procs[] = { NULL, &proc_a, &proc_sys, &proc_b };
	KPROFILE *p = NULL;

	if (i % 5 == 4)
		assert_int_equal(ke_create_callback_profile(&p, procs[i % 4], stress_callback, ctx, ProfileTime, NULL),
				 STATUS_SUCCESS);
	else
		assert_int_equal(nt_create_profile(&p, procs[i % 4], RANGE_BASE, STRESS_SIZE, STRESS_BUCKET, buf, bytes,
						   ProfileTime),
				 STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(p), STATUS_SUCCESS);
	if (i % 16 == 0)
		stress_wait_progress(1);
	if (i % 3 == 0) {
		ke_delete_profile(p); /* while started */
	} else {
		assert_int_equal(nt_stop_profile(p), STATUS_SUCCESS);
		uint64_t h = hits(p), sum = buffer_sum(buf, bytes);
		if (i % 8 == 1) {
			stress_wait_progress(2);
			assert_int_equal(hits(p), h);
			assert_int_equal(buffer_sum(buf, bytes), sum);
		}
		if (p->Type == ProfileObject)
			assert_int_equal(sum, h);
		ke_delete_profile(p);
	}
	free(buf);
	free(ctx);
}

static void test_concurrent_dispatch(void **state)
{
	uint32_t bytes = (uint32_t)required_bytes(STRESS_SIZE, STRESS_BUCKET);
	uint64_t callbacks[STRESS_CPUS + 1] = { 0 }, base_count[STRESS_CPUS];
	pthread_t th[STRESS_CPUS];
	KPROFILE *g, *pa, *cb = NULL;

	memset(&stress, 0, sizeof(stress));
	ke_number_processors = STRESS_CPUS + 1; /* the played ones and this one */
	on_cpu(STRESS_CPUS);
	running(&thr_sys);
	for (uint32_t c = 0; c < STRESS_CPUS; c++) {
		init_thread(&stress.threads[c], c % 2 ? &proc_a : &proc_sys, 1000 + 4 * c);
		base_count[c] = ke_profile_interrupt_count(c);
	}
	g = started_basic(NULL, RANGE_BASE, STRESS_SIZE, STRESS_BUCKET, ProfileTime, NULL);
	pa = started_basic(&proc_a, RANGE_BASE, STRESS_SIZE, STRESS_BUCKET, ProfileTime, NULL);
	assert_int_equal(ke_create_callback_profile(&cb, NULL, stress_callback, callbacks, ProfileTime, NULL),
			 STATUS_SUCCESS);
	assert_int_equal(nt_start_profile(cb), STATUS_SUCCESS);

	for (uint32_t c = 0; c < STRESS_CPUS; c++) {
		bc.live[c] = true;
		assert_int_equal(pthread_create(&th[c], NULL, stress_cpu, (void *)(uintptr_t)c), 0);
	}
	for (uint32_t i = 0; i < STRESS_ITERATIONS; i++)
		stress_transient(i);
	stress_wait_progress(10);
	__atomic_store_n(&stress.stop, true, __ATOMIC_RELEASE);
	for (uint32_t c = 0; c < STRESS_CPUS; c++)
		pthread_join(th[c], NULL);

	/* The objects started throughout lost nothing. */
	uint64_t total = 0, in_a = 0;
	for (uint32_t c = 0; c < STRESS_CPUS; c++) {
		total += stress.time_hits[c];
		in_a += c % 2 ? stress.time_hits[c] : 0;
		assert_int_equal(callbacks[c], stress.time_hits[c]);
		assert_int_equal(ke_profile_interrupt_count(c) - base_count[c], stress.progress[c]);
	}
	assert_true(total > 0);
	assert_int_equal(hits(g), total);
	assert_int_equal(hits(cb), total);
	assert_int_equal(hits(pa), in_a);
	assert_int_equal(buffer_sum(g->Buffer, bytes), total);
	assert_int_equal(buffer_sum(pa->Buffer, bytes), in_a);
	for (uint32_t b = 0; b < STRESS_BUCKETS; b++) {
		uint64_t want = 0;
		for (uint32_t c = 0; c < STRESS_CPUS; c++)
			want += stress.bucket_hits[c][b];
		assert_int_equal(g->Buffer[b], want);
	}
	assert_true(bc.calls >= STRESS_ITERATIONS);
	on_cpu(0);
	delete_with_buffer(g);
	delete_with_buffer(pa);
	ke_delete_profile(cb);
}

/* Two threads start and stop one object at once (and objects of their
 * own): each transition happens once (one acquire per successful start,
 * one release per successful stop), the object is linked at most once,
 * and broadcasts never overlap. */
#define RACE_THREADS 2
#define RACE_ROUNDS 2000

static struct {
	KPROFILE *shared;
	uint32_t starts[RACE_THREADS], stops[RACE_THREADS];
	KTHREAD threads[RACE_THREADS];
} race;

static void *race_thread(void *arg)
{
	uint32_t me = (uint32_t)(uintptr_t)arg;
	uint32_t buf[16];
	KPROFILE *own = NULL;

	on_cpu(me);
	running(&race.threads[me]);
	arch_set_irql(PASSIVE_LEVEL);
	if (nt_create_profile(&own, me ? &proc_a : NULL, RANGE_BASE, 64, 4, buf, sizeof(buf), ProfileTime))
		abort();
	for (uint32_t i = 0; i < RACE_ROUNDS; i++) {
		NTSTATUS st = nt_start_profile(race.shared);
		if (st == STATUS_SUCCESS)
			race.starts[me]++;
		else if (st != STATUS_PROFILING_NOT_STOPPED)
			abort();
		if (nt_start_profile(own) != STATUS_SUCCESS)
			abort();
		st = nt_stop_profile(race.shared);
		if (st == STATUS_SUCCESS)
			race.stops[me]++;
		else if (st != STATUS_PROFILING_NOT_STARTED)
			abort();
		if (i % 2 == 0) {
			if (nt_stop_profile(own) != STATUS_SUCCESS)
				abort();
			continue;
		}
		ke_delete_profile(own); /* while started */
		if (nt_create_profile(&own, me ? &proc_a : NULL, RANGE_BASE, 64, 4, buf, sizeof(buf), ProfileTime))
			abort();
	}
	ke_delete_profile(own);
	return NULL;
}

static void test_concurrent_start_stop(void **state)
{
	pthread_t th[RACE_THREADS];
	uint32_t starts = 0, stops = 0;

	memset(&race, 0, sizeof(race));
	ke_number_processors = RACE_THREADS + 1;
	assert_int_equal(nt_create_profile(&race.shared, NULL, RANGE_BASE, 256, 4, valid_buf, 64, ProfileTime),
			 STATUS_SUCCESS);
	for (uint32_t t = 0; t < RACE_THREADS; t++) {
		init_thread(&race.threads[t], t ? &proc_a : &proc_sys, 2000 + 4 * t);
		assert_int_equal(pthread_create(&th[t], NULL, race_thread, (void *)(uintptr_t)t), 0);
	}
	for (uint32_t t = 0; t < RACE_THREADS; t++) {
		pthread_join(th[t], NULL);
		starts += race.starts[t];
		stops += race.stops[t];
	}
	assert_true(starts > 0);
	assert_int_equal(starts - stops, race.shared->Started ? 1 : 0);
	assert_int_equal(fake_source.acquires - fake_source.releases, race.shared->Started ? 1 : 0);
	assert_int_equal(fake_source_uses(ProfileTime, 0), race.shared->Started ? 1 : 0);
	uint32_t linked = 0;
	for (LIST_ENTRY *e = KiProfileListHead.Flink; e != &KiProfileListHead && linked < 10; e = e->Flink)
		linked++;
	assert_int_equal(linked, race.shared->Started ? 1 : 0);
	ke_delete_profile(race.shared);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_callback_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validation_each, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validation_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_validation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bucket_arithmetic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_size_huge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_range_ends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guard_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_stop_statuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_acquire_release_balance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_unlink_positions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_matching, setup, teardown),
		cmocka_unit_test_setup_teardown(test_affinity_high_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_dispatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupt_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irql_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intervals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_dispatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_start_stop, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
