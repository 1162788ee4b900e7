#!/bin/sh
# reclaimd-unit (issue 14): memcgctl-reclaimd.service as shipped (lib/systemd/*.in with the
# paths filled in) is sandboxed to an exposure of at most 4.0 by systemd-analyze security,
# and 'async-reclaim enable' on this systemd host starts it as that unit (StartUnit), not as
# its own child: the daemon runs in the unit's cgroup, named memcgctl-reclaimd, with
# OOMScoreAdjust=-1000 and MemoryMin, logs to the journal with priorities, and within its
# sandbox really reclaims: the service's usage falls under the high watermark.
# --max-cpu 50: the default budget (5% of a CPU) reclaims 100 MiB in about 30 s under
# QEMU/TCG with a sanitizer build; what is checked here is where reclaim happens, not speed.
set -eu
. "$MCG_TESTLIB"
require_systemd

sd_reclaimd_unit
unit=$RD_UNIT

systemd-analyze security "$unit" >"$MCG_ARTIFACTS/security.txt" 2>&1 || true
exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$MCG_ARTIFACTS/security.txt")
[ -n "$exposure" ] || fail "no exposure level from systemd-analyze security: $(tail -n 3 "$MCG_ARTIFACTS/security.txt")"
assert_le "systemd-analyze security exposure of $unit" "$exposure" 4.0

# the daemon's own state under the default run directory, as the unit has it
unset MEMCGCTL_RUNDIR
sd_cache_service ar 256M 160
assert_status "async-reclaim enable $SD_UNIT --clean --high 64M --low 32M --max-cpu 50" 0 \
	"$MEMCGCTL" --json async-reclaim enable "$SD_UNIT" --clean --high 64M --low 32M --max-cpu 50
pid=$(printf '%s\n' "$LAST_OUT" | json .reclaimd_pid)
assert_eq "reclaimd pid (enable) = the unit's MainPID" "$(systemctl show -P MainPID "$unit")" "$pid"
assert_eq "the unit is active" active "$(systemctl is-active "$unit")"
assert_eq "the daemon's cgroup" "0::/system.slice/$unit" "$(cat "/proc/$pid/cgroup")"
assert_eq "the daemon's name (comm, whole in 15 bytes)" memcg-reclaimd "$(cat "/proc/$pid/comm")"
assert_eq "the daemon's argv[0]" memcgctl-reclaimd "$(tr '\0' '\n' <"/proc/$pid/cmdline" | sed -n 1p)"
assert_eq "the daemon's oom_score_adj" -1000 "$(cat "/proc/$pid/oom_score_adj")"
assert_eq "memory.min of the daemon's cgroup" 16777216 \
	"$(knob "$MCG_CGROOT/system.slice/$unit" memory.min)"

# reclaim under the sandbox: usage (160 MiB of clean page cache) under the high watermark
wait_for "$SD_UNIT's usage under 64 MiB" 60 usage_under "$SD_CG" 67108864
ok "usage of $SD_UNIT now $(knob "$SD_CG" memory.current) (high watermark 67108864)"

# journald: the daemon's lines carry syslog priorities ("<N>" on its stream)
journalctl -u "$unit" -o short-iso --no-pager >"$MCG_ARTIFACTS/journal.txt" 2>&1 || true
n_info=$(journalctl -u "$unit" -p info -o cat --no-pager 2>/dev/null | grep -c 'reclaimd: ' || true)
assert_le "journal lines of the daemon at priority info or above" 1 "$n_info"
if journalctl -u "$unit" -o cat --no-pager 2>/dev/null | grep -q '^<[0-9]>'; then
	fail "a '<N>' prefix reached the journal as text"
fi
ok "no '<N>' prefix left in the journal's text"

assert_status "async-reclaim disable $SD_UNIT" 0 "$MEMCGCTL" async-reclaim disable "$SD_UNIT"
