#!/bin/sh
# reclaimd-delegated (issue 24, item 15): a cgroup in a delegated subtree belongs to the
# delegate: its files (memory.reclaim among them) are owned by the delegate's uid, mode
# 0644/0200. 'async-reclaim enable' as root accepts it, so memcgctl-reclaimd.service as
# shipped must be able to reclaim there: root with CapabilityBoundingSet=CAP_DAC_OVERRIDE
# (an empty set made every write EACCES). The delegate's cgroup's usage falls under the
# high watermark and the daemon logs no permission error.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real-systemd/lib-units.sh"
require_systemd

sd_reclaimd_unit
unit=$RD_UNIT
unset MEMCGCTL_RUNDIR

sd_user mcgdel
sd_delegated_cache ardel mcgdel 300M 160
assert_eq "owner of $DG_CGREL/memory.reclaim" mcgdel "$(stat -c %U "$DG_CG/memory.reclaim")"
assert_le "page cache charged to $DG_CGREL (memory.current >= 150 MiB)" 157286400 \
	"$(knob "$DG_CG" memory.current)"

assert_status "async-reclaim enable $DG_CGREL --clean --high 64M --low 32M --max-cpu 50" 0 \
	"$MEMCGCTL" --json async-reclaim enable "$DG_CGREL" --clean --high 64M --low 32M --max-cpu 50
pid=$(printf '%s\n' "$LAST_OUT" | json .reclaimd_pid)
assert_eq "reclaimd pid (enable) = the unit's MainPID" "$(systemctl show -P MainPID "$unit")" "$pid"
assert_eq "the daemon's uid" 0 "$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status")"
wait_for "$DG_CGREL's usage under 64 MiB" 60 usage_under "$DG_CG" 67108864
ok "usage of $DG_CGREL now $(knob "$DG_CG" memory.current) (high watermark 67108864)"
journalctl -u "$unit" -o cat --no-pager >"$MCG_ARTIFACTS/journal.txt" 2>&1 || true
if grep -qi 'permission denied' "$MCG_ARTIFACTS/journal.txt"; then
	fail "the daemon logged a permission error: $(grep -i -m1 'permission denied' "$MCG_ARTIFACTS/journal.txt")"
fi
ok "no permission error in the daemon's journal"
assert_status "async-reclaim disable $DG_CGREL" 0 "$MEMCGCTL" async-reclaim disable "$DG_CGREL"
