# unit-rawlock.mk - the raw lock checks: owner (SPIN_LOCK_ALREADY_OWNED,
# SPIN_LOCK_NOT_OWNED), the ranked order dispatcher -> timer queue -> DPC
# queue (KPROF_LOCK_ORDER), and the dispatcher's assertions that its ki_
# functions run under its lock (docs/locking.md).  pthreads stand in for
# CPUs in the contended case, so it also runs under TSan.

unit_rawlock_SRCS := kernel/sched/dispatch.c kernel/sched/idle.c kernel/sched/readyq.c kernel/sched/priority.c kernel/sched/wait.c \
	kernel/sched/objects/event.c kernel/ke/time/timerq.c kernel/ke/dpc.c kernel/ke/irql.c kernel/ke/time/time.c kernel/lib/muldiv.c

$(BUILD)/tests/unit/test_rawlock $(BUILD)/tests/unit/tsan/test_rawlock: kernel/ke/rawlock.h kernel/ke/lockorder.h \
	kernel/sched/dispatcher_lock.h kernel/sched/ki.h kernel/ke/prcb.h

UNIT_NAMES += rawlock
UNIT_TSAN_NAMES += rawlock
