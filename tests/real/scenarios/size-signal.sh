#!/bin/sh
# tiers: v1 v2
# SIGINT and SIGTERM at a random moment of a size probe: it exits within 1 s with the limit
# read back as before and no journal; after SIGKILL (v1, where the limit is stepped) the
# journal holds the original limit and 'memcgctl recover' puts it back.
set -eu
. "$MCG_TESTLIB"
require_cgroups

if [ "$MCG_CGVER" = 2 ]; then HOT=16 COLD=64; else HOT=32 COLD=160; fi
MIB=1048576

scratch_new sig
[ "$MCG_CGVER" = 1 ] && echo $((1024 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot" $HOT --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" loop "$MCG_DATA/hot" 50
LOOP=$SPAWN_PID

rand_ms() { awk -v s="$(date +%s%N)$$" 'BEGIN { srand(s % 1000000007); printf "%d", rand() * 600 }'; }

# start a probe on fresh cold cache; return once its steps have begun (usage 4 MiB lower),
# then wait a random 0-0.6 s; sets SPID
start_size() {
	rm -f "$MCG_DATA"/cold
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
	full=$(knob "$CG" "$K_USAGE")
	"$MEMCGCTL" size --json --interval 100ms "$CGREL" >"$MCG_TMP/sig.json" 2>"$MCG_TMP/sig.err" &
	SPID=$!
	echo "$SPID" >>"$MCG_CLEAN_PIDS"
	i=0
	while [ "$(knob "$CG" "$K_USAGE")" -gt $((full - 4 * MIB)) ]; do
		kill -0 "$SPID" 2>/dev/null || fail "size ended before its steps began: $(cat "$MCG_TMP/sig.err")"
		i=$((i + 1))
		[ $i -lt 3000 ] || fail "size took no step in 30 s"
		sleep 0.01
	done
	ms=$(rand_ms)
	sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill -0 "$SPID" 2>/dev/null || fail "size finished before the signal: $(cat "$MCG_TMP/sig.json")"
}

# stop_size SIG WANT: send SIG, wait, check the exit status, 1 s and the limit
stop_size() {
	t0=$(now_ceil)
	kill "-$1" "$SPID"
	set +e
	wait "$SPID"
	st=$?
	set -e
	t1=$(now_floor)
	assert_eq "exit status after SIG$1" "$2" "$st"
	assert_le "SIG$1 to exit (ms)" $((t1 - t0)) 1000
	assert_eq "limit read back after SIG$1" "$limit" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "JSON result after SIG$1" interrupted "$(json .result <"$MCG_TMP/sig.json")"
	assert_eq "no journal after SIG$1" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
}

start_size
stop_size INT 130
start_size
stop_size TERM 143

if [ "$MCG_CGVER" = 1 ]; then
	start_size
	kill -KILL "$SPID"
	wait "$SPID" 2>/dev/null || true
	journal=$(ls "$MEMCGCTL_RUNDIR/journal")
	[ -n "$journal" ] || fail "no journal after SIGKILL"
	grep -q "^knob memory.limit_in_bytes $limit " "$MEMCGCTL_RUNDIR/journal/$journal" ||
		fail "journal does not hold the original limit: $(cat "$MEMCGCTL_RUNDIR/journal/$journal")"
	ok "journal holds the original limit"
	say "limit right after SIGKILL: $(knob "$CG" "$K_LIMIT")"
	# the kill may land between steps: put the limit where the journal says the step was
	# taking it (the state a kill inside the step's write leaves), for recover to undo
	step=$(awk '$1 == "knob" && $2 == "memory.limit_in_bytes" { printf "%.0f", $5 + 0 }' \
		"$MEMCGCTL_RUNDIR/journal/$journal")
	if [ "$step" -lt "$limit" ]; then
		# EBUSY while the loop refaults its file as fast as reclaim takes it: try again
		i=0
		until (echo "$step" >"$CG/$K_LIMIT") 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 50 ] || fail "cannot lower the limit to $step: usage $(knob "$CG" "$K_USAGE")"
			sleep 0.05
		done
		assert_le "limit lowered as by a step" "$(knob "$CG" "$K_LIMIT")" $((limit - 4096))
	else
		fail "journal names no lowering step: $(cat "$MEMCGCTL_RUNDIR/journal/$journal")"
	fi
	assert_status "recover after SIGKILL" 0 "$MEMCGCTL" recover "$CGREL"
	assert_eq "limit after recover" "$limit" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "no journal after recover" "" "$(ls "$MEMCGCTL_RUNDIR/journal")"
	# a journal the next size finds is restored first, under its lock
	start_size
	kill -KILL "$SPID"
	wait "$SPID" 2>/dev/null || true
	[ -n "$(ls "$MEMCGCTL_RUNDIR/journal")" ] || fail "no journal after the second SIGKILL"
	assert_status "size after SIGKILL" 2 "$MEMCGCTL" size --interval 100ms --timeout 1s "$CGREL"
	assert_eq "limit after the next size" "$limit" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "no journal after the next size" "" "$(ls "$MEMCGCTL_RUNDIR/journal")"
fi
kill -0 "$LOOP" 2>/dev/null || fail "the workload died"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")"
else
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"
fi
