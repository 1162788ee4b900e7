#!/bin/sh
# tiers: v2
# memory.high written below usage that cannot be reclaimed returns success and never
# OOM-kills: the holder stays alive, over high; later charges are throttled and counted in
# memory.events "high".
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -x "${MCG_WRITE:-}" ] || fail "MCG_WRITE (the mcg-write helper) is not set"
scratch_new high
if [ -e "$CG/memory.swap.max" ]; then
	echo 0 >"$CG/memory.swap.max"
fi
ev() { awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.events"; }

spawn_in "$CG" "$MCG_LOAD" anon 16 --hold
holder=$SPAWN_PID
high0=$(ev high)

assert_eq "memory.high 4M below 16M of anon" ok "$("$MCG_WRITE" "$CG/memory.high" 4M || true)"
assert_eq "memory.high reads back" 4194304 "$(knob "$CG" memory.high)"
kill -0 "$holder" 2>/dev/null || fail "the holder died after memory.high was lowered"
ok "holder alive after the write"
assert_le "usage still above high (nothing reclaimable)" 4194305 "$(knob "$CG" memory.current)"

# A new charge over high is throttled and counted, not killed. The throttle grows with the
# square of the overage (up to 2 s per 64-page batch), so go just below usage first to keep
# it short.
usage=$(knob "$CG" memory.current)
near=$(((usage - 262144) / 4096 * 4096))
assert_eq "memory.high just below usage" ok "$("$MCG_WRITE" "$CG/memory.high" "$near" || true)"
# busybox dd's 1 MiB buffer: a small, fixed charge (a sanitized mcg-load would charge
# megabytes of shadow memory and be throttled for seconds).
run_in "$CG" dd if=/dev/zero of=/dev/null bs=1M count=2 2>/dev/null ||
	fail "a 1 MiB allocation over memory.high failed"
ok "a 1 MiB allocation over high completed"
high1=$(ev high)
assert_le "memory.events high grew" $((high0 + 1)) "$high1"
kill -0 "$holder" 2>/dev/null || fail "the holder died"
ok "holder still alive"
assert_eq "oom" 0 "$(ev oom)"
assert_eq "oom_kill" 0 "$(ev oom_kill)"
