# unit-traceout.mk - the trace output layer (kernel/trace/out/out*.c) and the
# trace's settings (trace_configure.c, test_traceconfig): the
# serial and stick sinks and the file form, over an in-memory stick
# (tests/unit/support/fake_stick.c implements kernel/usb/storage/stick.h), the real page
# allocator on fake RAM, and the serial port as a buffer.  The bytes both
# sinks got are decoded by the host tool (build/kprof decode), so the tests
# depend on it.  <arch/dev/serial.h> comes from arch/x86_64/include, searched
# after the shadow headers (as in unit-cmdline.mk).

TRACEOUT_UNIT_SRCS := kernel/trace/out/out.c kernel/trace/out/out_file.c kernel/trace/out/out_serial.c kernel/ke/time/time.c kernel/lib/muldiv.c \
	kernel/trace/out/out_stick.c kernel/trace/out/frame.c kernel/lib/codec/crc32.c kernel/lib/printf.c kernel/lib/size.c kernel/mm/pmm.c \
	kernel/trace/config/trace_keys.c kernel/trace/config/trace_configure.c kernel/trace/config/tracefit.c \
	kernel/usb/core/usb_status.c kernel/usb/storage/stick_keys.c boot/common/diskid.c boot/common/gpt.c \
	tests/unit/support/fake_stick.c tests/unit/support/traceout_gen.c
unit_traceout_SRCS      := $(TRACEOUT_UNIT_SRCS)
unit_traceout_file_SRCS := $(TRACEOUT_UNIT_SRCS)
unit_traceout_recovery_SRCS := $(TRACEOUT_UNIT_SRCS)
unit_traceconfig_SRCS   := $(TRACEOUT_UNIT_SRCS)

TRACEOUT_UNIT_BINS := $(addprefix $(BUILD)/tests/unit/test_,traceout traceout_file traceout_recovery traceconfig)
$(TRACEOUT_UNIT_BINS): UNIT_CFLAGS += -Iarch/x86_64/include -DKPROF_TOOL_PATH='"$(abspath $(KPROF_TOOL))"'
$(TRACEOUT_UNIT_BINS): $(KPROF_TOOL) $(wildcard kernel/trace/out/*.h kernel/trace/config/*.h kernel/trace/trace_*.h) kernel/usb/storage/stick.h \
	include/kprof/wire_file.h \
	tests/unit/support/fake_stick.h tests/unit/support/traceout_gen.h

UNIT_NAMES += traceout traceout_file traceout_recovery traceconfig
