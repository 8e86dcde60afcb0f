# unit-profile-pace.mk - the ProfileTime interval a machine can afford
# (kernel/profile/pace.c): the default kept where interrupts are cheap,
# lengthened where they are not, a given one kept whatever it costs.

unit_profile_pace_SRCS := kernel/profile/pace.c

$(BUILD)/tests/unit/test_profile_pace: kernel/profile/pace.h kernel/profile/source.h

UNIT_NAMES += profile_pace
