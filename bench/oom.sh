#!/bin/sh
# bench/oom.sh: OOM autopsies under a burst of kills: N single-process scratch cgroups, each
# OOM-killed and removed the moment its child is reaped, while 'memcgctl record' runs on their
# parent. Reports the share of kills the recorder stored, the victim's pid, comm and cgroup
# against the kernel log, where the breakdown came from and its age, the time from the kill to
# the autopsy caught and stored (oom-probe: the same watcher and event, a frame of its own), and
# the watcher's CPU idle at IDLE_CG cgroups and during the burst.
# usage: bench/oom.sh [BUILD_DIR]   (root; a Release build; creates $BENCH_PREFIX-PID and below)
# N (300), LIMIT_MB (8), IDLE_CG (1000), IDLE_S (30), BENCH_PREFIX (memcgctl-bench-oom)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
bin=$build/memcgctl
load=$build/tests/real/mcg-load
N=${N:-300}
LIMIT_MB=${LIMIT_MB:-8}
IDLE_CG=${IDLE_CG:-1000}
IDLE_S=${IDLE_S:-30}
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
# shellcheck disable=SC2046
cc -O2 -Wall -o "$tmp/oom-probe" "$src/bench/oom-probe.c" -I"$src/lib/include" \
	"$build/libmemcg.a" $(pkg-config --cflags libsystemd) \
	$(pkg-config --cflags --libs libnl-genl-3.0 libcgroup libzstd) -lm
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$1/stat"; }
start_probe() { # start_probe NAME: oom-probe on the parent, until it is ready
: >"$tmp/$1.out"
	"$tmp/oom-probe" "$tmp/store-$1" "$rel" >"$tmp/$1.out" 2>"$tmp/$1.err" &
	PROBE=$!
	pids="$pids $PROBE"
	until grep -q ready "$tmp/$1.out"; do sleep 0.05; done
}
stop_probe() { kill -TERM "$PROBE"; wait "$PROBE" || true; }

printf 'memcgctl OOM autopsy benchmark: %s, cgroup v%s, %s kills at %s MiB, idle at %s cgroups for %s s\n' \
	"$(uname -r)" "$ver" "$N" "$LIMIT_MB" "$IDLE_CG" "$IDLE_S"

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
for mode in --no-oom ""; do
	# shellcheck disable=SC2086
	"$bin" record --store "$tmp/rstore$mode" -d 5s $mode "$rel" 2>/dev/null &
	R=$!
	pids="$pids $R"
	sleep 6
	r0=$(cpu_ms "$R")
	sleep "$IDLE_S"
	r1=$(cpu_ms "$R")
	kill -TERM "$R"
	wait "$R" || true
	printf 'record -d 5s %-8s at %s cgroups: %.0f ms CPU in %s s\n' "${mode:-(oom on)}" "$IDLE_CG" \
		"$(echo "$r1 $r0" | awk '{print $1-$2}')" "$IDLE_S"
done
find "$parent" -mindepth 1 -depth -type d -exec rmdir {} \;

# ---- the burst ----
"$bin" record --store "$tmp/store" -d 5s "$rel" 2>"$tmp/rec.err" &
REC=$!
pids="$pids $REC"
until [ -n "$(ls "$tmp/store" 2>/dev/null)" ]; do sleep 0.05; done
start_probe burst
# the kernel log as it comes: the ring buffer holds only the last few hundred reports
dmesg -w >"$tmp/dmesg" 2>/dev/null &
DM=$!
pids="$pids $DM"
sleep 0.2
pc0=$(cpu_ms "$PROBE")
rc0=$(cpu_ms "$REC")
t0=$(date +%s%N)
i=0
: >"$tmp/kills"
while [ $i -lt "$N" ]; do
	cg=$parent/k$i
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
	echo "$p $st $rel/k$i" >>"$tmp/kills"
	i=$((i + 1))
done
t1=$(date +%s%N)
sleep 2
pc1=$(cpu_ms "$PROBE")
rc1=$(cpu_ms "$REC")
stop_probe
kill -TERM "$REC"
wait "$REC" || true
"$bin" oom --store "$tmp/store" --json "$rel" >"$tmp/autopsies.json"
kill "$DM"

killed=$(awk '$2 == 137' "$tmp/kills" | wc -l)
printf 'burst: %s kills in %.1f s (%.1f kills/s), %s of them SIGKILLed\n' "$N" \
	"$(echo "$t1 $t0" | awk '{print ($1-$2)/1e9}')" "$(echo "$t1 $t0 $N" | awk '{print $3/(($1-$2)/1e9)}')" "$killed"
# per kill: the kernel's comm, the recorder's autopsy
jq -r '[.pid, .comm, (.victim_cgroup // "-"), (.oom_cgroup // "-"), .breakdown, (.breakdown_age_us // 0)] | @tsv' \
	"$tmp/autopsies.json" >"$tmp/a.tsv"
awk -v dm="$tmp/dmesg" -v at="$tmp/a.tsv" '
	BEGIN {
		while ((getline l < dm) > 0)
			if (match(l, /Killed process [0-9]+ \(/)) {
				s = substr(l, RSTART + 15); split(s, f, " "); pid = f[1]
				c = substr(s, length(pid) + 3); sub(/\) total-vm:.*/, "", c); kcomm[pid] = c
			}
		FS = "\t"
		while ((getline l < at) > 0) { split(l, f, "\t"); comm[f[1]] = f[2]; vic[f[1]] = f[3]; oom[f[1]] = f[4]; bd[f[1]] = f[5]; age[f[1]] = f[6] }
		FS = " "
	}
	$2 == 137 {
		n++
		if (!($1 in kcomm)) { nolog++; next }
		if (!($1 in comm)) { miss++; next }
		got++
		if (comm[$1] == kcomm[$1]) okcomm++
		if (vic[$1] == $3) okvic++; else print "victim", $1, $3, vic[$1] >> (at ".wrong")
		if (oom[$1] == $3) okoom++; else print "oom", $1, $3, oom[$1] >> (at ".wrong")
		b[bd[$1]]++
		if (bd[$1] == "sample") print age[$1] > "/dev/stderr"
	}
	END {
		printf "captured by record: %d of %d kills (%.1f%%); %d not in the kernel log\n", got, n - nolog, 100 * got / (n - nolog), nolog
		printf "checked against the kernel log: comm %d/%d, victim cgroup %d/%d, OOM cgroup %d/%d\n", okcomm, got, okvic, got, okoom, got
		printf "breakdown: kernel report %d, read before the kill %d, none %d\n", b["kernel"], b["sample"], b["none"]
	}' "$tmp/kills" 2>"$tmp/ages"
pctl() { # pctl NAME < numbers: median, p95, max
	sort -n | awk -v name="$1" '{a[NR] = $1} END {
		if (!NR) { printf "%s: none\n", name; exit }
		p = int(NR * 0.95 + 0.5); if (p < 1) p = 1
		printf "%s: median %d, p95 %d, max %d (of %d)\n", name, a[int((NR + 1) / 2)], a[p], a[NR], NR }'
}
pctl "age of the breakdown read before the kill (us)" <"$tmp/ages"
printf 'caught by the probe: %s of %s kills\n' "$(grep -c '^pid ' "$tmp/burst.out")" "$N"
awk '$1 == "pid" {print $12}' "$tmp/burst.out" | pctl "kill to autopsy caught (probe, us)"
awk '$1 == "pid" {print $14}' "$tmp/burst.out" | pctl "kill to autopsy stored (probe, us)"
awk '$1 == "pid" && $8 == "kernel" {print $14}' "$tmp/burst.out" | pctl "  of which kills with the kernel's report (stored, us)"
awk '$1 == "pid" && $8 != "kernel" {print $14}' "$tmp/burst.out" | pctl "  of which kills without it (stored, us)"
printf 'CPU during the burst: watcher (probe) %.0f ms, record %.0f ms\n' \
	"$(echo "$pc1 $pc0" | awk '{print $1-$2}')" "$(echo "$rc1 $rc0" | awk '{print $1-$2}')"
grep -v '^ready' "$tmp/rec.err" | head -n 3 || true
