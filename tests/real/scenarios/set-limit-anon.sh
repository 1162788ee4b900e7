#!/bin/sh
# tiers: v1 v2
# A shrink below anon memory that cannot be swapped is refused before any write and kills
# nothing; --force tries and fails cleanly; on v2 only --allow-oom lets the kernel OOM-kill.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ "$(awk '$1 == "SwapFree:" { print $2 }' /proc/meminfo)" = 0 ] || skip "swap is on: anon is reclaimable here"
scratch_new anon
assert_status "limit 256M" 0 "$MEMCGCTL" set-limit "$CGREL" 256M
spawn_in "$CG" "$MCG_LOAD" anon 48 --hold
child=$SPAWN_PID

assert_status "16M refused" 1 "$MEMCGCTL" set-limit "$CGREL" 16M
echo "$LAST_ERR" | grep -q "below what cannot be reclaimed" || fail "message: $LAST_ERR"
kill -0 "$child" || fail "the child was killed"
ok "child alive"
assert_eq "limit unchanged" 268435456 "$(knob "$CG" "$K_LIMIT")"
if [ "$MCG_CGVER" = 2 ]; then
	assert_eq "high unchanged" max "$(knob "$CG" memory.high)"
fi

assert_status "--force tries and rolls back" 1 "$MEMCGCTL" set-limit "$CGREL" 16M --force
echo "$LAST_ERR" | grep -q "restored the original values" || fail "message: $LAST_ERR"
kill -0 "$child" || fail "the child was killed by --force"
ok "child alive after --force"
assert_eq "limit unchanged" 268435456 "$(knob "$CG" "$K_LIMIT")"

if [ "$MCG_CGVER" = 1 ]; then
	assert_status "--allow-oom is v2 only" 64 "$MEMCGCTL" set-limit "$CGREL" 16M --allow-oom
	assert_eq "limit unchanged" 268435456 "$(knob "$CG" "$K_LIMIT")"
	exit 0
fi
assert_eq "high unchanged" max "$(knob "$CG" memory.high)"
assert_eq "no oom kill so far" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"
assert_status "--allow-oom" 0 "$MEMCGCTL" set-limit "$CGREL" 16M --allow-oom
assert_eq "memory.max" 16777216 "$(knob "$CG" memory.max)"
i=0
while kill -0 "$child" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$child" 2>/dev/null && fail "the child survived --allow-oom"
assert_le "oom kills" 1 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"
