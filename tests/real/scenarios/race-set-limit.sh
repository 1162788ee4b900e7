#!/bin/sh
# tiers: v1 v2
# Issue 23: another writer at a random moment (race_trial: after the first step is visible,
# 0-60 ms) while set-limit holds a temporary value: v1 --step lowers memory.limit_in_bytes
# in 8M writes that reclaim in the kernel; v2 lowers memory.high to the target while it
# reclaims, then puts it back. Their value must be kept, or seen (exit 3 naming the knob,
# the original put back): 0 lost.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/race-lib.sh"
require_cgroups
scratch_new race
if [ "$MCG_CGVER" = 2 ]; then
	TRIALS=${RACE_TRIALS:-4} KNOB=memory.high MIBS=32 TARGET=16M BS=64
	THEIRS=402653184 # 384M
else
	TRIALS=${RACE_TRIALS:-10} KNOB=memory.limit_in_bytes MIBS=192 TARGET=32M BS=4
	THEIRS=1677721600 # 1600M
	echo 2G >"$CG/memory.limit_in_bytes"
fi
orig_limit=$(knob "$CG" "$K_LIMIT")
# this kernel lets memcgctl watch the knobs it holds (fanotify): else only the compare is left
"$MEMCGCTL" -v set-limit "$CGREL" 1G >/dev/null 2>"$MCG_TMP/watch.err" || fail "set-limit 1G: $(cat "$MCG_TMP/watch.err")"
if grep -q "cannot watch" "$MCG_TMP/watch.err"; then
	fail "no fanotify watch on this kernel: $(cat "$MCG_TMP/watch.err")"
fi
ok "fanotify watches the knobs set-limit holds"
n=0
while [ $n -lt "$TRIALS" ]; do
	echo "$orig_limit" >"$CG/$K_LIMIT"
	[ "$MCG_CGVER" = 1 ] || echo max >"$CG/memory.high"
	# v1: 4 KiB writes, small folios, so that the run outlasts the delay (TCG is slow enough)
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" $MIBS --sync --bs $BS >/dev/null
	if [ "$MCG_CGVER" = 2 ]; then
		race_trial $KNOB $THEIRS "$MEMCGCTL" --raw set-limit "$CGREL" $TARGET
	else
		race_trial $KNOB $THEIRS "$MEMCGCTL" --raw set-limit "$CGREL" $TARGET --step 8M
	fi
	race_count $RACE_RESULT
	say "trial $n: +$RACE_MS ms (during $RACE_DURING): $RACE_RESULT (exit $RACE_STATUS) $(head -c 300 "$MCG_TMP/race.err")"
	[ $RACE_RESULT != lost ] || [ "${RACE_NOFAIL:-0}" = 1 ] || fail "trial $n: their $KNOB was lost silently: $(cat "$MCG_TMP/race.err")"
	# seen: their value is unknown, and memcgctl left the original, never its lowered one
	[ $RACE_RESULT != seen ] || assert_eq "trial $n: the original is back" "$RACE_BEFORE" "$RACE_AFTER"
	assert_eq "trial $n: no journal left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
	n=$((n + 1))
done
[ $RACE_IN -gt 0 ] || fail "no write landed while set-limit ran: the test saw no race"
ok "set-limit: $RACE_IN of $TRIALS writes while it ran; kept $RACE_KEPT, seen $RACE_SEEN, lost $RACE_LOST of $TRIALS"
