# unit-fidelity.mk - what a run's figures are worth (test_fidelity): the
# half-octave lateness buckets (include/kprof/lateness.h) and each CPU's
# KprofFidelity record (kernel/timekeep/fidelity.c) with a faked broadcast
# and trace.

unit_fidelity_SRCS := kernel/timekeep/fidelity.c

$(BUILD)/tests/unit/test_fidelity: include/kprof/lateness.h kernel/timekeep/fidelity.h

UNIT_NAMES += fidelity
