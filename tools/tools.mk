# tools.mk - host tools built by `make all` (included by the Makefile).
#
# build/kprof: the decoder, report and pictures (tools/kprof/ and its
# folders: read/, model/, export/, report/, pictures/, util/), with the
# kernel's own CRC-32 and TSC delta transform (its inverse decodes
# encoding-1 chunks, with liblz4) and elfutils' libelf for the kernel's symbols
# and libdw for their source lines.
HOST_CC     ?= gcc
HOST_CFLAGS ?= -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -I. -Iinclude -MMD -MP
HOST_LIBS   ?= -ldw -lelf -llz4

KPROF_TOOL_SRCS := $(wildcard tools/kprof/*.c tools/kprof/*/*.c) kernel/lib/crc32.c kernel/trace/trace_delta.c
KPROF_TOOL_OBJS := $(patsubst %.c,$(BUILD)/host/%.o,$(KPROF_TOOL_SRCS))
KPROF_TOOL      := $(BUILD)/kprof
HOST_TOOLS      := $(KPROF_TOOL)

$(BUILD)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $<
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -c $< -o $@

$(KPROF_TOOL): $(KPROF_TOOL_OBJS)
	$(quiet) HOSTLD $@
	$(Q)$(HOST_CC) -o $@ $^ $(HOST_LIBS)

.PHONY: host-tools
host-tools: $(HOST_TOOLS)
