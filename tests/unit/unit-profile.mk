# unit-profile.mk - profile objects and the NtCreateProfile family
# (kernel/profile/profile.c, profile_dispatch.c) against a test double of
# the interrupt-source layer (tests/unit/support/fake_profile_source.c, in place
# of kernel/profile/source.c); pthreads stand in for CPUs taking profile
# interrupts while objects come and go, so it also runs under TSan.

unit_profile_SRCS := kernel/profile/profile.c kernel/profile/profile_dispatch.c tests/unit/support/fake_profile_source.c

$(BUILD)/tests/unit/test_profile $(BUILD)/tests/unit/tsan/test_profile: tests/unit/support/fake_profile_source.h \
	kernel/profile/profile.h kernel/profile/source.h

UNIT_NAMES += profile
UNIT_TSAN_NAMES += profile
