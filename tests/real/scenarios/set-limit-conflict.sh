#!/bin/sh
# tiers: v1 v2
# Issue 18: another writer changes a value while a stepped set-limit holds it for the time
# being (v1: the limit it steps down; v2: the temporary memory.high of the shrink). The
# shrink's target cannot be reached (v1: a child cgroup's unreclaimable KiB; v2: held anon
# memory), so set-limit keeps retrying until --timeout and its lowering write never lands
# over the other writer's value: the outcome does not depend on timing. set-limit must stop,
# keep their value, say what it found and expected, exit 3 and leave no journal.
set -eu
. "$MCG_TESTLIB"
require_cgroups
busy_shrink slconf
# v1 never installs the unreachable 4096 (EBUSY, retried): what shows that set-limit holds
# the limit is its journal; it expects either the original or the 4096 it keeps writing.
# v2 installs the temporary memory.high at once.
holds() {
	if [ "$MCG_CGVER" = 2 ]; then
		[ "$(knob "$CG" $WATCH)" != "$ORIG_W" ]
	else
		[ -n "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null | grep '\.journal$')" ]
	fi
}
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M

# --timeout: the end of a v2 run (the temporary memory.high is compared as the run ends); long
# enough that the other write below lands before it on a slow guest (it writes once set-limit holds)
"$MEMCGCTL" --raw set-limit "$CGREL" 4096 --force --step 4M --timeout 20s >"$MCG_TMP/out" 2>"$MCG_TMP/err" &
pid=$!
echo "$pid" >>"$MCG_CLEAN_PIDS"
i=0
while ! holds; do
	kill -0 "$pid" 2>/dev/null || fail "set-limit ended before it changed $WATCH: $(cat "$MCG_TMP/err")"
	i=$((i + 1))
	[ $i -lt 200 ] || fail "set-limit did not change $WATCH in 10 s"
	sleep 0.05
done
ok "set-limit holds $WATCH = $(knob "$CG" $WATCH)"
echo $ADMIN >"$CG/$WATCH"
set +e
wait "$pid"
st=$?
set -e
assert_eq "exit status" 3 "$st"
assert_eq "the other writer's $WATCH stays" $ADMIN "$(knob "$CG" $WATCH)"
grep -q "another writer changed $WATCH" "$MCG_TMP/err" || fail "no word of the concurrent change: $(cat "$MCG_TMP/err")"
grep -q "found $ADMIN" "$MCG_TMP/err" || fail "found value not named: $(cat "$MCG_TMP/err")"
grep -Eq "expected (4096|$ORIG_W)" "$MCG_TMP/err" || fail "expected value not named: $(cat "$MCG_TMP/err")"
# the message tells a value set-limit wrote from the one it found before it started
if grep -q "expected $ORIG_W" "$MCG_TMP/err"; then
	grep -Eq "expected $ORIG_W( \([^)]*\))?, the value memcgctl found before it started" "$MCG_TMP/err"
else
	grep -Eq "expected 4096 \([^)]*\), the value memcgctl had written" "$MCG_TMP/err"
fi || fail "whose value memcgctl expected, not said right: $(cat "$MCG_TMP/err")"
ok "$(cat "$MCG_TMP/err")"
[ "$MCG_CGVER" = 2 ] && assert_eq "memory.max was never lowered" 536870912 "$(knob "$CG" memory.max)"
assert_eq "no journal or .tmp left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal")"
