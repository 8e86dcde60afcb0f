# unit.mk - host unit tests (included by the Makefile).
#
# The tests sit by module, in the folder of tests/unit that mirrors the
# code they test (tests/unit/kernel/locks/test_locks.c tests kernel/locks/);
# the unit.mk beside them declares them (tests/unit/README.md):
#   UNIT_TESTS += tests/unit/.../test_<name>.c   the test's source
#   unit_<name>_SRCS := ...                      the sources it links
#   UNIT_TSAN_NAMES += <name>                    also built with ThreadSanitizer
# <name> is the program's name, unique over all the folders.  The program
# $(BUILD)/tests/unit/.../test_<name> is the test linked with
# unit_<name>_SRCS, compiled for the host against the shadow arch headers
# in tests/unit/shadow (never arch/x86_64/include), with cmocka, ASan and
# UBSan; the fakes, models and fixtures the tests share are in
# tests/unit/support (#include "support/fake_hci.h").  Tests in
# UNIT_TSAN_NAMES (pthreads standing in for CPUs) are built a second time
# with ThreadSanitizer, as $(BUILD)/tests/unit/tsan/.../test_<name>, and
# both run.

UNIT_CC     ?= gcc
UNIT_BASE_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -fno-omit-frame-pointer \
	-Itests/unit/shadow -Itests/unit -I. -Iinclude -I$(BUILD)/include \
	-DKPROF_FONT_PSF='"$(BUILD)/kernel-obj/font.psf"'
UNIT_CFLAGS := $(UNIT_BASE_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined
UNIT_TSAN_CFLAGS := $(UNIT_BASE_CFLAGS) -fsanitize=thread -DKPROF_UNDER_TSAN=1
UNIT_LIBS   := -lcmocka -lpthread -lz -lm
UNIT_SHADOW := tests/unit/shadow/shadow.c kernel/ke/rawlock.c

# Source lists that tests in more than one folder link (the folders'
# unit.mk are read in name order, so a list they share is set here).
#
# The command line's parser and every table (tools/cmdline-doc/cmdline-doc.mk):
# the tests of kernel/init, kernel/workloads and tools/cmdline-doc.  The
# architecture's table is compiled too, so <arch/cmdline.h> and
# <arch/dev/pmu.h> come from arch/x86_64/include, searched after the shadow
# headers (as for test_pmu).
CMDLINE_UNIT_SRCS := $(CMDLINE_PARSER_SRCS)
CMDLINE_UNIT_CFLAGS := -Iarch/x86_64/include
CMDLINE_UNIT_HDRS := $(wildcard kernel/init/*.h kernel/*/*_keys.h kernel/*/*/*_keys.h) arch/x86_64/include/arch/cmdline.h \
	kernel/lib/cmdline_key.h kernel/workloads/api/descriptor.h kernel/locks/spinlock_params.h kernel/profile/source.h kernel/trace/trace.h

# The USB stack's two upper layers, kernel/usb/core/ and kernel/usb/storage/,
# over the fake controller, hubs and disk (tests/unit/support/fake_hci.c,
# fake_hub.c, fake_bot.c), the kernel's page allocator and heap on fake RAM,
# and the disk identity and GPT checks the loader and the stick share: the
# tests of kernel/usb/core and kernel/usb/storage.
USBSTOR_KERNEL_SRCS := $(wildcard kernel/usb/core/*.c kernel/usb/storage/*.c) boot/common/diskid.c boot/common/gpt.c \
	kernel/mm/pmm.c kernel/mm/heap.c kernel/lib/printf.c kernel/lib/codec/crc32.c
USBSTOR_FAKE_SRCS := tests/unit/support/fake_hci.c tests/unit/support/fake_hub.c tests/unit/support/fake_bot.c
USBSTOR_HDRS := $(wildcard kernel/usb/*.h kernel/usb/core/*.h kernel/usb/storage/*.h) boot/common/diskid.h \
	tests/unit/support/fake_hci.h tests/unit/support/usbstor_fixture.h

# The trace output layer over an in-memory stick (tests/unit/support/fake_stick.c)
# and the trace's settings: the tests of kernel/trace/out and
# kernel/trace/config.  The bytes the sinks got are decoded by the host tool
# (build/kprof decode), so these tests depend on it; <arch/dev/serial.h>
# comes from arch/x86_64/include, searched after the shadow headers.
TRACEOUT_UNIT_SRCS := kernel/trace/out/out.c kernel/trace/out/out_file.c kernel/trace/out/out_serial.c kernel/ke/time/time.c kernel/lib/muldiv.c \
	kernel/trace/out/out_stick.c kernel/trace/out/frame.c kernel/lib/codec/crc32.c kernel/lib/printf.c kernel/lib/size.c kernel/mm/pmm.c \
	kernel/trace/config/trace_keys.c kernel/trace/config/trace_configure.c kernel/trace/config/tracefit.c \
	kernel/usb/core/usb_status.c kernel/usb/storage/stick_keys.c boot/common/diskid.c boot/common/gpt.c \
	tests/unit/support/fake_stick.c tests/unit/support/traceout_gen.c
TRACEOUT_UNIT_CFLAGS := -Iarch/x86_64/include -DKPROF_TOOL_PATH='"$(abspath $(KPROF_TOOL))"'
TRACEOUT_UNIT_DEPS := $(KPROF_TOOL) $(wildcard kernel/trace/out/*.h kernel/trace/config/*.h kernel/trace/trace_*.h) \
	kernel/usb/storage/stick.h include/kprof/wire_file.h tests/unit/support/fake_stick.h tests/unit/support/traceout_gen.h

# Every folder's unit.mk, up to four folders below tests/unit.
UNIT_TESTS :=
UNIT_TSAN_NAMES :=
UNIT_FRAGMENTS := $(sort $(wildcard $(addsuffix unit.mk,tests/unit/*/ tests/unit/*/*/ tests/unit/*/*/*/ tests/unit/*/*/*/*/)))
include $(UNIT_FRAGMENTS)

# A program's name: the <name> of its test_<name>.c.  Names key
# unit_<name>_SRCS, so two tests of one name, in any folders, are refused
# here.
unit_name = $(patsubst test_%,%,$(basename $(notdir $(1))))
UNIT_NAMES := $(foreach t,$(UNIT_TESTS),$(call unit_name,$(t)))
$(foreach n,$(sort $(UNIT_NAMES)),$(if $(filter-out 1,$(words $(filter $(n),$(UNIT_NAMES)))),\
	$(error unit tests: more than one test named test_$(n).c: $(filter %/test_$(n).c,$(UNIT_TESTS)))))
$(foreach n,$(UNIT_TSAN_NAMES),$(if $(filter $(n),$(UNIT_NAMES)),,\
	$(error unit tests: UNIT_TSAN_NAMES has $(n), but no UNIT_TESTS entry is test_$(n).c)))

UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_TESTS))
UNIT_TSAN_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/tsan/%, \
	$(foreach n,$(UNIT_TSAN_NAMES),$(filter %/test_$(n).c,$(UNIT_TESTS))))

# The sources a program links: its unit_<name>_SRCS.
unit_srcs = $(unit_$(call unit_name,$(1))_SRCS)

# Dependency files: a test program is one compiler call over several .c
# files, so -MMD would keep only the last file's list; instead every
# header each of them includes is listed in $@.d (one rule per source, all
# naming the program), which the top Makefile includes.  Editing an inline
# fast path in a kernel header rebuilds every test that compiles it.  The
# sources get empty rules too (as -MP gives the headers), so a source that
# is moved or removed rebuilds the program instead of stopping make.
unit_deps = $(UNIT_CC) $(3) -MM -MP -MT $(1) $(2) > $(1).d.tmp && printf '%s:\n' $(2) >> $(1).d.tmp && \
	mv $(1).d.tmp $(1).d

UNIT_SHADOW_HDRS := $(wildcard tests/unit/shadow/*.h tests/unit/shadow/arch/*.h tests/unit/shadow/arch/dev/*.h)

# The program's path below $(BUILD)/tests/unit (or $(BUILD)/tests/unit/tsan)
# is its source's below tests/unit, less the .c.
.SECONDEXPANSION:
$(BUILD)/tests/unit/tsan/%: tests/unit/%.c $$(call unit_srcs,$$*) $(UNIT_SHADOW) $(UNIT_SHADOW_HDRS) $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@ "(ThreadSanitizer)"
	$(Q)$(UNIT_CC) $(UNIT_TSAN_CFLAGS) -o $@ $< $(call unit_srcs,$*) $(UNIT_SHADOW) $(UNIT_LIBS)
	$(Q)$(call unit_deps,$@,$< $(call unit_srcs,$*) $(UNIT_SHADOW),$(UNIT_TSAN_CFLAGS))

$(BUILD)/tests/unit/%: tests/unit/%.c $$(call unit_srcs,$$*) $(UNIT_SHADOW) $(UNIT_SHADOW_HDRS) $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $< $(call unit_srcs,$*) $(UNIT_SHADOW) $(UNIT_LIBS)
	$(Q)$(call unit_deps,$@,$< $(call unit_srcs,$*) $(UNIT_SHADOW),$(UNIT_CFLAGS))

.PHONY: unit-tests
unit-tests: $(UNIT_BINS) $(UNIT_TSAN_BINS)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" sh tests/unit/run-unit-tests.sh $(UNIT_BINS) $(UNIT_TSAN_BINS)
