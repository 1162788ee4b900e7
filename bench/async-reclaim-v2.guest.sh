#!/bin/sh
# async-reclaim-v2.guest.sh: the guest half of bench/async-reclaim-v2.sh (busybox ash, cgroup
# v2, run by tests/real-v2/guest-init.sh as a scenario). The host prepends the parameters:
# NFILES FILE_KIB REQ_KIB LIMIT ROUNDS WARMUP SECS ASYNC_OPTS BUDGET DISK_BPS PREFILL. The workload is
# bench/async-workload.c built on the host for these sizes, in $MCG_EXTRA_DIR.
# Like bench/async-reclaim (v1): configurations nolimit / limit / async alternate in a rotating
# order within each round; medians over rounds and medians of the per-round async/limit ratios.
# A round is started only if it fits in BUDGET seconds from the start of the setup (assuming
# it is as long as the slowest round so far).
set -eu
aw=$MCG_EXTRA_DIR/async-workload
[ -x "$aw" ] || { echo "async-reclaim-v2: no $aw" >&2; exit 1; }
[ -x "$MEMCGCTL" ] || { echo "async-reclaim-v2: no $MEMCGCTL" >&2; exit 1; }
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || { echo "async-reclaim-v2: no memory controller on cgroup2" >&2; exit 1; }
prefix=memcgctl-bench-$$
CG=/sys/fs/cgroup/$prefix
CGREL=/$prefix
tmp=$(mktemp -d /tmp/$prefix.XXXXXX)
rundir=$(mktemp -d /dev/shm/$prefix.XXXXXX)
data=$MCG_DATADIR/$prefix
MEMCGCTL_RUNDIR=$rundir/run
export MEMCGCTL_RUNDIR
worker='' daemon=''

cleanup() {
	set +e
	[ -n "$worker" ] && kill -KILL "$worker" 2>/dev/null && wait "$worker" 2>/dev/null
	"$MEMCGCTL" async-reclaim disable "$CGREL" >/dev/null 2>&1
	[ -n "$daemon" ] && kill -TERM "$daemon" 2>/dev/null
	if [ -d "$CG" ]; then
		for p in $(cat "$CG/cgroup.procs"); do kill -KILL "$p" 2>/dev/null; done
		i=0
		while ! rmdir "$CG" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	fi
	rm -rf "$data" "$tmp" "$rundir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

now() { cut -d' ' -f1 /proc/uptime; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
failcnt() { awk '$1 == "max" { print $2 }' "$CG/memory.events"; }
pgsteal() { awk '$1 == "pgsteal" { print $2 }' "$CG/memory.stat"; }
hz=100 # USER_HZ on x86 Linux (no getconf in busybox)

mkdir -p "$data" "$CG"
tb=$(now) # the budget counts from here: setup included
echo "setting up $NFILES files of $FILE_KIB KiB in $data ..." >&2
"$aw" setup "$data" "$NFILES"
echo "setup took $(awk -v a="$tb" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s" >&2

# run_one MODE CONFIG ROUND: prints "MODE CONFIG ROUND rps p50 p90 p99 p999 max cpu% limit_hits ..."
run_one() {
	mode=$1 conf=$2 round=$3
	"$aw" drop "$data" "$NFILES"
	if [ "$conf" = nolimit ]; then echo max >"$CG/memory.max"; else echo "$LIMIT" >"$CG/memory.max"; fi
	daemon=
	if [ "$conf" = async ]; then
		# shellcheck disable=SC2086
		"$MEMCGCTL" async-reclaim enable "$CGREL" $ASYNC_OPTS >/dev/null
		daemon=$("$MEMCGCTL" async-reclaim status --json | jq -r '.reclaimd.pid')
	fi
	if [ "$PREFILL" = 1 ]; then
		# read every file from inside the cgroup: it starts at its limit, full of clean cache
		# (in steady state, as the v1 bench's much faster worker gets within its warm-up)
		sh -c 'echo $$ >"$1/cgroup.procs" && exec cat "$2"/*' sh "$CG" "$data" >/dev/null
	fi
	c0=0; [ -n "$daemon" ] && c0=$(cpu_ticks "$daemon")
	f0=$(failcnt) s0=$(pgsteal)
	t0=$(now)
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
		"$aw" run "$data" "$NFILES" "$mode" "$WARMUP" "$SECS" "$round" >"$tmp/out" &
	worker=$!
	wait "$worker"
	worker=
	t1=$(now)
	f1=$(failcnt) s1=$(pgsteal) cur=$(cat "$CG/memory.current")
	c1=0; [ -n "$daemon" ] && c1=$(cpu_ticks "$daemon")
	if [ "$conf" = async ]; then
		"$MEMCGCTL" async-reclaim status --json "$CGREL" >"$tmp/status.json"
		"$MEMCGCTL" async-reclaim disable "$CGREL" >/dev/null
		i=0
		while kill -0 "$daemon" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
		daemon=
	fi
	extra="- - - - - -"
	[ "$conf" = async ] && extra=$(jq -r '.cgroups[0] | "\(.reclaimed_bytes / 1048576 | floor) \(.wakeups) \(.steps) \(.deferred) \((.refault_percent // 0) | floor)% \(.state)"' "$tmp/status.json")
	awk -v m="$mode" -v c="$conf" -v r="$round" -v c0="$c0" -v c1="$c1" -v hz="$hz" \
		-v t0="$t0" -v t1="$t1" -v f="$((f1 - f0))" -v x="$extra" \
		-v cur="$cur" -v st="$((s1 - s0))" '
		$1 == "reqs" { printf "%s %s %s %s %s %s %s %s %s %.2f %d %.1f %.1f %s\n", m, c, r, $4, $6, $8, $10,
			$12, $14, 100 * (c1 - c0) / hz / (t1 - t0), f, cur / 1048576, st * 4096 / 1048576, x }' "$tmp/out"
}

: >"$tmp/results"
mode='write'
r=1 slowest=0 done_rounds=0
tstart=$tb
while [ $r -le "$ROUNDS" ]; do
	ta=$(now)
	if ! awk -v s="$tstart" -v a="$ta" -v w="$slowest" -v b="$BUDGET" 'BEGIN { exit !(a - s + w <= b) }'; then
		echo "stopping after $done_rounds rounds: another round would exceed the ${BUDGET}s budget" >&2
		break
	fi
	case $((r % 3)) in
	1) order="nolimit limit async" ;;
	2) order="limit async nolimit" ;;
	0) order="async nolimit limit" ;;
	esac
	for conf in $order; do
		line=$(run_one "$mode" "$conf" "$r")
		echo "$line" >>"$tmp/results"
		echo "round $r: $line" >&2
	done
	slowest=$(awk -v a="$ta" -v b="$(now)" -v w="$slowest" 'BEGIN { d = b - a; print (d > w ? d : w) }')
	done_rounds=$r
	r=$((r + 1))
done

echo "async-reclaim benchmark (v2 guest): cgroup v2, kernel $(uname -r), $(nproc) vCPUs (QEMU TCG),"
echo "$(awk '/^MemTotal/ { printf "%d MiB", $2 / 1024 }' /proc/meminfo) RAM, data disk ext4 on virtio-blk throttled to $DISK_BPS bytes/s writes;"
echo "limit $LIMIT, $NFILES x $FILE_KIB KiB files, $REQ_KIB KiB requests, mode $mode,"
echo "$done_rounds rounds x ${SECS}s (after ${WARMUP}s warm-up) per configuration; medians over rounds;"
if [ "$PREFILL" = 1 ]; then echo "before each run the cache is dropped, then every file is read from inside the cgroup."
else echo "before each run the cache is dropped (no prefill)."; fi
echo "async options: ${ASYNC_OPTS:-(defaults)}; reclaimer CPU = reclaimd utime+stime / wall time;"
echo "limit_hits = memory.events max; end_MiB = memory.current at the end; steal_MiB = memory.stat pgsteal"
echo "(kernel + memory.reclaim) during the run."
echo
echo "mode $mode"
printf '%-8s %8s %8s %8s %8s %8s %8s %6s %10s %7s %9s\n' config req/s p50_ms p90_ms p99_ms p99.9_ms max_ms cpu% limit_hits end_MiB steal_MiB
for conf in nolimit limit async; do
	awk -v m="$mode" -v c="$conf" '
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	$1 == m && $2 == c { n++; for (k = 4; k <= 13; k++) v[k, n] = $k }
	END { if (!n) exit
		printf "%-8s", c
		for (k = 4; k <= 13; k++) { for (i = 1; i <= n; i++) a[i] = v[k, i]; x[k] = med(a, n) }
		printf " %8.0f %8.3f %8.3f %8.3f %8.3f %8.2f %6.2f %10d %7.1f %9.1f\n", x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12], x[13] }' "$tmp/results"
done
awk -v m="$mode" '
function med(a, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
$1 == m && $2 == "limit" { for (k = 4; k <= 9; k++) L[$3, k] = $k }
$1 == m && $2 == "async" { for (k = 4; k <= 9; k++) A[$3, k] = $k; rounds[$3] = 1 }
END {
	split("req/s p50 p90 p99 p99.9 max", name, " ")
	printf "async/limit (paired, median):"
	for (k = 4; k <= 9; k++) { n = 0
		for (r in rounds) if (L[r, k] > 0) a[++n] = A[r, k] / L[r, k]
		printf " %s x%.2f", name[k - 3], n ? med(a, n) : 0 }
	printf "\n"
	printf "async/limit per round (req/s p90 p99.9):"
	for (r in rounds) if (L[r, 4] > 0 && L[r, 6] > 0 && L[r, 8] > 0)
		printf " r%s x%.2f x%.2f x%.2f", r, A[r, 4] / L[r, 4], A[r, 6] / L[r, 6], A[r, 8] / L[r, 8]
	printf "\n" }' "$tmp/results"
echo
echo "raw: mode config round req/s p50 p90 p99 p99.9 max cpu% limit_hits end_MiB steal_MiB reclaimed_MiB wakeups steps deferred refaults/reclaimed state"
cat "$tmp/results"
[ "$done_rounds" -gt 0 ]
