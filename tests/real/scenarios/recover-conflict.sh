#!/bin/sh
# tiers: v1 v2
# Issue 18: memcgctl is SIGKILLed while it holds a temporary value; another writer sets
# that value before 'memcgctl recover' runs. recover must keep their value (not put the
# journalled original over it), say what it found and expected, exit 3, and remove the
# journal. Then the same with the next set-limit's automatic recovery.
set -eu
. "$MCG_TESTLIB"
require_cgroups
busy_shrink rconf
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M

kill_holding() {
	"$MEMCGCTL" set-limit "$CGREL" 4096 --force --step 4M --timeout 60s >/dev/null 2>&1 &
	pid=$!
	echo "$pid" >>"$MCG_CLEAN_PIDS"
	i=0
	while [ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null | grep '\.journal$')" ] ||
		{ [ "$MCG_CGVER" = 2 ] && [ "$(knob "$CG" $WATCH)" = "$ORIG_W" ]; }; do
		kill -0 "$pid" 2>/dev/null || fail "set-limit ended before it journalled"
		i=$((i + 1))
		[ $i -lt 400 ] || fail "set-limit did not start in 20 s"
		sleep 0.05
	done
	sleep 0.1
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	ok "killed holding $WATCH = $(knob "$CG" $WATCH)"
}

kill_holding
echo $ADMIN >"$CG/$WATCH" # the other writer, after the kill
assert_status "recover keeps the other writer's value" 3 "$MEMCGCTL" --raw recover "$CGREL"
echo "$LAST_ERR" | grep -q "$WATCH holds $ADMIN" || fail "message: $LAST_ERR"
echo "$LAST_ERR" | grep -q "another writer changed it since; kept their value" || fail "message: $LAST_ERR"
ok "$LAST_ERR"
assert_eq "$WATCH stays" $ADMIN "$(knob "$CG" $WATCH)"
[ "$MCG_CGVER" = 2 ] && assert_eq "memory.max" 536870912 "$(knob "$CG" memory.max)"
assert_eq "no journal or .tmp left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal")"

# the automatic recovery of the next set-limit: the same rule, then it goes on
echo "$ORIG_W" >"$CG/$WATCH"
kill_holding
echo $ADMIN >"$CG/$WATCH"
assert_status "next set-limit" 0 "$MEMCGCTL" --raw set-limit "$CGREL" 384M
echo "$LAST_ERR" | grep -q "$WATCH holds $ADMIN" || fail "message: $LAST_ERR"
ok "$LAST_ERR"
if [ "$MCG_CGVER" = 2 ]; then
	assert_eq "memory.high stays theirs" $ADMIN "$(knob "$CG" memory.high)"
	assert_eq "memory.max set" 402653184 "$(knob "$CG" memory.max)"
else
	assert_eq "limit set" 402653184 "$(knob "$CG" memory.limit_in_bytes)"
fi
assert_eq "no journal or .tmp left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal")"
