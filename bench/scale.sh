#!/bin/sh
# bench/scale.sh: memcgctl's one-shots and top at 10,000 empty cgroups (a flat tree: N children
# of one parent; a nested one: N/100 parents of 100 children each) against systemd-cgtop and a
# minimal C reader of one file per cgroup (bench/scale-walk.c, the kernel's pace), side by side in
# one run: CPU of the whole process (user + sys from wait4) and peak RSS, medians of ROUNDS rounds
# with the order of the passes rotated per round; ratios are medians of paired rounds.
# usage: bench/scale.sh [BUILD_DIR]   (root; creates BENCH_PREFIX-scale-PID under the memory root,
# default memcgctl-bench-scale-PID, always removed). N=10000 ROUNDS=3 LAYOUTS="flat nested";
# INSTR=1 also counts instructions of one run of each pass with callgrind (slow: about a minute a
# pass), for when the machine is too noisy to read the CPU times. BASE=OTHER_BUILD_DIR also runs
# that build's list, list -o cgroup,usage (one file a cgroup, as cgtop reads), top -b -n 1 and
# export in the same rounds and prints this build's CPU and
# instructions over its (before/after a change, side by side), and its top -b -n 7 and -n FLATN for
# the peak RSS. The reader's passes: one file a cgroup (walk); list's default columns' three
# files (walk3); and those with the other system calls the one-shot sampler makes per cgroup
# (walks: bench/scale-walk.c says which); usage and limit with those calls (walk2s: what list
# reads of a cgroup whose usage reads 0, whose memory.stat amounts are 0 then). FLATN=100 (0: left out): top -b -n 2 and -n FLATN at -d 0.05, whose peak RSS
# (ru_maxrss) differ by what memory grew from the second sample to the FLATN-th.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
N=${N:-10000}
ROUNDS=${ROUNDS:-3}
LAYOUTS=${LAYOUTS:-"flat nested"}
INSTR=${INSTR:-0}
BASE=${BASE:-}
REFRESH=6
FLATN=${FLATN:-100}

# shellcheck source=lib.sh
. "$src/bench/lib.sh"
bench_setup scale
cc -O2 -Wall -o "$tmp/scale-walk" "$src/bench/scale-walk.c"
cgtop=$(command -v systemd-cgtop || true)
if [ -f "$root/memory.usage_in_bytes" ]; then
	onefile=memory.usage_in_bytes
	twofiles=memory.usage_in_bytes,memory.limit_in_bytes
	listfiles=memory.usage_in_bytes,memory.limit_in_bytes,memory.stat
else
	onefile=memory.current
	twofiles=memory.current,memory.max
	listfiles=memory.current,memory.max,memory.stat
fi

# the passes: NAME and command line; "top6" and "cgtop6" are 7 samples at 0.2 s, and the per
# refresh cost is (7 samples - 1 sample) / 6
passes="list list1 top1 top6 export walk walk3 walks walk2s"
[ "$FLATN" -gt 0 ] && passes="$passes top2 topn"
[ -n "$cgtop" ] && passes="$passes cgtop1 cgtop6"
[ -n "$BASE" ] && passes="$passes blist blist1 btop1 btop6 bexport"
[ -n "$BASE" ] && [ "$FLATN" -gt 0 ] && passes="$passes btop2 btopn"
cmd() { # PASS
	case $1 in
	list) echo "$bin list $rel" ;;
	list1) echo "$bin list -o cgroup,usage $rel" ;;
	top1) echo "$bin top -b -n 1 $rel" ;;
	top6) echo "$bin top -b -n $((REFRESH + 1)) -d 0.2 $rel" ;;
	top2) echo "$bin top -b -n 2 -d 0.05 $rel" ;;
	topn) echo "$bin top -b -n $FLATN -d 0.05 $rel" ;;
	export) echo "$bin export $rel" ;;
	walk) echo "$tmp/scale-walk $parent $onefile" ;;
	walk3) echo "$tmp/scale-walk $parent $listfiles" ;;
	walks) echo "$tmp/scale-walk $parent $listfiles 1 1" ;;
	walk2s) echo "$tmp/scale-walk $parent $twofiles 1 1" ;;
	blist) echo "$BASE/memcgctl list $rel" ;;
	blist1) echo "$BASE/memcgctl list -o cgroup,usage $rel" ;;
	btop1) echo "$BASE/memcgctl top -b -n 1 $rel" ;;
	btop6) echo "$BASE/memcgctl top -b -n $((REFRESH + 1)) -d 0.2 $rel" ;;
	btop2) echo "$BASE/memcgctl top -b -n 2 -d 0.05 $rel" ;;
	btopn) echo "$BASE/memcgctl top -b -n $FLATN -d 0.05 $rel" ;;
	bexport) echo "$BASE/memcgctl export $rel" ;;
	cgtop1) echo "$cgtop -b -n 1 -m --depth=10 $rel" ;;
	cgtop6) echo "$cgtop -b -n $((REFRESH + 1)) -d 0.2 -m --depth=10 $rel" ;;
	esac
}

make_tree() { # LAYOUT
	(
		cd "$parent"
		if [ "$1" = flat ]; then
			seq -f 'c%.0f' 0 $((N - 1)) | xargs mkdir
		else
			seq -f 'p%.0f' 0 $((N / 100 - 1)) | xargs mkdir
			for p in p*; do
				(cd "$p" && seq -f 'c%.0f' 0 99 | xargs mkdir)
			done
		fi
	)
}

printf 'memcgctl scale benchmark: %s, %s cgroups, %s rounds, CPU = user+sys of the process\n' \
	"$(uname -r)" "$N" "$ROUNDS"
[ -n "$cgtop" ] || echo "systemd-cgtop: not installed; compared against the one-file reader only"
for layout in $LAYOUTS; do
	make_tree "$layout"
	n=$(find "$parent" -mindepth 1 -type d | wc -l)
	# sanity: memcgctl sees the tree (systemd-cgtop prints only cgroups with a non-zero value,
	# here none, but reads memory.usage_in_bytes of every cgroup: strace shows one openat each)
	listed=$($bin list --noheadings -o cgroup "$rel" 2>/dev/null | wc -l || true)
	[ "$listed" -ge "$n" ] || echo "warning: memcgctl list showed $listed lines for $n cgroups"
	for p in $passes; do : >"$tmp/cpu.$p"; : >"$tmp/rss.$p"; done
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		# rotate the order of the passes by round
		order=$(echo "$passes" | tr ' ' '\n' | awk -v r="$r" '{a[NR]=$0} END {for (i = 0; i < NR; i++) print a[(i + r) % NR + 1]}')
		for p in $order; do
			# shellcheck disable=SC2046
			out=$("$tmp/top-raw" run $(cmd "$p"))
			echo "$out" | awk '{print $2}' >>"$tmp/cpu.$p"
			echo "$out" | awk '{print $4}' >>"$tmp/rss.$p"
			st=$(echo "$out" | awk '{print $6}')
			[ "$st" = 0 ] || echo "warning: $p exited with $st"
		done
		r=$((r + 1))
	done
	# per refresh: paired per round
	paste "$tmp/cpu.top6" "$tmp/cpu.top1" | awk -v n=$REFRESH '{printf "%.3f\n", ($1-$2)/n}' >"$tmp/cpu.topr"
	[ -n "$cgtop" ] && paste "$tmp/cpu.cgtop6" "$tmp/cpu.cgtop1" | awk -v n=$REFRESH '{printf "%.3f\n", ($1-$2)/n}' >"$tmp/cpu.cgtopr"
	med() { median <"$tmp/cpu.$1"; }
	mrss() { median <"$tmp/rss.$1" | awk '{printf "%.1f", $1/1024}'; }
	ratio() { # A B: median of the paired per-round ratios of A's CPU to B's
		paste "$tmp/cpu.$1" "$tmp/cpu.$2" | awk '{printf "%.4f\n", ($2 > 0 ? $1/$2 : 0)}' | median
	}
	base=walk
	[ -n "$cgtop" ] && base=cgtop1
	echo
	echo "layout $layout: $n cgroups"
	printf '%-38s %10s %9s %9s %9s\n' pass cpu_ms rss_MiB "/$base" /walk
	row() { # LABEL PASS [RSS [BASE]]: BASE for the first ratio (default $base)
		printf '%-38s %10.1f %9s %9s %9s\n' "$1" "$(med "$2")" "${3:-$(mrss "$2")}" \
			"x$(ratio "$2" "${4:-$base}")" "x$(ratio "$2" walk)"
	}
	row "memcgctl list" list
	row "memcgctl list -o cgroup,usage" list1
	row "memcgctl top -b -n 1" top1
	if [ -n "$cgtop" ]; then
		row "memcgctl top, per further refresh" topr - cgtopr
	else
		row "memcgctl top, per further refresh" topr -
	fi
	row "memcgctl top -b -n 7 (peak RSS)" top6
	if [ "$FLATN" -gt 0 ]; then
		row "memcgctl top -b -n 2 -d 0.05 (peak RSS)" top2
		row "memcgctl top -b -n $FLATN -d 0.05 (peak RSS)" topn
	fi
	row "memcgctl export (one-shot)" export
	if [ -n "$cgtop" ]; then
		row "systemd-cgtop -b -n 1" cgtop1
		row "systemd-cgtop, per further refresh" cgtopr - cgtopr
		row "systemd-cgtop -n 7 (peak RSS)" cgtop6
	fi
	row "one-file reader ($onefile)" walk
	row "list's files (3 a cgroup)" walk3
	row "list's files, the sampler's calls" walks
	row "usage + limit, the sampler's calls" walk2s
	if [ -n "$BASE" ]; then
		row "base list ($BASE)" blist
		row "base list -o cgroup,usage" blist1
		row "base top -b -n 1" btop1
		row "base top -b -n 7 (peak RSS)" btop6
		if [ "$FLATN" -gt 0 ]; then
			row "base top -b -n 2 -d 0.05 (peak RSS)" btop2
			row "base top -b -n $FLATN -d 0.05 (peak RSS)" btopn
		fi
		row "base export" bexport
		for p in list list1 top1 export; do
			printf '%-38s x%s (CPU, median of paired rounds)\n' "$p: this build / base" \
				"$(ratio "$p" "b$p")"
		done
	fi
	if [ "$INSTR" = 1 ]; then
		echo "instructions (callgrind, one run each, whole process; / cgtop -n 1, / base):"
		for p in list list1 top1 export walk walks ${cgtop:+cgtop1} ${BASE:+blist blist1 btop1 bexport}; do
			# shellcheck disable=SC2046
			valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" $(cmd "$p") \
				>/dev/null 2>"$tmp/cg.err" || true
			sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err" >"$tmp/ir.$p"
			rm -f "$tmp/cg.out"*
		done
		for p in list list1 top1 export walk walks ${cgtop:+cgtop1} ${BASE:+blist blist1 btop1 bexport}; do
			ir=$(cat "$tmp/ir.$p")
			vs_cgtop=-
			[ -n "$cgtop" ] && vs_cgtop=x$(awk -v a="$ir" -v b="$(cat "$tmp/ir.cgtop1")" 'BEGIN {printf "%.3f", a / b}')
			vs_base=-
			[ -n "$BASE" ] && [ -f "$tmp/ir.b$p" ] &&
				vs_base=x$(awk -v a="$ir" -v b="$(cat "$tmp/ir.b$p")" 'BEGIN {printf "%.3f", a / b}')
			printf '  %-10s %12s  %8s  %8s\n' "$p" "$ir" "$vs_cgtop" "$vs_base"
		done
	fi
	find "$parent" -mindepth 1 -depth -type d -print0 | xargs -0 -r rmdir
done
