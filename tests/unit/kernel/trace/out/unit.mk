# tests/unit/kernel/trace/out/unit.mk - the trace output layer (included by
# tests/unit/unit.mk):
#   chunk              cutting a sub-buffer into chunk frames
#                      (kernel/trace/out/chunk.c) and a chunk's payload, raw
#                      or delta + LZ4 (round-tripped through liblz4)
#   chunk_assert       the chunker's asserted rules, each broken by a test
#                      that expects the bug check
#   send_policy        when the stream-mode trace logger sends and at which
#                      priority (kernel/trace/out/send_policy.c)
#   traceout           the layer (kernel/trace/out/out*.c): the serial and
#                      stick sinks
#   traceout_file      the file form (out_file.c)
#   traceout_recovery  the stick sink when the stick fails mid-run
#                      (out_stick.c)
# The last three run over an in-memory stick (tests/unit/support/fake_stick.c
# implements kernel/usb/storage/stick.h), the real page allocator on fake
# RAM and the serial port as a buffer, and decode what the sinks got with
# the host tool (TRACEOUT_UNIT_SRCS, tests/unit/unit.mk).

UNIT_TESTS += $(addprefix tests/unit/kernel/trace/out/test_,chunk.c chunk_assert.c send_policy.c traceout.c traceout_file.c traceout_recovery.c)

unit_chunk_SRCS := kernel/trace/out/chunk.c kernel/trace/trace_delta.c kernel/lib/codec/lz4.c tests/unit/support/golden_records.c
$(BUILD)/tests/unit/kernel/trace/out/test_chunk: UNIT_LIBS += -llz4
$(BUILD)/tests/unit/kernel/trace/out/test_chunk: kernel/lib/codec/lz4.h kernel/trace/trace_delta.h \
	tests/unit/support/golden_records.h

unit_chunk_assert_SRCS := kernel/trace/out/chunk.c kernel/trace/trace_delta.c kernel/lib/codec/lz4.c
$(BUILD)/tests/unit/kernel/trace/out/test_chunk_assert: kernel/debug/kassert.h kernel/trace/out/chunk.h

unit_send_policy_SRCS := kernel/trace/out/send_policy.c
$(BUILD)/tests/unit/kernel/trace/out/test_send_policy: kernel/trace/out/send_policy.h kernel/trace/tracebuf.h

unit_traceout_SRCS      := $(TRACEOUT_UNIT_SRCS)
unit_traceout_file_SRCS := $(TRACEOUT_UNIT_SRCS)
unit_traceout_recovery_SRCS := $(TRACEOUT_UNIT_SRCS)

TRACEOUT_UNIT_BINS := $(addprefix $(BUILD)/tests/unit/kernel/trace/out/test_,traceout traceout_file traceout_recovery)
$(TRACEOUT_UNIT_BINS): UNIT_CFLAGS += $(TRACEOUT_UNIT_CFLAGS)
$(TRACEOUT_UNIT_BINS): $(TRACEOUT_UNIT_DEPS)
