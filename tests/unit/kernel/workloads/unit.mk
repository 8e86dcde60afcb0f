# tests/unit/kernel/workloads/unit.mk - the workloads' frame (included by
# tests/unit/unit.mk):
#   phase      the phases of a run (kernel/workloads/phase.c): the
#              console lines at a phase's start and end, and the line of a
#              phase that ran far longer than asked, with what the kernel
#              measured
#   registry   the workloads' registry (WORKLOAD_DEFINE,
#              kernel/workloads/registry.c) and a workload's own keys and
#              rule (WORKLOAD_KEYS), with synthetic workloads, over the
#              command line's parser and every table (CMDLINE_UNIT_*,
#              tests/unit/unit.mk)

UNIT_TESTS += tests/unit/kernel/workloads/test_phase.c tests/unit/kernel/workloads/test_registry.c

unit_phase_SRCS := kernel/workloads/phase.c kernel/ke/time/time.c kernel/lib/muldiv.c kernel/lib/printf.c
$(BUILD)/tests/unit/kernel/workloads/test_phase: kernel/workloads/phase.h kernel/workloads/measure.h kernel/ke/prcb.h
# It captures its records with a writer of its own (kernel/trace/trace.h:
# KPROF_TRACE_WRITER_CAPTURE).
$(BUILD)/tests/unit/kernel/workloads/test_phase: UNIT_CFLAGS += -DKPROF_TRACE_WRITER_CAPTURE

unit_registry_SRCS := $(CMDLINE_UNIT_SRCS)
$(BUILD)/tests/unit/kernel/workloads/test_registry: UNIT_CFLAGS += $(CMDLINE_UNIT_CFLAGS)
$(BUILD)/tests/unit/kernel/workloads/test_registry: $(CMDLINE_UNIT_HDRS)
