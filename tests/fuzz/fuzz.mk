# fuzz.mk - `make fuzz`: the log decoder under libFuzzer (included by the
# Makefile).
#
# Builds $(BUILD)/fuzz/fuzz_decoder (tests/fuzz/fuzz_decoder.c with the
# decoder's sources, and the model and fidelity statement its summary JSON
# reads; clang, ASan and UBSan; packages clang and
# libclang-rt-14-dev) and runs it for FUZZ_SECONDS (default 30) in all, on
# a working corpus in $(BUILD)/fuzz/corpus, seeded from tests/fuzz/corpus
# and kept between runs: a fifth of the time each damaging a raw wire v2
# log, a v1 log, a compressed v2 log with encoding-1 chunks (delta + LZ4),
# one with encoding-2 chunks (the per-writer Sequence delta as well) and
# one with user event types and events
# (FUZZ_LOGS; the decoder reads them all; it links liblz4).  Prints, per log, libFuzzer's
# closing stats line, then
#   fuzz: LOG: N runs in S s, 0 crashes
# A crash, timeout or leak fails the target and leaves the input in
# $(BUILD)/fuzz/ (crash-*, timeout-*, ...): rerun it with
#   $(BUILD)/fuzz/fuzz_decoder $(BUILD)/fuzz/crash-...
# from the repository root.  The whole libFuzzer output is in
# $(BUILD)/fuzz/fuzz.log.

BUILD        ?= build
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_decoder
FUZZ_LOGS    := tests/golden/tracetest-2cpu-v2.log tests/golden/tracetest-2cpu.log tests/golden/mix-2cpu-v2-lz4.log \
		tests/golden/tracetest-2cpu-v2-lz4.log tests/golden/events-2cpu.log
FUZZ_SRCS    := tests/fuzz/fuzz_decoder.c tools/kprof/read/log.c tools/kprof/read/store.c tools/kprof/read/frames.c tools/kprof/read/finish.c tools/kprof/util/alloc.c tools/kprof/read/records.c \
		tools/kprof/read/drops.c tools/kprof/read/user_types.c \
		tools/kprof/read/fields.c tools/kprof/summary.c tools/kprof/export/decode.c tools/kprof/util/json.c \
		tools/kprof/util/utf8.c tools/kprof/util/outfile.c tools/kprof/progress/progress.c kernel/trace/trace_delta.c \
		$(wildcard tools/kprof/model/*.c tools/kprof/fidelity/*.c) tools/kprof/util/format.c tools/kprof/util/kpassert.c tools/kprof/util/hash.c
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Wall -Wextra -Wno-unused-parameter -I. -Iinclude

$(FUZZ_BIN): $(FUZZ_SRCS) $(wildcard tools/kprof/*.h tools/kprof/*/*.h tools/kprof/*/*/*.h include/kprof/*.h kernel/trace/trace_delta.h) tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	@printf '  %-7s %s\n' FUZZCC $@
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SRCS) -o $@ -llz4 -lz

.PHONY: fuzz
fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus
	@cp tests/fuzz/corpus/* $(FUZZ_DIR)/corpus/
	@rm -f $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/timeout-* $(FUZZ_DIR)/oom-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/slow-unit-*
	@secs_each=$$(( ($(FUZZ_SECONDS) + $(words $(FUZZ_LOGS)) - 1) / $(words $(FUZZ_LOGS)) )); \
	for log in $(FUZZ_LOGS); do \
	printf '  %-7s %s for %s s on %s\n' FUZZ $(FUZZ_BIN) $$secs_each $$log; \
	start=$$(date +%s); \
	KPROF_FUZZ_LOG=$$log $(FUZZ_BIN) -max_len=4096 -timeout=5 -max_total_time=$$secs_each \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/ $(FUZZ_DIR)/corpus > $(FUZZ_DIR)/fuzz.log 2>&1; \
	rc=$$?; secs=$$(( $$(date +%s) - start )); \
	runs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_DIR)/fuzz.log | tail -n 1); \
	crashes=$$(ls $(FUZZ_DIR) | grep -c -E '^(crash|timeout|oom|leak)-'); \
	grep -E '^#[0-9]+[[:space:]]+DONE' $(FUZZ_DIR)/fuzz.log | tail -n 1; \
	if [ $$rc -ne 0 ] || [ $$crashes -ne 0 ]; then \
		grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|INITED|RELOAD)' $(FUZZ_DIR)/fuzz.log | tail -n 40; \
		[ $$crashes -ne 0 ] || crashes=1; \
		input=$$(ls $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/timeout-* $(FUZZ_DIR)/oom-* $(FUZZ_DIR)/leak-* 2>/dev/null); \
		echo "fuzz: $$log: $${runs:-?} runs in $$secs s, $$crashes crashes (exit status $$rc)"; \
		echo "fuzz: what the input does: KPROF_FUZZ_LOG=$$log KPROF_FUZZ_VERBOSE= $(FUZZ_BIN) $$input"; \
		exit 1; \
	fi; \
	echo "fuzz: $$log: $$runs runs in $$secs s, 0 crashes"; \
	done
