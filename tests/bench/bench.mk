# bench.mk - `make bench` (included by the Makefile).
#
# Each benchmark runs ours and the baseline in the same run, interleaved,
# and prints medians and ratios against its goal (bench_trace and
# bench_locks: pinned, each ratio against a floor with its 95% interval,
# tests/bench/bench_stats.h).  Benchmarks do
# not fail the build: these machines are noisy; they report.

BENCH_SCHED_ROUNDS ?= 3
BENCH_SENDER_ROUNDS ?= 3
# Rounds of the stick benchmark (tests/bench/stick_bench.py): each boots
# trace.out=usb and both, raw and compressed (4 OVMF boots, about 6 min).
BENCH_STICK_ROUNDS ?= 1

# The kernel's code generation, as far as a host program can have it: its
# frame pointers, no red zone, no sibling calls, no stack protector (the
# kernel's own flags, so that the benches time the code the kernel runs;
# docs/testing.md).  Left out: what a program at a user address cannot be
# (-mcmodel=kernel, -fno-pie), and -mgeneral-regs-only here: the benches'
# statistics are floating point; the kernel's files get it below
# (BENCH_KOBJ), the benches' timed parts from a pragma.
BENCH_KERNEL_CODEGEN := $(filter-out -ffreestanding -fno-pie -fno-pic -mcmodel=kernel -mgeneral-regs-only \
	-std=% -O% -g -W% -I% -M% -D%,$(KERNEL_CFLAGS))
BENCH_CFLAGS := -std=gnu11 -O2 -g $(BENCH_KERNEL_CODEGEN) -Wall -Wextra -Werror -Wno-unused-parameter \
	-Itests/unit/shadow -Itests/unit -I. -Iinclude -I$(BUILD)/include
# The kernel's .c files a bench times are compiled apart, with the kernel's
# instruction set too (-mgeneral-regs-only: no SSE); the bench's own file
# gives its timed part the same with a pragma, and its statistics are
# floating point.
BENCH_KOBJ := $(BUILD)/bench/kobj
BENCH_KHDRS := $(wildcard kernel/*/*.h kernel/*/*/*.h include/kprof/*.h tests/unit/shadow/*.h \
	tests/unit/shadow/arch/*.h) $(VERSION_H)
$(BENCH_KOBJ)/%.o: %.c $(BENCH_KHDRS)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(CC) $(BENCH_CFLAGS) -mgeneral-regs-only -c -o $@ $<

BENCH_TRACE_KSRCS := kernel/trace/writer.c kernel/trace/tracebuf.c kernel/ke/irql.c kernel/ke/dpc.c \
	kernel/ke/rawlock.c kernel/trace/user_event.c kernel/lib/printf.c
BENCH_TRACE_SRCS := tests/bench/bench_trace.c tests/unit/shadow/shadow.c

# bench_trace and bench_locks measure each timed function at 8 places of its
# code, in order between alignment directives: no reordering, no folding of
# the identical copies, functions aligned no further than the places are
# apart (tests/bench/bench_places.h).
BENCH_PLACES_CFLAGS := -fno-toplevel-reorder -fno-ipa-icf -falign-functions=8
$(BUILD)/bench/bench_trace: $(BENCH_TRACE_SRCS) $(BENCH_TRACE_KSRCS:%.c=$(BENCH_KOBJ)/%.o) tests/bench/bench_stats.h tests/bench/bench_places.h \
		$(BENCH_KHDRS)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(CC) $(BENCH_CFLAGS) $(BENCH_PLACES_CFLAGS) -o $@ $(BENCH_TRACE_SRCS) $(BENCH_TRACE_KSRCS:%.c=$(BENCH_KOBJ)/%.o)

BENCH_LOCKS_KSRCS := kernel/locks/spinlock.c kernel/locks/queuedlock.c kernel/locks/exspinlock.c \
	kernel/locks/lockstat.c kernel/trace/writer.c kernel/trace/tracebuf.c kernel/ke/irql.c kernel/ke/dpc.c \
	kernel/ke/rawlock.c
BENCH_LOCKS_SRCS := tests/bench/bench_locks.c tests/unit/shadow/shadow.c

$(BUILD)/bench/bench_locks: $(BENCH_LOCKS_SRCS) $(BENCH_LOCKS_KSRCS:%.c=$(BENCH_KOBJ)/%.o) tests/bench/bench_stats.h tests/bench/bench_places.h \
		$(BENCH_KHDRS)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(CC) $(BENCH_CFLAGS) $(BENCH_PLACES_CFLAGS) -o $@ $(BENCH_LOCKS_SRCS) $(BENCH_LOCKS_KSRCS:%.c=$(BENCH_KOBJ)/%.o) -lck -lpthread

BENCH_LZ4_SRCS := tests/bench/bench_lz4.c kernel/lib/codec/lz4.c kernel/lib/stats.c kernel/trace/trace_delta.c \
	tests/unit/support/golden_records.c

$(BUILD)/bench/bench_lz4: $(BENCH_LZ4_SRCS) kernel/lib/codec/lz4.h kernel/lib/stats.h kernel/trace/trace_delta.h \
		tests/unit/support/golden_records.h include/kprof/wmi.h
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $(BENCH_LZ4_SRCS) -llz4 -lz

# A raw log as the kernel would have sent it compressed (encoding 2: its own
# delta transform and LZ4), for the host-tool bench's compressed log and
# tests/tools/test_chunk_ring.
RECOMPRESS_SRCS := tests/bench/recompress.c kernel/lib/codec/lz4.c kernel/lib/codec/crc32.c kernel/trace/trace_delta.c
$(BUILD)/bench/recompress: $(RECOMPRESS_SRCS) kernel/lib/codec/lz4.h kernel/lib/codec/crc32.h kernel/trace/trace_delta.h \
		include/kprof/wire.h
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $(RECOMPRESS_SRCS)

# A fresh tracetest run for the wire measurement (4 CPUs, stream mode,
# buffers big enough that nothing is lost).
$(BUILD)/bench/tracetest.log: $(KERNEL) tools/qemu.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/qemu.py run --boot direct --cpus 4 --kernel $(KERNEL) --out $(BUILD)/bench/run \
		--cmdline "scenario=tracetest trace=tracetest trace.buffer_kb=8192" > /dev/null
	$(Q)cp $(BUILD)/bench/run/serial.log $@

# A fresh 2-CPU mix run (make run's default workload) for the damage
# benchmark: what link damage costs a real log (tests/bench/damage.py).
$(BUILD)/bench/mix.log: $(KERNEL) tools/qemu.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/qemu.py run --boot direct --cpus 2 --kernel $(KERNEL) --out $(BUILD)/bench/mixrun \
		--cmdline "scenario=mix trace.buffer_kb=8192" > /dev/null
	$(Q)cp $(BUILD)/bench/mixrun/serial.log $@

# Sets of 5 runs of one configuration for `kprof compare` (short
# scenario=locks runs, direct boot): its time over two sets and its
# false-positive rate over them all (tests/bench/compare_fp.py).
BENCH_COMPARE_SETS ?= 6
BENCH_COMPARE_CMDLINE := scenario=locks locks.ms=500 trace.mode=dump trace.buffer_kb=8192
$(BUILD)/bench/runs/.made: $(KERNEL) tools/qemu.py
	@mkdir -p $(dir $@)
	$(Q)for s in $$(seq 1 $(BENCH_COMPARE_SETS)); do \
		$(PYTHON) tools/qemu.py run --boot direct --cpus 2 --kernel $(KERNEL) --out $(BUILD)/bench/runs/$$s \
			--repeat 5 --cmdline "$(BENCH_COMPARE_CMDLINE)" > /dev/null || exit 1; done
	$(Q)touch $@

# The example workload (examples/ticketlock) in a kernel of its own, and
# sets of 5 runs of it, back to back: compare's false-positive rate over
# the workload's own events (between sets), and the hand-off time of the
# ticket lock against the queued lock within each set (--by Lock).
BENCH_TL_SETS ?= 6
BENCH_TL_BUILD := $(BUILD)/bench/ticketlock-build
BENCH_TL_CMDLINE := scenario=ticketlock trace.mode=dump trace.buffer_kb=8192
$(BENCH_TL_BUILD)/kernel.elf: $(KERNEL) $(wildcard examples/ticketlock/*)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BENCH_TL_BUILD) WORKLOADS=examples/ticketlock $@
$(BUILD)/bench/tlruns/.made: $(BENCH_TL_BUILD)/kernel.elf tools/qemu.py
	@mkdir -p $(dir $@)
	$(Q)for s in $$(seq 1 $(BENCH_TL_SETS)); do \
		$(PYTHON) tools/qemu.py run --boot direct --cpus 2 --kernel $(BENCH_TL_BUILD)/kernel.elf \
			--out $(BUILD)/bench/tlruns/$$s --repeat 5 --cmdline "$(BENCH_TL_CMDLINE)" > /dev/null || exit 1; done
	$(Q)touch $@

# A log of 20 million records for the host-tool bench (tests/bench/biglog.py:
# the golden mix run replicated, re-sequenced and shifted in time; about
# 800 MB), and the bench itself: every command on it, records/s and peak
# memory beside the goals (tests/bench/tool_bench.py; about 10 min).
BENCH_TOOL_RECORDS ?= 20000000
BENCH_TOOL_SOURCE := tests/golden/mix-2cpu-v2.log
$(BUILD)/bench/big.log: tests/bench/biglog.py $(BENCH_TOOL_SOURCE)
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tests/bench/biglog.py $(BENCH_TOOL_SOURCE) $@ --records $(BENCH_TOOL_RECORDS)

# The same log compressed as the kernel compresses it (a stick's trace
# file is): what reading compressed chunks costs, and that they are not
# held decoded (tools/kprof/read/frames.c).
$(BUILD)/bench/big-z.log: $(BUILD)/bench/big.log $(BUILD)/bench/recompress
	$(Q)$(BUILD)/bench/recompress $< $@

# A log of the workload's own events (scenario=events) as big: the
# protobuf writer streams them too (tools/kprof/export/perfetto/proto/user.c).
BENCH_TOOL_EVENTS_SOURCE := tests/golden/events-2cpu.log
$(BUILD)/bench/big-events.log: tests/bench/biglog.py $(BENCH_TOOL_EVENTS_SOURCE)
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tests/bench/biglog.py $(BENCH_TOOL_EVENTS_SOURCE) $@ --records $(BENCH_TOOL_RECORDS)

# And of scenario=noise's gaps and timer latency (streamed too: proto/
# noise.c): a fresh raw run (the golden noise log is compressed, which
# biglog.py does not replicate) made as big.
$(BUILD)/bench/noise.log: $(KERNEL) tools/qemu.py
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/qemu.py run --boot direct --cpus 2 --kernel $(KERNEL) --out $(BUILD)/bench/noiserun \
		--cmdline "scenario=noise trace.compress=off trace.mode=dump trace.buffer_kb=16384" > /dev/null
	$(Q)cp $(BUILD)/bench/noiserun/serial.log $@
$(BUILD)/bench/big-noise.log: tests/bench/biglog.py $(BUILD)/bench/noise.log
	$(Q)$(PYTHON) tests/bench/biglog.py $(BUILD)/bench/noise.log $@ --records $(BENCH_TOOL_RECORDS)

bench-tool: $(KPROF_TOOL) $(BUILD)/bench/big.log $(BUILD)/bench/big-z.log $(BUILD)/bench/big-events.log \
		$(BUILD)/bench/big-noise.log
	@$(PYTHON) tests/bench/tool_bench.py $(KPROF_TOOL) $(BUILD)/bench/big.log --kernel tests/golden/report-kernel.elf
	@$(PYTHON) tests/bench/tool_bench.py $(KPROF_TOOL) $(BUILD)/bench/big-z.log --kernel tests/golden/report-kernel.elf \
		--only check decode etl ctf report flamegraph timeline
	@$(PYTHON) tests/bench/tool_bench.py $(KPROF_TOOL) $(BUILD)/bench/big-events.log \
		--kernel tests/golden/report-kernel.elf --only check perfetto
	@$(PYTHON) tests/bench/tool_bench.py $(KPROF_TOOL) $(BUILD)/bench/big-noise.log \
		--kernel tests/golden/report-kernel.elf --only check perfetto

.PHONY: bench bench-deps bench-build bench-stick bench-tool
# Built by `make check` too, so the benchmarks cannot rot between runs.
bench-build: $(BUILD)/bench/bench_trace $(BUILD)/bench/bench_locks $(BUILD)/bench/bench_lz4 $(BUILD)/bench/recompress

bench-deps:
	@sh tools/deps.sh check

bench: bench-deps $(BUILD)/bench/bench_trace $(BUILD)/bench/bench_locks $(BUILD)/bench/bench_lz4 \
		$(BUILD)/bench/tracetest.log $(BUILD)/bench/mix.log $(BUILD)/bench/runs/.made \
		$(BUILD)/bench/tlruns/.made $(KPROF_TOOL)
	@$(BUILD)/bench/bench_trace
	@$(BUILD)/bench/bench_locks
	@$(BUILD)/bench/bench_lz4
	@$(PYTHON) tests/bench/wire_bytes.py $(BUILD)/bench/tracetest.log $(BUILD)/bench/mix.log \
		tests/golden/tracetest-2cpu-v2.log tests/golden/tracetest-2cpu.log
	@$(PYTHON) tests/bench/damage.py $(KPROF_TOOL) $(BUILD)/bench/mix.log
	@$(PYTHON) tests/bench/damage.py $(KPROF_TOOL) $(BUILD)/bench/mix.log --chunk 1024 --chunk 512 --rates 16
	@$(PYTHON) tests/bench/hostile_bench.py $(KPROF_TOOL)
	@$(PYTHON) tests/bench/bench_sched.py $(KERNEL) $(BENCH_SCHED_ROUNDS)
	@$(PYTHON) tests/bench/sender.py $(KPROF_TOOL) $(KERNEL) --rounds $(BENCH_SENDER_ROUNDS)
	@$(PYTHON) tests/bench/bench_assert.py $(KPROF_TOOL) $(KERNEL) $(BUILD)/bench/mix.log
	@$(PYTHON) tests/bench/compare_fp.py $(KPROF_TOOL) $(KERNEL) \
		$(BUILD)/bench/runs/[0-9]* --timing
	@$(PYTHON) tests/bench/compare_fp.py $(KPROF_TOOL) $(BENCH_TL_BUILD)/kernel.elf \
		$(BUILD)/bench/tlruns/[0-9]* --timing --by Lock=ticket,queued
	@$(MAKE) --no-print-directory bench-tool
	@$(MAKE) --no-print-directory bench-stick

# The trace to the USB stick against serial, under QEMU (BOOT=usb): MB/s
# and the time from the end of the workload to "saved".
bench-stick: $(KERNEL) $(IMAGE)
	@$(PYTHON) tests/bench/stick_bench.py $(KERNEL) $(IMAGE) $(BENCH_STICK_ROUNDS)
