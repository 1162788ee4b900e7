#!/bin/bash
# dirty.sh: CPU per refresh of 'memcgctl dirty --watch' over 100 and 1000 scratch cgroups,
# next to one raw pass of open/read/close over the same files, measured side by side.
# usage: bench/dirty.sh [BUILD_DIR [BASE_BUILD_DIR]]   (root; creates memcgctl-bench-dirty-PID-* and
# removes it). With BASE_BUILD_DIR (another tree's build), each round also measures that tree's
# memcgctl, base and new in turn (which goes first alternates by round), and the new/base ratios
# are printed as medians of the paired rounds.
#
# CPU per refresh = (CPU of a run with K2 samples - CPU of a run with K1 samples) / (K2 - K1),
# so start-up (opening every cgroup) is not counted; configurations alternate within each
# round and the median over the rounds is printed.
set -eu
build=${1:-build}
bin=$(cd "$build" && pwd)/memcgctl
newbin=$bin
basebin=${2:+$(cd "$2" && pwd)/memcgctl}
root=${MCG_CGROOT:-/sys/fs/cgroup/memory}
rounds=${ROUNDS:-5}
K1=${K1:-5}
K2=${K2:-55}
interval=${INTERVAL:-10ms}

[ "$(id -u)" = 0 ] || { echo "bench/dirty.sh: needs root to create cgroups" >&2; exit 77; }
[ -x "$bin" ] || { echo "bench/dirty.sh: no memcgctl at $bin" >&2; exit 1; }

tmp=$(mktemp -d /tmp/memcgctl-bench-dirty.XXXXXX)
parent="$root/memcgctl-bench-dirty-$$"
cleanup() {
	set +e
	if [ -d "$parent" ]; then
		find "$parent" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + 2>/dev/null
		rmdir "$parent"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cc -O2 -o "$tmp/rawpass" "$(dirname "$0")/dirty-rawpass.c"
mkdir "$parent"
for i in $(seq 0 999); do mkdir "$parent/c$i"; done
rel=${parent#"$root"}

# CPU seconds (user + sys) of one command, from bash's own accounting of the child.
cpu() {
	local TIMEFORMAT='%U %S'
	{ time "$@" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%.6f\n", $1 + $2 }'
}

procfiles="/proc/sys/vm/dirty_ratio /proc/sys/vm/dirty_background_ratio /proc/sys/vm/dirty_bytes
/proc/sys/vm/dirty_background_bytes /proc/sys/vm/dirty_expire_centisecs
/proc/sys/vm/dirty_writeback_centisecs /proc/vmstat /proc/meminfo /proc/zoneinfo"

# args for N cgroups: memcgctl's cgroup list and the raw pass's file list
groups() { for i in $(seq 0 $(($1 - 1))); do printf '%s/c%d\n' "$rel" "$i"; done; }
files() {
	# shellcheck disable=SC2086
	printf '%s\n' $procfiles
	for i in $(seq 0 $(($1 - 1))); do
		printf '%s/c%d/memory.stat\n' "$parent" "$i"
		if [ -f "$parent/c$i/memory.max" ]; then
			printf '%s/c%d/memory.%s\n' "$parent" "$i" max "$parent" "$i" high "$parent" "$i" current
		fi
	done
}

per_refresh() { # CMD-PREFIX...: (cpu(K2) - cpu(K1)) / (K2 - K1), in microseconds
	local a b
	a=$(cpu "$@" "$K1")
	b=$(cpu "$@" "$K2")
	awk -v a="$a" -v b="$b" -v k1="$K1" -v k2="$K2" 'BEGIN { printf "%.1f\n", (b - a) / (k2 - k1) * 1e6 }'
}

watch_explicit() { # N COUNT
	# shellcheck disable=SC2046
	"$bin" dirty --watch "$interval" --count "$2" $(groups "$1")
}
watch_scan() { "$bin" dirty --watch "$interval" --count "$1"; }
rawpass() { # N PASSES
	# shellcheck disable=SC2046
	"$tmp/rawpass" "$2" $(files "$1")
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "memcgctl dirty --watch: CPU per refresh, median of $rounds rounds (K=$K1 vs $K2 samples at $interval)"
echo "kernel $(uname -r), cgroup root $root, $(nproc) CPUs"
# paired LABEL CMD...: one per-refresh figure of each binary in this round's order, as LABEL
paired() {
	local o label=$1
	shift
	for o in $order; do
		if [ "$o" = base ]; then
			[ -n "$basebin" ] || continue
			bin=$basebin tag=bwatch
		else
			bin=$newbin tag=watch
		fi
		echo "$label $tag $(per_refresh "$@") $r" >>"$tmp/res"
	done
	bin=$newbin
}

for r in $(seq 1 "$rounds"); do
	if [ -n "$basebin" ] && [ $((r % 2)) = 1 ]; then order="base new"; else order="new base"; fi
	for n in 100 1000; do
		paired "$n" watch_explicit "$n"
		echo "$n raw $(per_refresh rawpass "$n")" >>"$tmp/res"
	done
	paired scan watch_scan
done

printf '%-26s %14s %14s %8s %14s\n' "cgroups" "watch us/ref" "raw pass us" "ratio" "CPU at 1 s"
for n in 100 1000; do
	w=$(awk -v n="$n" '$1 == n && $2 == "watch" { print $3 }' "$tmp/res" | median)
	raw=$(awk -v n="$n" '$1 == n && $2 == "raw" { print $3 }' "$tmp/res" | median)
	awk -v n="$n" -v w="$w" -v r="$raw" 'BEGIN {
		printf "%-26s %14.1f %14.1f %7.2fx %13.3f%%\n", n " named", w, r, (r > 0 ? w / r : 0), w / 1e6 * 100 }'
done
s=$(awk '$1 == "scan" && $2 == "watch" { print $3 }' "$tmp/res" | median)
awk -v s="$s" 'BEGIN { printf "%-26s %14.1f %14s %8s %13.3f%%\n", "scan (1000 clean + host)", s, "-", "-", s / 1e6 * 100 }'
echo "target: under 2% of one CPU at 1000 cgroups, 1 s interval"
if [ -n "$basebin" ]; then
	printf '%-26s %14s %14s %18s\n' "new vs base ($2)" "new us/ref" "base us/ref" "new/base (paired)"
	for n in 100 1000 scan; do
		w=$(awk -v n="$n" '$1 == n && $2 == "watch" { print $3 }' "$tmp/res" | median)
		b=$(awk -v n="$n" '$1 == n && $2 == "bwatch" { print $3 }' "$tmp/res" | median)
		q=$(awk -v n="$n" '$1 == n && $2 ~ /watch$/ { v[$4, $2] = $3; r[$4] = 1 }
			END { for (i in r) if (v[i, "bwatch"] > 0) print v[i, "watch"] / v[i, "bwatch"] }' "$tmp/res" | median)
		awk -v n="$n" -v w="$w" -v b="$b" -v q="$q" 'BEGIN { printf "%-26s %14.1f %14.1f %17.3fx\n", n, w, b, q }'
	done
fi
