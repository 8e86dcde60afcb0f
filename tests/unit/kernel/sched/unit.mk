# tests/unit/kernel/sched/unit.mk - the dispatcher (included by
# tests/unit/unit.mk), each test on the four CPUs of
# tests/unit/support/sched_fixture.h and every file of the dispatcher
# linked as the kernel builds them:
#   sched      the dispatcher's decisions: ready-queue selection
#              (readyq.c), where a ready thread goes and who it preempts
#              (dispatch.c), quanta, boosts and their decay (priority.c),
#              waits on every object with time-outs (wait.c, objects/)
#   idle       idle CPUs take ready work at once (kernel/sched/idle.c with
#              the dispatcher it serves): the idle summary, the idle CPU a
#              ready, yielding or raised thread is given to and kicked, and
#              the look through every queue when a CPU goes idle or comes
#              online
#   dispatch   a thread made ready that outranks a running one preempts at
#              once (kernel/sched/dispatch.c): a CPU already asked to make
#              room counts at the priority it was given, ties go to the CPU
#              making the thread ready, and the answer to a request to
#              reschedule is reported for the stall record (the sched-4
#              case, docs/scheduler.md)

UNIT_TESTS += $(addprefix tests/unit/kernel/sched/test_,sched.c idle.c dispatch.c)

unit_sched_SRCS := kernel/sched/readyq.c kernel/sched/priority.c kernel/sched/dispatch.c kernel/sched/idle.c kernel/sched/wait.c \
	kernel/sched/wait_api.c kernel/sched/objects/event.c kernel/sched/objects/semaphore.c kernel/sched/objects/mutant.c \
	kernel/sched/objects/timer_object.c kernel/ke/time/timerq.c kernel/ke/dpc.c kernel/ke/irql.c kernel/ke/time/time.c kernel/lib/muldiv.c
unit_idle_SRCS := $(unit_sched_SRCS)
unit_dispatch_SRCS := $(unit_sched_SRCS)

$(addprefix $(BUILD)/tests/unit/kernel/sched/test_,sched idle dispatch): tests/unit/support/sched_fixture.h
