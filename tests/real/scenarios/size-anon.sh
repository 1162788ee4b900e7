#!/bin/sh
# tiers: v1 v2
# size never probes below what reclaim cannot free: a process holding ANON MiB of anonymous
# memory (no swap) beside COLD MiB of cache. The probe walks the cache down, stops at the
# floor and says so (stop "floor", floor_is_answer); the answer is the anon plus at most the
# margin; the process lives, no OOM kill, the limit reads back as before.
set -eu
. "$MCG_TESTLIB"
require_cgroups

if [ "$MCG_CGVER" = 2 ]; then ANON=24 COLD=48; else ANON=48 COLD=96; fi
MIB=1048576

scratch_new anon
[ "$MCG_CGVER" = 1 ] && echo $((1024 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" anon $ANON --hold
HOLD=$SPAWN_PID
if [ "$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)" != 0 ]; then
	skip "swap is on: anon is reclaimable here"
fi

assert_status "size" 0 "$MEMCGCTL" size --json --interval 100ms --timeout 60s "$CGREL"
echo "$LAST_OUT" >"$MCG_TMP/size.json"
j() { json "$1" <"$MCG_TMP/size.json"; }
say "needed $(j .needed_bytes), floor $(j .floor_bytes), stop $(j .stop), $(j .steps) steps"
assert_eq "stop" floor "$(j .stop)"
assert_eq "floor is the answer" true "$(j .floor_is_answer)"
assert_le "floor >= the anon" $((ANON * MIB)) "$(j .floor_bytes)"
assert_le "needed >= the floor" "$(j .floor_bytes)" "$(j .needed_bytes)"
# the margin above the floor: 8 MiB, or 5% of usage; and a step of slack
assert_le "needed <= floor + margin + 2 MiB" "$(j .needed_bytes)" $(($(j .floor_bytes) + 10 * MIB))
assert_le "cold: most of the cache" $((COLD * MIB * 3 / 4)) "$(j .cold_bytes)"
assert_eq "cold anon (no swap)" 0 "$(j .cold_anon_bytes)"
kill -0 "$HOLD" 2>/dev/null || fail "the anon holder died"
ok "anon holder alive"
assert_eq "limit read back" "$limit" "$(knob "$CG" "$K_LIMIT")"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")"
else
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"
fi
assert_eq "no journal left" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
