# tests/unit/kernel/trace/unit.mk - the trace's core (included by
# tests/unit/unit.mk):
#   tracebuf         the per-CPU trace buffer (kernel/trace/tracebuf.c) and
#                    the frame header (kernel/trace/out/frame.c, CRC-32
#                    against zlib)
#   tracebuf_loss    records-lost records in the per-CPU trace buffer: drops
#                    placed at their time, counted by cause
#   tracebuf_assert  the trace buffer's asserted invariants, each broken on
#                    purpose: the bug check fires
#   objname          the table of named objects and its KprofObjectName
#                    records (kernel/trace/objname.c): at creation, in the
#                    rundown, gated by group, forgotten, replaced, the table
#                    full, the name cut
#   user_event       user event types and events (kernel/trace/user_event.c):
#                    the type record, the packed values, the bounds refused
#                    or cut

UNIT_TESTS += $(addprefix tests/unit/kernel/trace/test_,tracebuf.c tracebuf_loss.c tracebuf_assert.c objname.c user_event.c)

unit_tracebuf_SRCS := kernel/trace/tracebuf.c kernel/trace/out/frame.c kernel/lib/codec/crc32.c
unit_tracebuf_loss_SRCS := kernel/trace/tracebuf.c
unit_tracebuf_assert_SRCS := kernel/trace/tracebuf.c
unit_objname_SRCS := kernel/trace/objname.c kernel/lib/printf.c
unit_user_event_SRCS := kernel/trace/user_event.c kernel/lib/printf.c

$(BUILD)/tests/unit/kernel/trace/test_tracebuf_loss: tests/unit/support/tracebuf_fixture.h
$(BUILD)/tests/unit/kernel/trace/test_tracebuf_assert: tests/unit/support/tracebuf_fixture.h kernel/debug/kassert.h

# objname and user_event capture their records with a writer of their own
# (kernel/trace/trace.h: KPROF_TRACE_WRITER_CAPTURE).
$(BUILD)/tests/unit/kernel/trace/test_objname $(BUILD)/tests/unit/kernel/trace/test_user_event: \
	UNIT_CFLAGS += -DKPROF_TRACE_WRITER_CAPTURE
