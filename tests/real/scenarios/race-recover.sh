#!/bin/sh
# tiers: v1
# Issue 23: another writer at a random moment of 'memcgctl recover'. A set-limit --step
# is killed with SIGKILL a random 0-20 ms after its first step is in the kernel (mid-step
# nearly always: a v1 step reclaims inside its write), leaving its journal and a lowered
# limit; then recover runs while another process writes the limit a random 0-100 us after
# recover's compare read (race_point, tests/real/mcg-race.c): before its write, inside
# the read-to-write gap, or after it. Their value must stay, or recover must name the knob
# and the process, exit 3 and leave the original (never the killed run's lowered value):
# 0 lost, read back from the kernel.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/race-lib.sh"
require_cgroups
scratch_new race
TRIALS=${RACE_TRIALS:-12}
ORIG=2147483648
THEIRS=1677721600 # 1600M
# TRIALS trials, and more (up to MAX_TRIALS) until one write has landed inside recover's
# restore: on a loaded machine the random moment lands there less often, and a run that
# saw no race has tested nothing
MAX_TRIALS=${RACE_MAX_TRIALS:-60}
# Two busy loops of ours, so that the race is there to be seen on an idle host too:
# recover runs on CPU 0 beside one (below, at nice 19), and the other, at nice 19 on
# CPU 1, keeps that CPU out of idle, so mcg-race (nice -20) wakes at once for recover's
# read. On an idle VM it woke only after recover's write had merged into the read
# event (late=1 in 59 of 60 trials, and no write in the gap).
if [ "$(nproc)" -ge 2 ]; then
	taskset -c 0 sh -c 'while :; do :; done' &
	echo $! >>"$MCG_CLEAN_PIDS"
	taskset -c 1 nice -n 19 sh -c 'while :; do :; done' &
	echo $! >>"$MCG_CLEAN_PIDS"
	ON_CPU0="taskset -c 0 nice -n 19"
else
	ON_CPU0=
fi
n=0 tries=0
while [ $n -lt "$TRIALS" ] || { [ $RACE_IN -eq 0 ] && [ $n -lt "$MAX_TRIALS" ]; }; do
	tries=$((tries + 1))
	# three tries a trial, as many trials as are wanted so far (TRIALS, then one more at a time)
	[ $tries -le $(((n < TRIALS ? TRIALS : n + 1) * 3)) ] ||
		fail "only $n killed runs left a journal in $tries tries"
	echo $ORIG >"$CG/memory.limit_in_bytes"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 64 --sync --bs 4 >/dev/null
	"$MEMCGCTL" set-limit "$CGREL" 8M --step 4M >/dev/null 2>&1 &
	pid=$!
	echo "$pid" >>"$MCG_CLEAN_PIDS"
	while read -r v <"$CG/memory.limit_in_bytes" && [ "$v" = $ORIG ] && kill -0 "$pid" 2>/dev/null; do
		:
	done
	sleep "$(printf '0.%03d' $(($(od -An -N2 -tu2 /dev/urandom) % 21)))"
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ "$(journals)" != 1 ]; then
		say "try $tries: set-limit finished before the kill, no journal: again"
		continue
	fi
	killed=$(knob "$CG" memory.limit_in_bytes)
	[ "$killed" != $ORIG ] || fail "trial $n: the killed run left the limit at the original"
	# shellcheck disable=SC2086 # ON_CPU0: words
	race_point memory.limit_in_bytes $THEIRS -- $ON_CPU0 "$MEMCGCTL" recover "$CGREL"
	race_count $RACE_RESULT
	say "trial $n: killed at $killed, +$RACE_US us (in the gap $RACE_DURING, late $RACE_LATE): $RACE_RESULT (exit $RACE_STATUS; $RACE_REPORT) $(head -c 300 "$MCG_TMP/race.err")"
	[ $RACE_RESULT != lost ] || [ "${RACE_NOFAIL:-0}" = 1 ] ||
		fail "trial $n: their limit was lost silently (limit $RACE_AFTER, exit $RACE_STATUS): $(cat "$MCG_TMP/race.err")"
	if [ $RACE_RESULT = seen ]; then
		assert_eq "trial $n: the original is back, not the killed run's value" $ORIG "$RACE_AFTER"
		grep -q "another process [0-9]* ('mcg-race')" "$MCG_TMP/race.err" ||
			fail "trial $n: the other process is not named: $(cat "$MCG_TMP/race.err")"
	fi
	[ "$RACE_DURING" = 0 ] || [ $RACE_RESULT = seen ] || [ "${RACE_NOFAIL:-0}" = 1 ] ||
		fail "trial $n: recover wrote over their value and did not say so: $(cat "$MCG_TMP/race.err")"
	assert_eq "trial $n: no journal left" 0 "$(journals)"
	n=$((n + 1))
done
[ $RACE_IN -gt 0 ] || [ "${RACE_NOFAIL:-0}" = 1 ] || fail "no write landed in recover's read-to-write gap in $n trials: the test saw no race"
ok "recover: $RACE_IN of $n writes while it restored; kept $RACE_KEPT, seen $RACE_SEEN, lost $RACE_LOST of $n"
