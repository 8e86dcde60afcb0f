# tests/unit/kernel/timekeep/unit.mk - time-keeping (included by
# tests/unit/unit.mk):
#   timekeep   time never goes back: the trace writer's clamp
#              (kernel/trace/tracebuf.c), the TSC watchdog's check
#              (kernel/timekeep/tsc_check.c) and the boot skew's interval
#              (kernel/timekeep/skew_interval.c) against a model of TSCs
#              that jump back, drift and differ between CPUs
#   fidelity   what a run's figures are worth: the half-octave lateness
#              buckets (include/kprof/lateness.h) and each CPU's
#              KprofFidelity record (kernel/timekeep/fidelity.c) with a
#              faked broadcast and trace

UNIT_TESTS += tests/unit/kernel/timekeep/test_timekeep.c tests/unit/kernel/timekeep/test_fidelity.c

unit_timekeep_SRCS := kernel/trace/tracebuf.c kernel/timekeep/tsc_check.c kernel/timekeep/skew_interval.c \
	kernel/ke/time/time.c kernel/lib/muldiv.c
unit_fidelity_SRCS := kernel/timekeep/fidelity.c

$(BUILD)/tests/unit/kernel/timekeep/test_timekeep: kernel/timekeep/tsc_check.h kernel/timekeep/skew.h kernel/trace/tracebuf.h
$(BUILD)/tests/unit/kernel/timekeep/test_fidelity: include/kprof/lateness.h kernel/timekeep/fidelity.h
# test_fidelity captures its records with a writer of its own
# (kernel/trace/trace.h: KPROF_TRACE_WRITER_CAPTURE).
$(BUILD)/tests/unit/kernel/timekeep/test_fidelity: UNIT_CFLAGS += -DKPROF_TRACE_WRITER_CAPTURE
