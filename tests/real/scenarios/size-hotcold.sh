#!/bin/sh
# tiers: v1 v2
# size on a workload of known shape: a process reads HOT MiB of page cache in a loop beside
# COLD MiB written once and never read again. The answer must lie within the band of
# HOT MiB plus what the cgroup holds besides page cache (anon, kernel), the limit reads back
# as before, the workload lives on, no OOM kill, no journal left.
set -eu
. "$MCG_TESTLIB"
require_cgroups

# the v2 guest is slow TCG with 512 MiB: smaller sets there
if [ "$MCG_CGVER" = 2 ]; then HOT=24 COLD=48; else HOT=48 COLD=96; fi
MIB=1048576

scratch_new hot
[ "$MCG_CGVER" = 1 ] && echo $((1024 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot" $HOT --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" loop "$MCG_DATA/hot" 50
LOOP=$SPAWN_PID
before=$(knob "$CG" "$K_USAGE")
assert_le "usage holds hot and cold" $(((HOT + COLD) * MIB * 9 / 10)) "$before"

assert_status "size" 0 "$MEMCGCTL" size --json --interval 200ms --timeout 90s "$CGREL"
echo "$LAST_OUT" >"$MCG_TMP/size.json"
j() { json "$1" <"$MCG_TMP/size.json"; }
say "needed $(j .needed_bytes), band $(j .band_low_bytes)..$(j .band_high_bytes), signal $(j .signal), $(j .steps) steps, $(j .elapsed_ns) ns"
assert_eq "result" ok "$(j .result)"
assert_eq "stop" converged "$(j .stop)"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "method" limit-steps "$(j .method)"
	assert_eq "limit read back" "$limit" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "JSON limit after" "$limit" "$(j .limit_after_bytes)"
else
	assert_eq "method" memory.reclaim "$(j .method)"
	assert_eq "signal" psi "$(j .signal)"
	assert_eq "memory.max read back" "$limit" "$(knob "$CG" "$K_LIMIT")"
fi
# what the cgroup holds besides the hot file: read after the probe (the loop's heap, kernel)
if [ "$MCG_CGVER" = 1 ]; then other=$(stat_key "$CG" total_rss); else
	other=$(($(knob "$CG" "$K_USAGE") - $(stat_key "$CG" file))); fi
[ "$other" -ge 0 ] || other=0
need=$((HOT * MIB + other))
lo=$(j .band_low_bytes)
hi=$(j .band_high_bytes)
# the band holds the working set (within 2 pages of 4 MiB: one step, the hot file's folios)...
assert_le "band low <= working set + 4 MiB" "$lo" $((need + 4 * MIB))
assert_le "working set - 4 MiB <= band high" $((need - 4 * MIB)) "$hi"
# ... and the answer is within 15% of it, far from usage (HOT + COLD)
assert_near "needed" "$need" "$(j .needed_bytes)" 15 $((2 * MIB))
assert_le "cold >= 3/4 of COLD" $((COLD * MIB * 3 / 4)) "$(j .cold_bytes)"
kill -0 "$LOOP" 2>/dev/null || fail "the workload died during the probe"
ok "workload alive"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "no OOM kill (memory.oom_control)" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")"
else
	assert_eq "no OOM kill (memory.events)" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"
fi
assert_eq "no journal left" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
