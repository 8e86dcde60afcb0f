# tests/unit/kernel/ke/time/unit.mk - the per-CPU timer queue
# (kernel/ke/time/timerq.c) and the clock conversions (time.c,
# kernel/lib/muldiv.c) with fake clocks (included by tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/ke/time/test_timerq.c
unit_timerq_SRCS := kernel/ke/time/timerq.c kernel/ke/time/time.c kernel/lib/muldiv.c
