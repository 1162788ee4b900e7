#!/bin/sh
# async-reclaim-v2.sh: the write mode of bench/async-reclaim (the 2011 async-reclaim latency
# test) in the real-v2 QEMU guest (Debian 6.1 kernel, pure cgroup v2) with a throttled data
# disk, i.e. slow storage as in /work/shared/reference/000_*.txt.
# Scaled to the 768 MiB guest with the original ratios (working set = 2 x limit, request =
# 0.8 x file): 4096 files of 40 KiB (160 MiB) in a scratch cgroup with memory.max 80 MiB, one
# closed-loop worker doing 32 KiB writes at file indexes from N(0.5, 0.1) x 4096; nolimit /
# limit / limit + async reclaim alternate within each round; medians and paired ratios.
# Builds nothing but the workload (bench/async-workload.c, compiled with cc for these sizes
# into a temporary dir and carried into the guest with run-guest.sh --extra).
# usage: bench/async-reclaim-v2.sh BUILD_DIR     (a cmake build dir with memcgctl)
# measured results and what they show: bench/README-async-v2.txt
# env: ROUNDS (4) WARMUP (5 s) SECS (10 s) LIMIT (80M) DISK_BPS (8388608 = 8 MiB/s)
#      PREFILL (1: before each run read every file from inside the cgroup, so that it starts
#      at its limit; 0: start from an empty cache, as the v1 bench: the throttled writer then
#      never fills the limited cgroup in the guest, see bench/README-async-v2.txt)
#      ASYNC_OPTS (enable options) BUDGET (420 s of rounds in the guest; a round that would
#      not fit is not started) MCG_V2_TIMEOUT (600 s for the whole guest)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 64; }
build=$(cd "$1" && pwd)
[ -x "$build/memcgctl" ] || { echo "async-reclaim-v2 bench: no memcgctl in $build (build first)" >&2; exit 1; }
ROUNDS=${ROUNDS:-4} WARMUP=${WARMUP:-5} PREFILL=${PREFILL:-1} SECS=${SECS:-10} LIMIT=${LIMIT:-80M}
DISK_BPS=${DISK_BPS:-8388608} ASYNC_OPTS=${ASYNC_OPTS:-} BUDGET=${BUDGET:-420}
# shellcheck disable=SC2034 # NFILES reaches the guest through eval below
NFILES=4096 FILE_KIB=40 REQ_KIB=32
x=
for v in ROUNDS WARMUP SECS DISK_BPS BUDGET PREFILL; do
	eval "x=\$$v"
	case $x in '' | *[!0-9]*) echo "async-reclaim-v2 bench: $v must be a whole number: '$x'" >&2; exit 64 ;; esac
done
case $LIMIT in '' | *[!0-9KMG]*) echo "async-reclaim-v2 bench: bad LIMIT '$LIMIT'" >&2; exit 64 ;; esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memcgctl-bench-v2.XXXXXX")
guest=
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	trap - EXIT INT TERM HUP
	set +e # run-guest.sh's non-zero exit must not stop the cleanup
	# run-guest.sh stops its QEMU on TERM (its own trap) and removes its scratch dir
	if [ -n "$guest" ] && kill -0 "$guest" 2>/dev/null; then
		kill -TERM "$guest" 2>/dev/null
		wait "$guest" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# the workload for the scaled sizes: same source, the two size constants replaced
sed -e "s/^#define FILE_KIB 160\$/#define FILE_KIB $FILE_KIB/" \
	-e "s/^#define REQ_KIB 128\$/#define REQ_KIB $REQ_KIB/" "$here/async-workload.c" >"$tmp/async-workload.c"
if ! grep -q "^#define FILE_KIB $FILE_KIB\$" "$tmp/async-workload.c" ||
	! grep -q "^#define REQ_KIB $REQ_KIB\$" "$tmp/async-workload.c"; then
	echo "async-reclaim-v2 bench: bench/async-workload.c no longer defines FILE_KIB 160 / REQ_KIB 128" >&2
	exit 1
fi
cc -O2 -o "$tmp/async-workload" "$tmp/async-workload.c" -lm

# the guest scenario: parameters, then the guest script
{
	echo "#!/bin/sh"
	for v in NFILES FILE_KIB REQ_KIB LIMIT ROUNDS WARMUP SECS BUDGET DISK_BPS PREFILL; do
		eval "echo \"$v=\$$v\""
	done
	printf "ASYNC_OPTS='%s'\n" "$(printf %s "$ASYNC_OPTS" | sed "s/'/'\\\\''/g")"
	cat "$here/async-reclaim-v2.guest.sh"
} >"$tmp/async-reclaim-v2.sh"

echo "booting the v2 guest (disk writes throttled to $DISK_BPS B/s, up to ${MCG_V2_TIMEOUT:-600}s) ..." >&2
rc=0
MCG_V2_DISK_BPS_WRITE=$DISK_BPS MCG_V2_TIMEOUT=${MCG_V2_TIMEOUT:-600} \
	MCG_V2_SCENARIO_TIMEOUT=$((BUDGET + 120)) \
	sh "$src/tests/real-v2/run-guest.sh" --build "$build" --src "$src" --results "$tmp/results" \
	--extra "$tmp/async-workload" "$tmp/async-reclaim-v2.sh" >"$tmp/run-guest.out" 2>&1 &
guest=$!
wait "$guest" || rc=$?
guest=
grep -v '^real-v2: results in ' "$tmp/run-guest.out" >&2 || true
d=$tmp/results/s/async-reclaim-v2
[ -f "$d/err" ] && cat "$d/err" >&2
[ -f "$d/out" ] && cat "$d/out"
exit "$rc"
