#!/bin/sh
# bench/top.sh: CPU per refresh and peak RSS of 'memcgctl top -b' on 100 and 1000 scratch cgroups,
# side by side with a raw open/read/close pass and a kept-fd pread pass over the same 4 files per
# cgroup, in one run (configurations alternated, several rounds, medians). Also the taskstats cost.
# usage: bench/top.sh [BUILD_DIR [BASE_BUILD_DIR]]   (root; creates memcgctl-bench-top-PID under the
# memory root). With BASE_BUILD_DIR (another tree's build, e.g. a worktree of an older commit), each
# round also runs that tree's memcgctl and both trees' sampler alone (bench/top-sampler.c, built
# against each libmemcg.a), alternated, and prints the new/base ratios as medians of paired rounds.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
base=${2:-}
ROUNDS=${ROUNDS:-5}
REFRESH=${REFRESH:-20}
SIZES=${SIZES:-"100 1000"}

# shellcheck source=lib.sh
. "$src/bench/lib.sh"
pids=""
bench_cleanup_hook() {
	for p in $pids; do kill -KILL "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$tmp/data"
}
bench_setup top

if [ -n "$base" ]; then
	# shellcheck disable=SC2046
	cc -O2 -Wall -o "$tmp/sampler-new" "$src/bench/top-sampler.c" -I"$src/lib/include" \
		"$build/libmemcg.a" $(bench_libs) -lm
	# shellcheck disable=SC2046
	cc -O2 -Wall -o "$tmp/sampler-base" "$src/bench/top-sampler.c" -I"$base/../lib/include" \
		"$base/libmemcg.a" $(bench_libs) -lm
fi

made=0
printf 'memcgctl top benchmark: %s, %s refreshes per run, %s rounds, CPU = user+sys\n' \
	"$(uname -r)" "$REFRESH" "$ROUNDS"
printf '%-6s %-9s %-28s %10s %10s\n' cgroups state pass ms/refresh peak_RSS
measure() { # N STATE
	n=$1
	: >"$tmp/ocr" ; : >"$tmp/pread" ; : >"$tmp/top" ; : >"$tmp/json" ; : >"$tmp/rss"
	: >"$tmp/btop" ; : >"$tmp/rtop" ; : >"$tmp/snew" ; : >"$tmp/sbase" ; : >"$tmp/rs"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		# shellcheck disable=SC2086
		"$tmp/top-raw" ocr "$REFRESH" $dirs | awk '{print $2}' >>"$tmp/ocr"
		# shellcheck disable=SC2086
		"$tmp/top-raw" pread "$REFRESH" $dirs | awk '{print $2}' >>"$tmp/pread"
		# memcgctl: (N+1 samples - 1 sample) / N removes start-up and the first walk
		a=$("$tmp/top-raw" run "$bin" top -b -n 1 -d 0.05 "$rel" | awk '{print $2}')
		b=$("$tmp/top-raw" run "$bin" top -b -n $((REFRESH + 1)) -d 0.05 "$rel")
		echo "$b" | awk '{print $4}' >>"$tmp/rss"
		echo "$a $(echo "$b" | awk '{print $2}')" | awk -v n="$REFRESH" '{printf "%.4f\n", ($2-$1)/n}' >>"$tmp/top"
		a=$("$tmp/top-raw" run "$bin" --json top -b -n 1 -d 0.05 "$rel" | awk '{print $2}')
		b=$("$tmp/top-raw" run "$bin" --json top -b -n $((REFRESH + 1)) -d 0.05 "$rel" | awk '{print $2}')
		echo "$a $b" | awk -v n="$REFRESH" '{printf "%.4f\n", ($2-$1)/n}' >>"$tmp/json"
		if [ -n "$base" ]; then
			a=$("$tmp/top-raw" run "$base/memcgctl" top -b -n 1 -d 0.05 "$rel" | awk '{print $2}')
			b=$("$tmp/top-raw" run "$base/memcgctl" top -b -n $((REFRESH + 1)) -d 0.05 "$rel" | awk '{print $2}')
			echo "$a $b" | awk -v n="$REFRESH" '{printf "%.4f\n", ($2-$1)/n}' >>"$tmp/btop"
			paste "$tmp/top" "$tmp/btop" | tail -1 | awk '{printf "%.4f\n", $1/$2}' >>"$tmp/rtop"
			# the sampler alone, base and new in turn (which goes first alternates by round)
			if [ $((r % 2)) = 0 ]; then order="new base"; else order="base new"; fi
			for o in $order; do
				"$tmp/sampler-$o" "$REFRESH" "$rel" | awk '{print $2}' >>"$tmp/s$o"
			done
			paste "$tmp/snew" "$tmp/sbase" | tail -1 | awk '{printf "%.4f\n", $1/$2}' >>"$tmp/rs"
		fi
		r=$((r + 1))
	done
	ocr=$(median <"$tmp/ocr"); pr=$(median <"$tmp/pread"); top=$(median <"$tmp/top")
	js=$(median <"$tmp/json"); rss=$(median <"$tmp/rss")
	printf '%-6s %-9s %-28s %10.2f %10s\n' "$n" "$2" "open/read/close, 4 files" "$ocr" -
	printf '%-6s %-9s %-28s %10.2f %10s\n' "$n" "$2" "kept-fd pread, 4 files" "$pr" -
	printf '%-6s %-9s %-28s %10.2f %7.1fMiB\n' "$n" "$2" "memcgctl top -b (text)" "$top" "$(echo "$rss" | awk '{print $1/1024}')"
	printf '%-6s %-9s %-28s %10.2f %10s\n' "$n" "$2" "memcgctl top -b --json" "$js" -
	printf '%-6s %-9s ratios: top/pread %.2f  top/open-read-close %.2f\n' "$n" "$2" \
		"$(echo "$top $pr" | awk '{print $1/$2}')" "$(echo "$top $ocr" | awk '{print $1/$2}')"
	if [ -n "$base" ]; then
		printf '%-6s %-9s %-28s %10.2f %10s\n' "$n" "$2" "base memcgctl top -b (text)" "$(median <"$tmp/btop")" -
		printf '%-6s %-9s %-28s %10.2f %10s\n' "$n" "$2" "sampler alone (new)" "$(median <"$tmp/snew")" -
		printf '%-6s %-9s %-28s %10.2f %10s\n' "$n" "$2" "sampler alone (base)" "$(median <"$tmp/sbase")" -
		printf '%-6s %-9s new/base, medians of %s paired rounds: top -b x%.3f  sampler alone x%.3f\n' \
			"$n" "$2" "$ROUNDS" "$(median <"$tmp/rtop")" "$(median <"$tmp/rs")"
	fi
}

mkdir "$tmp/data"
filled=0
for n in $SIZES; do
	while [ $made -lt "$n" ]; do
		mkdir "$parent/c$made"
		made=$((made + 1))
	done
	dirs=$(i=0; while [ $i -lt "$n" ]; do printf '%s ' "$parent/c$i"; i=$((i + 1)); done)
	measure "$n" empty
	# every cgroup charged with 64 KiB of page cache by a short-lived child of ours
	while [ $filled -lt "$n" ]; do
		sh -c 'echo $$ >"$1/cgroup.procs" && head -c 65536 /dev/zero >"$2"' sh \
			"$parent/c$filled" "$tmp/data/f$filled"
		filled=$((filled + 1))
	done
	measure "$n" cache
done

# taskstats: one generic-netlink query per process, measured on our own sleeping children
np=${TASKSTATS_PROCS:-100}
i=0
while [ $i -lt "$np" ]; do
	sleep 300 &
	pids="$pids $!"
	echo $! >"$parent/c$((i % made))/cgroup.procs"
	i=$((i + 1))
done
: >"$tmp/ts"
r=0
while [ $r -lt "$ROUNDS" ]; do
	# shellcheck disable=SC2086
	"$tmp/top-raw" taskstats "$REFRESH" $pids | awk '{print $2}' >>"$tmp/ts"
	r=$((r + 1))
done
ts=$(median <"$tmp/ts")
printf 'taskstats: %s processes: %.3f ms per refresh (%.1f us per process), delay accounting %s\n' \
	"$np" "$ts" "$(echo "$ts $np" | awk '{print $1*1000/$2}')" \
	"$(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo unknown)"
