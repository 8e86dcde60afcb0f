# unit-chunk-assert.mk - the chunker's asserted rules (kernel/trace/out/chunk.c),
# each broken by a test that expects the bug check.

unit_chunk_assert_SRCS := kernel/trace/out/chunk.c kernel/trace/trace_delta.c kernel/lib/codec/lz4.c

UNIT_NAMES += chunk_assert
$(BUILD)/tests/unit/test_chunk_assert: kernel/debug/kassert.h kernel/trace/out/chunk.h
