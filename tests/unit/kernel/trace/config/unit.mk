# tests/unit/kernel/trace/config/unit.mk - the trace's settings (included by
# tests/unit/unit.mk):
#   tracefit         the sizing of every CPU's trace buffer against free memory
#                    (kernel/trace/config/tracefit.c)
#   trace_configure  trace_configure() (kernel/trace/config/trace_configure.c):
#                    the settings from the parsed keys and what probing
#                    found, over the trace output layer's sources
#                    (TRACEOUT_UNIT_SRCS, tests/unit/unit.mk)

UNIT_TESTS += tests/unit/kernel/trace/config/test_tracefit.c tests/unit/kernel/trace/config/test_trace_configure.c

unit_tracefit_SRCS := kernel/trace/config/tracefit.c
unit_trace_configure_SRCS := $(TRACEOUT_UNIT_SRCS)

$(BUILD)/tests/unit/kernel/trace/config/test_trace_configure: UNIT_CFLAGS += $(TRACEOUT_UNIT_CFLAGS)
$(BUILD)/tests/unit/kernel/trace/config/test_trace_configure: $(TRACEOUT_UNIT_DEPS)
