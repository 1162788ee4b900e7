#!/bin/bash
# set-limit.sh: shrink a cgroup full of page cache to 100 MiB with 'memcgctl set-limit' and
# with a raw write to the limit file, alternating, and print the median ratio memcgctl/raw
# for clean, 4 KiB-written and dirty page cache. "raw" is the shell's builtin echo (no new
# process); "raw-sh" is a new /bin/sh that does the same write, the cost of any tool that runs
# as its own process, so memcgctl/raw-sh shows what memcgctl adds beyond being a process;
# "memcgctl-root" passes --root, which skips the discovery of the hierarchy (mountinfo).
# bash for $EPOCHREALTIME: timing without forking date(1) around each shrink. Besides wall
# time, the CPU time (user + sys of the shell and its children, from bash's `times`) of each
# shrink is measured: reclaim runs in the writer's context, so for clean page cache the
# CPU time is the shrink's cost and is less disturbed by other load on the machine.
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
	# let the writer's exit and the fsync settle, the same for every configuration: right
	# after a fill, starting any process takes 2-5x longer here, which is not the shrink
	sleep 0.5
}

# shrink HOW: time one shrink to TARGET in ms (3 decimals); check the kernel's result
# cpu_now: CPU_US = user + sys of this shell and its reaped children, in microseconds,
# parsed without forking (a command substitution would run `times` in a subshell)
to_us() {
	local v=$1 m s
	m=${v%%m*}
	s=${v#*m}
	s=${s%s}
	TO_US=$(((m * 60 + 10#${s%.*}) * 1000000 + 10#${s#*.} * 1000))
}
cpu_now() {
	local a b c d
	times >"$TMP/times"
	{ read -r a b; read -r c d; } <"$TMP/times"
	CPU_US=0
	for v in $a $b $c $d; do
		to_us "$v"
		CPU_US=$((CPU_US + TO_US))
	done
}

shrink() {
	local t0 t1 c0 c1
	cpu_now
	c0=$CPU_US
	t0=${EPOCHREALTIME/./}
	case $1 in
	raw) echo "$TARGET" >"$CG/$LIMIT" ;;
	raw-sh) /bin/sh -c 'echo "$1" >"$2"' sh "$TARGET" "$CG/$LIMIT" ;;
	memcgctl) "$MEMCGCTL" --run-dir "$RUN" set-limit "/$NAME" "$TARGET" >/dev/null ;;
	memcgctl-root) "$MEMCGCTL" --root "$ROOT" --run-dir "$RUN" set-limit "/$NAME" "$TARGET" >/dev/null ;;
	esac
	t1=${EPOCHREALTIME/./}
	cpu_now
	c1=$CPU_US
	[ "$(cat "$CG/$LIMIT")" = "$TARGET" ] || { echo "limit not $TARGET after $1" >&2; exit 1; }
	[ "$(cat "$CG/$USAGE")" -le "$TARGET" ] || { echo "usage above the limit after $1" >&2; exit 1; }
	SHRINK_MS=$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1000 }')
	SHRINK_CPU=$(awk -v d=$((c1 - c0)) 'BEGIN { printf "%.3f", d / 1000 }')
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "set-limit benchmark: ${GIB} GiB of page cache -> 100 MiB, $ROUNDS rounds, $(uname -r), $ROOT, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %8s %9s %9s %14s %13s %11s %14s\n' state "raw ms" "raw-sh ms" "memcgctl" "memcgctl-root" "memcgctl/raw" "/raw-sh" "-root/raw"
for state in clean 4k dirty; do
	for f in raw raw-sh memcgctl memcgctl-root ratio ratio-sh ratio-root; do : >"$TMP/$f"; : >"$TMP/cpu-$f"; done
	r=1
	while [ $r -le "$ROUNDS" ]; do
		# rotate which one goes first
		case $((r % 4)) in
		1) order="memcgctl raw raw-sh memcgctl-root" ;;
		2) order="raw raw-sh memcgctl-root memcgctl" ;;
		3) order="raw-sh memcgctl-root memcgctl raw" ;;
		0) order="memcgctl-root memcgctl raw raw-sh" ;;
		esac
		for how in $order; do
			fill $state
			shrink $how
			echo "$SHRINK_MS" >>"$TMP/$how"
			echo "$SHRINK_CPU" >>"$TMP/cpu-$how"
			eval "ms_${how//-/_}=$SHRINK_MS cpu_${how//-/_}=$SHRINK_CPU"
		done
		awk -v a="$ms_memcgctl" -v b="$ms_raw" 'BEGIN { printf "%.3f\n", a / b }' >>"$TMP/ratio"
		awk -v a="$ms_memcgctl" -v b="$ms_raw_sh" 'BEGIN { printf "%.3f\n", a / b }' >>"$TMP/ratio-sh"
		awk -v a="$ms_memcgctl_root" -v b="$ms_raw" 'BEGIN { printf "%.3f\n", a / b }' >>"$TMP/ratio-root"
		awk -v a="$cpu_memcgctl" -v b="$cpu_raw" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }' >>"$TMP/cpu-ratio"
		awk -v a="$cpu_memcgctl" -v b="$cpu_raw_sh" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }' >>"$TMP/cpu-ratio-sh"
		awk -v a="$cpu_memcgctl_root" -v b="$cpu_raw" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }' >>"$TMP/cpu-ratio-root"
		r=$((r + 1))
	done
	printf '%-6s %8s %9s %9s %14s %13s %11s %14s\n' $state "$(median <"$TMP/raw")" "$(median <"$TMP/raw-sh")" \
		"$(median <"$TMP/memcgctl")" "$(median <"$TMP/memcgctl-root")" "$(median <"$TMP/ratio")" \
		"$(median <"$TMP/ratio-sh")" "$(median <"$TMP/ratio-root")"
	echo "       per-round memcgctl/raw: $(tr '\n' ' ' <"$TMP/ratio")"
	printf '%-6s %8s %9s %9s %14s %13s %11s %14s\n' "  cpu" "$(median <"$TMP/cpu-raw")" "$(median <"$TMP/cpu-raw-sh")" \
		"$(median <"$TMP/cpu-memcgctl")" "$(median <"$TMP/cpu-memcgctl-root")" "$(median <"$TMP/cpu-ratio")" \
		"$(median <"$TMP/cpu-ratio-sh")" "$(median <"$TMP/cpu-ratio-root")"
done
echo "wall rows: elapsed ms; cpu rows: user+sys ms of the writing process(es)"
echo "times are medians in ms; ratios are medians of per-round (paired) ratios; target memcgctl/raw <= 1.05"
