#!/bin/sh
# bench/export.sh: CPU per scrape of 'memcgctl export --listen' at N scratch cgroups, side by
# side with 'memcgctl top -b' per refresh over the same tree and a one-shot 'memcgctl export'
# (walk + full record, startup included), in one run (alternated, ROUNDS rounds, medians);
# the server's peak RSS (VmHWM) and the exposition's bytes per cgroup (--listen and one-shot).
# --listen runs with every family (the default) and with each --families list in FAMILIES
# (default "memory,reclaim,events,psi": what costs a scrape is the files read per cgroup).
# usage: bench/export.sh [BUILD_DIR]   (root; a Release build; creates memcgctl-bench-PID under
# the memory root, removes it; python3 and curl needed)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
ROUNDS=${ROUNDS:-5}
SCRAPES=${SCRAPES:-50}
SIZES=${SIZES:-"1000"}
FAMILIES=${FAMILIES-"memory,reclaim,events,psi"}

# shellcheck source=lib.sh
. "$src/bench/lib.sh"
srv=""
bench_cleanup_hook() {
	if [ -n "$srv" ]; then kill -TERM "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; fi
}
bench_setup export
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
made=0
printf 'memcgctl export benchmark: %s, %s scrapes/refreshes per run, %s rounds, CPU = user+sys\n' \
	"$(uname -r)" "$SCRAPES" "$ROUNDS"
printf '%-7s %-34s %12s\n' cgroups pass ms/each
for n in $SIZES; do
	while [ "$made" -lt "$n" ]; do
		mkdir "$parent/c$made"
		made=$((made + 1))
	done
	: >"$tmp/top"; : >"$tmp/oneshot"
	for f in all $FAMILIES; do : >"$tmp/listen-$f"; done
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		for f in all $FAMILIES; do
			fam=""
			[ "$f" = all ] || fam="--families $f"
			# shellcheck disable=SC2086
			"$bin" export --listen "127.0.0.1:$port" $fam "$rel" 2>"$tmp/srv.err" &
			srv=$!
			i=0
			until curl -fsS -o "$tmp/scrape-$f.prom" "http://127.0.0.1:$port/metrics" 2>/dev/null; do
				i=$((i + 1)); [ $i -lt 300 ] || { cat "$tmp/srv.err" >&2; exit 1; }; sleep 0.1
			done
			curl -fsS -o /dev/null "http://127.0.0.1:$port/metrics"
			a=$(bench_cpu_ms "$srv")
			i=0
			while [ $i -lt "$SCRAPES" ]; do
				curl -fsS -o /dev/null "http://127.0.0.1:$port/metrics"
				i=$((i + 1))
			done
			b=$(bench_cpu_ms "$srv")
			echo "$a $b" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/listen-$f"
			echo "$(awk '/^VmHWM/ { print $2 }' "/proc/$srv/status") $(ls "/proc/$srv/fd" | wc -l)" >"$tmp/mem-$f"
			kill -TERM "$srv"; wait "$srv" || true; srv=""
		done
		# top -b: (K+1 refreshes - 1 refresh) / K removes start-up and the first walk
		a=$("$tmp/top-raw" run "$bin" top -b -n 1 -d 0.05 --no-taskstats "$rel" | awk '{print $2}')
		b=$("$tmp/top-raw" run "$bin" top -b -n $((SCRAPES + 1)) -d 0.05 --no-taskstats "$rel" | awk '{print $2}')
		echo "$a $b" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/top"
		"$tmp/top-raw" run "$bin" export "$rel" | awk '{print $2}' >>"$tmp/oneshot"
		r=$((r + 1))
	done
	t=$(median <"$tmp/top"); o=$(median <"$tmp/oneshot")
	printf '%-7s %-34s %12s\n' "$n" "top -b, per refresh" "$t"
	printf '%-7s %-34s %12s\n' "$n" "export one-shot (walk, startup)" "$o"
	for f in all $FAMILIES; do
		l=$(median <"$tmp/listen-$f")
		printf '%-7s %-34s %12s   ratio to top %s\n' "$n" "--listen ($f), per scrape" "$l" \
			"$(echo "$l $t" | awk '{ printf "%.2f", $1 / $2 }')"
		set -- $(cat "$tmp/mem-$f")
		printf '%-7s   peak RSS %s KiB, %s descriptors open, %s bytes per cgroup\n' "$n" "$1" "$2" \
			"$(($(wc -c <"$tmp/scrape-$f.prom") / (n + 1)))"
	done
	"$bin" export "$rel" >"$tmp/oneshot.prom"
	printf '%-7s one-shot: %s bytes per cgroup\n' "$n" "$(($(wc -c <"$tmp/oneshot.prom") / (n + 1)))"
done
