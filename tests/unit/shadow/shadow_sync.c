/*
 * shadow_sync.c - host threads, events, semaphores and waits with
 * time-outs for unit tests of kernel code that waits (see shadow_sync.h).
 *
 * One pthread mutex (objects_lock) plays the dispatcher lock for the
 * objects: a signal satisfies the waiters in their wait list first come,
 * first served, while it is signaled (consuming what the object type
 * consumes), exactly as kernel/sched/wait.c; each waiter sleeps on its own
 * condition variable.  A time-out is a TSC deadline, as in the kernel, so
 * a wait that times out has lasted at least its time-out in TSC cycles.
 * The raw KiDispatcherLock is kernel/sched/boost.c's, which is compiled
 * as it boots: it guards the priority fields.
 */
#include "shadow_sync.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arch/cpu.h>
#include <arch/percpu.h>

#include "kernel/mm/heap.h"
#include "kernel/debug/panic.h"
#include "kernel/sched/ki.h"
#include "kernel/ke/time/time.h"

struct shadow_thread {
	KTHREAD thread;              /* what ke_get_current_thread() returns */
	KPRCB prcb;                  /* its own CPU                          */
	pthread_cond_t wake;         /* its wait ended (objects_lock)        */
	pthread_t pthread;
	void (*fn)(void *);
	void *arg;
};

raw_lock_t KiDispatcherLock = RAW_LOCK_INIT;
uint32_t shadow_requeues;
int8_t shadow_requeue_increment;
__thread void (*shadow_wait_timeout_hook)(void *object);

static pthread_mutex_t objects_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_id = 1000, next_cpu = 1;
static struct shadow_thread main_thread;

static struct shadow_thread *of(KTHREAD *t)
{
	return CONTAINING_RECORD(t, struct shadow_thread, thread);
}

static void init_thread(struct shadow_thread *st, uint32_t id, int8_t priority, uint32_t cpu)
{
	pthread_condattr_t attr;

	memset(st, 0, sizeof(*st));
	st->thread.Header.Type = ThreadObject;
	list_init(&st->thread.Header.WaitListHead);
	list_init(&st->thread.MutantListHead);
	st->thread.ThreadId = id;
	st->thread.Priority = st->thread.BasePriority = priority;
	st->thread.State = Running;
	st->prcb.Self = &st->prcb;
	st->prcb.Number = cpu;
	st->prcb.CurrentThread = &st->thread;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&st->wake, &attr);
	pthread_condattr_destroy(&attr);
}

static void become(struct shadow_thread *st)
{
	arch_percpu_set(&st->prcb);
	arch_set_irql(PASSIVE_LEVEL);
}

KTHREAD *shadow_sync_adopt(uint32_t thread_id, int8_t priority, uint32_t cpu)
{
	static bool adopted;
	if (adopted)
		pthread_cond_destroy(&main_thread.wake);
	adopted = true;
	init_thread(&main_thread, thread_id, priority, cpu);
	become(&main_thread);
	return &main_thread.thread;
}

static void *trampoline(void *arg)
{
	struct shadow_thread *st = arg;
	become(st);
	st->fn(st->arg);
	return NULL;
}

struct shadow_thread *shadow_thread_start(void (*fn)(void *), void *arg, int8_t priority)
{
	struct shadow_thread *st = malloc(sizeof(*st));
	pthread_mutex_lock(&objects_lock);
	uint32_t id = next_id, cpu = next_cpu;
	next_id += 4;
	next_cpu++;
	pthread_mutex_unlock(&objects_lock);
	init_thread(st, id, priority, cpu);
	st->fn = fn;
	st->arg = arg;
	if (pthread_create(&st->pthread, NULL, trampoline, st) != 0)
		abort();
	return st;
}

KTHREAD *shadow_thread_kthread(struct shadow_thread *t)
{
	return &t->thread;
}

void shadow_thread_join(struct shadow_thread *t)
{
	pthread_join(t->pthread, NULL);
	pthread_cond_destroy(&t->wake);
	free(t);
}

KTHREAD *ke_get_current_thread(void)
{
	return ((KPRCB *)arch_percpu_self())->CurrentThread;
}

/* ---------------------------------------------------------------- objects */

static void header_init(DISPATCHER_HEADER *h, uint8_t type, int32_t state)
{
	h->Type = type;
	h->SignalState = state;
	list_init(&h->WaitListHead);
}

static void satisfy(DISPATCHER_HEADER *h)
{
	if (h->Type == EventSynchronizationObject)
		h->SignalState = 0;
	else if (h->Type == SemaphoreObject)
		h->SignalState--;
}

/* objects_lock held: wake waiters while the object stays signaled. */
static void signal_waiters(DISPATCHER_HEADER *h)
{
	while (h->SignalState > 0 && !list_empty(&h->WaitListHead)) {
		KWAIT_BLOCK *wb = CONTAINING_RECORD(list_remove_head(&h->WaitListHead), KWAIT_BLOCK, WaitListEntry);
		KTHREAD *t = wb->Thread;
		wb->Linked = 0;
		satisfy(h);
		t->WaitPending = 0;
		t->WaitStatus = STATUS_WAIT_0;
		pthread_cond_signal(&of(t)->wake);
	}
}

void ke_initialize_event(KEVENT *e, EVENT_TYPE type, bool state)
{
	header_init(&e->Header, type == NotificationEvent ? EventNotificationObject : EventSynchronizationObject,
		    state ? 1 : 0);
}

int32_t ke_set_event(KEVENT *e, int increment, bool wait_next)
{
	pthread_mutex_lock(&objects_lock);
	int32_t prev = e->Header.SignalState;
	e->Header.SignalState = 1;
	signal_waiters(&e->Header);
	pthread_mutex_unlock(&objects_lock);
	return prev;
}

int32_t ke_reset_event(KEVENT *e)
{
	pthread_mutex_lock(&objects_lock);
	int32_t prev = e->Header.SignalState;
	e->Header.SignalState = 0;
	pthread_mutex_unlock(&objects_lock);
	return prev;
}

void ke_initialize_semaphore(KSEMAPHORE *s, int32_t count, int32_t limit)
{
	header_init(&s->Header, SemaphoreObject, count);
	s->Limit = limit;
}

NTSTATUS ke_release_semaphore(KSEMAPHORE *s, int increment, int32_t adjustment, int32_t *previous)
{
	NTSTATUS st = STATUS_SUCCESS;
	pthread_mutex_lock(&objects_lock);
	int32_t prev = s->Header.SignalState;
	if (adjustment <= 0 || prev > s->Limit - adjustment) {
		st = adjustment <= 0 ? STATUS_INVALID_PARAMETER : STATUS_SEMAPHORE_LIMIT_EXCEEDED;
	} else {
		s->Header.SignalState = prev + adjustment;
		signal_waiters(&s->Header);
	}
	pthread_mutex_unlock(&objects_lock);
	if (previous)
		*previous = prev;
	return st;
}

uint32_t shadow_sync_waiters(void *object)
{
	DISPATCHER_HEADER *h = object;
	uint32_t n = 0;
	pthread_mutex_lock(&objects_lock);
	for (LIST_ENTRY *e = h->WaitListHead.Flink; e != &h->WaitListHead; e = e->Flink)
		n++;
	pthread_mutex_unlock(&objects_lock);
	return n;
}

static void add_us(struct timespec *ts, uint64_t us)
{
	ts->tv_sec += (time_t)(us / 1000000);
	ts->tv_nsec += (long)(us % 1000000) * 1000;
	if (ts->tv_nsec >= 1000000000) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000;
	}
}

NTSTATUS ke_wait_for_single_object(void *object, uint8_t wait_reason, KPROCESSOR_MODE mode, uint64_t timeout_us)
{
	KTHREAD *t = ke_get_current_thread();
	DISPATCHER_HEADER *h = object;
	NTSTATUS st;

	if (timeout_us && ke_get_current_irql() >= DISPATCH_LEVEL)
		ke_bug_check_ex(IRQL_NOT_LESS_OR_EQUAL, ke_get_current_irql(), (uintptr_t)object, 0, 0,
				"a wait that may block at IRQL %u", ke_get_current_irql());
	pthread_mutex_lock(&objects_lock);
	if (h->SignalState > 0) {
		satisfy(h);
		st = STATUS_WAIT_0;
	} else if (timeout_us == 0) {
		st = STATUS_TIMEOUT;
	} else {
		KWAIT_BLOCK *wb = &t->WaitBlock[0];
		uint64_t deadline = timeout_us == KE_WAIT_FOREVER ? 0 : arch_rdtsc() + ke_us_to_tsc(timeout_us);
		wb->Thread = t;
		wb->Object = h;
		wb->WaitKey = 0;
		wb->WaitType = WaitAny;
		wb->Linked = 1;
		list_insert_tail(&h->WaitListHead, &wb->WaitListEntry);
		t->WaitReason = wait_reason;
		t->WaitStatus = STATUS_PENDING;
		t->WaitPending = 1;
		while (t->WaitPending) {
			if (!deadline) {
				pthread_cond_wait(&of(t)->wake, &objects_lock);
				continue;
			}
			uint64_t now = arch_rdtsc();
			if (now >= deadline) { /* as wait.c's time-out: the wait ends exactly once */
				list_remove(&wb->WaitListEntry);
				wb->Linked = 0;
				t->WaitPending = 0;
				t->WaitStatus = STATUS_TIMEOUT;
				break;
			}
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			add_us(&ts, ke_tsc_to_us(deadline - now) + 1);
			pthread_cond_timedwait(&of(t)->wake, &objects_lock, &ts);
		}
		st = t->WaitStatus;
	}
	pthread_mutex_unlock(&objects_lock);
	if (st == STATUS_TIMEOUT && timeout_us && shadow_wait_timeout_hook)
		shadow_wait_timeout_hook(object);
	return st;
}

/* ---------------------------------------------------------------- boost.c's dispatcher */

void ki_ready_queue_remove(KTHREAD *t)
{
	KASSERT(t->State == Ready);
}

void ki_ready_thread(KTHREAD *t, enum ki_adjust_reason reason, int8_t increment)
{
	KASSERT(reason == AdjustBoost);
	t->State = Ready;
	shadow_requeues++;
	shadow_requeue_increment = increment;
}

/* ---------------------------------------------------------------- heap, time */

void *kmalloc(size_t size)
{
	return malloc(size ? size : 1);
}

void *kzalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void kfree(void *p)
{
	free(p);
}

void shadow_sleep_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

void shadow_sync_calibrate_tsc(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t t0 = arch_rdtsc();
	shadow_sleep_us(20000);
	clock_gettime(CLOCK_MONOTONIC, &b);
	uint64_t t1 = arch_rdtsc();
	uint64_t ns = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec);
	ke_tsc_hz = (t1 - t0) * 1000000000u / ns;
}
