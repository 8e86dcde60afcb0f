# unit-phase.mk - the phases of a run (kernel/workloads/phase.c): the
# console lines at a phase's start and end, and the line of a phase that
# ran far longer than asked, with what the kernel measured.

unit_phase_SRCS := kernel/workloads/phase.c kernel/ke/time/time.c kernel/lib/muldiv.c kernel/lib/printf.c

$(BUILD)/tests/unit/test_phase: kernel/workloads/phase.h kernel/workloads/measure.h kernel/ke/prcb.h

UNIT_NAMES += phase
