# tests/unit/arch/x86_64/pmu/unit.mk - the PMU drivers (arch/x86_64/pmu/pmu.c,
# pmu_intel.c, pmu_amd.c) against a software model of the counter MSRs
# (included by tests/unit/unit.mk): tests/unit/support/pmu_model.c provides
# the pmu_hw_* functions that arch/x86_64/pmu/pmu_hw.c provides in the
# kernel.

UNIT_TESTS += tests/unit/arch/x86_64/pmu/test_pmu.c
unit_pmu_SRCS := arch/x86_64/pmu/pmu.c arch/x86_64/pmu/pmu_intel.c arch/x86_64/pmu/pmu_amd.c tests/unit/support/pmu_model.c \
	kernel/lib/printf.c

# arch/dev/pmu.h has no shadow: the real arch headers are searched after
# tests/unit/shadow, so every other <arch/...> header is still the shadow's.
$(BUILD)/tests/unit/arch/x86_64/pmu/test_pmu: UNIT_CFLAGS += -Iarch/x86_64/include
$(BUILD)/tests/unit/arch/x86_64/pmu/test_pmu: arch/x86_64/include/arch/dev/pmu.h arch/x86_64/pmu/pmu_hw.h \
	tests/unit/support/pmu_model.h
