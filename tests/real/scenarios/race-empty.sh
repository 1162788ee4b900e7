#!/bin/sh
# tiers: v1
# Issue 23: another writer sets the limit at a random moment while empty steps it, not
# between two steps (race_trial: wait for the first lowered limit, then 0-60 ms). A v1
# limit write that must reclaim installs its value only once usage fits, over any value
# written meanwhile; memcgctl sees such a write through fanotify (the writer's pid) and
# puts the original back over its own lowered value, exit 3 naming the knob. Every trial
# must be kept or seen: 0 lost. Batches of 128 pages: both outcomes happen in 10 trials.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/race-lib.sh"
require_cgroups
scratch_new race
TRIALS=${RACE_TRIALS:-10}
ORIG=2147483648
THEIRS=1677721600 # 1600M
MIBS=192
n=0
while [ $n -lt "$TRIALS" ]; do
	echo $ORIG >"$CG/memory.limit_in_bytes"
	# written anew in 4 KiB writes: small folios, so that the run outlasts the delay
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" $MIBS --sync --bs 4 >/dev/null
	race_trial memory.limit_in_bytes $THEIRS "$MEMCGCTL" --raw empty --batch 128 "$CGREL"
	race_count $RACE_RESULT
	say "trial $n: +$RACE_MS ms (during $RACE_DURING): $RACE_RESULT (exit $RACE_STATUS) $(head -c 300 "$MCG_TMP/race.err")"
	[ $RACE_RESULT != lost ] || [ "${RACE_NOFAIL:-0}" = 1 ] || fail "trial $n: their limit was lost silently: $(cat "$MCG_TMP/race.err")"
	# seen: their value is unknown, and memcgctl left the original, never its lowered one
	[ $RACE_RESULT != seen ] || assert_eq "trial $n: the original is back" "$RACE_BEFORE" "$RACE_AFTER"
	if [ $RACE_RESULT = seen ]; then
		grep -q "^limit: restored to $ORIG (another process's value" "$MCG_TMP/race.out" ||
			fail "trial $n: output: $(cat "$MCG_TMP/race.out")"
	fi
	assert_eq "trial $n: no journal left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
	n=$((n + 1))
done
[ $RACE_IN -gt 0 ] || fail "no write landed while empty ran: the test saw no race"
ok "empty: $RACE_IN of $TRIALS writes while it ran; kept $RACE_KEPT, seen $RACE_SEEN, lost $RACE_LOST of $TRIALS"
