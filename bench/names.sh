#!/bin/sh
# bench/names.sh: what the names table (issue 25, mcg_value_names) costs the views, side by
# side in one run: callgrind instruction counts of top -b and top --json per refresh ((n=7 -
# n=2) / 5), a one-shot export and list, at 1000 idle v1 scratch cgroups, for two builds.
# usage: bench/names.sh BASE_BIN NEW_BIN   (root; RelWithDebInfo builds; valgrind;
# creates memcgctl-h25n-bench-PID under the memory root and removes it)
set -eu
base=$(realpath "$1") new=$(realpath "$2")
N=${N:-1000}
root=/sys/fs/cgroup/memory
parent=$root/memcgctl-h25n-bench-$$
rel=${parent#"$root"}
tmp=$(mktemp -d /tmp/mcg-h25n-bench.XXXXXX)
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
	j2=$(ir $bin --json top -b --no-taskstats -n 2 -d 0.05 "$rel")
	j7=$(ir $bin --json top -b --no-taskstats -n 7 -d 0.05 "$rel")
	ex=$(ir $bin export --depth 1 "$rel")
	ls=$(ir $bin list "$rel")
	echo "$round $b top-b-per-refresh $(( (t7 - t2) / 5 )) top-json-per-refresh $(( (j7 - j2) / 5 )) export $ex list $ls"
done
done
