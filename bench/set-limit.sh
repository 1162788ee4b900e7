#!/bin/sh
# set-limit.sh: shrink a cgroup full of page cache to 100 MiB with 'memcgctl set-limit' and
# with a raw write to the limit file, alternating, and print the median ratio memcgctl/raw
# for clean, 4 KiB-written and dirty page cache.
# usage: bench/set-limit.sh [-n GIB] [-r ROUNDS] [-b BUILD_DIR] [-d DATA_DIR]
# Needs root and a memory cgroup hierarchy (v1 at /sys/fs/cgroup/memory or v2 at /sys/fs/cgroup).
set -eu
GIB=1 ROUNDS=5
BUILD=$(dirname "$0")/../build
DATA=/var/tmp
while getopts n:r:b:d: o; do
	case $o in
	n) GIB=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	d) DATA=$OPTARG ;;
	*) echo "usage: $0 [-n GIB] [-r ROUNDS] [-b BUILD_DIR] [-d DATA_DIR]" >&2; exit 64 ;;
	esac
done
MEMCGCTL=$(cd "$BUILD" && pwd)/memcgctl
LOAD=$(cd "$BUILD" && pwd)/tests/real/mcg-load
[ -x "$MEMCGCTL" ] && [ -x "$LOAD" ] || { echo "build first: no $MEMCGCTL or $LOAD" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	ROOT=/sys/fs/cgroup/memory LIMIT=memory.limit_in_bytes USAGE=memory.usage_in_bytes UNLIM=-1
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	ROOT=/sys/fs/cgroup LIMIT=memory.max USAGE=memory.current UNLIM=max
else
	echo "no memory cgroup controller" >&2
	exit 1
fi
NAME=memcgctl-bench-$$
CG=$ROOT/$NAME
TMP=$(mktemp -d "$DATA/memcgctl-bench.XXXXXX")
RUN=$TMP/run # memcgctl's journal and lock, private
TARGET=104857600
MIB=$((GIB * 1024))

cleanup() {
	set +e
	if [ -d "$CG" ]; then
		for p in $(cat "$CG/cgroup.procs"); do kill -KILL "$p"; done
		rmdir "$CG"
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$CG"

now_ns() { date +%s%N; }

# fill STATE: N GiB of page cache charged to the cgroup, limit unlimited
fill() {
	echo "$UNLIM" >"$CG/$LIMIT"
	rm -f "$TMP/data"
	case $1 in
	clean) args="--sync" ;;
	4k) args="--sync --bs 4" ;;
	dirty) args="" ;;
	esac
	# shellcheck disable=SC2086
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG" "$LOAD" write "$TMP/data" "$MIB" $args >/dev/null
}

# shrink HOW: time one shrink to TARGET in ms (3 decimals); check the kernel's result
shrink() {
	t0=$(now_ns)
	if [ "$1" = raw ]; then
		echo "$TARGET" >"$CG/$LIMIT"
	else
		"$MEMCGCTL" --run-dir "$RUN" set-limit "/$NAME" "$TARGET" >/dev/null
	fi
	t1=$(now_ns)
	[ "$(cat "$CG/$LIMIT")" = "$TARGET" ] || { echo "limit not $TARGET after $1" >&2; exit 1; }
	[ "$(cat "$CG/$USAGE")" -le "$TARGET" ] || { echo "usage above the limit after $1" >&2; exit 1; }
	echo $(((t1 - t0) / 1000)) | awk '{ printf "%.3f", $1 / 1000 }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "set-limit benchmark: ${GIB} GiB of page cache -> 100 MiB, $ROUNDS rounds, $(uname -r), $ROOT"
printf '%-6s %12s %14s %16s   %s\n' state "raw ms" "memcgctl ms" "ratio (median)" "per-round ratios"
for state in clean 4k dirty; do
	: >"$TMP/raw" && : >"$TMP/mcg" && : >"$TMP/ratio"
	r=1
	while [ $r -le "$ROUNDS" ]; do
		# alternate which one goes first
		if [ $((r % 2)) = 1 ]; then order="memcgctl raw"; else order="raw memcgctl"; fi
		for how in $order; do
			fill $state
			ms=$(shrink $how)
			if [ $how = raw ]; then raw_ms=$ms; echo "$ms" >>"$TMP/raw"; else mcg_ms=$ms; echo "$ms" >>"$TMP/mcg"; fi
		done
		awk -v a="$mcg_ms" -v b="$raw_ms" 'BEGIN { printf "%.3f\n", a / b }' >>"$TMP/ratio"
		r=$((r + 1))
	done
	printf '%-6s %12s %14s %16s   %s\n' $state "$(median <"$TMP/raw")" "$(median <"$TMP/mcg")" \
		"$(median <"$TMP/ratio")" "$(tr '\n' ' ' <"$TMP/ratio")"
done
