# tests/unit/kernel/noise/unit.mk - scenario=noise's passes (included by
# tests/unit/unit.mk):
#   gap      the gap detector (kernel/noise/gap.c) driven by a model clock:
#            gaps found, kept and counted, SMI counts around them, the join
#            that marks gaps seen by several CPUs at once
#   latency  the timer latency pass's histogram and percentiles
#            (kernel/noise/latency.c)

UNIT_TESTS += tests/unit/kernel/noise/test_gap.c tests/unit/kernel/noise/test_latency.c

unit_gap_SRCS := kernel/noise/gap.c
unit_latency_SRCS := kernel/noise/latency.c

$(BUILD)/tests/unit/kernel/noise/test_gap: kernel/noise/gap.h
$(BUILD)/tests/unit/kernel/noise/test_latency: kernel/noise/latency.h
