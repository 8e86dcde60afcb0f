# kprof - top-level Makefile.
#
#   make            kernel ELF, UEFI loader, host tools       (build/)
#   make image      GPT disk image with an EFI System Partition (build/kprof.img)
#   make run        boot the mix of every workload in QEMU; the report, pictures
#                   and trace files go to build/run/ (the latest run's only);
#                   it is tools/kprof-run, which CI calls for the run's own exit
#                   status (make exits 2 for any failure)
#   make check      unit tests, then boot tests in QEMU
#   make docs       docs/cmdline.md from the command-line key tables (with
#                   WORKLOADS=: also $(BUILD)/cmdline.md with their keys)
#   make clean
#
# Variables: BOOT=uefi|usb|direct (default uefi), CPUS=N (default 2),
# SCENARIO=mix|profile|locks|... (make run; default mix), CMDLINE="k=v ...",
# WORKLOADS="DIR ..." builds the workloads in those folders into the kernel
# (docs/workloads.md; use a separate BUILD= to keep a kernel without them),
# REPEAT=N (make run: N runs into build/runs/RUNS/1..N, RUNS default the scenario),
# OUT=DIR (make run's folder), OUTPUTS=all (every file even for a trace over 256 MiB),
# ACCEL=tcg|kvm, MACHINE=q35|pc, CPU=<qemu -cpu model>, MEM=<qemu -m> (default: from CPUS),
# STALL=S stops make run after S seconds with nothing on the serial port (default 0: 120 s,
# 5 s more a CPU beyond 8), TIMEOUT=S after S seconds in all (default 0: no cap; docs/running.md),
# BOOT=usb: USB_HC=qemu-xhci|nec-usb-xhci|usb-ehci (default qemu-xhci), USB_HUB=1 puts the stick
# behind a USB hub (default 0); TRACE_FILE_MB=N sizes \kprof\trace.bin (make image, default 256),
# IMAGE_TABLE=gpt|mbr its partition table (default gpt; mbr as shops sell sticks).
# LOCK_CHECKS=1|0 (default 1: raw lock owner and order checks, docs/locking.md;
# use a separate BUILD= for 0, objects are not rebuilt when it changes).
# ASSERTS=1|0 (default 1: the invariant checks of kernel/debug/kassert.h,
# docs/testing.md; likewise a separate BUILD= for 0).
# `make run` and `make check` install missing Debian packages first
# (tools/deps.sh says what it installs).

BUILD    ?= build
BOOT     ?= uefi
CPUS     ?= 2
USB_HC   ?= qemu-xhci
USB_HUB  ?= 0
CMDLINE  ?=
SCENARIO ?= mix
ACCEL    ?= tcg
MACHINE  ?= q35
CPU      ?=
MEM      ?=
STALL    ?= 0
TIMEOUT  ?= 0
PYTHON   ?= /usr/bin/python3
LOCK_CHECKS ?= 1
ASSERTS  ?= 1

KPROF_VERSION := 0.1.0

# Quiet build lines ("CC kernel/init/main.c"); V=1 shows the full commands.
ifeq ($(V),1)
Q :=
quiet = @true
else
Q := @
quiet = @printf '  %-7s %s\n'
endif

CC      := gcc
LD      := ld
NASM    := nasm
OBJCOPY := objcopy
NM      := nm
OBJDUMP := objdump

# ---------------------------------------------------------------- kernel

KERNEL_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-pie -fno-pic -mcmodel=kernel \
	-mno-red-zone -mgeneral-regs-only -fno-stack-protector -fno-stack-check \
	-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls \
	-fno-tree-loop-distribute-patterns -fno-asynchronous-unwind-tables -fno-common \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-I. -Iinclude -Iarch/x86_64/include -I$(BUILD)/include -MMD -MP -DKPROF_LOCK_CHECKS=$(LOCK_CHECKS) \
	-DKPROF_ASSERTS=$(ASSERTS)
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -T linker.ld
NASMFLAGS := -f elf64 -g -F dwarf

# A subsystem's sources are its folder's .c files and its layers' (one
# folder deeper, e.g. kernel/usb/xhci/).
KERNEL_C := $(wildcard boot/common/*.c boot/pvh/*.c arch/x86_64/*.c arch/x86_64/*/*.c kernel/*/*.c kernel/*/*/*.c kernel/*/*/*/*.c)
# trampoline.asm is a flat binary (the AP start-up page), embedded as data.
KERNEL_ASM := $(filter-out arch/x86_64/smp/trampoline.asm,$(wildcard boot/pvh/*.asm arch/x86_64/*.asm arch/x86_64/*/*.asm))
KERNEL_OBJS := $(patsubst %.c,$(BUILD)/kernel-obj/%.o,$(KERNEL_C)) \
	$(patsubst %.asm,$(BUILD)/kernel-obj/%.o,$(KERNEL_ASM)) \
	$(BUILD)/kernel-obj/font.o $(BUILD)/kernel-obj/trampoline.o

# WORKLOADS=DIR...: workloads built from folders outside the tree (each
# .c file of each folder, space-separated folders) into the kernel
# (docs/workloads.md).  Their objects go to $(BUILD)/workload-obj/ under
# the folder's absolute path; a folder may include only the workload API
# (kernel/workloads/api/), checked before compiling (check-layering.sh).
WORKLOADS ?=
WORKLOAD_DIRS := $(abspath $(WORKLOADS))
WORKLOAD_C := $(foreach d,$(WORKLOAD_DIRS),$(sort $(wildcard $(d)/*.c)))
WORKLOAD_OBJS := $(patsubst %.c,$(BUILD)/workload-obj%.o,$(WORKLOAD_C))
WORKLOADS_CFG := $(BUILD)/workloads.cfg
WORKLOADS_OK := $(BUILD)/workloads.layering
$(foreach d,$(WORKLOAD_DIRS),$(if $(wildcard $(d)/*.c),,$(error WORKLOADS=$(d): no .c file there; accepted: \
	folders holding workload sources)))
# The mistakes the compiler cannot see (no descriptor, two workloads of one
# name, a key not WORKLOAD.KEY or another table's), each with its file and
# line, refused as the Makefile is read: before anything is built.
ifneq ($(WORKLOAD_DIRS),)
ifneq ($(shell $(PYTHON) tools/check-workloads.py --quiet $(WORKLOAD_DIRS) >&2 || echo refused),)
$(error WORKLOADS: refused (the workloads: lines above))
endif
endif
KERNEL_OBJS += $(WORKLOAD_OBJS)
# Their files of keys (*_keys.c, including only kernel/workloads/api/keys.h
# and their own headers), documented by `make docs WORKLOADS=...`.
WORKLOAD_KEY_SRCS := $(foreach d,$(WORKLOAD_DIRS),$(sort $(wildcard $(d)/*_keys.c)))

FONT_SRC ?= /usr/share/consolefonts/Lat15-Fixed16.psf.gz
KERNEL   := $(BUILD)/kernel.elf
VERSION_H := $(BUILD)/include/generated/version.h

.PHONY: all image run check unit-tests boot-tests tool-tests node-deps deps clean
.DEFAULT_GOAL := all

all: $(KERNEL) $(BUILD)/boot/BOOTX64.EFI host-tools

$(BUILD)/kernel-obj/%.o: %.c $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(KERNEL_CFLAGS) -c $< -o $@

# The list of folders built in: the kernel is relinked when it changes.
$(WORKLOADS_CFG): FORCE
	@mkdir -p $(dir $@)
	@echo '$(WORKLOAD_DIRS)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(WORKLOADS_OK): $(WORKLOAD_C) $(foreach d,$(WORKLOAD_DIRS),$(wildcard $(d)/*.h)) tools/check-layering.sh
	@mkdir -p $(dir $@)
	$(quiet) LAYERS '$(WORKLOAD_DIRS)'
	$(Q)sh tools/check-layering.sh --workloads-only $(WORKLOAD_DIRS)
	@touch $@
$(BUILD)/workload-obj/%.o: /%.c $(VERSION_H) $(WORKLOADS_OK)
	@mkdir -p $(dir $@)
	$(quiet) CC $<
	$(Q)$(CC) $(KERNEL_CFLAGS) -I$(dir $<) -c $< -o $@

$(BUILD)/kernel-obj/%.o: %.asm
	@mkdir -p $(dir $@)
	$(quiet) NASM $<
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# The console font: a Debian console font, embedded as read-only data.
$(BUILD)/kernel-obj/font.o: $(FONT_SRC)
	@mkdir -p $(dir $@)
	@test -r $(FONT_SRC) || { echo "missing $(FONT_SRC): run 'make deps' (package console-setup-linux)"; exit 1; }
	$(quiet) FONT $(FONT_SRC)
	$(Q)gzip -dc $(FONT_SRC) > $(BUILD)/kernel-obj/font.psf
	$(Q)cd $(BUILD)/kernel-obj && $(OBJCOPY) -I binary -O elf64-x86-64 -B i386:x86-64 \
		--rename-section .data=.rodata,alloc,load,readonly,data,contents font.psf font.o

$(BUILD)/kernel-obj/trampoline.o: arch/x86_64/smp/trampoline.asm
	@mkdir -p $(dir $@)
	$(quiet) NASM $<
	$(Q)$(NASM) -f bin $< -o $(BUILD)/kernel-obj/trampoline.bin
	$(Q)cd $(BUILD)/kernel-obj && $(OBJCOPY) -I binary -O elf64-x86-64 -B i386:x86-64 \
		--rename-section .data=.rodata,alloc,load,readonly,data,contents trampoline.bin trampoline.o

# Version header: rewritten only when the git description changes.
GIT_DESC := $(shell git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
$(VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@printf '/* generated by the Makefile */\n#define KPROF_VERSION "%s"\n#define KPROF_BUILD_ID "%s"\n#define KPROF_BUILD_DATE "%s"\n' \
		'$(KPROF_VERSION)' '$(GIT_DESC)' "$$(date -u +%Y-%m-%d)" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# Two links: the first without symbols, whose text symbols become the
# .ksyms table of the second.  .ksyms lies after .text, so no function can
# move; the check below proves it.
$(BUILD)/kernel-obj/ksyms0.S: tools/gen-ksyms.sh
	@mkdir -p $(dir $@)
	$(Q)sh tools/gen-ksyms.sh - > $@
$(BUILD)/kernel-obj/%.o: $(BUILD)/kernel-obj/%.S
	$(Q)$(CC) -c $< -o $@
$(BUILD)/kernel.pass1.elf: $(KERNEL_OBJS) $(BUILD)/kernel-obj/ksyms0.o linker.ld $(WORKLOADS_CFG)
	$(quiet) LD $@
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(BUILD)/kernel-obj/ksyms0.o
$(BUILD)/kernel-obj/ksyms.S: $(BUILD)/kernel.pass1.elf tools/gen-ksyms.sh
	$(quiet) KSYMS $@
	$(Q)NM=$(NM) sh tools/gen-ksyms.sh $< > $@
$(KERNEL): $(KERNEL_OBJS) $(BUILD)/kernel-obj/ksyms.o linker.ld $(WORKLOADS_CFG)
	$(quiet) LD $@
	$(Q)$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(BUILD)/kernel-obj/ksyms.o
	@$(NM) -n $(BUILD)/kernel.pass1.elf | awk '$$2 ~ /^[tT]$$/' > $(BUILD)/kernel.pass1.text
	@$(NM) -n $@ | awk '$$2 ~ /^[tT]$$/' > $(BUILD)/kernel.text
	@cmp -s $(BUILD)/kernel.pass1.text $(BUILD)/kernel.text || \
		{ echo "ksyms: text symbols moved between links"; rm -f $@; exit 1; }
	$(Q)$(NM) -n $@ > $(BUILD)/kernel.sym
	$(Q)$(OBJDUMP) -d --no-show-raw-insn $@ > $(BUILD)/kernel.asm

# ---------------------------------------------------------------- loader

include boot/uefi/uefi.mk

# ---------------------------------------------------------------- host tools

include tools/tools.mk
include tools/cmdline-doc/cmdline-doc.mk

# ---------------------------------------------------------------- image

# TRACE_FILE_MB: the size of \kprof\trace.bin, the space reserved on the
# stick for the trace (docs/usb-stick.md); the disk grows to fit beyond
# 896 MiB.  IMAGE_TABLE: gpt (default) or mbr, the stick's partition
# table.  The image is rebuilt when either changes (image.cfg).
TRACE_FILE_MB ?= 256
IMAGE_TABLE ?= gpt
IMAGE := $(BUILD)/kprof.img
IMAGE_CFG := $(BUILD)/image.cfg
# The stick's \kprof\cmdline.txt: CMDLINE, and scenario=SCENARIO when
# SCENARIO is given (`make image SCENARIO=noise`) and CMDLINE names none;
# empty otherwise (the kernel's defaults; make run writes its own line
# into a private copy, tools/qemu.py).
IMAGE_CMDLINE := $(strip $(CMDLINE) $(if $(filter command line environment,$(origin SCENARIO)),$(if \
	$(findstring scenario=,$(CMDLINE)),,scenario=$(SCENARIO))))
image: $(IMAGE)
$(IMAGE_CFG): FORCE
	@mkdir -p $(dir $@)
	@echo 'TRACE_FILE_MB=$(TRACE_FILE_MB) IMAGE_TABLE=$(IMAGE_TABLE) CMDLINE=$(IMAGE_CMDLINE)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(IMAGE): $(KERNEL) $(BUILD)/boot/BOOTX64.EFI tools/image/mkimage.sh tools/image/check-trace-file.sh $(IMAGE_CFG)
	$(quiet) IMAGE $@
	$(Q)sh tools/image/mkimage.sh $@ $(BUILD)/boot/BOOTX64.EFI $(KERNEL) '$(TRACE_FILE_MB)' '$(IMAGE_CMDLINE)' '$(IMAGE_TABLE)'

# ---------------------------------------------------------------- run

deps:
	@sh tools/deps.sh check

# REPEAT=N: N runs of the configuration into build/runs/$(RUNS)/1..N (RUNS:
# the scenario unless given), for `kprof compare`.  OUT: the run's folder
# (default $(BUILD)/run, or that set's).  STALL, TIMEOUT: above.  USB_WRITE_ERROR=
# SECTOR[,always]: BOOT=usb, the stick's writes over that disk sector fail.
REPEAT ?=
RUNS   ?= $(SCENARIO)
OUT    ?=
OUTPUTS ?=
USB_WRITE_ERROR ?=

# `make run` is tools/kprof-run (the command CI calls: it builds, runs,
# converts and exits with the run's status; make turns any failure into 2).
# The variables reach its own make calls as they reach any sub-make
# (MAKEFLAGS and the environment): hence the recipe's `+`.
run:
	+@$(PYTHON) tools/kprof-run

# What tools/kprof-run reads: every variable a run takes (`var`), then the
# files it uses (`path`).  $(info) prints values as they are, quotes too.
RUN_VARS := BUILD BOOT CPUS CMDLINE SCENARIO WORKLOADS REPEAT RUNS OUT OUTPUTS STALL TIMEOUT ACCEL MACHINE CPU MEM \
	USB_HC USB_HUB USB_WRITE_ERROR TRACE_FILE_MB IMAGE_TABLE LOCK_CHECKS ASSERTS V
.PHONY: run-vars
run-vars:
	$(foreach v,$(RUN_VARS),$(info var $(v)=$($(v))))$(foreach v,KERNEL IMAGE KPROF_TOOL,$(info path $(v)=$($(v))))@:

# ---------------------------------------------------------------- tests

include tests/unit/unit.mk
include tests/bench/bench.mk
include tests/fuzz/fuzz.mk

check:
	@sh tools/deps.sh check
	@sh tools/check-layering.sh
	@$(PYTHON) tools/check-paths.py
	@$(PYTHON) tools/test-table.py --check
	@$(MAKE) --no-print-directory all image
	@sh tools/check-arch-services.sh $(BUILD)/kernel-obj
	@$(MAKE) --no-print-directory unit-tests
	@$(MAKE) --no-print-directory bench-build
	@$(MAKE) --no-print-directory tool-tests
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory boot-tests

# Test-only trace importers from the npm registry (tests/node/package.json,
# pinned by its package-lock.json), which tests/tools/test_perfetto_import
# loads trace.json with.  Without npm, or offline with an empty npm cache,
# this says so and those tests print "skipped".
NODE_DEPS := tests/node/node_modules/.package-lock.json
TOOL_TEST_DEPS += $(NODE_DEPS)
node-deps: $(NODE_DEPS)
$(NODE_DEPS): tests/node/package.json tests/node/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then echo "node-deps: skipped: no npm (make deps installs it)"; \
	elif ! (cd tests/node && npm ci --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error); then \
		echo "node-deps: skipped: npm ci failed (offline without a cache?)"; fi

tool-tests: $(KPROF_TOOL) $(KPROF_ASAN) $(TOOL_TEST_DEPS)
	@sh tests/tools/run-tool-tests.sh $(BUILD)

# The example workloads, built from outside the tree into a kernel and
# image of their own (the boot tests workloads-*), with the workload
# docs/workloads.md shows whole: its block after the line
# "<!-- make check: this block is ... -->", copied out here (the boot test workloads-doc
# runs it), so the page's code builds and runs as written.
DOC_WORKLOAD := $(BUILD)/doc-workload/relay
EXAMPLE_WORKLOADS := examples/ticketlock examples/pingpong $(DOC_WORKLOAD)
EXAMPLE_BUILD := $(BUILD)/workloads-example
$(DOC_WORKLOAD)/relay.c: docs/workloads.md
	@mkdir -p $(dir $@)
	$(quiet) EXTRACT $@
	$(Q)awk '/^<!-- make check: this block is / { mark = 1; next } mark && /^```c$$/ { code = 1; mark = 0; next } \
		code && /^```$$/ { exit } code { print }' $< > $@.tmp
	$(Q)test -s $@.tmp || { echo "docs/workloads.md: no \`\`\`c block after the make check mark"; rm -f $@.tmp; exit 1; }
	$(Q)mv $@.tmp $@
.PHONY: workloads-example
workloads-example: $(DOC_WORKLOAD)/relay.c
	@$(MAKE) --no-print-directory BUILD=$(EXAMPLE_BUILD) WORKLOADS='$(EXAMPLE_WORKLOADS)' \
		$(EXAMPLE_BUILD)/kernel.elf image

boot-tests: $(KERNEL) $(IMAGE) $(KPROF_TOOL) workloads-example
	@$(PYTHON) tests/boot/run_boot_tests.py --kernel $(KERNEL) --image $(IMAGE) --build $(BUILD) \
		--workloads-kernel $(EXAMPLE_BUILD)/kernel.elf --workloads-image $(EXAMPLE_BUILD)/kprof.img

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
