# tests/unit/kernel/ex/unit.mk - ERESOURCE (kernel/ex/resource*.c) and the
# owner boost (kernel/sched/boost.c) with the in-stack queued spin locks
# they use, pthreads standing in for threads through
# tests/unit/shadow/shadow_sync.c (included by tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/ex/test_resource.c
unit_resource_SRCS := $(wildcard kernel/ex/resource*.c) kernel/sched/boost.c \
	kernel/locks/queuedlock.c kernel/locks/lockstat.c kernel/ke/irql.c kernel/ke/dpc.c \
	kernel/ke/time/time.c kernel/lib/muldiv.c kernel/trace/objname.c kernel/lib/printf.c tests/unit/shadow/shadow_sync.c
UNIT_TSAN_NAMES += resource
# The test captures the resource records with a writer of its own
# (kernel/trace/trace.h: KPROF_TRACE_WRITER_CAPTURE).
$(BUILD)/tests/unit/kernel/ex/test_resource $(BUILD)/tests/unit/tsan/kernel/ex/test_resource: \
	UNIT_CFLAGS += -DKPROF_TRACE_WRITER_CAPTURE
$(BUILD)/tests/unit/tsan/kernel/ex/test_resource: UNIT_TSAN_CFLAGS += -DKPROF_TRACE_WRITER_CAPTURE
