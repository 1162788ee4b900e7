#!/bin/sh
# bench/top-live.sh: CPU per refresh of the interactive 'memcgctl top' in a real terminal
# (tmux, 200x40) over 1000 scratch cgroups holding page cache, and the first sample of
# 'top -b -n 1' next to a one-shot 'systemd-cgtop -b -n 1' over the same tree.
# usage: bench/top-live.sh [BUILD_DIR [BASE_BUILD_DIR]]   (root; creates memcgctl-bench-live-PID
# under the memory root and removes it). With BASE_BUILD_DIR, each round also measures that
# tree's memcgctl (which goes first alternates by round); ratios are medians of paired rounds.
#
# Per refresh = (CPU at T2 - CPU at T1) / refreshes between them, read from /proc/PID/stat of
# the process tmux runs, so start-up and the first sample are not counted.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
base=${2:-}
ROUNDS=${ROUNDS:-5}
N=${N:-1000}
INTERVAL_MS=${INTERVAL_MS:-100}
T1=${T1:-2}
T2=${T2:-7}
ROWS=${ROWS:-40}

command -v tmux >/dev/null || { echo "bench/top-live.sh: needs tmux" >&2; exit 1; }
# shellcheck source=lib.sh
. "$src/bench/lib.sh"
bench_cleanup_hook() {
	tmux -S "$tmp/tmux.sock" kill-server 2>/dev/null
	rm -rf "$tmp/data"
}
bench_setup live
sock="$tmp/tmux.sock"

# one interactive run of BIN: ms of CPU per refresh between T1 and T2
live() {
	pid=$(tmux -S "$sock" new-session -d -P -F '#{pane_pid}' -x 200 -y "$ROWS" \
		"exec $1 top -d $(echo "$INTERVAL_MS" | awk '{print $1/1000}') $rel")
	sleep "$T1"
	a=$(bench_cpu_ms "$pid")
	sleep $((T2 - T1))
	b=$(bench_cpu_ms "$pid")
	tmux -S "$sock" send-keys q
	sleep 0.3
	tmux -S "$sock" kill-server 2>/dev/null || true
	echo "$a $b" | awk -v s=$((T2 - T1)) -v i="$INTERVAL_MS" '{printf "%.4f\n", ($2 - $1) / (s * 1000 / i)}'
}

mkdir "$tmp/data"
i=0
while [ $i -lt "$N" ]; do
	mkdir "$parent/c$i"
	sh -c 'echo $$ >"$1/cgroup.procs" && head -c 65536 /dev/zero >"$2"' sh "$parent/c$i" "$tmp/data/f$i"
	i=$((i + 1))
done

printf 'memcgctl top, interactive: %s cgroups with 64 KiB of page cache each, %sx200 terminal, every %s ms, %s rounds\n' \
	"$N" "$ROWS" "$INTERVAL_MS" "$ROUNDS"
: >"$tmp/new" ; : >"$tmp/base" ; : >"$tmp/ratio" ; : >"$tmp/first" ; : >"$tmp/cgtop" ; : >"$tmp/fbase"
: >"$tmp/fratio"
r=0
while [ $r -lt "$ROUNDS" ]; do
	if [ -n "$base" ] && [ $((r % 2)) = 1 ]; then order="base new"; else order="new base"; fi
	for o in $order; do
		if [ "$o" = new ]; then
			live "$build/memcgctl" >>"$tmp/new"
		elif [ -n "$base" ]; then
			live "$base/memcgctl" >>"$tmp/base"
		fi
	done
	[ -n "$base" ] && paste "$tmp/new" "$tmp/base" | tail -1 | awk '{printf "%.4f\n", $1/$2}' >>"$tmp/ratio"
	# first sample: a scripted one-shot, next to systemd-cgtop's one-shot over the same tree
	"$tmp/top-raw" run "$build/memcgctl" top -b -n 1 "$rel" | awk '{print $2}' >>"$tmp/first"
	if command -v systemd-cgtop >/dev/null; then
		"$tmp/top-raw" run systemd-cgtop -b -n 1 -m --depth=3 "$rel" | awk '{print $2}' >>"$tmp/cgtop"
		paste "$tmp/first" "$tmp/cgtop" | tail -1 | awk '{printf "%.4f\n", $1/$2}' >>"$tmp/fratio"
	fi
	if [ -n "$base" ]; then
		"$tmp/top-raw" run "$base/memcgctl" top -b -n 1 "$rel" | awk '{print $2}' >>"$tmp/fbase"
	fi
	r=$((r + 1))
done
printf '%-44s %10s\n' pass ms
printf '%-44s %10.2f\n' "interactive refresh (new)" "$(median <"$tmp/new")"
if [ -n "$base" ]; then
	printf '%-44s %10.2f\n' "interactive refresh (base)" "$(median <"$tmp/base")"
	printf '%-44s %10s\n' "new/base, median of paired rounds" "x$(median <"$tmp/ratio")"
fi
printf '%-44s %10.2f\n' "first sample: top -b -n 1 (new)" "$(median <"$tmp/first")"
[ -n "$base" ] && printf '%-44s %10.2f\n' "first sample: top -b -n 1 (base)" "$(median <"$tmp/fbase")"
if [ -s "$tmp/cgtop" ]; then
	printf '%-44s %10.2f\n' "first sample: systemd-cgtop -b -n 1" "$(median <"$tmp/cgtop")"
	printf '%-44s %10s\n' "top -b -n 1 / systemd-cgtop, paired median" "x$(median <"$tmp/fratio")"
fi
