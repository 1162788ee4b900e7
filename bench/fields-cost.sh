#!/bin/sh
# bench/fields-cost.sh: issue 25's cost check, side by side in one run: callgrind instruction
# counts of top -b and top --json per refresh, record per sample ((n=7 - n=2) / 5 each), a
# one-shot export and list, at N (1000) idle v1 scratch cgroups, for two builds, ROUNDS (2).
# usage: bench/fields-cost.sh BASE_BIN NEW_BIN   (root; RelWithDebInfo builds; valgrind)
# BASE_RECORD_ARGS / NEW_RECORD_ARGS: record's extra arguments per build (default --no-oom;
# give "" for a build older than the OOM catcher, such as 4cb39bd). Creates
# BENCH_PREFIX-fields-PID (default memcgctl-bench-fields-PID) under the memory root and removes it.
set -eu
base=$(realpath "$1") new=$(realpath "$2")
N=${N:-1000} ROUNDS=${ROUNDS:-2}
BASE_RECORD_ARGS=${BASE_RECORD_ARGS---no-oom} NEW_RECORD_ARGS=${NEW_RECORD_ARGS---no-oom}
root=/sys/fs/cgroup/memory
parent=$root/${BENCH_PREFIX:-memcgctl-bench}-fields-$$
rel=${parent#"$root"}
tmp=$(mktemp -d /tmp/mcg-bench-fields.XXXXXX)
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
# ir CMD...: CMD's instruction count; fails the bench when CMD fails (a count of a failed run means nothing)
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>"$tmp/err" ||
		{ echo "fields-cost: failed: $* ($(tail -n 2 "$tmp/err"))" >&2; exit 1; }
	callgrind_annotate "$tmp/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}
round=1
while [ $round -le "$ROUNDS" ]; do
	for b in base new; do
		bin=$base rargs=$BASE_RECORD_ARGS
		[ $b = new ] && bin=$new rargs=$NEW_RECORD_ARGS
		t2=$(ir "$bin" top -b --no-taskstats -n 2 -d 0.05 "$rel")
		t7=$(ir "$bin" top -b --no-taskstats -n 7 -d 0.05 "$rel")
		j2=$(ir "$bin" --json top -b --no-taskstats -n 2 -d 0.05 "$rel")
		j7=$(ir "$bin" --json top -b --no-taskstats -n 7 -d 0.05 "$rel")
		ex=$(ir "$bin" export --depth 1 "$rel")
		ls=$(ir "$bin" list "$rel")
		rm -rf "$tmp/store"
		# shellcheck disable=SC2086
		r2=$(ir "$bin" record $rargs --store "$tmp/store" -d 50ms -n 2 "$rel")
		rm -rf "$tmp/store"
		# shellcheck disable=SC2086
		r7=$(ir "$bin" record $rargs --store "$tmp/store" -d 50ms -n 7 "$rel")
		rm -rf "$tmp/store"
		echo "$round $b top-b-per-refresh $(((t7 - t2) / 5)) top-json-per-refresh $(((j7 - j2) / 5)) export $ex list $ls record-per-sample $(((r7 - r2) / 5))"
	done
	round=$((round + 1))
done
