# unit.mk - host unit tests (included by the Makefile).
#
# Each tests/unit/test_<name>.c is linked with the kernel sources listed in
# unit_NAME_SRCS, compiled for the host against the shadow arch headers in
# tests/unit/shadow (never arch/x86_64/include), with cmocka, ASan and UBSan.
# Tests whose names are also in UNIT_TSAN_NAMES (pthreads standing in for
# CPUs) are built a second time with ThreadSanitizer, and both run.
# tests/unit/unit-*.mk add groups of tests the same way.

UNIT_CC     ?= gcc
UNIT_BASE_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -fno-omit-frame-pointer \
	-Itests/unit/shadow -Itests/unit -I. -Iinclude -I$(BUILD)/include \
	-DKPROF_FONT_PSF='"$(BUILD)/kernel-obj/font.psf"'
UNIT_CFLAGS := $(UNIT_BASE_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=undefined
UNIT_TSAN_CFLAGS := $(UNIT_BASE_CFLAGS) -fsanitize=thread -DKPROF_UNDER_TSAN=1
UNIT_LIBS   := -lcmocka -lpthread -lz -lm
UNIT_SHADOW := tests/unit/shadow/shadow.c kernel/ke/rawlock.c

unit_printf_SRCS       := kernel/lib/printf.c
unit_cmdline_SRCS      := kernel/init/cmdline.c kernel/init/cmdline_tables.c kernel/init/cmdline_report.c kernel/lib/printf.c
unit_pmm_SRCS          := kernel/mm/pmm.c
unit_bootmap_SRCS      := boot/common/bootmap.c
unit_heap_SRCS         := kernel/mm/heap.c kernel/mm/pmm.c
unit_ksyms_SRCS        := kernel/debug/ksyms.c
unit_psf_SRCS          := kernel/console/psf.c
unit_uefi_mmap_SRCS    := boot/uefi/mmap_convert.c boot/common/bootmap.c
unit_irql_dpc_SRCS     := kernel/ke/irql.c kernel/ke/dpc.c
unit_timerq_SRCS       := kernel/ke/time/timerq.c kernel/ke/time/time.c kernel/lib/muldiv.c
unit_tracebuf_SRCS     := kernel/trace/tracebuf.c kernel/trace/out/frame.c kernel/lib/codec/crc32.c
unit_chunk_SRCS        := kernel/trace/out/chunk.c kernel/trace/trace_delta.c kernel/lib/codec/lz4.c tests/unit/support/golden_records.c
unit_smp_SRCS          := kernel/init/smp.c kernel/sched/readyq.c kernel/mm/pmm.c kernel/ke/dpc.c kernel/ke/irql.c kernel/ke/time/time.c kernel/lib/muldiv.c \
	kernel/lib/printf.c

unit_sched_SRCS        := kernel/sched/readyq.c kernel/sched/priority.c kernel/sched/dispatch.c kernel/sched/idle.c kernel/sched/wait.c \
	kernel/sched/wait_api.c kernel/sched/objects/event.c kernel/sched/objects/semaphore.c kernel/sched/objects/mutant.c \
	kernel/sched/objects/timer_object.c kernel/ke/time/timerq.c kernel/ke/dpc.c kernel/ke/irql.c kernel/ke/time/time.c kernel/lib/muldiv.c
unit_stats_SRCS        := kernel/lib/stats.c
unit_tracefit_SRCS     := kernel/trace/config/tracefit.c
unit_bootcmdline_SRCS  := boot/common/bootcmdline.c

UNIT_NAMES := printf cmdline cmdline_keys pmm bootmap heap ksyms psf uefi_mmap irql_dpc timerq smp tracebuf chunk sched stats tracefit bootcmdline
UNIT_TSAN_NAMES := irql_dpc
-include tests/unit/unit-*.mk
UNIT_BINS  := $(addprefix $(BUILD)/tests/unit/test_,$(UNIT_NAMES))
UNIT_TSAN_BINS := $(addprefix $(BUILD)/tests/unit/tsan/test_,$(UNIT_TSAN_NAMES))

# Dependency files: a test program is one compiler call over several .c
# files, so -MMD would keep only the last file's list; instead every
# header each of them includes is listed in $@.d (one rule per source, all
# naming the program), which the top Makefile includes.  Editing an inline
# fast path in a kernel header rebuilds every test that compiles it.  The
# sources get empty rules too (as -MP gives the headers), so a source that
# is moved or removed rebuilds the program instead of stopping make.
unit_deps = $(UNIT_CC) $(3) -MM -MP -MT $(1) $(2) > $(1).d.tmp && printf '%s:\n' $(2) >> $(1).d.tmp && \
	mv $(1).d.tmp $(1).d

.SECONDEXPANSION:
$(BUILD)/tests/unit/test_%: tests/unit/test_%.c $$(unit_$$*_SRCS) $(UNIT_SHADOW) \
		$(wildcard tests/unit/shadow/*.h tests/unit/shadow/arch/*.h tests/unit/shadow/arch/dev/*.h) $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $< $(unit_$*_SRCS) $(UNIT_SHADOW) $(UNIT_LIBS)
	$(Q)$(call unit_deps,$@,$< $(unit_$*_SRCS) $(UNIT_SHADOW),$(UNIT_CFLAGS))

$(BUILD)/tests/unit/tsan/test_%: tests/unit/test_%.c $$(unit_$$*_SRCS) $(UNIT_SHADOW) \
		$(wildcard tests/unit/shadow/*.h tests/unit/shadow/arch/*.h tests/unit/shadow/arch/dev/*.h) $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@ "(ThreadSanitizer)"
	$(Q)$(UNIT_CC) $(UNIT_TSAN_CFLAGS) -o $@ $< $(unit_$*_SRCS) $(UNIT_SHADOW) $(UNIT_LIBS)
	$(Q)$(call unit_deps,$@,$< $(unit_$*_SRCS) $(UNIT_SHADOW),$(UNIT_TSAN_CFLAGS))

$(BUILD)/tests/unit/test_psf: $(BUILD)/kernel-obj/font.o

.PHONY: unit-tests
unit-tests: $(UNIT_BINS) $(UNIT_TSAN_BINS)
	@TSAN_OPTIONS="halt_on_error=1 exitcode=66" sh tests/unit/run-unit-tests.sh $(UNIT_BINS) $(UNIT_TSAN_BINS)

# test_chunk also round-trips trace_chunk_encode() through liblz4.
$(BUILD)/tests/unit/test_chunk: UNIT_LIBS += -llz4
$(BUILD)/tests/unit/test_chunk: kernel/lib/codec/lz4.h kernel/trace/trace_delta.h tests/unit/support/golden_records.h
