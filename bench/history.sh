#!/bin/sh
# bench/history.sh: the history recorder against top -b on 1000 scratch cgroups (CPU per sample,
# peak RSS), stored bytes per cgroup-sample (median over frames: the real recorder's and a
# synthetic store's), and replay over a synthetic 24 h store at 1000 cgroups (time to the first
# frame at its middle, per step forward and back, peak RSS). One run, rounds alternated, medians.
# usage: bench/history.sh [BUILD_DIR]   (root; a Release build; creates memcgctl-bench-PID-*)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
ROUNDS=${ROUNDS:-5}
SAMPLES=${SAMPLES:-20}
N=${NCG:-1000}
HOURS=${HOURS:-24}
ACTIVE=${ACTIVE:-20}

# shellcheck source=lib.sh
. "$src/bench/lib.sh"
bench_setup history
# the page cache files go before the cgroups
bench_cleanup_hook() { rm -rf "$tmp/data"; }
# shellcheck disable=SC2046
cc -O2 -Wall -o "$tmp/history-tool" "$src/bench/history-tool.c" -I"$src/lib/include" \
	"$build/libmemcg.a" $(bench_libs) -lm
bench_fill "$N"
export MEMCGCTL_RUNDIR="$tmp/run"

printf 'memcgctl history benchmark: %s, %s cgroups (64 KiB page cache each), %s samples at 50 ms per run, %s rounds, CPU = user+sys\n' \
	"$(uname -r)" "$N" "$SAMPLES" "$ROUNDS"
: >"$tmp/rec"; : >"$tmp/top"; : >"$tmp/ratio"; : >"$tmp/rrss"; : >"$tmp/trss"
r=0
while [ $r -lt "$ROUNDS" ]; do
	# (N+1 samples - 1 sample) / N: start-up and the first walk cancel out; order alternates
	if [ $((r % 2)) = 0 ]; then order="rec top"; else order="top rec"; fi
	for o in $order; do
		rm -rf "$tmp/store"
		if [ "$o" = rec ]; then
			cmd="$bin record --store $tmp/store -d 50ms"
		else
			cmd="$bin top -b -d 0.05"
		fi
		# shellcheck disable=SC2086
		a=$("$tmp/top-raw" run $cmd -n 1 "$rel" 2>/dev/null | awk '{print $2}')
		rm -rf "$tmp/store"
		# shellcheck disable=SC2086
		b=$("$tmp/top-raw" run $cmd -n $((SAMPLES + 1)) "$rel" 2>/dev/null </dev/null | tail -n 1)
		if [ "$o" = rec ]; then rssf=rrss; else rssf=trss; fi
		echo "$b" | awk '{print $4}' >>"$tmp/$rssf"
		echo "$a $(echo "$b" | awk '{print $2}')" | awk -v n="$SAMPLES" '{printf "%.4f\n", ($2-$1)/n}' >>"$tmp/$o"
	done
	paste "$tmp/rec" "$tmp/top" | tail -1 | awk '{printf "%.4f\n", $1/$2}' >>"$tmp/ratio"
	r=$((r + 1))
done
rec=$(median <"$tmp/rec"); top=$(median <"$tmp/top")
printf '%-44s %10.2f ms/sample  peak RSS %6.1f MiB\n' "memcgctl record (every counter)" "$rec" \
	"$(median <"$tmp/rrss" | awk '{print $1/1024}')"
printf '%-44s %10.2f ms/sample  peak RSS %6.1f MiB\n' "memcgctl top -b (its columns)" "$top" \
	"$(median <"$tmp/trss" | awk '{print $1/1024}')"
printf 'record/top -b per sample, median of %s paired rounds: x%.2f (target <= 1.1)\n' "$ROUNDS" \
	"$(median <"$tmp/ratio")"

# stored bytes: a recorder run of 61 samples (a key frame and 60 delta frames)
rm -rf "$tmp/store"
"$bin" record --store "$tmp/store" -d 50ms -n 61 "$rel" </dev/null
"$tmp/history-tool" frames "$tmp/store" >"$tmp/frames"
printf 'stored bytes per cgroup-sample, real recorder, %s frames: median %.2f B (target <= 32)\n' \
	"$(wc -l <"$tmp/frames")" "$(awk '{print $3}' "$tmp/frames" | median)"

# a synthetic store: HOURS at 5 s, ACTIVE% of the cgroups moving each sample
rm -rf "$tmp/synth"
"$tmp/history-tool" synth "$tmp/synth" "$HOURS" "$N" 5 "$ACTIVE" >/dev/null
"$tmp/history-tool" frames "$tmp/synth" >"$tmp/sframes"
printf 'synthetic %s h store, %s cgroups, %s%% moving per sample: %s, median %.2f B per cgroup-sample (%.2f B before zstd)\n' \
	"$HOURS" "$N" "$ACTIVE" "$(du -sh "$tmp/synth" | awk '{print $1}')" \
	"$(awk '{print $3}' "$tmp/sframes" | median)" "$(awk '{print $4}' "$tmp/sframes" | median)"
# the worst case of the model: every cgroup moving every sample (one hour is enough)
rm -rf "$tmp/synth100"
"$tmp/history-tool" synth "$tmp/synth100" 1 "$N" 5 100 >/dev/null
"$tmp/history-tool" frames "$tmp/synth100" >"$tmp/s100"
printf 'synthetic 1 h store, %s cgroups, all moving every sample: median %.2f B per cgroup-sample (%.2f B before zstd)\n' \
	"$N" "$(awk '{print $3}' "$tmp/s100" | median)" "$(awk '{print $4}' "$tmp/s100" | median)"
rm -rf "$tmp/synth100"
: >"$tmp/ttf"; : >"$tmp/next"; : >"$tmp/prev"; : >"$tmp/nmax"; : >"$tmp/pmax"; : >"$tmp/prss"
r=0
while [ $r -lt "$ROUNDS" ]; do
	"$tmp/history-tool" replay "$tmp/synth" >"$tmp/rp"
	awk '{print $2}' "$tmp/rp" >>"$tmp/ttf"
	awk '{print $4}' "$tmp/rp" >>"$tmp/next"
	awk '{print $6}' "$tmp/rp" >>"$tmp/nmax"
	awk '{print $8}' "$tmp/rp" >>"$tmp/prev"
	awk '{print $10}' "$tmp/rp" >>"$tmp/pmax"
	awk '{print $12}' "$tmp/rp" >>"$tmp/prss"
	r=$((r + 1))
done
printf 'replay (page cache warm): first frame at the middle %.1f ms (target <= 1000); step forward median %.2f ms (max %.1f), back median %.2f ms (max %.1f) (target <= 50); peak RSS %.1f MiB (target <= 64)\n' \
	"$(median <"$tmp/ttf")" "$(median <"$tmp/next")" "$(median <"$tmp/nmax")" \
	"$(median <"$tmp/prev")" "$(median <"$tmp/pmax")" "$(median <"$tmp/prss" | awk '{print $1/1024}')"
