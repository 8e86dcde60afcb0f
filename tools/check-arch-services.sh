#!/bin/sh
# check-arch-services.sh OBJDIR [HEADER] - arch/ takes from the kernel only
# the services kernel/arch_services.h names.
#
# check-layering.sh (rule 12) keeps arch/'s includes to that header and
# kernel/lib/; this checks what the linker joins: every name an object of
# arch/ leaves undefined that an object of kernel/ (outside kernel/lib/, a
# library below both) defines must be one of the header's list (its lines
# " *   - what: name, name, ...", a line ending in a comma going on on the
# next), and every name on the list must be one
# arch/ takes, so the list says exactly what arch/ uses.
#
# OBJDIR is the kernel's object folder (build/kernel-obj), laid out as the
# sources; an object whose source (.c, .asm or .S beside the tree's path)
# is gone is left out, so a moved file's old object is not read.  Run from
# the repository root after the kernel is built.  Prints each name out of
# place with the objects on both sides; exits 1 if there is any.
set -u
export LC_ALL=C
obj=${1:?usage: check-arch-services.sh OBJDIR [HEADER]}
header=${2:-kernel/arch_services.h}
[ -d "$obj/arch" ] || { echo "check-arch-services: $obj/arch: no arch objects (build the kernel first)"; exit 1; }
[ -f "$header" ] || { echo "check-arch-services: $header: no such header"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The objects whose sources are still there.
live() { # folder under $obj
	(cd "$obj" && find "$1" -name '*.o' | sort) | while IFS= read -r o; do
		base=${o%.o}
		for ext in c asm S; do
			if [ -f "$base.$ext" ]; then
				echo "$o"
				break
			fi
		done
	done
}

live arch | while IFS= read -r o; do
	nm -u "$obj/$o" | awk -v f="$o" '{ print $NF, f }'
done | sort > "$tmp/uses"
live kernel | grep -v '^kernel/lib/' | while IFS= read -r o; do
	nm --defined-only -g "$obj/$o" | awk -v f="$o" 'NF == 3 { print $3, f }'
done | sort > "$tmp/defs"
# The list: " *   - what: name, name," and, after a line ending in a
# comma, the names on the next comment line.
awk '/^ \*   - [^:]*: / { sub(/^ \*   - [^:]*: /, ""); more = /,[[:space:]]*$/; print; next }
	more { sub(/^ \*[[:space:]]*/, ""); more = /,[[:space:]]*$/; print }' "$header" |
	tr ',' '\n' | sed 's/[[:space:]]//g' | grep -v '^$' | sort -u > "$tmp/listed"

join "$tmp/uses" "$tmp/defs" > "$tmp/taken"  # name, arch object, kernel object
bad=0
out=$(awk '{ print $1 }' "$tmp/taken" | sort -u | comm -23 - "$tmp/listed")
if [ -n "$out" ]; then
	echo "check-arch-services: arch/ takes from the kernel what $header does not name (add it there, saying why, or keep arch/ from it):"
	for n in $out; do
		grep "^$n " "$tmp/taken" | awk '{ printf "  %s: %s takes it from %s\n", $1, $2, $3 }'
	done
	bad=1
fi
out=$(awk '{ print $1 }' "$tmp/taken" | sort -u | comm -13 - "$tmp/listed")
if [ -n "$out" ]; then
	echo "check-arch-services: $header names what no arch/ object takes from the kernel (take it off the list):"
	echo "$out" | sed 's/^/  /'
	bad=1
fi
[ "$bad" -eq 0 ] && echo "check-arch-services: arch/ takes $(wc -l < "$tmp/listed") names from the kernel, each named in $header"
exit "$bad"
