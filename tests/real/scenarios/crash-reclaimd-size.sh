#!/bin/sh
# tiers: v1
# SIGKILL 'reclaimd --size CG' in the middle of a probe step (issue 26: "SIGKILL leaves a
# journal that the next command or recover restores"), without strace: the daemon steps the
# v1 limit of a scratch cgroup (a reader looping over HOT MiB of page cache beside COLD MiB
# written once) under a lock and journal of each step alone (MCG_SIZE_PROBE_STEP_LOCK), so
# "a step is in progress" is "the step's journal is in the run directory". Three kinds of
# round, each from a new daemon:
#   held    the journal appears: SIGSTOP (the step held open), another writer sets the limit,
#           SIGKILL; recover keeps their value (compare-and-restore, exit 3)
#   step    the journal appears: SIGKILL after a random 0-RAND_LOOPS busy loops (before the
#           lowering write, inside it, between it and the write back, after); every other
#           round another writer sets the limit before the next command
#   random  SIGKILL at a random moment 0-400 ms after the daemon holds its pid file (before
#           its first step, inside one, between two)
# After each kill the next command (recover, or a set-limit, which recovers first) leaves the
# limit read back from the kernel at the value before the probe (or theirs, or the
# set-limit's), no journal; no OOM kill (memory.oom_control), the reader alive. The waits
# poll for states with a deadline: the journal's presence with the shell's own test (no
# fork; a step holds its journal for about a millisecond), the daemon's pid file, its
# stopped state.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ "$MCG_CGVER" = 1 ] || skip "the v1 limit steps only"

HOT=32 COLD=96
L0=$((1024 * MIB))
NEXT=$((960 * MIB))
THEIRS=$((L0 + 64 * MIB)) # above usage: the kernel takes it at once
HELD=${CRS_HELD:-2} STEP=${CRS_STEP:-8} RANDOM_ROUNDS=${CRS_RANDOM:-8}
RAND_LOOPS=3000
STEP_WAIT=20 # seconds for a daemon to start a step

scratch_new ksize
echo $L0 >"$CG/memory.limit_in_bytes"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot" $HOT --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" loop "$MCG_DATA/hot" 50
LOOP=$SPAWN_PID
J="$MEMCGCTL_RUNDIR/journal/$(fname "$CGREL").journal"
LOG="$MCG_TMP/reclaimd.log"
failcnt0=$(knob "$CG" memory.failcnt)

rnd() { echo $(($(od -An -N4 -tu4 /dev/urandom) % ($1 + 1))); }
uptime_s() { read -r up _ </proc/uptime && echo "${up%.*}"; }
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -c1)" != Z ]; }

# the cold set back in the page cache once the probe has taken most of it, so each new
# daemon has cache to step through (its probe starts from the usage it finds)
cold_fill() {
	[ "$(knob "$CG" memory.usage_in_bytes)" -lt $(((HOT + COLD / 2) * MIB)) ] || return 0
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
}

start_daemon() {
	rm -f "$SD/reclaimd.pid"
	echo "--- round $ROUND ($1)" >>"$LOG"
	"$MEMCGCTL" reclaimd --foreground --state-dir "$SD" --size "$CGREL" --size-interval 50ms \
		--size-max-cpu 100 2>>"$LOG" &
	RPID=$!
	echo "$RPID" >>"$MCG_CLEAN_PIDS"
}
holds_pidfile() {
	alive "$RPID" || fail "round $ROUND: reclaimd ended: $(tail -n 5 "$LOG")"
	[ -f "$SD/reclaimd.pid" ] && [ "$(tr -d " \n" <"$SD/reclaimd.pid")" = "$RPID" ]
}

# wait_step: until the step's journal is there (busy: the shell's test and read are
# builtins), at most STEP_WAIT s (the clock looked at every 2048 looks)
wait_step() {
	ws_end=$(($(uptime_s) + STEP_WAIT))
	ws_i=0
	while [ ! -e "$J" ]; do
		ws_i=$((ws_i + 1))
		[ $((ws_i % 2048)) = 0 ] || continue
		alive "$RPID" || fail "round $ROUND: reclaimd ended before a step: $(tail -n 5 "$LOG")"
		[ "$(uptime_s)" -le "$ws_end" ] || fail "round $ROUND: no probe step within $STEP_WAIT s: $(tail -n 5 "$LOG")"
	done
}

# kill_daemon: SIGKILL and reap it; KILLED_LIMIT, what the limit read just after, and JLEFT
# (1: it died holding a step's journal)
kill_daemon() {
	kill -KILL "$RPID" 2>/dev/null || true
	set +e
	wait "$RPID" 2>/dev/null
	st=$?
	set -e
	[ "$st" = 137 ] || fail "round $ROUND: reclaimd exited $st before the kill: $(tail -n 5 "$LOG")"
	KILLED_LIMIT=$(knob "$CG" memory.limit_in_bytes)
	JLEFT=0
	[ ! -e "$J" ] || JLEFT=1
}

# next_cmd WANT-STATUS WANT-LIMIT: the next command after a kill: recover or (every third
# round) set-limit NEXT, which recovers first; the limit it leaves, no journal, no OOM kill
ROUND=0 JOURNALS=0 LOWERED=0 KEPT=0
next_cmd() {
	if [ $((ROUND % 3)) = 2 ] && [ "$2" = "$L0" ]; then
		assert_status "round $ROUND: set-limit after the kill" 0 "$MEMCGCTL" --raw set-limit "$CGREL" $NEXT
		assert_eq "round $ROUND: limit after set-limit" $NEXT "$(knob "$CG" memory.limit_in_bytes)"
		echo $L0 >"$CG/memory.limit_in_bytes"
	else
		assert_status "round $ROUND: recover after the kill" "$1" "$MEMCGCTL" --raw recover "$CGREL"
		assert_eq "round $ROUND: limit after recover (at the kill $KILLED_LIMIT)" "$2" \
			"$(knob "$CG" memory.limit_in_bytes)"
	fi
	assert_eq "round $ROUND: no journal left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
	assert_eq "round $ROUND: no OOM kill" "0 0" \
		"$(awk '$1 == "under_oom" { u = $2 } $1 == "oom_kill" { k = $2 } END { print u, k }' "$CG/memory.oom_control")"
	alive "$LOOP" || fail "round $ROUND: the reader died"
	[ "$JLEFT" = 0 ] || JOURNALS=$((JOURNALS + 1))
	[ "$KILLED_LIMIT" = "$L0" ] || [ "$KILLED_LIMIT" = "$THEIRS" ] || LOWERED=$((LOWERED + 1))
	[ "$(knob "$CG" memory.limit_in_bytes)" != "$THEIRS" ] || KEPT=$((KEPT + 1))
	echo $L0 >"$CG/memory.limit_in_bytes"
}

t0=$(uptime_s)
# held: the step held open by SIGSTOP, another writer's value, then the kill
n=0 tries=0
stopped() { [ "$(sed 's/.*) //' "/proc/$RPID/stat" | cut -c1)" = T ]; }
while [ $n -lt "$HELD" ]; do
	tries=$((tries + 1))
	[ $tries -le $((HELD + 10)) ] || fail "$tries daemons stopped only after their step ended"
	ROUND=$((ROUND + 1))
	cold_fill
	start_daemon held
	wait_until "round $ROUND: reclaimd holding its pid file" 30 holds_pidfile
	wait_step
	kill -STOP "$RPID"
	wait_until "round $ROUND: reclaimd stopped" 10 stopped
	if [ ! -e "$J" ]; then
		# stopped just after the step ended: nothing held, try again
		say "round $ROUND: stopped after its step; again"
		kill -KILL "$RPID"
		wait "$RPID" 2>/dev/null || true
		continue
	fi
	at=$(knob "$CG" memory.limit_in_bytes)
	echo $THEIRS >"$CG/memory.limit_in_bytes" # the other writer, while the step is held
	kill_daemon
	ok "round $ROUND: killed holding its step (limit $at when stopped), another writer set $THEIRS"
	next_cmd 3 $THEIRS
	printf '%s\n' "$LAST_ERR" | grep -q "another writer changed it since; kept their value" ||
		fail "round $ROUND: recover's message: $LAST_ERR"
	n=$((n + 1))
done

# step: killed inside a step at a random point of it
n=0
while [ $n -lt "$STEP" ]; do
	ROUND=$((ROUND + 1))
	cold_fill
	start_daemon step
	wait_until "round $ROUND: reclaimd holding its pid file" 30 holds_pidfile
	d=$(rnd $RAND_LOOPS)
	wait_step
	i=0
	while [ $i -lt "$d" ]; do i=$((i + 1)); done
	kill_daemon
	want=$L0 wst=0
	if [ $((n % 2)) = 1 ] && [ "$JLEFT" = 1 ]; then
		echo $THEIRS >"$CG/memory.limit_in_bytes" # another writer before the step ended
		want=$THEIRS wst=3
	fi
	say "round $ROUND: killed $d loops into a step: journal left $JLEFT, limit $KILLED_LIMIT"
	next_cmd $wst $want
	n=$((n + 1))
done

# random: killed at any moment of the daemon's first 400 ms of probing
n=0
while [ $n -lt "$RANDOM_ROUNDS" ]; do
	ROUND=$((ROUND + 1))
	cold_fill
	start_daemon random
	wait_until "round $ROUND: reclaimd holding its pid file" 30 holds_pidfile
	ms=$(rnd 400)
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill_daemon
	say "round $ROUND: killed at +$ms ms: journal left $JLEFT, limit $KILLED_LIMIT"
	next_cmd 0 $L0
	n=$((n + 1))
done
t1=$(uptime_s)

if grep -E "Sanitizer|runtime error" "$LOG" >/dev/null; then
	fail "reclaimd log reports: $(grep -E -A5 'Sanitizer|runtime error' "$LOG" | head -20)"
fi
# the rounds did kill inside steps (not only between them), and held ones left theirs
[ "$JOURNALS" -ge $((HELD + 1)) ] ||
	fail "only $JOURNALS of $ROUND kills left a step's journal: none landed inside a step"
assert_le "kept another writer's value (held rounds at least)" "$HELD" "$KEPT"
alive "$LOOP" || fail "the reader died"
assert_eq "the limit at the end" $L0 "$(knob "$CG" memory.limit_in_bytes)"
ok "$ROUND rounds in $((t1 - t0)) s: $JOURNALS killed inside a step, $LOWERED with the limit lowered, $KEPT with another writer's value kept; failcnt +$(($(knob "$CG" memory.failcnt) - failcnt0)), no OOM kill"
