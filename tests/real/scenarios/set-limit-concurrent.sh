#!/bin/sh
# tiers: v1 v2
# One writer per cgroup: a second set-limit fails with the lock message (exit 75) and
# changes nothing; with --wait it runs after the first one ends, and --timeout bounds that
# wait (exit 75, busy) as SIGINT ends it (130), changing nothing either.
set -eu
. "$MCG_TESTLIB"
require_cgroups
busy_shrink lock
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M
# The first run holds the lock until its --timeout or a signal: its target cannot be reached
# (busy_shrink), and the limit it leaves meanwhile does not move (v1: the 4096 it retries
# never installs; v2: memory.max is written last). It holds the lock once its journal is
# there (taken under the lock), and on v2 once it set its temporary memory.high.
holds() {
	[ -n "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null | grep '\.journal$')" ] &&
		{ [ "$MCG_CGVER" = 1 ] || [ "$(knob "$CG" $WATCH)" != "$ORIG_W" ]; }
}
"$MEMCGCTL" set-limit "$CGREL" 4096 --force --step 4M --timeout 300s >/dev/null 2>&1 &
first=$!
echo "$first" >>"$MCG_CLEAN_PIDS"
i=0
while ! holds; do
	kill -0 "$first" 2>/dev/null || fail "the first memcgctl ended early"
	i=$((i + 1))
	[ $i -gt 1200 ] && fail "the first memcgctl did not take the lock in 60 s"
	sleep 0.05
done
mid=$(knob "$CG" "$K_LIMIT")
assert_eq "the first run's limit meanwhile" 536870912 "$mid"
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
# it handles SIGINT from before it takes the lock: from then on a SIGINT ends its wait (one
# sent earlier would be ignored, as a background job's is, and the wait would outlast us)
wait_catches "$waiter" INT "the waiter"
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
# waiting: past its start (SIGINT handled) and asleep between looks at the lock
wait_catches "$second" INT "the --wait run"
waits() {
	kill -0 "$second" 2>/dev/null || fail "the --wait run did not wait: $(cat "$MCG_TMP/second")"
	naps "$second"
}
wait_until "the --wait run sleeps waiting for the lock" 60 waits
kill -0 "$second" 2>/dev/null || fail "the --wait run did not wait: $(cat "$MCG_TMP/second")"
assert_eq "limit untouched by the waiting run" "$mid" "$(knob "$CG" "$K_LIMIT")"
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
