#!/bin/sh
# bench/export.sh: CPU per scrape of 'memcgctl export --listen' at N scratch cgroups, side by
# side with 'memcgctl top -b' per refresh over the same tree and a one-shot 'memcgctl export'
# (walk + full record, startup included), in one run (alternated, ROUNDS rounds, medians);
# the server's peak RSS (VmHWM) and the exposition's bytes per cgroup (--listen and one-shot).
# --listen runs with every family (the default) and with each --families list in FAMILIES
# (default "memory,reclaim,events,psi": what costs a scrape is the files read per cgroup).
# usage: bench/export.sh [BUILD_DIR]   (root; a Release build; creates memcgctl-bench-PID under
# the memory root, removes it; python3 and curl needed). Also 'record' per sample (record -d 50ms
# -n SCRAPES+2 less -n 2, --no-oom). BASE=OTHER_BUILD_DIR: that build's passes too, in the same
# rounds (the order of the two builds alternated per round), and this build's figures over its.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
ROUNDS=${ROUNDS:-5}
SCRAPES=${SCRAPES:-50}
SIZES=${SIZES:-"1000"}
FAMILIES=${FAMILIES-"memory,reclaim,events,psi"}
BASE=${BASE:-}

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
printf '%-7s %-5s %-34s %12s\n' cgroups build pass ms/each
# one round of BIN's passes, appended to $tmp/TAG-*: --listen per scrape for each of FAMS ("all":
# every family), top -b per refresh, record per sample, the one-shot
round_of() { # BIN TAG FAMS
	b=$1 tag=$2
	for f in $3; do
		fam=""
		[ "$f" = all ] || fam="--families $f"
		# shellcheck disable=SC2086
		"$b" export --listen "127.0.0.1:$port" $fam "$rel" 2>"$tmp/srv.err" &
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
		c=$(bench_cpu_ms "$srv")
		echo "$a $c" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/$tag-listen-$f"
		echo "$(awk '/^VmHWM/ { print $2 }' "/proc/$srv/status") $(ls "/proc/$srv/fd" | wc -l)" >"$tmp/$tag-mem-$f"
		kill -TERM "$srv"; wait "$srv" || true; srv=""
	done
	# top -b: (K+1 refreshes - 1 refresh) / K removes start-up and the first walk
	a=$("$tmp/top-raw" run "$b" top -b -n 1 -d 0.05 --no-taskstats "$rel" | awk '{print $2}')
	c=$("$tmp/top-raw" run "$b" top -b -n $((SCRAPES + 1)) -d 0.05 --no-taskstats "$rel" | awk '{print $2}')
	echo "$a $c" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/$tag-top"
	# record: likewise, (K+2 samples - 2) / K, into a store removed after each
	rm -rf "$tmp/store"
	a=$(MEMCGCTL_RUNDIR="$tmp/run" "$tmp/top-raw" run "$b" record --no-oom --store "$tmp/store" -d 50ms -n 2 "$rel" | awk '{print $2}')
	rm -rf "$tmp/store"
	c=$(MEMCGCTL_RUNDIR="$tmp/run" "$tmp/top-raw" run "$b" record --no-oom --store "$tmp/store" -d 50ms -n $((SCRAPES + 2)) "$rel" | awk '{print $2}')
	rm -rf "$tmp/store"
	echo "$a $c" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/$tag-record"
	"$tmp/top-raw" run "$b" export "$rel" | awk '{print $2}' >>"$tmp/$tag-oneshot"
}
mkdir -p "$tmp/run"
for n in $SIZES; do
	while [ "$made" -lt "$n" ]; do
		mkdir "$parent/c$made"
		made=$((made + 1))
	done
	rm -f "$tmp"/new-* "$tmp"/base-*
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		if [ -n "$BASE" ] && [ $((r % 2)) = 1 ]; then
			round_of "$BASE/memcgctl" base all
			round_of "$bin" new "all $FAMILIES"
		else
			round_of "$bin" new "all $FAMILIES"
			[ -z "$BASE" ] || round_of "$BASE/memcgctl" base all
		fi
		r=$((r + 1))
	done
	for tag in new ${BASE:+base}; do
		[ "$tag" = new ] && fams="all $FAMILIES" || fams=all
		t=$(median <"$tmp/$tag-top"); o=$(median <"$tmp/$tag-oneshot"); rc=$(median <"$tmp/$tag-record")
		printf '%-7s %-5s %-34s %12s\n' "$n" "$tag" "top -b, per refresh" "$t"
		printf '%-7s %-5s %-34s %12s   ratio to top %s\n' "$n" "$tag" "record, per sample" "$rc" \
			"$(echo "$rc $t" | awk '{ printf "%.2f", $1 / $2 }')"
		printf '%-7s %-5s %-34s %12s\n' "$n" "$tag" "export one-shot (walk, startup)" "$o"
		for f in $fams; do
			l=$(median <"$tmp/$tag-listen-$f")
			printf '%-7s %-5s %-34s %12s   ratio to top %s\n' "$n" "$tag" "--listen ($f), per scrape" "$l" \
				"$(echo "$l $t" | awk '{ printf "%.2f", $1 / $2 }')"
			set -- $(cat "$tmp/$tag-mem-$f")
			printf '%-7s %-5s   peak RSS %s KiB, %s descriptors open\n' "$n" "$tag" "$1" "$2"
		done
	done
	if [ -n "$BASE" ]; then
		for x in top record oneshot listen-all; do
			printf '%-7s this build over BASE, %-12s x%s (medians of the rounds)\n' "$n" "$x" \
				"$(echo "$(median <"$tmp/new-$x") $(median <"$tmp/base-$x")" | awk '{ printf "%.2f", $1 / $2 }')"
		done
	fi
	"$bin" export "$rel" >"$tmp/oneshot.prom"
	printf '%-7s one-shot: %s bytes per cgroup\n' "$n" "$(($(wc -c <"$tmp/oneshot.prom") / (n + 1)))"
done
