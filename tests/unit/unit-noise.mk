# unit-noise.mk - scenario=noise's gap detector (kernel/noise/gap.c)
# driven by a model clock: gaps found, kept and counted, SMI counts around
# them, the join that marks gaps seen by several CPUs at once.

unit_noise_gap_SRCS := kernel/noise/gap.c

$(BUILD)/tests/unit/test_noise_gap: kernel/noise/gap.h

UNIT_NAMES += noise_gap

# The timer latency pass's histogram and percentiles (kernel/noise/latency.c).
unit_noise_latency_SRCS := kernel/noise/latency.c

$(BUILD)/tests/unit/test_noise_latency: kernel/noise/latency.h

UNIT_NAMES += noise_latency
