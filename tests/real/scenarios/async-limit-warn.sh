#!/bin/sh
# tiers: v1
# A set-limit at or below async-reclaim's explicit watermarks is warned about (the limit is
# still set: it is the administrator's); one that keeps them valid is not.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ "$(nproc)" -ge 2 ] || skip "async-reclaim enable refuses a single-CPU machine"
scratch_new awarn
echo $((320 * MIB)) >"$CG/$K_LIMIT"
# the default state directory (RUNDIR/async-reclaim, private to this scenario): set-limit's
"$MEMCGCTL" --json async-reclaim enable "$CGREL" --low 280M --high 300M >"$MCG_TMP/en.json"
rdpid=$(jq -r .reclaimd_pid "$MCG_TMP/en.json")
echo "$rdpid" >>"$MCG_CLEAN_PIDS"
LOG="$MEMCGCTL_RUNDIR/async-reclaim/reclaimd.log"
logged() { grep -q -- "$1" "$LOG"; }
assert_status "set-limit 310M (watermarks still below)" 0 "$MEMCGCTL" set-limit "$CGREL" 310M
[ -z "$LAST_ERR" ] || fail "a warning for a limit above the watermarks: $LAST_ERR"
assert_status "set-limit 256M (below low)" 0 "$MEMCGCTL" set-limit "$CGREL" 256M
echo "$LAST_ERR" | grep -q "^memcgctl: warning: '$CGREL': the new limit 256 MiB is not above async-reclaim's high 300 MiB, low 280 MiB: reclaimd cannot serve it" ||
	fail "no warning naming the watermarks: $LAST_ERR"
assert_eq "the limit is set anyway" $((256 * MIB)) "$(knob "$CG" "$K_LIMIT")"
# reclaimd says so in its log, once, and again when a limit lets the watermarks fit
wait_until "reclaimd logs the watermarks that no longer fit" 30 logged "'$CGREL': the watermarks do not fit below the limit (limit $((256 * MIB)))"
assert_status "set-limit 250M --dry-run" 0 "$MEMCGCTL" set-limit "$CGREL" 250M --dry-run
echo "$LAST_ERR" | grep -q "the limit 250 MiB is not above" || fail "no warning in a dry run: $LAST_ERR"
# status: a state and a reason for watermarks that no longer fit, never null ("unlimited")
"$MEMCGCTL" --json async-reclaim status "$CGREL" >"$MCG_TMP/st.json"
assert_eq "status: watermarks" invalid "$(jq -r '.cgroups[0].watermarks' "$MCG_TMP/st.json")"
assert_eq "status: the reason" "high 300 MiB, low 280 MiB do not fit below the limit 256 MiB" \
	"$(jq -r '.cgroups[0].watermarks_reason' "$MCG_TMP/st.json")"
assert_eq "status: no high_bytes, no low_bytes (not null)" false \
	"$(jq '.cgroups[0] | has("high_bytes") or has("low_bytes")' "$MCG_TMP/st.json")"
assert_eq "said once" 1 "$(grep -c "'$CGREL': the watermarks do not fit" "$LOG")"
"$MEMCGCTL" set-limit "$CGREL" 310M >/dev/null 2>&1
wait_until "reclaimd logs that it serves again" 30 logged "'$CGREL': serving again: high $((300 * MIB)), low $((280 * MIB))"
"$MEMCGCTL" async-reclaim disable "$CGREL" >/dev/null
wait_until "reclaimd logs its exit" 30 logged "reclaimd $rdpid exits: done"
assert_status "set-limit 200M once disabled" 0 "$MEMCGCTL" set-limit "$CGREL" 200M
[ -z "$LAST_ERR" ] || fail "a warning once disabled: $LAST_ERR"
ok "set-limit warns when it leaves async-reclaim's watermarks at or above the limit"
