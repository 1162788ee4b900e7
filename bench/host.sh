#!/bin/sh
# bench/host.sh: what the host counters' table and one reader (issue 25, MCG_HOST) and top's
# one header builder cost, side by side in one run: callgrind instruction counts of top -b
# per refresh and record per sample ((n=7 - n=2) / 5 each), and a one-shot export, at 1000
# idle v1 scratch cgroups, for two builds, two rounds.
# usage: bench/host.sh BASE_BIN NEW_BIN   (root; RelWithDebInfo builds; valgrind;
# creates memcgctl-h25h-bench-PID under the memory root and removes it)
set -eu
base=$(realpath "$1") new=$(realpath "$2")
N=${N:-1000}
root=/sys/fs/cgroup/memory
parent=$root/memcgctl-h25h-bench-$$
rel=${parent#"$root"}
tmp=$(mktemp -d /tmp/mcg-h25h-bench.XXXXXX)
cleanup() {
	set +e
	i=0
	while [ $i -lt $N ]; do rmdir "$parent/c$i" 2>/dev/null; i=$((i + 1)); done
	rmdir "$parent" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$parent"
i=0
while [ $i -lt $N ]; do mkdir "$parent/c$i"; i=$((i + 1)); done
export MEMCGCTL_RUNDIR="$tmp/run"
mkdir -p "$tmp/run"
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>&1 || true
	callgrind_annotate "$tmp/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}
for round in 1 2; do
for b in base new; do
	bin=$base
	[ $b = new ] && bin=$new
	t2=$(ir $bin top -b --no-taskstats -n 2 -d 0.05 "$rel")
	t7=$(ir $bin top -b --no-taskstats -n 7 -d 0.05 "$rel")
	ex=$(ir $bin export --depth 1 "$rel")
	rm -rf "$tmp/store"
	r2=$(ir $bin record --no-oom --store "$tmp/store" -d 50ms -n 2 "$rel")
	rm -rf "$tmp/store"
	r7=$(ir $bin record --no-oom --store "$tmp/store" -d 50ms -n 7 "$rel")
	rm -rf "$tmp/store"
	echo "$round $b top-b-per-refresh $(( (t7 - t2) / 5 )) export $ex record-per-sample $(( (r7 - r2) / 5 ))"
done
done
