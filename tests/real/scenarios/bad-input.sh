#!/bin/sh
# tiers: v1 v2
# Bad cgroup names and paths get a clear error naming the input and exit 64 (usage) or 1.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new bad

assert_status "unknown cgroup" 64 "$MEMCGCTL" show /no-such-cgroup-$$
echo "$LAST_ERR" | grep -q "cannot open cgroup '/no-such-cgroup-$$': no such cgroup" || fail "message: $LAST_ERR"
assert_status "dot-dot escape" 64 "$MEMCGCTL" show "$CGREL/../.."
echo "$LAST_ERR" | grep -q "leaves the cgroup hierarchy" || fail "message: $LAST_ERR"
assert_status "a file that is not a cgroup" 64 "$MEMCGCTL" show "$CGREL/$K_LIMIT"
assert_status "pid of no process" 64 "$MEMCGCTL" show pid:999999999
assert_status "pid garbage" 64 "$MEMCGCTL" show pid:12x
assert_status "unknown command" 64 "$MEMCGCTL" shwo
echo "$LAST_ERR" | grep -q "did you mean 'show'" || fail "no suggestion: $LAST_ERR"
assert_status "bad depth" 64 "$MEMCGCTL" list --depth -3
assert_status "missing argument" 64 "$MEMCGCTL" show
