#!/bin/sh
# size.sh: memcgctl size against the offline knee: for each workload of bench/size-workload.c
# (page cache hot/cold, skewed, scanned; anon heap hot/cold, a batch job, a phase change), a sweep of static
# limits in 5% steps of the unlimited peak finds the knee (the smallest limit whose
# throughput, or run time, is within 5% of unlimited, each limit paired with an unlimited
# measurement just before it); then 'memcgctl size' runs online from an unlimited start: its
# answer against the knee, its time, the workload's throughput during the probe against
# just before, OOM kills, and SIGINT at a random second (restore time, limit read back);
# for the steady ones then 'memcgctl reclaimd --size' (1 s ticks, its own CPU budget) from an
# unlimited start: the first answer it keeps, when, and the daemon's CPU from /proc/PID/stat.
# usage: sh bench/size.sh [BUILD_DIR]  (env: DATA=/var/tmp, WORKLOADS="pagecache anon batch
# phase skew scan", SIZE_ARGS="" extra size options, e.g. --interval 500ms, RD_ARGS="" extra
# reclaimd options, e.g. --size-max-cpu 5, RECLAIMD=0 to leave it out)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
. "$src/bench/lib.sh"
bench_setup size
M=$build/memcgctl
cc -O2 -Wall -o "$tmp/wl" "$src/bench/size-workload.c"
data=${DATA:-/var/tmp}/memcgctl-bench-size-$$
mkdir -p "$data"
WORKLOADS=${WORKLOADS:-pagecache anon batch phase skew scan}
SIZE_ARGS=${SIZE_ARGS:-}
RD_ARGS=${RD_ARGS:-}
RECLAIMD=${RECLAIMD:-1}
# the answers size keeps, and reclaimd's journals: this run's own, removed with it
MEMCGCTL_RUNDIR=$tmp/run
export MEMCGCTL_RUNDIR
MIB=1048576
WL_PID= RD_PID=
bench_cleanup_hook() {
	[ -n "$RD_PID" ] && kill -TERM "$RD_PID" 2>/dev/null && wait "$RD_PID" 2>/dev/null
	[ -n "$WL_PID" ] && kill -KILL "$WL_PID" 2>/dev/null && wait "$WL_PID" 2>/dev/null
	rm -rf "$data"
}
if [ -f "$root/memory.stat" ] && [ -f "$parent/memory.limit_in_bytes" ]; then
	v=1 LIM=memory.limit_in_bytes USAGE=memory.usage_in_bytes UNL=-1
else
	v=2 LIM=memory.high USAGE=memory.current UNL=max
fi
oomk() { # the cgroup's OOM kills so far
	if [ $v = 1 ]; then awk '$1 == "oom_kill" { print $2 }' "$1/memory.oom_control"
	else awk '$1 == "oom_kill" { print $2 }' "$1/memory.events"; fi
}
now_ms() { d=$(date +%s%N); echo "${d%??????}"; }
lastops() { tail -n 1 "$1" | awk '{ print $2 + 0 }'; }
lastcpu() { tail -n 1 "$1" | awk '{ print $3 + 0 }'; }
# tput OUT SECS: the workload's operations per CPU second over SECS (its own counts: four
# other agents share these 2 CPUs, and wall-clock rates of identical windows varied +-25%)
tput() {
	a=$(lastops "$1") ca=$(lastcpu "$1")
	sleep "$2"
	b=$(lastops "$1") cb=$(lastcpu "$1")
	awk -v a="$a" -v b="$b" -v t="$((cb - ca))" 'BEGIN { if (t > 0) printf "%.1f", (b - a) * 1e6 / t; else print 0 }'
}
setlim() { (echo "$2" >"$1/$LIM") 2>/dev/null; }
start_wl() { # CG ARGS...: start the workload in CG; WL_PID, WL_OUT
	c=$1
	shift
	WL_OUT=$tmp/wl.$$.$(now_ms)
	: >"$WL_OUT"
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$c" "$tmp/wl" "$@" >"$WL_OUT" 2>&1 &
	WL_PID=$!
	until grep -q '^ready' "$WL_OUT"; do
		kill -0 "$WL_PID" 2>/dev/null || { echo "workload failed: $(cat "$WL_OUT")" >&2; exit 1; }
		sleep 0.1
	done
}
stop_wl() { kill -KILL "$WL_PID" 2>/dev/null; wait "$WL_PID" 2>/dev/null || true; WL_PID=; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# sigint CG: a size run stopped by SIGINT at a random second (1-6); prints "MS OK|CHANGED"
sigint() {
	before=$(cat "$1/$LIM")
	"$M" size $SIZE_ARGS --json "${1#"$root"}" >"$tmp/int.json" 2>/dev/null &
	sp=$!
	# a random moment within the time the online run took (ELAPSED), at most 6 s
	sleep "$(awk -v s="$(date +%N)" -v e="$ELAPSED" 'BEGIN { srand(s); if (e > 6) e = 6;
		printf "%.2f", 0.2 + rand() * e }')"
	t0=$(now_ms)
	if kill -INT "$sp" 2>/dev/null; then
		wait "$sp" 2>/dev/null || true
		t1=$(now_ms)
		after=$(cat "$1/$LIM")
		[ "$before" = "$after" ] && r=ok || r="CHANGED($before->$after)"
		echo "$((t1 - t0)) $r"
	else
		wait "$sp" 2>/dev/null || true
		echo "ended first"
	fi
}

# online CG OUT: size from an unlimited start; sets ANS ELAPSED STOP SIG TP_RATIO
online() {
	tb=$(tput "$2" 3)
	a=$(lastops "$2") ca=$(lastcpu "$2")
	"$M" size $SIZE_ARGS --json "${1#"$root"}" >"$tmp/size.json" 2>"$tmp/size.err" || true
	b=$(lastops "$2") cb=$(lastcpu "$2")
	tp=$(awk -v a="$a" -v b="$b" -v t="$((cb - ca))" 'BEGIN { if (t > 0) printf "%.1f", (b - a) * 1e6 / t; else print 0 }')
	TP_RATIO=$(ratio "$tp" "$tb")
	ANS=$(jq -r .needed_bytes "$tmp/size.json")
	ELAPSED=$(jq -r '.elapsed_ns / 1e9 | floor' "$tmp/size.json")
	STOP=$(jq -r .stop "$tmp/size.json")
	SIG=$(jq -r .signal "$tmp/size.json")
}

# rd_online CG OUT: reclaimd --size from an unlimited start, until it keeps an answer (10 min
# at most); sets RD_ANS (bytes, or -), RD_S (seconds to it), RD_CPU (% of a CPU the daemon
# used meanwhile), RD_TP (the workload's throughput meanwhile against just before)
rd_online() {
	RD_ANS=- RD_S=- RD_CPU=- RD_TP=-
	[ "$RECLAIMD" = 1 ] || return 0
	tb=$(tput "$2" 3)
	a=$(lastops "$2") ca=$(lastcpu "$2")
	sd=$tmp/rd-state
	rm -rf "$sd"
	t0n=$(date +%s%N)
	"$M" reclaimd --foreground --state-dir "$sd" --size "${1#"$root"}" --size-interval 1s \
		$RD_ARGS 2>"$tmp/rd.log" &
	RD_PID=$!
	i=0
	until [ -f "$sd/reclaimd.pid" ] || [ $i -ge 300 ]; do sleep 0.1; i=$((i + 1)); done
	hz=$(getconf CLK_TCK)
	c0=$(awk '{ print $14 + $15 }' "/proc/$RD_PID/stat")
	w0=$(now_ms)
	i=0
	until "$M" --json show "${1#"$root"}" 2>/dev/null | jq -e --argjson t "$t0n" \
		'.size != null and .size.found_ns > $t and .size.stop == "converged"' >/dev/null; do
		[ $i -ge 600 ] && break
		sleep 1
		i=$((i + 1))
	done
	c1=$(awk '{ print $14 + $15 }' "/proc/$RD_PID/stat")
	w1=$(now_ms)
	b=$(lastops "$2") cb=$(lastcpu "$2")
	kill -TERM "$RD_PID"
	wait "$RD_PID" || true
	RD_PID=
	if [ $i -lt 600 ]; then
		js=$("$M" --json show "${1#"$root"}")
		RD_ANS=$(printf '%s\n' "$js" | jq -r .size.needed_bytes)
		RD_S=$(printf '%s\n' "$js" | jq -r --argjson t "$t0n" '(.size.found_ns - $t) / 1e9 | floor')
	fi
	RD_CPU=$(awk -v c=$((c1 - c0)) -v hz="$hz" -v w=$((w1 - w0)) 'BEGIN { printf "%.2f", c / hz * 1000 / w * 100 }')
	tp=$(awk -v a="$a" -v b="$b" -v t="$((cb - ca))" 'BEGIN { if (t > 0) printf "%.1f", (b - a) * 1e6 / t; else print 0 }')
	RD_TP=$(ratio "$tp" "$tb")
	grep -E "size .*: (needs|cannot)" "$tmp/rd.log" >&2 || true
}

printf '| workload | peak MiB | knee MiB (%% of peak) | size MiB | size / knee | stop | signal | time s | throughput during probe | OOM kills | SIGINT restore ms | reclaimd --size MiB (/ knee), s, daemon CPU, throughput |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'

steady() { # NAME WORKLOAD-ARGS...
	name=$1
	shift
	c=$parent/$name
	mkdir "$c"
	start_wl "$c" "$@"
	sleep 2
	peak=$(cat "$c/$USAGE")
	o0=$(oomk "$c")
	knee=$peak knee_pct=100 fails=0 pct=95 sweep=
	while [ $pct -ge 10 ]; do
		l=$((peak / 100 * pct / 4096 * 4096))
		setlim "$c" "$UNL"
		sleep 1
		tu=$(tput "$WL_OUT" 3)
		if ! setlim "$c" "$l"; then
			sweep="$sweep $pct%:EBUSY"
			break
		fi
		sleep 1
		tl=$(tput "$WL_OUT" 3)
		r=$(ratio "$tl" "$tu")
		sweep="$sweep $pct%:$r"
		if awk -v r="$r" 'BEGIN { exit !(r >= 0.95) }'; then
			knee=$l knee_pct=$pct fails=0
		else
			fails=$((fails + 1))
			[ $fails -ge 2 ] && break
		fi
		pct=$((pct - 5))
	done
	setlim "$c" "$UNL"
	sleep 3
	echo "$name sweep:$sweep" >&2
	online "$c" "$WL_OUT"
	si=$(sigint "$c")
	setlim "$c" "$UNL"
	sleep 3
	rd_online "$c" "$WL_OUT"
	o1=$(oomk "$c")
	rd="-"
	[ "$RD_ANS" != - ] && rd="$(mib "$RD_ANS") ($(ratio "$RD_ANS" "$knee")), $RD_S s, $RD_CPU%, x$RD_TP"
	[ "$RD_ANS" = - ] && [ "$RECLAIMD" = 1 ] && rd="none in 600 s, $RD_CPU%"
	printf '| %s | %s | %s (%s%%) | %s | %s | %s | %s | %s | x%s | %s | %s | %s |\n' "$name" "$(mib "$peak")" \
		"$(mib "$knee")" "$knee_pct" "$(mib "$ANS")" "$(ratio "$ANS" "$knee")" "$STOP" "$SIG" \
		"$ELAPSED" "$TP_RATIO" "$((o1 - o0))" "$si" "$rd"
	stop_wl
	rmdir "$c"
}

batch() { # the batch job: run time per limit, each paired with an unlimited run
	name=batch
	c=$parent/$name
	mkdir "$c"
	srcm=64 passes=8
	runb() { # LIMIT: one run's time in ms
		setlim "$c" "$1" || { echo EBUSY; return; }
		start_wl "$c" batch "$data" $srcm $passes
		wait "$WL_PID" || true
		WL_PID=
		awk '$1 == "done" { print $3 }' "$WL_OUT" # CPU ms (see tput)
	}
	runb "$UNL" >/dev/null # the sources and objects charged to the cgroup
	peak=$(cat "$c/$USAGE")
	o0=$(oomk "$c")
	knee=$peak knee_pct=100 fails=0 pct=95 sweep=
	while [ $pct -ge 10 ]; do
		l=$((peak / 100 * pct / 4096 * 4096))
		tu=$(runb "$UNL")
		tl=$(runb "$l")
		[ "$tl" = EBUSY ] && { sweep="$sweep $pct%:EBUSY"; break; }
		r=$(ratio "$tu" "$tl") # CPU time: unlimited / limited, as throughput
		sweep="$sweep $pct%:$r"
		if awk -v r="$r" 'BEGIN { exit !(r >= 0.95) }'; then
			knee=$l knee_pct=$pct fails=0
		else
			fails=$((fails + 1))
			[ $fails -ge 2 ] && break
		fi
		pct=$((pct - 5))
	done
	echo "batch sweep:$sweep" >&2
	setlim "$c" "$UNL"
	# online: one long run (150x the passes, about a minute here) without the probe, then
	# one with it
	passes=$((passes * 150))
	t_plain=$(runb "$UNL")
	echo "batch: long run $(awk '$1 == "done" { print $2 }' "$WL_OUT") ms wall, $t_plain ms CPU" >&2
	start_wl "$c" batch "$data" $srcm $passes
	t0=$(now_ms)
	"$M" size $SIZE_ARGS --json "${c#"$root"}" >"$tmp/size.json" 2>"$tmp/size.err" &
	sp=$!
	wait "$WL_PID" || true
	WL_PID=
	t_job=$(awk '$1 == "done" { print $3 }' "$WL_OUT")
	echo "batch: with the probe $(awk '$1 == "done" { print $2 }' "$WL_OUT") ms wall, $t_job ms CPU" >&2
	if kill -0 "$sp" 2>/dev/null; then
		kill -INT "$sp"
		in_run="no (stopped at the job's end)"
	else
		in_run=yes
	fi
	wait "$sp" || true
	ANS=$(jq -r .needed_bytes "$tmp/size.json")
	ELAPSED=$(jq -r '.elapsed_ns / 1e9 | floor' "$tmp/size.json")
	STOP="$(jq -r .stop "$tmp/size.json"), within the run: $in_run"
	SIG=$(jq -r .signal "$tmp/size.json")
	o1=$(oomk "$c")
	printf '| %s | %s | %s (%s%%) | %s | %s | %s | %s | %s | x%s (CPU time) | %s | - | - |\n' "$name" \
		"$(mib "$peak")" "$(mib "$knee")" "$knee_pct" "$(mib "$ANS")" "$(ratio "$ANS" "$knee")" \
		"$STOP" "$SIG" "$ELAPSED" "$(ratio "$t_plain" "$t_job")" "$((o1 - o0))"
	rmdir "$c"
}

phase() { # the working set grows from HOT to HOT2 after SECS: size --watch follows it
	c=$parent/phase
	mkdir "$c"
	hot=48 hot2=128 secs=90
	start_wl "$c" phase "$data" $hot 96 $hot2 $secs
	t0=$(now_ms)
	"$M" size $SIZE_ARGS --watch --timeout $((secs * 2 + 20))s "${c#"$root"}" >"$tmp/watch.out" 2>&1 || true
	o1=$(oomk "$c")
	echo "phase watch lines:" >&2
	cat "$tmp/watch.out" >&2
	printf '| phase | %s -> %s MiB hot (+96 cold), change at %s s | - | answers: %s | - | - | - | - | - | %s | - | - |\n' \
		$hot $hot2 $secs "$(grep -o 'needs [0-9.]* [KMG]iB' "$tmp/watch.out" | sed 's/needs //' | tr '\n' ',' | sed 's/,$//')" "$o1"
	stop_wl
	rmdir "$c"
}

for w in $WORKLOADS; do
	case $w in
	pagecache) steady pagecache pagecache "$data" 128 256 ;;
	skew) steady skew skew "$data" 32 96 128 90 ;;
	scan) steady scan scan "$data" 96 192 ;;
	anon) steady anon anon 64 64 ;;
	batch) batch ;;
	phase) phase ;;
	esac
done
