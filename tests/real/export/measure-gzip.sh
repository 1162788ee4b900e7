#!/bin/sh
# measure-gzip.sh: bytes per scrape of export --listen, plain and gzip, text format and
# OpenMetrics, on a fixture tree (--root) and on N scratch cgroups (memcgctl-PREFIX-gz).
# Not a test: numbers for the closing note. usage: measure-gzip.sh MEMCGCTL FIXTURE [N [PREFIX]]
set -eu
bin=$1 fixture=$2 n=${3:-1000} prefix=${4:-memcgctl-h29b}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
om='application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
pid=
cg=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	if [ -n "$cg" ] && [ -d "$cg" ]; then
		find "$cg" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null || true
		rmdir "$cg"
	fi
}
trap cleanup EXIT INT TERM PIPE HUP
# measure NAME: one line of sizes of the server on $port
measure() {
	u=http://127.0.0.1:$port/metrics
	i=0
	until curl -fsS -o /dev/null "$u" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 300 ] && { echo "no server" >&2; exit 1; }; sleep 0.1
	done
	plain=$(curl -fsS -o /dev/null -w '%{size_download}' "$u")
	gz=$(curl -fsS -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: gzip' "$u")
	omp=$(curl -fsS -o /dev/null -w '%{size_download}' -H "Accept: $om" "$u")
	omgz=$(curl -fsS -o /dev/null -w '%{size_download}' -H "Accept: $om" -H 'Accept-Encoding: gzip' "$u")
	dur=$(curl -fsS "$u" | awk '$1 == "memcgctl_scrape_duration_seconds" { print $2 }')
	echo "$1: text $plain B, gzip $gz B ($(awk -v a="$plain" -v b="$gz" 'BEGIN { printf "%.1f", a / b }')x);" \
		"openmetrics $omp B, gzip $omgz B; scrape_duration ${dur}s"
}
"$bin" --root "$fixture/cgroup" export --listen "127.0.0.1:$port" >/dev/null 2>&1 &
pid=$!
measure "fixture $(basename "$fixture")"
kill "$pid"; wait "$pid" 2>/dev/null || true
pid=
cg=/sys/fs/cgroup/memory/$prefix-gz
mkdir "$cg"
i=0
while [ $i -lt "$n" ]; do
	mkdir "$cg/c$i"
	i=$((i + 1))
done
"$bin" export --listen "127.0.0.1:$port" "$prefix-gz" >/dev/null 2>&1 &
pid=$!
measure "$n scratch cgroups"
