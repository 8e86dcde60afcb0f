# unit-profile-source.mk - the profile interrupt sources
# (kernel/profile/source.c) on the real PMU drivers (arch/x86_64/pmu/pmu.c,
# pmu_intel.c, pmu_amd.c) over the counter model (tests/unit/support/pmu_model.c),
# with test doubles for the profile timer, the broadcast, the mutex and
# ke_profile_interrupt_with_source in the test itself.
#
# source.c is not in the list: test_profile_source.c #includes it, so that
# it can capture the PMC handler source.c connects (the shadow's
# arch_interrupt_connect is a no-op inline and the handler is static).

unit_profile_source_SRCS := arch/x86_64/pmu/pmu.c arch/x86_64/pmu/pmu_intel.c arch/x86_64/pmu/pmu_amd.c tests/unit/support/pmu_model.c \
	kernel/lib/printf.c

# arch/dev/pmu.h has no shadow: the real arch headers are searched after
# tests/unit/shadow, so every other <arch/...> header is still the shadow's.
$(BUILD)/tests/unit/test_profile_source: UNIT_CFLAGS += -Iarch/x86_64/include
$(BUILD)/tests/unit/test_profile_source: kernel/profile/source.c kernel/profile/source.h \
	kernel/profile/profile_timer.h arch/x86_64/include/arch/dev/pmu.h arch/x86_64/pmu/pmu_hw.h tests/unit/support/pmu_model.h

UNIT_NAMES += profile_source
