#!/bin/sh
# tiers: v2
# memory.reclaim: a request the cgroup can meet succeeds; one it cannot meet (far more than
# the cgroup holds) fails with EAGAIN after reclaiming what it could; bad input is EINVAL.
# memcgctl's reclaim loop relies on exactly these three answers.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -x "${MCG_WRITE:-}" ] || fail "MCG_WRITE (the mcg-write helper) is not set"
scratch_new reclaim
[ -e "$CG/memory.reclaim" ] || skip "no memory.reclaim (kernel older than 5.19)"

# 32 MiB of clean page cache charged to the cgroup, its writer gone.
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/clean" 32 --sync >/dev/null
file0=$(stat_key "$CG" file)
assert_le "clean page cache charged" $((30 * 1048576)) "$file0"

assert_eq "reclaim 4M of 32M clean cache" ok "$("$MCG_WRITE" "$CG/memory.reclaim" 4M || true)"
file1=$(stat_key "$CG" file)
assert_le "file shrank by at least 4 MiB" $((file1 + 4 * 1048576)) "$file0"

# Far more than the cgroup holds: it reclaims everything it can, then says EAGAIN.
assert_eq "reclaim 1G from a small cgroup" EAGAIN "$("$MCG_WRITE" "$CG/memory.reclaim" 1G || true)"
file2=$(stat_key "$CG" file)
assert_le "the short reclaim still reclaimed the clean cache" "$file2" $((2 * 1048576))

# Unreclaimable anon (no swap in the guest) cannot satisfy even a small request.
spawn_in "$CG" "$MCG_LOAD" anon 16 --hold
swap_max=$(cat "$CG/memory.swap.max" 2>/dev/null || echo absent)
if [ "$swap_max" != absent ]; then
	echo 0 >"$CG/memory.swap.max"
fi
assert_eq "reclaim 8M of pure anon without swap" EAGAIN \
	"$("$MCG_WRITE" "$CG/memory.reclaim" 8M || true)"
kill -0 "$SPAWN_PID" 2>/dev/null || fail "memory.reclaim killed the anon holder"
ok "anon holder survived the failed reclaim"
assert_eq "oom_kill after reclaims" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"

assert_eq "reclaim garbage" EINVAL "$("$MCG_WRITE" "$CG/memory.reclaim" lots || true)"
