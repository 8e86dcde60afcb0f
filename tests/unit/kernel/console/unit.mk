# tests/unit/kernel/console/unit.mk - the console font parser
# (kernel/console/psf.c) on the font the kernel embeds, which the kernel's
# build makes (included by tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/console/test_psf.c
unit_psf_SRCS := kernel/console/psf.c

$(BUILD)/tests/unit/kernel/console/test_psf: $(BUILD)/kernel-obj/font.o
