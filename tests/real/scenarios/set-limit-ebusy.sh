#!/bin/sh
# tiers: v1
# v1: a cgroup with a child cgroup holds a few KiB it cannot reclaim, so a 4096-byte limit
# gets EBUSY every time: memcgctl retries, fails cleanly, says what holds the memory, and
# the limit is unchanged (v2 has no EBUSY; its counterpart is set-limit-anon).
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new busy
mkdir "$CG/child"
echo 268435456 >"$CG/memory.limit_in_bytes"

assert_status "4096 bytes" 1 "$MEMCGCTL" set-limit "$CGREL" 4096
echo "$LAST_ERR" | grep -q "cannot set memory.limit_in_bytes of '$CGREL' to 4 KiB: Device or resource busy" ||
	fail "message: $LAST_ERR"
echo "$LAST_ERR" | grep -q "1 child cgroup" || fail "no holder in: $LAST_ERR"
echo "$LAST_ERR" | grep -q "restored the original values" || fail "no restore in: $LAST_ERR"
assert_eq "limit unchanged" 268435456 "$(knob "$CG" memory.limit_in_bytes)"

assert_status "4096 bytes within 1s" 2 "$MEMCGCTL" set-limit "$CGREL" 4096 --timeout 1s --json
assert_eq "json status" timeout "$(echo "$LAST_OUT" | json .result)"
assert_eq "json restored" true "$(echo "$LAST_OUT" | json .restored)"
assert_eq "limit unchanged" 268435456 "$(knob "$CG" memory.limit_in_bytes)"
[ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)" ] || fail "journal left behind"
ok "no journal left"
