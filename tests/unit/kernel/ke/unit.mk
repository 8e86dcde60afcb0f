# tests/unit/kernel/ke/unit.mk - the ground floor (included by
# tests/unit/unit.mk); both tests also run under TSan, pthreads standing in
# for CPUs:
#   irql_dpc   IRQL rules (kernel/ke/irql.c) and DPC queueing (dpc.c), each
#              host thread a CPU with its own KPRCB
#   rawlock    the raw lock checks: owner (SPIN_LOCK_ALREADY_OWNED,
#              SPIN_LOCK_NOT_OWNED), the ranked order dispatcher -> timer
#              queue -> DPC queue (KPROF_LOCK_ORDER), and the dispatcher's
#              assertions that its ki_ functions run under its lock
#              (docs/locking.md)

UNIT_TESTS += tests/unit/kernel/ke/test_irql_dpc.c tests/unit/kernel/ke/test_rawlock.c

unit_irql_dpc_SRCS := kernel/ke/irql.c kernel/ke/dpc.c
unit_rawlock_SRCS := kernel/sched/dispatch.c kernel/sched/idle.c kernel/sched/readyq.c kernel/sched/priority.c kernel/sched/wait.c \
	kernel/sched/objects/event.c kernel/ke/time/timerq.c kernel/ke/dpc.c kernel/ke/irql.c kernel/ke/time/time.c kernel/lib/muldiv.c

$(BUILD)/tests/unit/kernel/ke/test_rawlock $(BUILD)/tests/unit/tsan/kernel/ke/test_rawlock: kernel/ke/rawlock.h \
	kernel/ke/lockorder.h kernel/sched/dispatcher_lock.h kernel/sched/ki.h kernel/ke/prcb.h

UNIT_TSAN_NAMES += irql_dpc rawlock
