#!/bin/sh
# tiers: v1 v2
# A cgroup removed while async reclaim is enabled: reclaimd keeps serving the other one,
# status reports the removed one as gone, disable clears it, and the daemon exits when the
# last one is disabled.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new keep
KEEP=$CG KEEPREL=$CGREL
scratch_new gone
GONE=$CG GONEREL=$CGREL
for c in "$KEEP" "$GONE"; do echo $((64 * MIB)) >"$c/$K_LIMIT"; done
# a functional check (the daemon still serves it), not a budget one: the TCG guest's
# emulated reclaim would take the default 5% of a CPU past the wait below
AR enable "$KEEPREL" --high-margin 16M --low-margin 32M --clean --max-cpu 50 >/dev/null
AR enable "$GONEREL" --high-margin 16M --low-margin 32M --clean >/dev/null
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
assert_eq "two enabled" 2 "$(AR status --json | jq '.cgroups | length')"

run_in "$GONE" "$MCG_LOAD" write "$MCG_DATA/g" 8 --sync >/dev/null
rmdir "$GONE" || fail "cannot remove $GONE"
i=0
while [ "$(AR status --json "$GONEREL" | jq -r '.cgroups[0].state')" != gone ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
assert_eq "removed cgroup reported gone" gone "$(AR status --json "$GONEREL" | jq -r '.cgroups[0].state')"
assert_eq "gone is no longer enabled" false "$(AR status --json "$GONEREL" | jq -r '.cgroups[0].enabled')"
AR status --raw --noheadings -o state,cgroup | grep -q "^gone " || fail "text status does not say the cgroup is gone: $(AR status)"
kill -0 "$pid" || fail "reclaimd exited although '$KEEPREL' is still enabled"
ok "reclaimd $pid still runs"

# the other cgroup is still served
i=0
while [ $i -lt 20 ]; do
	run_in "$KEEP" dd if=/dev/zero of="$MCG_DATA/k.$i" bs=1M count=4 conv=fsync 2>/dev/null
	sleep 0.1
	i=$((i + 1))
done
# the daemon brings it under high (in the TCG guest a wake-up can take a while)
usage_under "$KEEP" $((48 * MIB)) "kept cgroup under high" 60
assert_le "kept cgroup reclaimed" $((16 * MIB)) "$(AR status --json "$KEEPREL" | jq -r '.cgroups[0].reclaimed_bytes // 0')"

AR disable "$GONEREL" >/dev/null
assert_eq "gone cleared by disable" 1 "$(AR status --json | jq '.cgroups | length')"
kill -0 "$pid" || fail "reclaimd exited although '$KEEPREL' is still enabled"
AR disable "$KEEPREL" >/dev/null
reclaimd_exits "$pid" "with nothing enabled"
assert_eq "limit of the kept cgroup" $((64 * MIB)) "$(knob "$KEEP" "$K_LIMIT")"
# the daemons' own log: no sanitizer report, no error
reclaimd_log_clean
