#!/bin/sh
# tiers: v1 v2
# SIGKILL in the middle of a shrink leaves the journal; 'memcgctl recover' puts the original
# values back; a set-limit on a cgroup with such a journal says so and restores it first.
set -eu
. "$MCG_TESTLIB"
require_cgroups
busy_shrink kill
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M

# kill_mid_shrink: start a shrink, SIGKILL it once it has written something
kill_mid_shrink() {
	# v1: fresh dirty page cache for the shrink to walk through (the last one reclaimed it)
	[ "$MCG_CGVER" = 1 ] && run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty-$$-$(date +%s%N)" 64 >/dev/null
	"$MEMCGCTL" set-limit "$CGREL" 4096 --force --step 4M --timeout 60s >/dev/null 2>&1 &
	pid=$!
	echo "$pid" >>"$MCG_CLEAN_PIDS"
	i=0
	while [ "$(knob "$CG" $WATCH)" = "$ORIG_W" ]; do
		kill -0 "$pid" 2>/dev/null || fail "memcgctl ended before it changed $WATCH"
		i=$((i + 1))
		[ $i -gt 400 ] && fail "memcgctl did not change $WATCH in 20 s"
		sleep 0.05
	done
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	[ "$(knob "$CG" $WATCH)" != "$ORIG_W" ] || fail "$WATCH was restored by a killed process?"
	ok "killed mid-shrink with $WATCH = $(knob "$CG" $WATCH)"
	[ -n "$(ls "$MEMCGCTL_RUNDIR/journal")" ] || fail "no journal after SIGKILL"
	ok "journal left"
}

kill_mid_shrink
assert_status "recover --dry-run" 0 "$MEMCGCTL" recover --dry-run
echo "$LAST_OUT" | grep -q "$CGREL: would restore" || fail "dry-run output: $LAST_OUT"
[ "$(knob "$CG" $WATCH)" != "$ORIG_W" ] || fail "recover --dry-run changed $WATCH"
assert_status "recover --dry-run --json" 0 "$MEMCGCTL" recover --dry-run --json
assert_eq "json journals" 1 "$(echo "$LAST_OUT" | json '.journals | length')"
assert_eq "json cgroup, op, result" "$CGREL set-limit restored true" \
	"$(echo "$LAST_OUT" | json '[.journals[0].cgroup, .journals[0].op, .journals[0].result, (.dry_run | tostring)] | join(" ")')"
[ "$(knob "$CG" $WATCH)" != "$ORIG_W" ] || fail "recover --dry-run --json changed $WATCH"
assert_status "recover" 0 "$MEMCGCTL" recover "$CGREL"
echo "$LAST_OUT" | grep -q "$CGREL: restored" || fail "recover output: $LAST_OUT"
assert_eq "$WATCH restored" "$ORIG_W" "$(knob "$CG" $WATCH)"
assert_eq "limit restored" 536870912 "$(knob "$CG" "$K_LIMIT")"
[ -z "$(ls "$MEMCGCTL_RUNDIR/journal")" ] || fail "journal left after recover"
assert_status "nothing left" 0 "$MEMCGCTL" recover
assert_eq "recover output" "nothing to recover" "$LAST_OUT"

kill_mid_shrink
assert_status "next set-limit restores first" 0 "$MEMCGCTL" set-limit "$CGREL" 384M
echo "$LAST_ERR" | grep -q "journal left by an interrupted 'set-limit'" || fail "message: $LAST_ERR"
assert_eq "limit" 402653184 "$(knob "$CG" "$K_LIMIT")"
[ "$MCG_CGVER" = 2 ] && assert_eq "memory.high restored" max "$(knob "$CG" memory.high)"
[ -z "$(ls "$MEMCGCTL_RUNDIR/journal")" ] || fail "journal left"
ok "journal cleared"
