#!/bin/sh
# deps.sh [--list] PROFILE - install the Debian packages kprof needs, if missing.
#
#   run    what `make run` needs: compilers, GNU-EFI, the host tool's libraries,
#          QEMU, OVMF, image tools, LLVM for kprof etl's PDB
#   check  run + what the test suite needs
#
# Installs with apt-get as root, else through sudo, and says what it installs.
# On a system without dpkg it lists what it could not verify and carries on.
# --list prints the profile's packages, one a line, and installs nothing
# (tests/tools/test_run_profile reads the run profile from it).
set -eu

list=""
if [ "${1:-}" = "--list" ]; then list=1; shift; fi
profile=${1:-check}

RUN_PKGS="gcc make binutils nasm gnu-efi qemu-system-x86 ovmf gdisk mtools dosfstools
console-setup-linux python3 git"
# fdisk: sfdisk writes the MBR of make image IMAGE_TABLE=mbr (an MBR stick, as shops sell them)
RUN_PKGS="$RUN_PKGS fdisk"
# the host tool's libraries: the kernel's symbols and lines (elfutils), LZ4 chunks,
# the frames' CRC-32 (zlib)
RUN_PKGS="$RUN_PKGS libelf-dev libdw-dev liblz4-dev zlib1g-dev"
# kprof etl --kernel: the kernel's PDB, made by llvm-mc and lld-link (llvm-pdbutil checks it)
RUN_PKGS="$RUN_PKGS llvm lld"
CHECK_PKGS="libcmocka-dev babeltrace2 python3-bt2 python3-construct clang libclang-rt-14-dev libck-dev"
# python3-bt2: babeltrace2's Python bindings read the CTF traces (test_ctf_lttng)
# strace: tests/tools/test_run_profile holds every file make run uses against RUN_PKGS
CHECK_PKGS="$CHECK_PKGS strace"
# xmllint checks the SVG pictures; headless chromium runs the flame graph's
# script (tests/tools/test_flame_browser)
CHECK_PKGS="$CHECK_PKGS libxml2-utils chromium"
# protoc decodes kprof perfetto's protobuf trace against Perfetto's own schema
# (tests/tools/test_perfetto_proto)
CHECK_PKGS="$CHECK_PKGS protobuf-compiler"
# Node runs the trace importers (tests/node, from npm) on trace.json
CHECK_PKGS="$CHECK_PKGS nodejs npm"
# valgrind counts the instructions the decoder runs on hostile input, GNU time
# its peak memory (tests/tools/test_hostile)
CHECK_PKGS="$CHECK_PKGS valgrind time"
# Packages a command on PATH stands for: NodeSource's nodejs bundles npm
# and conflicts with Debian's npm package, so an npm command is enough.
BY_COMMAND="npm"

case "$profile" in
run) pkgs="$RUN_PKGS" ;;
check) pkgs="$RUN_PKGS $CHECK_PKGS" ;;
*) echo "deps.sh: unknown profile '$profile' (accepted: run, check)" >&2; exit 2 ;;
esac
if [ -n "$list" ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $pkgs
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "kprof: not a Debian system; make sure these (Debian names) are installed: $pkgs" >&2
	exit 0
fi

missing=""
for p in $pkgs; do
	case " $BY_COMMAND " in *" $p "*) command -v "$p" >/dev/null 2>&1 && continue ;; esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "kprof: installing missing Debian packages:$missing"
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
	echo "kprof: (using sudo; you may be asked for your password)"
else
	echo "kprof: cannot install as a normal user without sudo; as root run:" >&2
	echo "  apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Package lists may be empty on a fresh machine: refresh them once.
$SUDO apt-get update -qq || echo "kprof: apt-get update failed; trying the install anyway" >&2
# The log goes to a fresh temporary file, not a fixed name another user
# could have put there.
log=$(mktemp "${TMPDIR:-/tmp}/kprof-apt.XXXXXX")
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y -qq --no-install-recommends $missing >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	rm -f "$log"
	echo "kprof: apt-get install$missing failed (log above)" >&2
	exit 1
fi
rm -f "$log"
echo "kprof: installed:$missing"
