# unit-timekeep.mk - time never goes back (test_timekeep): the trace
# writer's clamp (kernel/trace/tracebuf.c), the TSC watchdog's check
# (kernel/timekeep/tsc_check.c) and the boot skew's interval
# (kernel/timekeep/skew_interval.c) against a model of TSCs that jump back,
# drift and differ between CPUs.

unit_timekeep_SRCS := kernel/trace/tracebuf.c kernel/timekeep/tsc_check.c kernel/timekeep/skew_interval.c \
	kernel/ke/time/time.c kernel/lib/muldiv.c

UNIT_NAMES += timekeep
$(BUILD)/tests/unit/test_timekeep: kernel/timekeep/tsc_check.h kernel/timekeep/skew.h kernel/trace/tracebuf.h
