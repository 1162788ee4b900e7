#!/bin/sh
# tiers: v2
# memory.max written below usage that cannot be reclaimed (anon, no swap) makes the kernel
# OOM-kill inside the cgroup until usage fits, and the write itself returns success, never
# EBUSY. This is why set-limit must check what is reclaimable before lowering memory.max.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -x "${MCG_WRITE:-}" ] || fail "MCG_WRITE (the mcg-write helper) is not set"
scratch_new maxoom
if [ -e "$CG/memory.swap.max" ]; then
	echo 0 >"$CG/memory.swap.max"
fi

spawn_in "$CG" "$MCG_LOAD" anon 32 --hold
victim=$SPAWN_PID
usage=$(knob "$CG" memory.current)
assert_le "anon charged" $((32 * 1048576)) "$usage"
assert_eq "oom_kill before" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"

assert_eq "memory.max 8M below 32M of anon" ok "$("$MCG_WRITE" "$CG/memory.max" 8M || true)"
assert_eq "memory.max reads back" 8388608 "$(knob "$CG" memory.max)"

# The victim is gone (SIGKILL), killed synchronously by the write.
set +e
wait "$victim"
st=$?
set -e
assert_eq "victim exit status (SIGKILL)" 137 "$st"
kills=$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")
assert_le "memory.events oom_kill" 1 "$kills"
assert_le "usage fits the new limit" "$(knob "$CG" memory.current)" 8388608
