# tests/unit/kernel/lib/codec/unit.mk - the LZ4 block compressor
# (kernel/lib/codec/lz4.c) and the TSC delta transform
# (kernel/trace/trace_delta.c), checked against liblz4's decoder on
# synthetic data and on the records of the logs in tests/golden (included
# by tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/lib/codec/test_lz4.c
unit_lz4_SRCS := kernel/lib/codec/lz4.c kernel/trace/trace_delta.c tests/unit/support/golden_records.c

$(BUILD)/tests/unit/kernel/lib/codec/test_lz4: UNIT_LIBS += -llz4
$(BUILD)/tests/unit/kernel/lib/codec/test_lz4: kernel/lib/codec/lz4.h kernel/trace/trace_delta.h \
	tests/unit/support/golden_records.h
