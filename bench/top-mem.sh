#!/bin/sh
# bench/top-mem.sh: top -b's, list's and the one-shot export's peak RSS and instructions at
# 1,000 and 10,000 empty flat cgroups, this build against BASE's, side by side in one run
# (issue 28, item 1), and their output compared byte for byte.
#
# For each N of NS: N scratch cgroups under BENCH_PREFIX-topmem-PID (default
# memcgctl-bench-topmem-PID, removed on every exit); ROUNDS rounds, the two builds alternated
# (the order swapped every round), of `top -b -n 1` and `top -b -n 2 -d 0.05`: peak RSS
# (ru_maxrss) and CPU (user + sys) of the process, medians, ratios the median of the per-round
# ratios; the same for `list` and the one-shot `export` (passes list and export), and once per
# build `top -b -n 100 -d 0.05` (FLAT=1, default), whose peak against -n 2's says whether memory
# grows from sample 2 to 100. Then the table of `top -b -n 1` (from its column header on) of both builds, plain,
# --raw, with COLUMNS=100, and `top --json -n 1` but its timestamp and host-wide "global"
# object, compared with cmp; INSTR=1
# (default) counts the instructions (callgrind, one run each) of `top -b -n 1` and
# `top -b -n 3 -d 0.05`: a further refresh is (n3 - n1) / 2; and of `record -n 2` and `-n 4`
# (--no-oom, a store under $tmp): record's sample is (n4 - n2) / 2.
# usage: BASE=OTHER_BUILD_DIR bench/top-mem.sh [BUILD_DIR]   (root)   NS="1000 10000" ROUNDS=5
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-rel}
bin=$build/memcgctl
BASE=${BASE:?BASE=the other build directory (its memcgctl)}
base=$BASE/memcgctl
NS=${NS:-"1000 10000"}
ROUNDS=${ROUNDS:-5}
INSTR=${INSTR:-1}
FLAT=${FLAT:-1}
[ -x "$bin" ] && [ -x "$base" ] || { echo "bench/top-mem: $bin or $base: not built" >&2; exit 1; }

# shellcheck source=lib.sh
. "$src/bench/lib.sh"
bench_setup topmem

printf 'memcgctl top -b memory: %s, builds %s (new) and %s (base), %s rounds, load %s\n' \
	"$(uname -r)" "$build" "$BASE" "$ROUNDS" "$(cut -d' ' -f1-3 /proc/loadavg)"
# the passes: 1 and 2 top -b, l list, e the one-shot export
pass_args() {
	case $1 in
	1) echo "top -b -n 1" ;;
	2) echo "top -b -n 2 -d 0.05" ;;
	l) echo "list" ;;
	e) echo "export" ;;
	esac
}

for n in $NS; do
	(cd "$parent" && seq -f 'c%.0f' 0 $((n - 1)) | xargs mkdir)
	for p in new1 base1 new2 base2 newl basel newe basee; do : >"$tmp/rss.$p"; : >"$tmp/cpu.$p"; done
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		if [ $((r % 2)) = 0 ]; then order="new base"; else order="base new"; fi
		for w in $order; do
			b=$bin
			[ "$w" = base ] && b=$base
			for k in 1 2 l e; do
				# shellcheck disable=SC2046
				out=$("$tmp/top-raw" run "$b" $(pass_args $k) "$rel")
				echo "$out" | awk '{print $2}' >>"$tmp/cpu.$w$k"
				echo "$out" | awk '{print $4}' >>"$tmp/rss.$w$k"
			done
		done
		r=$((r + 1))
	done
	mrss() { median <"$tmp/rss.$1" | awk '{printf "%.1f", $1/1024}'; }
	ratio() { paste "$tmp/$1.$2" "$tmp/$1.$3" | awk '{printf "%.4f\n", ($2 > 0 ? $1/$2 : 0)}' | median; }
	echo
	echo "$n cgroups (load $(cut -d' ' -f1-3 /proc/loadavg)):"
	printf '  %-28s %10s %10s %8s | %9s %9s %8s\n' pass base_MiB new_MiB new/base base_ms new_ms new/base
	for k in 1 2 l e; do
		l=$(pass_args $k)
		[ "$k" = e ] && l="export (one-shot)"
		printf '  %-28s %10s %10s %8s | %9s %9s %8s\n' "$l" "$(mrss base$k)" "$(mrss new$k)" \
			"x$(ratio rss new$k base$k)" "$(median <"$tmp/cpu.base$k")" "$(median <"$tmp/cpu.new$k")" \
			"x$(ratio cpu new$k base$k)"
	done
	if [ "$FLAT" = 1 ]; then
		for w in base new; do
			b=$bin
			[ "$w" = base ] && b=$base
			out=$("$tmp/top-raw" run "$b" top -b -n 100 -d 0.05 "$rel")
			echo "$out" | awk '{print $4}' >"$tmp/rss.${w}100"
		done
		printf '  %-28s %10s %10s %8s | peak of -n 2 (median): base %s, new %s MiB\n' "top -b -n 100 -d 0.05" \
			"$(mrss base100)" "$(mrss new100)" \
			"x$(paste "$tmp/rss.new100" "$tmp/rss.base100" | awk '{printf "%.4f", $1/$2}')" \
			"$(mrss base2)" "$(mrss new2)"
	fi
	same=1
	for v in "" "--raw" "COLUMNS=100" "--json" list export; do
		for w in base new; do
			b=$bin
			[ "$w" = base ] && b=$base
			case $v in
			COLUMNS=*) COLUMNS=100 "$b" top -b -n 1 "$rel" | sed -n '/CGROUP/,$p' >"$tmp/out.$w" ;;
			# the host's memory in "global" moves between two runs: the rows are compared
			--json) "$b" top --json -n 1 "$rel" | sed 's/"timestamp_ns":[0-9]*//; s/"global".*"cgroups"//' >"$tmp/out.$w" ;;
			list) "$b" list "$rel" >"$tmp/out.$w" ;;
			# the host-wide thresholds move between two runs
			export) "$b" export "$rel" | grep -v '^memcgctl_dirty_.*threshold_bytes ' >"$tmp/out.$w" ;;
			*) "$b" top -b -n 1 $v "$rel" | sed -n '/CGROUP/,$p' >"$tmp/out.$w" ;;
			esac
		done
		if cmp -s "$tmp/out.base" "$tmp/out.new"; then
			echo "  output ${v:-text}: the same ($(wc -c <"$tmp/out.new") bytes)"
		else
			echo "  output ${v:-text}: DIFFERS"
			same=0
		fi
	done
	if [ "$INSTR" = 1 ]; then
		for w in base new; do
			b=$bin
			[ "$w" = base ] && b=$base
			for k in 1 3; do
				if [ $k = 1 ]; then a="-n 1"; else a="-n 3 -d 0.05"; fi
				# shellcheck disable=SC2086
				valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$b" top -b $a "$rel" \
					>/dev/null 2>"$tmp/cg.err" || true
				sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err" >"$tmp/ir.$w$k"
				rm -f "$tmp/cg.out"*
			done
			for k in 2 4; do
				rm -rf "$tmp/store"
				valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$b" record --no-oom \
					--store "$tmp/store" -d 50ms -n $k "$rel" >/dev/null 2>"$tmp/cg.err" || true
				sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/cg.err" >"$tmp/ir.${w}r$k"
				rm -rf "$tmp/cg.out"* "$tmp/store"
			done
		done
		awk -v b1="$(cat "$tmp/ir.base1")" -v b3="$(cat "$tmp/ir.base3")" \
			-v n1="$(cat "$tmp/ir.new1")" -v n3="$(cat "$tmp/ir.new3")" 'BEGIN {
			printf "  instructions, top -b -n 1:      base %.1f M, new %.1f M, x%.3f\n", b1 / 1e6, n1 / 1e6, n1 / b1
			printf "  instructions, further refresh:  base %.1f M, new %.1f M, x%.3f\n", (b3 - b1) / 2e6, (n3 - n1) / 2e6, (n3 - n1) / (b3 - b1)
		}'
		awk -v b2="$(cat "$tmp/ir.baser2")" -v b4="$(cat "$tmp/ir.baser4")" \
			-v n2="$(cat "$tmp/ir.newr2")" -v n4="$(cat "$tmp/ir.newr4")" 'BEGIN {
			printf "  instructions, record per sample: base %.1f M, new %.1f M, x%.3f\n", (b4 - b2) / 2e6, (n4 - n2) / 2e6, (n4 - n2) / (b4 - b2)
		}'
	fi
	find "$parent" -mindepth 1 -depth -type d -print0 | xargs -0 -r rmdir
	[ $same = 1 ] || echo "  warning: the outputs differ"
done
