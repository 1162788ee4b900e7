#!/bin/sh
# bench/oom.sh: OOM autopsies under a burst of kills: N single-process scratch cgroups, each
# OOM-killed and removed the moment its child is reaped, while 'memcgctl record' runs on their
# parent. Reports the share of kills the recorder stored, the victim's pid, comm and cgroup
# against the kernel log, where the breakdown came from and its age, the time from the kill to
# the autopsy caught and stored (oom-probe: the same watcher and event, a frame of its own), and
# the watcher's CPU idle at IDLE_CG cgroups and during the burst.
# usage: bench/oom.sh [BUILD_DIR[=SRC_DIR]]...   (root; Release builds; creates $BENCH_PREFIX-PID
#   and below). Several builds (a before and an after): the burst runs for each in turn, ROUNDS
#   times (N/ROUNDS kills a turn), so that they share the machine's load, and the table puts
#   them side by side. SRC_DIR: the sources BUILD_DIR was built from (this tree's oom-probe is
#   built with their headers against its libmemcg.a; default: this tree). The idle phases use the first build.
# N (300; 0: the idle phases only), ROUNDS (1), LIMIT_MB (8), IDLE_CG (1000), IDLE_S (30; 0: no idle phases),
# IDLE_ROUNDS (1: record's idle CPU, each variant in turn, that many times), IDLE_BASE (a build
#   without the OOM catcher, e.g. 4cb39bd's, whose record is measured idle beside the first build's),
# BENCH_PREFIX (memcgctl-bench-oom), OOM_PROBE (a prebuilt oom-probe for every build, not compiled
#   here: the v2 guest has no compiler; bench/oom-guest.sh runs this script there)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$src/build"
builds="$*"
first=${1%%=*}
bin=$first/memcgctl
load=$first/tests/real/mcg-load
ROUNDS=${ROUNDS:-1}
N=${N:-300}
LIMIT_MB=${LIMIT_MB:-8}
IDLE_CG=${IDLE_CG:-1000}
IDLE_S=${IDLE_S:-30}
IDLE_ROUNDS=${IDLE_ROUNDS:-1}
if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.stat ]; then
	root=/sys/fs/cgroup/memory
	ver=1
else
	root=/sys/fs/cgroup
	ver=2
fi
[ "$(id -u)" = 0 ] || { echo "bench/oom: needs root" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench/oom: needs jq" >&2; exit 1; }
tmp=$(mktemp -d /tmp/memcgctl-bench-oom.XXXXXX)
rel=/${BENCH_PREFIX:-memcgctl-bench-oom}-$$
parent=$root$rel
pids=""
cleanup() {
	set +e
	for p in $pids; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	if [ -d "$parent" ]; then
		find "$parent" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		rmdir "$parent"
	fi
	if [ -n "${KEEP:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$parent"
[ "$ver" = 2 ] && echo +memory >"$parent/cgroup.subtree_control"
nb=0
for b in $builds; do
	bd=${b%%=*}
	bs=$src
	[ "$bd" = "$b" ] || bs=${b#*=}
	if [ -n "${OOM_PROBE:-}" ]; then
		cp "$OOM_PROBE" "$tmp/oom-probe$nb"
	else
		# shellcheck disable=SC2046
		cc -O2 -Wall -o "$tmp/oom-probe$nb" "$src/bench/oom-probe.c" -I"$bs/lib/include" \
			"$bd/libmemcg.a" $(pkg-config --cflags libsystemd) \
			$(pkg-config --cflags --libs libnl-genl-3.0 libzstd) -lm -ldl
	fi
	echo "$bd" >"$tmp/build$nb"
	nb=$((nb + 1))
done
# busybox (the v2 guest) has no getconf, and its date no %N
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
now_ns() {
	case $(date +%s%N) in
	*N) awk '{ printf "%.0f\n", $1 * 1e9 }' /proc/uptime ;;
	*) date +%s%N ;;
	esac
}
# a process's CPU time in ms: its threads' run time (schedstat, ns), else utime + stime (ticks)
cpu_ms() {
	if [ -r "/proc/$1/schedstat" ]; then
		cat "/proc/$1/task/"*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%.3f\n", s / 1e6 }'
	else
		awk -v hz="$hz" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$1/stat"
	fi
}
start_probe() { # start_probe NAME [BUILD#]: oom-probe on the parent, until it is ready
	: >"$tmp/$1.out"
	"$tmp/oom-probe${2:-0}" "$tmp/store-$1" "$rel" >"$tmp/$1.out" 2>"$tmp/$1.err" &
	PROBE=$!
	pids="$pids $PROBE"
	until grep -q ready "$tmp/$1.out"; do sleep 0.05; done
}
stop_probe() { kill -TERM "$PROBE"; wait "$PROBE" || true; }

printf 'memcgctl OOM autopsy benchmark: %s, cgroup v%s, %s kills at %s MiB, idle at %s cgroups for %s s\n' \
	"$(uname -r)" "$ver" "$N" "$LIMIT_MB" "$IDLE_CG" "$IDLE_S"

if [ "$IDLE_S" != 0 ]; then
# ---- idle: the watcher alone at IDLE_CG cgroups, then the recorder with and without it ----
i=0
while [ $i -lt "$IDLE_CG" ]; do mkdir "$parent/i$i"; i=$((i + 1)); done
start_probe idle
c0=$(cpu_ms "$PROBE")
sleep "$IDLE_S"
c1=$(cpu_ms "$PROBE")
stop_probe
printf 'watcher idle at %s cgroups: %.1f ms CPU in %s s = %.4f%% of a CPU (start-up %.0f ms CPU: %s)\n' \
	"$IDLE_CG" "$(echo "$c1 $c0" | awk '{print $1-$2}')" "$IDLE_S" \
	"$(echo "$c1 $c0 $IDLE_S" | awk '{print ($1-$2)/($3*10)}')" "$c0" "$(tail -n 1 "$tmp/idle.out")"
idle_rec() { # idle_rec LABEL MEMCGCTL [OPTION]: record -d 5s on the idle tree, its CPU after the first sample
	# shellcheck disable=SC2086
	"$2" record --store "$tmp/rstore-$k" -d 5s ${3:-} "$rel" 2>/dev/null &
	R=$!
	pids="$pids $R"
	sleep 6
	r0=$(cpu_ms "$R")
	sleep "$IDLE_S"
	r1=$(cpu_ms "$R")
	kill -TERM "$R"
	wait "$R" || true
	echo "$1 $r0 $r1" >>"$tmp/idle-rec"
	k=$((k + 1))
}
# the rounds in turn, so that the variants share the machine's load
k=0 r=0
while [ $r -lt "$IDLE_ROUNDS" ]; do
	[ -z "${IDLE_BASE:-}" ] || idle_rec "$IDLE_BASE" "$IDLE_BASE/memcgctl"
	idle_rec "$first,--no-oom" "$bin" --no-oom
	idle_rec "$first,OOM-catcher-on" "$bin"
	r=$((r + 1))
done
# per variant: CPU in IDLE_S s after the first sample, each round's and their mean
awk -v s="$IDLE_S" -v cg="$IDLE_CG" '
	{ d = $3 - $2; if (!($1 in n)) o[++no] = $1; n[$1]++; t[$1] += d; l[$1] = l[$1] sprintf(" %.1f", d) }
	END { for (i = 1; i <= no; i++) { v = o[i]; w = v; gsub(/,/, " ", w)
		printf "record -d 5s at %s cgroups, %s: ms CPU in %s s a round:%s; mean %.1f ms = %.4f%% of a CPU\n",
			cg, w, s, l[v], t[v] / n[v], t[v] / n[v] / (s * 10) } }' "$tmp/idle-rec"
find "$parent" -mindepth 1 -depth -type d -exec rmdir {} \;
fi

[ "$N" != 0 ] || exit 0 # the idle phases only
# ---- the burst ----
# the kernel log as it comes: the ring buffer holds only the last few hundred reports
if dmesg --help 2>&1 | grep -q -- --follow; then
	dmesg -w >"$tmp/dmesg" 2>/dev/null &
	DM=$!
	KM=$DM
else
	# busybox's dmesg cannot follow: /dev/kmsg in dmesg's "[sec.usec] text" form
	# (cat: one record a read, into a buffer big enough for any). The reader stops with
	# cat (KM): awk then reads to the end and exits; killed, awk would leave cat blocked
	# in read(2) and the pipeline, which the shell waits for, running.
	{
		cat /dev/kmsg 2>"$tmp/kmsg.err" &
		echo $! >"$tmp/kmsg.pid"
		wait
	} | awk -F';' '{ split($1, h, ","); printf "[%.6f] %s\n", h[3] / 1e6,
		substr($0, index($0, ";") + 1); fflush() }' >"$tmp/dmesg" &
	DM=$!
	until [ -s "$tmp/kmsg.pid" ]; do sleep 0.05; done
	KM=$(cat "$tmp/kmsg.pid")
fi
pids="$pids $KM $DM"
# the kernel stamps its log with local_clock(), not CLOCK_MONOTONIC: the offset, read back
"$tmp/oom-probe0" --clock >"$tmp/clock"
kill_one() { # kill_one I TAG: a scratch cgroup, a child OOM-killed in it, the cgroup removed
	cg=$parent/k$1
	mkdir "$cg"
	if [ "$ver" = 2 ]; then
		[ -e "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
		echo "${LIMIT_MB}M" >"$cg/memory.max"
	else
		echo "${LIMIT_MB}M" >"$cg/memory.limit_in_bytes"
	fi
	set +e
	{
		sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$cg" "$load" anon \
			$((LIMIT_MB * 4)) >/dev/null 2>&1 &
		p=$!
		wait "$p"
		st=$?
	} 2>/dev/null
	set -e
	rmdir "$cg"
	echo "$p $st $rel/k$1" >>"$tmp/kills-$2"
}
burst() { # burst BUILD# ROUND FROM TO: record and the probe of that build, kills FROM..TO-1
	tag=b$1 bb=$(cat "$tmp/build$1")
	sd=$tmp/store-$tag-$2
	"$bb/memcgctl" record --store "$sd" -d 5s "$rel" 2>>"$tmp/rec-$tag.err" &
	REC=$!
	pids="$pids $REC"
	until [ -n "$(ls "$sd" 2>/dev/null)" ]; do sleep 0.05; done
	start_probe "burst-$tag-$2" "$1"
	sleep 0.2
	pc0=$(cpu_ms "$PROBE")
	rc0=$(cpu_ms "$REC")
	t0=$(now_ns)
	i=$3
	while [ "$i" -lt "$4" ]; do kill_one "$i" "$tag"; i=$((i + 1)); done
	t1=$(now_ns)
	sleep 2
	pc1=$(cpu_ms "$PROBE")
	rc1=$(cpu_ms "$REC")
	stop_probe
	kill -TERM "$REC"
	wait "$REC" || true
	"$bb/memcgctl" oom --store "$sd" --json "$rel" >>"$tmp/autopsies-$tag.json"
	"$tmp/oom-probe$1" --frames "$sd" >>"$tmp/frames-$tag"
	cat "$tmp/burst-$tag-$2.out" >>"$tmp/burst-$tag.out"
	echo "$t0 $t1 $pc0 $pc1 $rc0 $rc1" >>"$tmp/cpu-$tag"
}
per=$((N / ROUNDS))
r=0
while [ $r -lt "$ROUNDS" ]; do
	j=0
	while [ $j -lt "$nb" ]; do
		from=$((j * N + r * per))
		burst "$j" "$r" "$from" $((from + per))
		j=$((j + 1))
	done
	r=$((r + 1))
done
"$tmp/oom-probe0" --clock >>"$tmp/clock"
sleep 1
kill "$KM" 2>/dev/null || echo "bench/oom: the kernel log reader had stopped: $(cat "$tmp/kmsg.err" 2>/dev/null)" >&2
wait "$DM" 2>/dev/null || true
off=$(awk '{s += $1; n++} END {printf "%d", s / n}' "$tmp/clock")
# each Killed line's kernel stamp on CLOCK_MONOTONIC (us), by pid
awk -v off="$off" 'match($0, /Killed process [0-9]+ \(/) {
	s = substr($0, RSTART + 15); split(s, f, " "); t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t)
	printf "%s %.0f\n", f[1], t * 1e6 + off }' "$tmp/dmesg" >"$tmp/killmono"
lat() { # lat FILE PIDCOL TIMECOL [FILTER]: kill to a CLOCK_MONOTONIC time (us) per pid, from FILE
	awk -v km="$tmp/killmono" -v pc="$2" -v tc="$3" -v flt="${4:-}" '
		BEGIN { while ((getline l < km) > 0) { split(l, a, " "); k[a[1]] = a[2] } }
		flt == "kernel" && $8 != "kernel" { next }
		flt == "other" && $8 == "kernel" { next }
		($pc in k) { print $tc - k[$pc] }' "$1"
}

pctl() { # pctl < numbers: median, p95, max (ms)
	sort -n | awk '{a[NR] = $1} END {
		if (!NR) { print "none"; exit }
		p = int(NR * 0.95 + 0.5); if (p < 1) p = 1
		printf "%.1f / %.1f / %.1f ms (%d)\n", a[int((NR + 1) / 2)] / 1000, a[p] / 1000, a[NR] / 1000, NR }'
}
# every Killed line of the run against the kills made: none outside our own cgroups
others=$(awk -v k="$(cat "$tmp"/kills-* | awk '$2 == 137 {printf "%s,", $1}')" '
	BEGIN { n = split(k, a, ","); for (i = 1; i <= n; i++) if (a[i] != "") ours[a[i]] = 1 }
	/bench\/oom: clock check/ { live = 1 }
	live && match($0, /Killed process [0-9]+ /) { s = substr($0, RSTART + 15); split(s, f, " "); if (!(f[1] in ours)) o++ }
	END { print o + 0 }' "$tmp/dmesg")
j=0
while [ $j -lt "$nb" ]; do
	tag=b$j
	o=$tmp/table-$tag
	{
		cat "$tmp/build$j"
		killed=$(awk '$2 == 137' "$tmp/kills-$tag" | wc -l)
		awk '{d += ($2 - $1) / 1e9; p += $4 - $3; r += $6 - $5} END {printf "%.1f s; CPU probe %.0f ms, record %.0f ms\n", d, p, r}' "$tmp/cpu-$tag"
		jq -r '[.pid, .comm, (.victim_cgroup // "-"), (.oom_cgroup // "-"), .breakdown, (.breakdown_age_us // 0)] | @tsv' \
			"$tmp/autopsies-$tag.json" >"$tmp/a-$tag.tsv"
		awk -v dm="$tmp/dmesg" -v at="$tmp/a-$tag.tsv" -v ages="$tmp/ages-$tag" -v killed="$killed" '
			BEGIN {
				while ((getline l < dm) > 0)
					if (match(l, /Killed process [0-9]+ \(/)) {
						s = substr(l, RSTART + 15); split(s, f, " "); pid = f[1]
						c = substr(s, length(pid) + 3); sub(/\) total-vm:.*/, "", c); kcomm[pid] = c
					}
				FS = "\t"
				while ((getline l < at) > 0) { split(l, f, "\t"); nst[f[1]]++; comm[f[1]] = f[2]; vic[f[1]] = f[3]; oom[f[1]] = f[4]; bd[f[1]] = f[5]; age[f[1]] = f[6] }
				FS = " "
			}
			$2 == 137 {
				n++
				if (!($1 in kcomm)) { nolog++; next }
				if (!($1 in comm)) { miss++; next }
				got++
				if (nst[$1] > 1) dup++
				if (comm[$1] == kcomm[$1]) okcomm++
				if (vic[$1] == $3) okvic++
				if (oom[$1] == $3) okoom++
				b[bd[$1]]++
				if (bd[$1] == "sample") print age[$1] > ages
			}
			END {
				printf "%d / %d (%.1f%%), %d not in the kernel log, %d stored twice\n", got, n - nolog, 100 * got / (n - nolog), nolog, dup
				printf "%d, %d, %d / %d\n", okcomm, okvic, okoom, got
				printf "%d / %d / %d\n", b["kernel"], b["sample"], b["none"]
			}' "$tmp/kills-$tag"
		: >>"$tmp/ages-$tag"
		pctl <"$tmp/ages-$tag"
		lat "$tmp/frames-$tag" 2 6 | pctl
		awk '$1 == "pid" {print $4}' "$tmp/frames-$tag" | pctl
		lat "$tmp/burst-$tag.out" 2 18 | pctl
		lat "$tmp/burst-$tag.out" 2 20 | pctl
		lat "$tmp/burst-$tag.out" 2 22 | pctl
		lat "$tmp/burst-$tag.out" 2 22 kernel | pctl
		lat "$tmp/burst-$tag.out" 2 22 other | pctl
		awk '$1 == "cpu_ms" { r += $10; l += $12; k += $14 } END { printf "%d / %d / %d\n", r, l, k }' \
			"$tmp/burst-$tag.out"
	} >"$o"
	j=$((j + 1))
done
printf 'burst: %s kills a build in %s round(s) of %s, builds in turn; Killed lines in the kernel log not ours: %s\n' \
	"$N" "$ROUNDS" "$per" "$others"
printf 'CLOCK_MONOTONIC - the kernel log clock: %s us (before, after the bursts); times below from the kernel stamp + it\n' \
	"$(tr '\n' ' ' <"$tmp/clock")"
{
	echo "build"
	echo "burst time; CPU"
	echo "kills stored by record, of those in the kernel log"
	echo "comm, victim cgroup, OOM cgroup right / stored"
	echo "breakdown kernel / sample / none"
	echo "breakdown age (sample): p50 / p95 / max"
	echo "record: kill to frame (store begun): p50 / p95 / max"
	echo "record: the same, as the autopsy tells the kill's time"
	echo "probe: kill to wakeup"
	echo "probe: kill to caught"
	echo "probe: kill to stored"
	echo "probe: stored, with the kernel's report"
	echo "probe: stored, without it"
	echo "probe: kernel log records read / lost (overwritten before read) / kills"
} >"$tmp/table-names"
# shellcheck disable=SC2046
paste -d '|' "$tmp/table-names" $(j=0; while [ $j -lt "$nb" ]; do echo "$tmp/table-b$j"; j=$((j + 1)); done) |
	sed 's/^/| /; s/|/ | /g; s/$/ |/'
grep -hv '^ready' "$tmp"/rec-*.err | head -n 5 || true
