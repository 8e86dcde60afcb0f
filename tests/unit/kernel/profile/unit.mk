# tests/unit/kernel/profile/unit.mk - profiling (included by
# tests/unit/unit.mk):
#   profile   profile objects and the NtCreateProfile family
#             (kernel/profile/profile.c, profile_dispatch.c) against a test
#             double of the interrupt-source layer
#             (tests/unit/support/fake_profile_source.c, in place of
#             kernel/profile/source.c); pthreads stand in for CPUs taking
#             profile interrupts while objects come and go, so it also runs
#             under TSan
#   pace      the ProfileTime interval a machine can afford
#             (kernel/profile/pace.c): the default kept where interrupts are
#             cheap, lengthened where they are not, a given one kept whatever
#             it costs
#   source    the profile interrupt sources (kernel/profile/source.c) on the
#             real PMU drivers (arch/x86_64/pmu/pmu.c, pmu_intel.c,
#             pmu_amd.c) over the counter model
#             (tests/unit/support/pmu_model.c), with test doubles for the
#             profile timer, the broadcast, the mutex and
#             ke_profile_interrupt_with_source in the test itself

UNIT_TESTS += $(addprefix tests/unit/kernel/profile/test_,profile.c pace.c source.c)

unit_profile_SRCS := kernel/profile/profile.c kernel/profile/profile_dispatch.c tests/unit/support/fake_profile_source.c
UNIT_TSAN_NAMES += profile
$(BUILD)/tests/unit/kernel/profile/test_profile $(BUILD)/tests/unit/tsan/kernel/profile/test_profile: \
	tests/unit/support/fake_profile_source.h kernel/profile/profile.h kernel/profile/source.h

unit_pace_SRCS := kernel/profile/pace.c
$(BUILD)/tests/unit/kernel/profile/test_pace: kernel/profile/pace.h kernel/profile/source.h

# source.c is not in the list: test_source.c #includes it, so that
# it can capture the PMC handler source.c connects (the shadow's
# arch_interrupt_connect is a no-op inline and the handler is static).
unit_source_SRCS := arch/x86_64/pmu/pmu.c arch/x86_64/pmu/pmu_intel.c arch/x86_64/pmu/pmu_amd.c tests/unit/support/pmu_model.c \
	kernel/lib/printf.c

# arch/dev/pmu.h has no shadow: the real arch headers are searched after
# tests/unit/shadow, so every other <arch/...> header is still the shadow's.
$(BUILD)/tests/unit/kernel/profile/test_source: UNIT_CFLAGS += -Iarch/x86_64/include
$(BUILD)/tests/unit/kernel/profile/test_source: kernel/profile/source.c kernel/profile/source.h \
	kernel/profile/profile_timer.h arch/x86_64/include/arch/dev/pmu.h arch/x86_64/pmu/pmu_hw.h tests/unit/support/pmu_model.h
