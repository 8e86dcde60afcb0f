# unit-tracebuf-assert.mk - the per-CPU trace buffer's asserted invariants
# (kernel/trace/tracebuf.c), each broken on purpose: the bug check fires.

unit_tracebuf_assert_SRCS := kernel/trace/tracebuf.c

UNIT_NAMES += tracebuf_assert
$(BUILD)/tests/unit/test_tracebuf_assert: tests/unit/support/tracebuf_fixture.h kernel/debug/kassert.h
