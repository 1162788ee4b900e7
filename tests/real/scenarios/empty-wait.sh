#!/bin/sh
# tiers: v1
# empty takes the cgroup's lock as set-limit does: while another memcgctl holds it, empty
# fails at once (75, naming --wait); --wait waits, --timeout bounds that wait (75, "timed
# out waiting"), and a waiting empty runs once the holder is gone. Nothing changes meanwhile.
# recover names the holder (its pid) of the journal it leaves alone.
set -eu
. "$MCG_TESTLIB"
require_cgroups
busy_shrink ewait
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M
holds() { [ -n "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null | grep '\.journal$')" ]; }
# the holder: a shrink that cannot reach its target keeps the lock until its timeout or SIGINT
"$MEMCGCTL" set-limit "$CGREL" 4096 --force --step 4M --timeout 300s >/dev/null 2>&1 &
first=$!
echo "$first" >>"$MCG_CLEAN_PIDS"
wait_until "the holder takes the lock" 60 holds
mid=$(knob "$CG" "$K_LIMIT")

assert_status "empty without --wait" 75 "$MEMCGCTL" empty "$CGREL"
echo "$LAST_ERR" | grep -q "cannot empty '$CGREL': another memcgctl is changing it; use --wait" ||
	fail "message: $LAST_ERR"
assert_status "empty --wait --timeout while locked" 75 "$MEMCGCTL" empty "$CGREL" --wait --timeout 300ms
echo "$LAST_ERR" | grep -q "cannot empty '$CGREL': timed out waiting for another memcgctl" ||
	fail "message: $LAST_ERR"
assert_eq "limit untouched by the refused empties" "$mid" "$(knob "$CG" "$K_LIMIT")"
# recover, meanwhile, names the live owner of the journal rather than "nothing to recover"
assert_status "recover while the holder lives" 0 "$MEMCGCTL" recover
echo "$LAST_OUT" | grep -q "^$CGREL: the journal of 'set-limit' is in use: pid $first holds the cgroup's lock" ||
	fail "recover does not name the live owner (pid $first): $LAST_OUT"
"$MEMCGCTL" --json recover | jq -e --argjson p "$first" '.journals[0] | .result == "in-use" and .pid == $p' >/dev/null ||
	fail "recover --json: $("$MEMCGCTL" --json recover)"
assert_eq "the holder's journal left to it" 1 "$(journals)"

"$MEMCGCTL" empty "$CGREL" --wait >"$MCG_TMP/second" 2>&1 &
second=$!
echo "$second" >>"$MCG_CLEAN_PIDS"
waits() {
	kill -0 "$second" 2>/dev/null || fail "empty --wait did not wait: $(cat "$MCG_TMP/second")"
	naps "$second"
}
wait_catches "$second" INT "empty --wait"
wait_until "empty --wait sleeps waiting for the lock" 60 waits
assert_eq "limit untouched by the waiting empty" "$mid" "$(knob "$CG" "$K_LIMIT")"
kill -INT "$first"
set +e
wait "$first"
st1=$?
wait "$second"
st2=$?
set -e
assert_eq "holder interrupted" 130 $st1
assert_eq "the waiting empty ran" 0 $st2
grep -q "^$CGREL: " "$MCG_TMP/second" || fail "empty --wait printed no result: $(cat "$MCG_TMP/second")"
assert_eq "limit restored by the holder, kept by empty" 536870912 "$(knob "$CG" "$K_LIMIT")"
ok "empty --wait waited for the lock and then ran"
