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
#   2. arch/ does not read the kernel's configuration (kernel/init/config.h,
#      kconfig): it owns its own keys (arch/x86_64/cmdline_keys.c), so
#      the architecture does not depend on kernel/init;
#   3. the workloads (kernel/workloads/) use the kernel's public headers
#      only: no subsystem-private header (ki.h, *_internal.h,
#      dispatcher_lock.h, lockstat_stack.h).  They use the kernel as any
#      caller would, and a subsystem may change its insides freely;
#   4. include/kprof/ (shared with the host tool) includes nothing from the
#      kernel: the host tool compiles it too, so it stands on the C
#      standard headers alone and says the wire format once for both.
#
# Prints every violation with file:line, exits 1 if there is any.
set -u
cd "$(dirname "$0")/.."
bad=0
report() { # rule, grep output
	[ -n "$2" ] || return 0
	echo "layering: $1:"
	echo "$2" | sed 's/^/  /'
	bad=1
}

report "kernel/ includes an architecture's own header (use <arch/...>)" \
	"$(grep -rn --include='*.[ch]' '#include *"arch/' kernel || true)"
report "kernel/ has inline assembly (put it behind <arch/...>)" \
	"$(grep -rn --include='*.[ch]' -E '(__asm__|\basm\b)' kernel |
		grep -v '^kernel/lib/libk.h:.*define compiler_barrier() __asm__ volatile("" ::: "memory")' || true)"
report "arch/ reads the kernel's configuration (arch owns its keys)" \
	"$(grep -rn --include='*.[ch]' -E '(kernel/init/config\.h|\bkconfig\b)' arch || true)"
report "a workload includes a subsystem-private header" \
	"$(grep -rn --include='*.[ch]' -E '#include *"kernel/[a-z]+/(ki|[a-z_]+_internal|dispatcher_lock|lockstat_stack)\.h"' \
		kernel/workloads || true)"
report "include/kprof/ includes kernel headers (it is shared with the host tool)" \
	"$(grep -rn '#include *"kernel/' include || true)"

[ "$bad" -eq 0 ] && echo "layering: kernel/, arch/, kernel/workloads/ and include/kprof/ keep their rules"
exit "$bad"
