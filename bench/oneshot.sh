#!/bin/sh
# bench/oneshot.sh: what list and the one-shot export cost, two builds side by side in one run
# (issue 25 item 2: they read through the sampler once instead of a walk): callgrind instruction
# counts (one run each), CPU (user + sys) and peak RSS (/usr/bin/time -v, medians of ROUNDS runs,
# the builds alternated), at N idle v1 scratch cgroups under one parent; first a check that both
# builds print the same bytes (list, list --json but its timestamp, list -o with every column,
# export).
# usage: bench/oneshot.sh BASE_BIN NEW_BIN   (root; RelWithDebInfo builds; valgrind, GNU time;
# N=1000 ROUNDS=5 INSTR=1; creates BENCH_PREFIX-oneshot-PID (default memcgctl-bench-oneshot-PID)
# under the memory root, removes it)
set -eu
base=$(realpath "$1") new=$(realpath "$2")
N=${N:-1000}
ROUNDS=${ROUNDS:-5}
INSTR=${INSTR:-1}
root=/sys/fs/cgroup/memory
parent=$root/${BENCH_PREFIX:-memcgctl-bench}-oneshot-$$
rel=${parent#"$root"}
tmp=$(mktemp -d /tmp/memcgctl-h25t-bench.XXXXXX)
cleanup() {
	set +e
	find "$parent" -mindepth 1 -depth -type d -print0 2>/dev/null | xargs -0 -r rmdir
	rmdir "$parent" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$parent"
(cd "$parent" && seq -f 'c%.0f' 0 $((N - 1)) | xargs mkdir)
export MEMCGCTL_RUNDIR="$tmp/run"
mkdir -p "$tmp/run"

same() { # LABEL ARGS...: both builds' stdout, byte for byte (base run before and after new:
	# a live value that moved between the runs, such as the parent's usage, moves in base too)
	label=$1
	shift
	"$base" "$@" >"$tmp/b.out" 2>"$tmp/b.err" || true
	"$new" "$@" >"$tmp/n.out" 2>"$tmp/n.err" || true
	"$base" "$@" >"$tmp/b2.out" 2>"$tmp/b2.err" || true
	sed -i 's/"timestamp_ns":[0-9]*/"timestamp_ns":T/' "$tmp/b.out" "$tmp/n.out" "$tmp/b2.out"
	if { cmp -s "$tmp/b.out" "$tmp/n.out" || cmp -s "$tmp/b2.out" "$tmp/n.out"; } &&
		cmp -s "$tmp/b.err" "$tmp/n.err"; then
		echo "same output: $label ($(wc -l <"$tmp/n.out") lines)"
	elif ! cmp -s "$tmp/b.out" "$tmp/b2.out"; then
		echo "live values moved (base differs from itself too): $label;" \
			"new against base, lines: $(diff "$tmp/b.out" "$tmp/n.out" | grep -c '^>')," \
			"base against itself: $(diff "$tmp/b.out" "$tmp/b2.out" | grep -c '^>')"
	else
		echo "DIFFERENT output: $label"
		diff "$tmp/b.out" "$tmp/n.out" | head -5
	fi
}
same "list" list "$rel"
same "list --json" --json list "$rel"
same "list -o all" list -o cgroup,usage,limit,%lim,anon,file,dirty,wback,high,low,min,peak,swap,shmem,procs,depth,unit,container,pod "$rel"
same "list --depth 0" list --depth 0 "$rel"
same "export" export "$rel"
same "export --depth 1 --families tree,limits" export --depth 1 --families tree,limits "$rel"

ir() { # ARGS...: instructions of one run
	valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >/dev/null 2>&1 || true
	callgrind_annotate "$tmp/cg.out" 2>/dev/null |
		awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}
med() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

for cmd in list export; do
	for b in base new; do : >"$tmp/cpu.$cmd.$b"; : >"$tmp/rss.$cmd.$b"; done
done
r=0
while [ $r -lt "$ROUNDS" ]; do
	for cmd in list export; do
		for b in base new; do
			bin=$base
			[ $b = new ] && bin=$new
			/usr/bin/time -v "$bin" $cmd "$rel" >/dev/null 2>"$tmp/time"
			awk -F': ' '/User time/ {u = $2} /System time/ {s = $2}
				END {printf "%.1f\n", (u + s) * 1000}' "$tmp/time" >>"$tmp/cpu.$cmd.$b"
			awk -F': ' '/Maximum resident/ {printf "%.1f\n", $2 / 1024}' "$tmp/time" >>"$tmp/rss.$cmd.$b"
		done
	done
	r=$((r + 1))
done
printf '%s cgroups, %s rounds; CPU ms (user+sys) and peak RSS MiB: medians\n' "$N" "$ROUNDS"
printf '%-8s %12s %12s %10s %10s %14s %14s %8s\n' pass cpu_base cpu_new rss_base rss_new Ir_base Ir_new Ir_ratio
for cmd in list export; do
	ib=- in=- ratio=-
	if [ "$INSTR" = 1 ]; then
		ib=$(ir "$base" $cmd "$rel")
		in=$(ir "$new" $cmd "$rel")
		ratio=$(awk -v a="$in" -v b="$ib" 'BEGIN {printf "x%.4f", a / b}')
	fi
	printf '%-8s %12s %12s %10s %10s %14s %14s %8s\n' $cmd \
		"$(med <"$tmp/cpu.$cmd.base")" "$(med <"$tmp/cpu.$cmd.new")" \
		"$(med <"$tmp/rss.$cmd.base")" "$(med <"$tmp/rss.$cmd.new")" "$ib" "$in" "$ratio"
done
