#!/bin/sh
# bench/export.sh: CPU per scrape of 'memcgctl export --listen' at N scratch cgroups, side by
# side with 'memcgctl top -b' per refresh over the same tree and a one-shot 'memcgctl export'
# (walk + full record, startup included), in one run (alternated, ROUNDS rounds, medians);
# the server's peak RSS (VmHWM) and the exposition's bytes per cgroup (--listen and one-shot).
# usage: bench/export.sh [BUILD_DIR]   (root; a Release build; creates memcgctl-bench-PID under
# the memory root, removes it; python3 and curl needed)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
ROUNDS=${ROUNDS:-5}
SCRAPES=${SCRAPES:-50}
SIZES=${SIZES:-"1000"}

if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.stat ]; then
	root=/sys/fs/cgroup/memory
else
	root=/sys/fs/cgroup
fi
[ "$(id -u)" = 0 ] || { echo "bench/export.sh: needs root" >&2; exit 1; }
tmp=$(mktemp -d /tmp/memcgctl-bench-export.XXXXXX)
parent="$root/memcgctl-bench-$$"
rel=/memcgctl-bench-$$
srv=""
cleanup() {
	set +e
	if [ -n "$srv" ]; then kill -TERM "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; fi
	if [ -d "$parent" ]; then
		find "$parent" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$parent"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cc -O2 -Wall -o "$tmp/top-raw" "$src/bench/top-raw.c" -I"$src/lib/include" "$build/libmemcg.a" \
	$(pkg-config --cflags --libs libnl-genl-3.0 libcgroup) -lm
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
hz=$(getconf CLK_TCK)
cpu_ms() { awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$1/stat"; }

mkdir "$parent"
[ -f "$root/cgroup.subtree_control" ] && echo +memory >"$parent/cgroup.subtree_control"
made=0
printf 'memcgctl export benchmark: %s, %s scrapes/refreshes per run, %s rounds, CPU = user+sys\n' \
	"$(uname -r)" "$SCRAPES" "$ROUNDS"
printf '%-7s %-34s %12s\n' cgroups pass ms/each
for n in $SIZES; do
	while [ "$made" -lt "$n" ]; do
		mkdir "$parent/c$made"
		made=$((made + 1))
	done
	: >"$tmp/listen"; : >"$tmp/top"; : >"$tmp/oneshot"
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		"$bin" export --listen "127.0.0.1:$port" "$rel" 2>"$tmp/srv.err" &
		srv=$!
		i=0
		until curl -fsS -o "$tmp/scrape.prom" "http://127.0.0.1:$port/metrics" 2>/dev/null; do
			i=$((i + 1)); [ $i -lt 300 ] || { cat "$tmp/srv.err" >&2; exit 1; }; sleep 0.1
		done
		curl -fsS -o /dev/null "http://127.0.0.1:$port/metrics"
		a=$(cpu_ms "$srv")
		i=0
		while [ $i -lt "$SCRAPES" ]; do
			curl -fsS -o /dev/null "http://127.0.0.1:$port/metrics"
			i=$((i + 1))
		done
		b=$(cpu_ms "$srv")
		echo "$a $b" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/listen"
		hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$srv/status")
		nfd=$(ls "/proc/$srv/fd" | wc -l)
		kill -TERM "$srv"; wait "$srv" || true; srv=""
		# top -b: (K+1 refreshes - 1 refresh) / K removes start-up and the first walk
		a=$("$tmp/top-raw" run "$bin" top -b -n 1 -d 0.05 --no-taskstats "$rel" | awk '{print $2}')
		b=$("$tmp/top-raw" run "$bin" top -b -n $((SCRAPES + 1)) -d 0.05 --no-taskstats "$rel" | awk '{print $2}')
		echo "$a $b" | awk -v k="$SCRAPES" '{ printf "%.4f\n", ($2 - $1) / k }' >>"$tmp/top"
		"$tmp/top-raw" run "$bin" export "$rel" | awk '{print $2}' >>"$tmp/oneshot"
		r=$((r + 1))
	done
	l=$(median <"$tmp/listen"); t=$(median <"$tmp/top"); o=$(median <"$tmp/oneshot")
	printf '%-7s %-34s %12s\n' "$n" "export --listen, per scrape" "$l"
	printf '%-7s %-34s %12s\n' "$n" "top -b, per refresh" "$t"
	printf '%-7s %-34s %12s\n' "$n" "export one-shot (walk, startup)" "$o"
	printf '%-7s %-34s %12s\n' "$n" "ratio listen / top" "$(echo "$l $t" | awk '{ printf "%.2f", $1 / $2 }')"
	"$bin" export "$rel" >"$tmp/oneshot.prom"
	printf '%-7s peak RSS of the server %s KiB, %s descriptors open; bytes per cgroup: --listen %s, one-shot %s\n' \
		"$n" "$hwm" "$nfd" "$(($(wc -c <"$tmp/scrape.prom") / (n + 1)))" \
		"$(($(wc -c <"$tmp/oneshot.prom") / (n + 1)))"
done
