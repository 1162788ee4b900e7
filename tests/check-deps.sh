#!/bin/sh
# check-deps.sh: the dependency rule of lib/'s rooms (HACKING.md, "The rooms"), checked on
# the sources' includes and on the built objects' symbols.
# usage: tests/check-deps.sh SRCDIR BUILDDIR
#
#   base -> sys -> model -> store -> ops      systemd: above sys, used by ops (and cli) only
#
# A room may use its own files and the rooms below it, nothing else:
#   1. includes: a file of lib/ROOM includes only "ROOM2/..." headers of allowed rooms;
#      cli/ and daemon/ include no private header of lib/ (only memcg.h and <memcg/...>);
#   2. symbols: every symbol an object of lib/ROOM takes from another object of libmemcg is
#      defined in an allowed room; cli/ and daemon/ objects take no mcg__ internal;
#   3. no circle between files: the graph "file A uses a symbol defined in file B" of
#      libmemcg, and that of cli/ + daemon/, have no cycle.
set -eu
src=$1
build=$2
fail=0
bad() {
	echo "check-deps: $*" >&2
	fail=1
}

# allowed ROOM USED: the rooms ROOM may use
allowed() {
	case "$1:$2" in
	base:base) return 0 ;;
	sys:base | sys:sys) return 0 ;;
	model:base | model:sys | model:model) return 0 ;;
	store:base | store:sys | store:model | store:store) return 0 ;;
	ops:base | ops:sys | ops:model | ops:store | ops:ops | ops:systemd) return 0 ;;
	systemd:base | systemd:sys | systemd:systemd) return 0 ;;
	esac
	return 1
}
rooms="base sys model store ops systemd"

# every C file of lib/ lives in a room
for f in "$src"/lib/*.c "$src"/lib/*.h; do
	[ -e "$f" ] || continue
	bad "${f#"$src"/} is in no room (lib/ROOM/ for ROOM in: $rooms)"
done

# 1. includes
for room in $rooms; do
	for f in "$src"/lib/"$room"/*.c "$src"/lib/"$room"/*.h; do
		[ -e "$f" ] || continue
		for used in $(sed -n 's|^#include "\([a-z]*\)/[^"]*"|\1|p' "$f"); do
			case " $rooms " in
			*" $used "*) ;;
			*) bad "${f#"$src"/} includes a header of '$used', which is no room"; continue ;;
			esac
			allowed "$room" "$used" || bad "${f#"$src"/} ($room) includes a header of $used"
		done
		if grep -q '^#include "internal.h"\|^#include "util.h"' "$f"; then
			bad "${f#"$src"/} includes a header that no longer exists"
		fi
	done
done
for f in "$src"/cli/*.c "$src"/cli/*.h "$src"/cli/top/*.c "$src"/cli/top/*.h "$src"/daemon/*.c \
	"$src"/daemon/*.h; do
	[ -e "$f" ] || continue
	if grep -Eq '^#include "(base|sys|model|store|ops|systemd)/' "$f"; then
		bad "${f#"$src"/} includes a private header of lib/ (use memcg.h)"
	fi
done

# 2. and 3. symbols, from the objects CMake built
objdir=$build/CMakeFiles/memcg_static.dir/lib
clidir=$build/CMakeFiles/memcgctl.dir
[ -d "$objdir" ] || {
	echo "check-deps: no objects under $objdir (build first)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# defs: SYMBOL FILE ROOM; uses: FILE ROOM SYMBOL (FILE: its path below lib/, cli/ or daemon/)
for o in "$objdir"/*/*.o; do
	room=$(basename "$(dirname "$o")")
	file=$room/$(basename "$o" .c.o)
	nm -g --defined-only "$o" | awk -v f="$file" -v r="$room" 'NF == 3 {print $3, f, r}' >>"$tmp/defs"
	nm -u "$o" | awk -v f="$file" -v r="$room" '{print f, r, $NF}' >>"$tmp/uses"
done
find "$clidir" -name '*.o' | while read -r o; do
	file=$(echo "${o#"$clidir"/}" | sed 's|\.c\.o$||')
	nm -g --defined-only "$o" | awk -v f="$file" 'NF == 3 {print $3, f, "cli"}' >>"$tmp/clidefs"
	nm -u "$o" | awk -v f="$file" '{print f, "cli", $NF}' >>"$tmp/cliuses"
done
sort -k1,1 "$tmp/defs" >"$tmp/defs.s"
sort -k3,3 "$tmp/uses" | join -1 3 -2 1 - "$tmp/defs.s" | awk '$2 != $4 {print $2, $3, $4, $5, $1}' \
	>"$tmp/edges" # FILE ROOM DEFFILE DEFROOM SYMBOL
while read -r file room deffile defroom sym; do
	allowed "$room" "$defroom" || bad "lib/$file.c ($room) uses $sym of lib/$deffile.c ($defroom)"
done <"$tmp/edges"
# cli and daemon: no internals of the library
awk '$3 ~ /^mcg__/ {print $1, $3}' "$tmp/cliuses" | sort -u | while read -r file sym; do
	echo "check-deps: $file uses the library's internal $sym" >&2
	echo x >>"$tmp/clibad"
done
[ -f "$tmp/clibad" ] && fail=1
sort -k1,1 "$tmp/clidefs" >"$tmp/clidefs.s"
sort -k3,3 "$tmp/cliuses" | join -1 3 -2 1 - "$tmp/clidefs.s" | awk '$2 != $4 {print $2, $4}' \
	>"$tmp/cliedges"

# 3. cycles: tsort reports them ("input contains a loop")
cycles() { # cycles WHAT EDGEFILE (pairs A B: A uses B)
	awk '$1 != $2 {print $1, $2}' "$2" | sort -u >"$tmp/pairs"
	if ! tsort "$tmp/pairs" >/dev/null 2>"$tmp/tsort"; then
		bad "$1: files that use each other (a circle):"
		sed -n 's/^tsort: //p' "$tmp/tsort" | grep -v 'input contains a loop' | sed 's/^/  /' >&2
	fi
}
awk '{print $1, $3}' "$tmp/edges" >"$tmp/libpairs"
cycles libmemcg "$tmp/libpairs"
cycles "cli and daemon" "$tmp/cliedges"

[ "$fail" -eq 0 ] && echo "check-deps: the rooms' rule holds ($(wc -l <"$tmp/defs") symbols, $(sort -u "$tmp/libpairs" | wc -l) file edges in lib/, $(sort -u "$tmp/cliedges" | wc -l) in cli/ and daemon/)"
exit "$fail"
