# tests/unit/kernel/locks/unit.mk - the spin locks (included by
# tests/unit/unit.mk):
#   locks         the locks, their instrumentation and the sampling
#                 parameters, with the trace writer and buffers they write
#                 to; pthreads stand in for CPUs, so it also runs under TSan
#   locks_assert  the locks' asserted invariants (kernel/locks/queuedlock.c,
#                 spinlock.c), each broken on purpose: the bug check fires

UNIT_TESTS += tests/unit/kernel/locks/test_locks.c tests/unit/kernel/locks/test_locks_assert.c

unit_locks_SRCS := kernel/locks/spinlock.c kernel/locks/queuedlock.c kernel/locks/exspinlock.c \
	kernel/locks/lockstat.c kernel/ex/sysinfo.c kernel/ke/irql.c kernel/ke/dpc.c \
	kernel/trace/writer.c kernel/trace/tracebuf.c
unit_locks_assert_SRCS = $(unit_locks_SRCS)

$(BUILD)/tests/unit/kernel/locks/test_locks_assert: kernel/debug/kassert.h
# test_locks plays another CPU at the first test's clock read and after a
# queued waiter's link (kernel/locks/lockstat_stack.h: KPROF_LOCKSTAT_TEST_SEAM).
$(BUILD)/tests/unit/kernel/locks/test_locks: UNIT_CFLAGS += -DKPROF_LOCKSTAT_TEST_SEAM
$(BUILD)/tests/unit/tsan/kernel/locks/test_locks: UNIT_TSAN_CFLAGS += -DKPROF_LOCKSTAT_TEST_SEAM

UNIT_TSAN_NAMES += locks
