#!/bin/sh
# tiers: v1 v2
# One writer per cgroup: a second set-limit fails with the lock message (exit 75) and
# changes nothing; with --wait it runs after the first one ends, and --timeout bounds that
# wait (exit 75, busy) as SIGINT ends it (130), changing nothing either.
set -eu
. "$MCG_TESTLIB"
require_cgroups
busy_shrink lock
[ "$MCG_CGVER" = 1 ] && run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty" 32 >/dev/null
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M
"$MEMCGCTL" set-limit "$CGREL" 4096 --force --step 4M --timeout 60s >/dev/null 2>&1 &
first=$!
echo "$first" >>"$MCG_CLEAN_PIDS"
i=0
while [ "$(knob "$CG" $WATCH)" = "$ORIG_W" ]; do
	kill -0 "$first" 2>/dev/null || fail "the first memcgctl ended early"
	i=$((i + 1))
	[ $i -gt 400 ] && fail "the first memcgctl did not change $WATCH"
	sleep 0.05
done
mid=$(knob "$CG" "$K_LIMIT")
assert_status "second without --wait" 75 "$MEMCGCTL" set-limit "$CGREL" 300M
echo "$LAST_ERR" | grep -q "cannot change '$CGREL': another memcgctl is changing it; use --wait" ||
	fail "message: $LAST_ERR"
assert_eq "limit untouched by the second" "$mid" "$(knob "$CG" "$K_LIMIT")"

# --timeout bounds the wait for the lock; SIGINT during the wait is an interrupt: told apart
assert_status "--wait --timeout while locked" 75 "$MEMCGCTL" set-limit "$CGREL" 300M --wait --timeout 300ms
echo "$LAST_ERR" | grep -q "cannot change '$CGREL': timed out waiting for another memcgctl" ||
	fail "message: $LAST_ERR"
"$MEMCGCTL" set-limit "$CGREL" 300M --wait --timeout 60s >/dev/null 2>"$MCG_TMP/w.err" &
waiter=$!
echo "$waiter" >>"$MCG_CLEAN_PIDS"
sleep 0.3
kill -INT "$waiter"
set +e
wait "$waiter"
st=$?
set -e
assert_eq "waiter interrupted" 130 $st
grep -q "interrupted waiting for another memcgctl" "$MCG_TMP/w.err" || fail "message: $(cat "$MCG_TMP/w.err")"
kill -0 "$first" 2>/dev/null || fail "the first memcgctl ended with the waiters"
assert_eq "limit untouched by the waiters" "$mid" "$(knob "$CG" "$K_LIMIT")"

"$MEMCGCTL" set-limit "$CGREL" 300M --wait >"$MCG_TMP/second" 2>&1 &
second=$!
echo "$second" >>"$MCG_CLEAN_PIDS"
sleep 0.5
kill -0 "$second" 2>/dev/null || fail "the --wait run did not wait: $(cat "$MCG_TMP/second")"
ok "second run waits"
kill -INT "$first"
set +e
wait "$first"
st1=$?
wait "$second"
st2=$?
set -e
assert_eq "first interrupted" 130 $st1
assert_eq "second succeeded" 0 $st2
assert_eq "limit set by the second" 314572800 "$(knob "$CG" "$K_LIMIT")"
[ "$MCG_CGVER" = 2 ] && assert_eq "memory.high back" max "$(knob "$CG" memory.high)"
exit 0
