#!/bin/sh
# bench/size-field.sh: what carrying memcgctl size's kept answer costs the fleet views, at N
# scratch cgroups (default 1000), side by side in one run: callgrind instruction counts (Ir,
# whole command and the part that reads the answers) and openat calls (strace -c) of a
# one-shot 'memcgctl export', 'memcgctl top -b -n 1 -o +need' and 'memcgctl record -n 1',
# each with no size directory, with one holding no answer for these cgroups (a failed openat
# each), and with answers for 10 and for all N of them. The answers are files this script
# writes, in the format memcgctl size writes, in a private run directory.
# usage: bench/size-field.sh [BUILD_DIR]   (root; a build without sanitizers; valgrind, strace;
# creates memcgctl-h26c-bench-PID under the memory root and removes it)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
N=${N:-1000}
root=${MCG_CGROOT:-/sys/fs/cgroup/memory}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
command -v valgrind >/dev/null && command -v strace >/dev/null || { echo "needs valgrind and strace" >&2; exit 1; }
tmp=$(mktemp -d /tmp/mcg-size-field.XXXXXX)
parent=$root/memcgctl-h26c-bench-$$
rel=${parent#"$root"}
cleanup() {
	set +e
	i=0
	while [ $i -lt "$N" ]; do rmdir "$parent/c$i" 2>/dev/null; i=$((i + 1)); done
	rmdir "$parent" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$parent"
i=0
while [ $i -lt "$N" ]; do mkdir "$parent/c$i"; i=$((i + 1)); done
export MEMCGCTL_RUNDIR="$tmp/run"

# answers K: the run directory with answers for the first K cgroups (-1: no size directory)
answers() {
	rm -rf "$tmp/run"
	mkdir -p "$tmp/run"
	chmod 755 "$tmp/run"
	[ "$1" -ge 0 ] || return 0
	mkdir -m 755 "$tmp/run/size"
	i=0
	while [ $i -lt "$1" ]; do
		f=$(printf '%s' "$parent/c$i" | sed 's/%/%25/g; s|/|%2f|g')
		printf 'memcgctl-size 1\nneeded %d\ncold 4096\ncold_file 4096\ncold_anon 0\nsplit 1\ntime_ns 1764700000000000000\nstop converged\nsignal delays\nmethod limit-steps\n' \
			$((i * 4096 + 1048576)) >"$tmp/run/size/$f"
		i=$((i + 1))
	done
}
# ir FUNC CMD...: total Ir of CMD, and the inclusive Ir of FUNC
ir() {
	fn=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >"$tmp/cmd.out" 2>/dev/null
	tot=$(callgrind_annotate "$tmp/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
	part=$(callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null |
		awk -v f="$fn" 'index($0, f) { gsub(",", "", $1); print $1; exit }')
	echo "${tot:-?} ${part:-0}"
}
# opens CMD...: openat calls of CMD
opens() {
	strace -f -c -e trace=openat -o "$tmp/st.out" "$@" >/dev/null 2>&1 || true
	awk '$NF == "openat" { print $4; exit }' "$tmp/st.out"
}

printf 'memcgctl size field: %s, %s cgroups under %s\n' "$(uname -r)" "$N" "$rel"
printf '%-34s %-16s %14s %14s %9s %8s\n' command answers "Ir total" "Ir answers" "openat" samples
run() { # NAME FUNC CMD...
	name=$1 fn=$2
	shift 2
	for k in -1 0 10 "$N"; do
		answers "$k"
		case $k in -1) what="no size dir" ;; 0) what="dir, none" ;; *) what="$k" ;; esac
		set -- "$@"
		r=$(ir "$fn" "$@")
		o=$(opens "$@")
		s=$(grep -c '^memcgctl_needed_bytes{\|^/.* [0-9]' "$tmp/cmd.out" || true)
		printf '%-34s %-16s %14s %14s %9s %8s\n' "$name" "$what" ${r} "$o" "$s"
	done
}
run "export $rel" mcg_size_states_get "$bin" export "$rel"
run "export --families size $rel" mcg_size_states_get "$bin" export --families size "$rel"
run "top -b -n 1 -o CGROUP,NEED $rel" mcg_size_states_get "$bin" --bytes top -b -n 1 --flat -o CGROUP,NEED "$rel"
run "record -n 1 $rel" cli_size_events "$bin" record --store "$tmp/store" -n 1 --no-oom "$rel"
