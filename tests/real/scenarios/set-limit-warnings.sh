#!/bin/sh
# tiers: v1 v2
# Warnings that do not stop the change: a cgroup systemd owns (the equivalent systemctl
# set-property is named) and a target above the parent's effective limit.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new web.service
SVC=$CG SVCREL=$CGREL UNIT=${CG##*/}
assert_status "limit on a .service cgroup" 0 "$MEMCGCTL" set-limit "$SVCREL" 64M
if [ "$MCG_CGVER" = 2 ]; then PROP=MemoryMax; else PROP=MemoryLimit; fi
echo "$LAST_ERR" | grep -q "warning: '$SVCREL' belongs to systemd unit $UNIT" || fail "message: $LAST_ERR"
echo "$LAST_ERR" | grep -q "systemctl set-property $UNIT $PROP=67108864" || fail "no systemctl hint: $LAST_ERR"
assert_eq "limit set anyway" 67108864 "$(knob "$SVC" "$K_LIMIT")"

scratch_new parent
P=$CG
echo 33554432 >"$P/$K_LIMIT"
scratch_new child "$P"
assert_status "child above the parent's limit" 0 "$MEMCGCTL" set-limit "$CGREL" 64M
echo "$LAST_ERR" | grep -q "the parent's effective limit 32 MiB is below 64 MiB: '$CGREL' stays bound by it" ||
	fail "message: $LAST_ERR"
assert_eq "child limit" 67108864 "$(knob "$CG" "$K_LIMIT")"
# percentages are of the parent's effective limit
assert_status "50% of the parent" 0 "$MEMCGCTL" set-limit "$CGREL" 50%
assert_eq "child limit = 50% of 32M" 16777216 "$(knob "$CG" "$K_LIMIT")"
