# unit-sched-preempt.mk - a thread made ready that outranks a running one
# preempts at once (kernel/sched/dispatch.c with the dispatcher it is part
# of): a CPU already asked to make room counts at the priority it was
# given, ties go to the CPU making the thread ready, and the answer to a
# request to reschedule is reported for the stall record (the sched-4 case,
# docs/scheduler.md).

unit_sched_preempt_SRCS := $(unit_sched_SRCS)

$(BUILD)/tests/unit/test_sched_preempt: tests/unit/support/sched_fixture.h

UNIT_NAMES += sched_preempt
