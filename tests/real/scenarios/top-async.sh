#!/bin/sh
# tiers: v1 v2
# top's ASYNC column follows the enable files that 'async-reclaim enable/disable' write.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new topasync
echo $((64 * 1024 * 1024)) >"$CG/$K_LIMIT"
async() { "$MEMCGCTL" top -b -n 1 --json "$CGREL" | jq -r '.cgroups[0].async'; }
assert_eq "async before any state" null "$(async)"
"$MEMCGCTL" async-reclaim enable --no-start "$CGREL" >/dev/null
assert_eq "async after enable" true "$(async)"
"$MEMCGCTL" async-reclaim disable "$CGREL" >/dev/null
assert_eq "async after disable" false "$(async)"
assert_eq "limit untouched" $((64 * 1024 * 1024)) "$(knob "$CG" "$K_LIMIT")"

