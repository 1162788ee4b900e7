#!/bin/sh
# tiers: v1 v2
# The one cancel shape: --timeout bounds the wait of --wait for another memcgctl's lock
# (exit 1, told apart from) SIGINT during that wait (exit 130), and the waiting run changes
# nothing. A shrink with --timeout but no --step still reaches its target (it goes in
# bounded writes so that the deadline is checked between them).
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new waitto
if [ "$MCG_CGVER" = 2 ]; then
	spawn_in "$CG" "$MCG_LOAD" anon 32 --hold
	WATCH=memory.high ORIG_W=max
else
	mkdir "$CG/child"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty" 32 >/dev/null
	WATCH=memory.limit_in_bytes ORIG_W=536870912
fi
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

assert_status "--wait --timeout while locked" 1 "$MEMCGCTL" set-limit "$CGREL" 300M --wait --timeout 300ms
echo "$LAST_ERR" | grep -q "cannot change '$CGREL': timed out waiting for another memcgctl" ||
	fail "message: $LAST_ERR"
kill -0 "$first" 2>/dev/null || fail "the first memcgctl ended: the timeout did not come from the wait"
assert_eq "limit untouched by the timed-out waiter" "$mid" "$(knob "$CG" "$K_LIMIT")"

"$MEMCGCTL" set-limit "$CGREL" 300M --wait --timeout 60s >"$MCG_TMP/w.out" 2>"$MCG_TMP/w.err" &
waiter=$!
echo "$waiter" >>"$MCG_CLEAN_PIDS"
sleep 0.3
kill -0 "$waiter" 2>/dev/null || fail "the --wait run did not wait: $(cat "$MCG_TMP/w.err")"
kill -INT "$waiter"
set +e
wait "$waiter"
st=$?
set -e
assert_eq "waiter interrupted" 130 $st
grep -q "interrupted waiting for another memcgctl" "$MCG_TMP/w.err" || fail "message: $(cat "$MCG_TMP/w.err")"
kill -0 "$first" 2>/dev/null || fail "the first memcgctl ended with the waiter"

kill -INT "$first"
set +e
wait "$first"
st=$?
set -e
assert_eq "first interrupted" 130 $st
assert_eq "limit restored by the first" 536870912 "$(knob "$CG" "$K_LIMIT")"
[ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)" ] || fail "journal left"

# a shrink with a deadline and no --step: bounded writes, the target reached
if [ "$MCG_CGVER" = 1 ]; then
	rmdir "$CG/child"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 192 >/dev/null
	sync
fi
assert_status "shrink with --timeout, no --step" 0 "$MEMCGCTL" set-limit "$CGREL" 96M --force --timeout 60s
assert_eq "limit read back" 100663296 "$(knob "$CG" "$K_LIMIT")"
u=$(knob "$CG" "$K_USAGE")
[ "$u" -le 100663296 ] || fail "usage $u above the new limit"
ok "usage $u within 96 MiB"
exit 0
