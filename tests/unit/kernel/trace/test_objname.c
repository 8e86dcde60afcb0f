/*
 * test_objname.c - named objects (kernel/trace/objname.c): every named
 * object gets a KprofObjectName record at least once while its group is
 * traced - when it is named, or in the rundown when it was named before
 * the trace started - under the group of its kind, and never after it was
 * forgotten.  trace_log() is caught here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/trace/objname.h"
#include "kernel/trace/trace.h"

PERFINFO_GROUPMASK trace_groups;

static struct {
	KPROF_OBJECT_NAME r;
} logged[256];
static size_t nlogged;
static KPROF_OBJECT_NAME being_written;

/* trace_log (inline in trace.h: the group test, then these two) writes
 * into this test's list. */
void *trace_record_begin(struct trace_record *rec, uint16_t hook, uint8_t version, uint16_t payload_size)
{
	(void)rec;
	assert_int_equal(hook, KPROF_LOG_TYPE_OBJECT_NAME);
	assert_int_equal(version, OBJECT_NAME_VERSION);
	assert_int_equal(payload_size, sizeof(KPROF_OBJECT_NAME));
	return &being_written;
}

void trace_record_commit(struct trace_record *rec)
{
	(void)rec;
	assert_true(nlogged < sizeof(logged) / sizeof(logged[0]));
	logged[nlogged++].r = being_written;
}

static int reset(void **state)
{
	(void)state;
	memset(&trace_groups, 0, sizeof(trace_groups));
	nlogged = 0;
	return 0;
}

/* The records logged for object a, counted; *last gets the last one. */
static size_t records_of(const void *a, KPROF_OBJECT_NAME *last)
{
	size_t n = 0;
	for (size_t i = 0; i < nlogged; i++)
		if (logged[i].r.Object == (uint64_t)(uintptr_t)a) {
			n++;
			if (last)
				*last = logged[i].r;
		}
	return n;
}

static char lock_a, lock_b, resource_c; /* addresses only */

/* Named before the trace: nothing then, one RUNDOWN record after it. */
static void test_rundown(void **state)
{
	KPROF_OBJECT_NAME r;

	trace_name_object(&lock_a, KprofObjectQueuedSpinLock, "queued%u", 1u);
	assert_int_equal(nlogged, 0);
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	trace_object_rundown();
	assert_int_equal(records_of(&lock_a, &r), 1);
	assert_int_equal(r.Kind, KprofObjectQueuedSpinLock);
	assert_int_equal(r.Flags, KPROF_OBJECT_NAME_RUNDOWN);
	assert_string_equal(r.Name, "queued1");
	trace_forget_object(&lock_a);
}

/* Named while traced: written at once, without the RUNDOWN flag. */
static void test_at_creation(void **state)
{
	KPROF_OBJECT_NAME r;

	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	trace_name_object(&lock_b, KprofObjectSpinLock, "hot%u", 3u);
	assert_int_equal(records_of(&lock_b, &r), 1);
	assert_int_equal(r.Flags, 0);
	assert_string_equal(r.Name, "hot3");
	trace_forget_object(&lock_b);
}

/* An ERESOURCE is named under PERF_SYNC_OBJECTS, spin locks under
 * PERF_SPINLOCK: each only when its own group is on. */
static void test_groups(void **state)
{
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	trace_name_object(&resource_c, KprofObjectResource, "data0");
	assert_int_equal(records_of(&resource_c, NULL), 0);
	memset(&trace_groups, 0, sizeof(trace_groups));
	perfinfo_group_set(&trace_groups, PERF_SYNC_OBJECTS);
	trace_name_object(&lock_a, KprofObjectExecutiveSpinLock, "ex0");
	assert_int_equal(records_of(&lock_a, NULL), 0);
	trace_object_rundown(); /* only the resource's group is on */
	assert_int_equal(records_of(&resource_c, NULL), 1);
	assert_int_equal(records_of(&lock_a, NULL), 0);
	trace_forget_object(&resource_c);
	trace_forget_object(&lock_a);
}

/* Forgotten: not in the rundown; named again: the new name only. */
static void test_forget_and_rename(void **state)
{
	KPROF_OBJECT_NAME r;

	trace_name_object(&lock_a, KprofObjectSpinLock, "old");
	trace_name_object(&lock_a, KprofObjectSpinLock, "new");
	trace_name_object(&lock_b, KprofObjectSpinLock, "gone");
	trace_forget_object(&lock_b);
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	trace_object_rundown();
	assert_int_equal(records_of(&lock_a, &r), 1);
	assert_string_equal(r.Name, "new");
	assert_int_equal(records_of(&lock_b, NULL), 0);
	trace_forget_object(&lock_a);
}

/* A full table: the name is still written while tracing, and counted as
 * not remembered; a long name is cut to 31 bytes and NUL-terminated. */
static void test_full_and_long(void **state)
{
	static char objs[TRACE_OBJECT_NAMES + 1];
	KPROF_OBJECT_NAME r;
	uint32_t before = trace_object_names_dropped();

	for (int i = 0; i < TRACE_OBJECT_NAMES; i++)
		trace_name_object(&objs[i], KprofObjectSpinLock, "o%d", i);
	perfinfo_group_set(&trace_groups, PERF_SPINLOCK);
	trace_name_object(&objs[TRACE_OBJECT_NAMES], KprofObjectSpinLock, "%s", "a-name-of-forty-characters-long-0123456");
	assert_int_equal(trace_object_names_dropped(), before + 1);
	assert_int_equal(records_of(&objs[TRACE_OBJECT_NAMES], &r), 1);
	assert_int_equal(strlen(r.Name), 31);
	assert_memory_equal(r.Name, "a-name-of-forty-characters-long", 31);
	nlogged = 0;
	trace_object_rundown();
	assert_int_equal(nlogged, TRACE_OBJECT_NAMES);
	for (int i = 0; i <= TRACE_OBJECT_NAMES; i++)
		trace_forget_object(&objs[i]);
	nlogged = 0;
	trace_object_rundown();
	assert_int_equal(nlogged, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rundown, reset),
		cmocka_unit_test_setup(test_at_creation, reset),
		cmocka_unit_test_setup(test_groups, reset),
		cmocka_unit_test_setup(test_forget_and_rename, reset),
		cmocka_unit_test_setup(test_full_and_long, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
