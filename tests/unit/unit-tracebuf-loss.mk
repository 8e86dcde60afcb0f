# unit-tracebuf-loss.mk - records-lost records in the per-CPU trace buffer
# (kernel/trace/tracebuf.c): drops placed at their time, counted by cause.

unit_tracebuf_loss_SRCS := kernel/trace/tracebuf.c

UNIT_NAMES += tracebuf_loss
$(BUILD)/tests/unit/test_tracebuf_loss: tests/unit/support/tracebuf_fixture.h
