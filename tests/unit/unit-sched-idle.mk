# unit-sched-idle.mk - idle CPUs take ready work at once (kernel/sched/
# idle.c with the dispatcher it serves): the idle summary, the idle CPU a
# ready, yielding or raised thread is given to and kicked, and the look
# through every queue when a CPU goes idle or comes online.

unit_sched_idle_SRCS := $(unit_sched_SRCS)

$(BUILD)/tests/unit/test_sched_idle: tests/unit/support/sched_fixture.h
$(BUILD)/tests/unit/test_sched: tests/unit/support/sched_fixture.h

UNIT_NAMES += sched_idle
