#!/bin/sh
# check-layering.sh - the include rules that keep kprof's layers apart,
# checked on every `make check`, each with why it exists:
#
#   1. generic code never names the architecture: nothing under kernel/
#      includes arch/x86_64/... (only <arch/...>), and kernel/ has no
#      inline assembly except kernel/lib/libk.h's compiler_barrier().  So
#      the unit tests compile kernel/ on the host against the shadow
#      <arch/...> headers of tests/unit/shadow/, and another architecture
#      would be a new folder beside arch/x86_64/, not edits to kernel/;
#   2. arch/ does not read the kernel's configuration (a subsystem's
#      *_keys.h, or the old global kconfig and its header): it owns its own
#      keys (arch/x86_64/cmdline_keys.c), so the architecture does not
#      depend on the kernel's subsystems;
#   3. the workloads (kernel/workloads/) use the kernel's public headers
#      only: no subsystem-private header (ki.h, *_internal.h,
#      dispatcher_lock.h, lockstat_stack.h).  They use the kernel as any
#      caller would, and a subsystem may change its insides freely;
#   4. include/kprof/ (shared with the host tool) includes nothing from the
#      kernel: the host tool compiles it too, so it stands on the C
#      standard headers alone and says the wire format once for both;
#   5. kernel/ke/, the ground floor, includes from kernel/ only itself,
#      kernel/lib/ and two services every layer may use, the bug check
#      (kernel/debug/panic.h, bugcheck.h) and the console
#      (kernel/console/console.h): no layer above it.  The layers above
#      reach down into it and it calls them only through what they
#      register: the clock's tick clients, timer sharer and late recorder
#      (KE_TICK_CLIENT, ke_clock_share_timer, ke_clock_set_late_recorder),
#      the IRQL code's dispatcher (KE_DISPATCHER); bringing up the CPUs is
#      kernel/init's, a function on every CPU kernel/sched's;
#   6. nothing writes the parsed configuration once config_parse() has run:
#      each subsystem's keys fill a struct that only the parser writes
#      (through its table, kernel/init/cmdline*.c) and everyone else reads
#      through a const view named *_config (docs/config-keys.md).  The
#      compiler refuses a write through the view; this refuses the ways
#      around it: an assignment, ++/--, memcpy/memset or a cast to a
#      non-const pointer on a *_config name, and the old global kconfig.
#   7. the USB stack's layers, lowest first kernel/usb/xhci/ (the host
#      controller), core/, storage/: a layer includes nothing from a layer
#      above it (xhci/ nothing from core/ or storage/, core/ nothing from
#      storage/), and nothing outside xhci/ includes xhci/'s own headers
#      (the layers above reach the controller through kernel/usb/hci.h);
#      probe/ (usb.probe=on) sits beside them on hci.h alone, and no layer
#      includes it;
#   8. boot/ (compiled into the UEFI loader too) takes from kernel/ only
#      kernel/lib's pure headers, the CRC-32 and the byte-order readers
#      (kernel/lib/codec/crc32.h, bytes.h), and those include nothing but the C
#      library's freestanding headers.
#   9. a workload from outside the tree (make WORKLOADS=DIR, and every
#      folder of examples/) uses the workload API only: its quoted
#      includes are kernel/workloads/api/*.h, kernel/trace/user_event.h
#      (events of its own) or its own headers (a name
#      without a folder, present beside it), its angle includes the C headers
#      stdint, stdbool, stddef and stdarg, and it has no inline
#      assembly.  docs/workloads.md promises that API stays stable; this
#      keeps workloads from reaching past it.
#
#  10. no folder of kernel/, arch/ or tools/ holds more than 16 files: a
#      folder is one concept (the trace's ring, its way out, its
#      settings; an architecture's APIC, PMU, entry code ...), and a folder
#      past 16 files has become a heap of several.
#  11. the USB stack (kernel/usb/), the one driver that hands memory to a
#      device, orders that memory with <arch/barrier.h>'s arch_dma_wmb()
#      and arch_dma_rmb(), never with the arch_smp_ barriers, which promise
#      ordering between CPUs only (a weakly ordered CPU would need more for
#      a device).
#  12. arch/ includes from kernel/ only kernel/arch_services.h (the
#      services an architecture may use, each with why) and kernel/lib/ (a
#      library below both); tools/check-arch-services.sh holds the linked
#      names to that header's list once the kernel is built.
#  13. every module (a folder of kernel/, arch/, boot/ or tools/kprof/ with
#      .c files) has a test that says so, by its place under tests/unit/,
#      its name, or its header (tools/test-table.py --missing, which says
#      what counts; docs/testing.md's table of module and test is its
#      output): code nobody tests is code nobody can change safely.
#
# Usage: check-layering.sh [--workloads-only DIR...]: with DIRs, only rule
# 9 on those folders (what make WORKLOADS=DIR runs before compiling them).
# Prints every violation with file:line, exits 1 if there is any.
set -u
here=$(pwd)
cd "$(dirname "$0")/.."
bad=0
report() { # rule, grep output
	[ -n "$2" ] || return 0
	echo "layering: $1:"
	echo "$2" | sed 's/^/  /'
	bad=1
}

# Rule 9 on one folder of workload sources.
workload_dir() { # dir
	d=$1
	files=$(find "$d" -maxdepth 1 -name '*.[ch]' | sort)
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086
	report "a workload in $d includes more than the workload API (kernel/workloads/api/*.h, kernel/trace/user_event.h, its own headers, <stdint.h> <stdbool.h> <stddef.h> <stdarg.h>)" \
		"$(grep -n -H -E '^[[:space:]]*#[[:space:]]*include' $files | while IFS= read -r line; do
			inc=$(echo "$line" | sed -E 's/^[^:]*:[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*//')
			case "$inc" in
			*..*) ;; # no way out of a folder
			'"kernel/workloads/api/'*'.h"'*|'"kernel/trace/user_event.h"'*|'<stdint.h>'*|'<stdbool.h>'*|'<stddef.h>'*|'<stdarg.h>'*) continue ;;
			'"'*/*) ;;
			'"'*'"'*) own=$(echo "$inc" | sed -E 's/^"([^"]*)".*/\1/')
				[ -f "$d/$own" ] && continue ;;
			esac
			echo "$line"
		done)"
	# shellcheck disable=SC2086
	report "a workload in $d has inline assembly (the API has what it needs)" \
		"$(grep -n -H -E '(__asm__|\basm\b)' $files || true)"
}

if [ "${1:-}" = "--workloads-only" ]; then
	shift
	for d in "$@"; do
		case "$d" in /*) ;; *) d="$here/$d" ;; esac
		workload_dir "$d"
	done
	[ "$bad" -eq 0 ] && echo "layering: workloads $* use the workload API only"
	exit "$bad"
fi
for d in examples/*/; do
	[ -d "$d" ] && workload_dir "${d%/}"
done

report "kernel/ includes an architecture's own header (use <arch/...>)" \
	"$(grep -rn --include='*.[ch]' '#include *"arch/' kernel || true)"
report "kernel/ has inline assembly (put it behind <arch/...>)" \
	"$(grep -rn --include='*.[ch]' -E '(__asm__|\basm\b)' kernel |
		grep -v '^kernel/lib/libk.h:.*define compiler_barrier() __asm__ volatile("" ::: "memory")' || true)"
report "arch/ reads the kernel's configuration (arch owns its keys)" \
	"$(grep -rn --include='*.[ch]' -E '(kernel/init/config\.h|"kernel/[a-z/]+/[a-z_]+_keys\.h"|\bkconfig\b)' arch || true)"
report "a workload includes a subsystem-private header" \
	"$(grep -rn --include='*.[ch]' -E '#include *"kernel/[a-z/]+/(ki|[a-z_]+_internal|dispatcher_lock|lockstat_stack)\.h"' \
		kernel/workloads || true)"
report "include/kprof/ includes kernel headers (it is shared with the host tool)" \
	"$(grep -rn '#include *"kernel/' include || true)"
report "kernel/ke/ includes a layer above it (ke is the ground floor: it may include kernel/ke/, kernel/lib/, kernel/debug/panic.h or bugcheck.h and kernel/console/console.h; move the type down, or let the layer above register a callback)" \
	"$(grep -rn --include='*.[ch]' -E '#include *"kernel/' kernel/ke |
		grep -v -E '#include *"kernel/(ke/|lib/|debug/(panic|bugcheck)\.h"|console/console\.h")' || true)"

# A *_config name: a view (trace_config->x) or the storage behind it
# (parsed_config.x in a *_keys.c).
cfg='\b[a-z0-9_]*_config\b'
member="$cfg *(->|\.) *[a-z0-9_]+ *(\[[^]]*\] *)*"
report "a write to the parsed configuration outside the parser (subsystems keep derived values in their own settings)" \
	"$(grep -rn --include='*.[ch]' -E \
		-e "$member([-+*/%&|^]|<<|>>)?=([^=]|\$)" \
		-e "(\+\+|--) *$member" -e "$member(\+\+|--)" \
		-e "\bmem(cpy|set|move) *\( *&? *$cfg" \
		-e "\( *(struct +[a-z0-9_]+|void|uint32_t|char) *\* *\) *&? *$cfg" \
		-e '\bkconfig\b' \
		kernel arch | grep -v -E '^kernel/init/cmdline(_rules|_tables)?\.c:' || true)"


# Rule 7: each #include "kernel/usb/<layer>/..." against the including
# file's own layer (0 for kernel/usb/hci.h and probe/: they may include no
# layer at all).
usb_rank() {
	case "$1" in
	xhci) echo 1 ;;
	core) echo 2 ;;
	storage) echo 3 ;;
	*) echo 0 ;;
	esac
}
usb_upward() {
	grep -rn --include='*.[ch]' -E '#include *"kernel/usb/[a-z]+/' kernel/usb | while IFS= read -r hit; do
		from=${hit#kernel/usb/}
		from=${from%%[/:]*}
		to=$(echo "$hit" | sed -E 's|.*#include *"kernel/usb/([a-z]+)/.*|\1|')
		[ "$(usb_rank "$to")" -gt "$(usb_rank "$from")" ] && echo "$hit"
	done
}
report "a USB layer includes a layer above it (lowest first: xhci/, core/, storage/; probe/ sits on hci.h)" \
	"$(usb_upward)"
report "the xHCI driver's own headers included outside kernel/usb/xhci/ (the USB layers use kernel/usb/hci.h)" \
	"$(grep -rn --include='*.[ch]' '#include *"kernel/usb/xhci/' kernel arch | grep -v '^kernel/usb/xhci/' || true)"
report "a USB layer includes probe/ (usb.probe=on is not part of the stack)" \
	"$(grep -rn --include='*.[ch]' '#include *"kernel/usb/probe/' kernel/usb | grep -v '^kernel/usb/probe/' || true)"
report "a folder of kernel/, arch/ or tools/ holds more than 16 files (a folder is one concept: split it by concept, as kernel/usb/ is split by layer)" \
	"$(find kernel arch tools -type d | sort | while IFS= read -r d; do n=$(find "$d" -maxdepth 1 -type f | wc -l);
		[ "$n" -gt 16 ] && echo "$d: $n files"; done)"
report "the USB stack orders device memory with an arch_smp_ barrier (use arch_dma_wmb/arch_dma_rmb: <arch/barrier.h>)" \
	"$(grep -rn --include='*.[ch]' -E '\barch_smp_(wmb|rmb|mb)\b' kernel/usb || true)"
report "boot/ includes a kernel header other than kernel/lib/codec/crc32.h and kernel/lib/bytes.h (the loader compiles boot/common)" \
	"$(grep -rn --include='*.[ch]' '#include *"kernel/' boot | grep -v -E '#include *"kernel/lib/(codec/crc32|bytes)\.h"' || true)"
report "arch/ includes a kernel header other than kernel/arch_services.h and kernel/lib/ (the services an architecture may use are named there)" \
	"$(grep -rn --include='*.[ch]' -E '#[[:space:]]*include *"kernel/' arch | grep -v -E '#[[:space:]]*include *"kernel/(arch_services\.h"|lib/)' || true)"
report "kernel/lib/codec/crc32.h or bytes.h includes a project header (boot/ and the loader use them)" \
	"$(grep -n '#include *"' kernel/lib/codec/crc32.h kernel/lib/bytes.h || true)"
report "a module has no test (a unit test in tests/unit/<module>/, a test named for the folder or one of its .c files, or one whose header names it: tools/test-table.py)" \
	"$(python3 tools/test-table.py --missing || true)"

[ "$bad" -eq 0 ] && echo "layering: kernel/, arch/, kernel/ke/, kernel/workloads/, include/kprof/, the parsed configuration, the USB layers and boot/ keep their rules; no folder of kernel/, arch/ or tools/ over 16 files; the USB stack uses the DMA barriers; arch/ includes the kernel through kernel/arch_services.h; every module has a test; examples/ uses the workload API only"
exit "$bad"
