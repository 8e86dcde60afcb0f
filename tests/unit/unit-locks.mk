# unit-locks.mk - the spin locks, their instrumentation and the sampling
# parameters, with the trace writer and buffers they write to.

unit_locks_SRCS := kernel/locks/spinlock.c kernel/locks/queuedlock.c kernel/locks/exspinlock.c \
	kernel/locks/lockstat.c kernel/ex/sysinfo.c kernel/ke/irql.c kernel/ke/dpc.c \
	kernel/trace/writer.c kernel/trace/tracebuf.c

UNIT_NAMES += locks
UNIT_TSAN_NAMES += locks
