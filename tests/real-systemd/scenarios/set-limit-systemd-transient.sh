#!/bin/sh
# set-limit-systemd-transient (issue 14): set-limit on a transient service (systemd-run)
# shrinks safely (reclaim first) and then hands the value to systemd (SetUnitProperties), so
# that the kernel's memory.max and systemctl show -P MemoryMax agree after the change, after
# a daemon-reload and after an unrelated set-property (systemd 252 rewrites every memory
# knob on both). The dry run prints the D-Bus call; running that busctl line does the same.
set -eu
. "$MCG_TESTLIB"
require_systemd

sd_cache_service trans 300M 96
assert_le "page cache charged to $SD_UNIT (memory.current >= 96 MiB)" 100663296 \
	"$(knob "$SD_CG" memory.current)"

assert_status "set-limit --dry-run $SD_UNIT 48M" 0 "$MEMCGCTL" set-limit --dry-run "$SD_UNIT" 48M
call=$(printf '%s\n' "$LAST_OUT" | sed -n 's/^ *[0-9]*\. systemd unit [^:]*: //p')
assert_eq "the D-Bus call of the dry run" \
	"busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager SetUnitProperties 'sba(sv)' $SD_UNIT false 1 MemoryMax t 50331648" \
	"$call"
assert_agree "after the dry run (nothing changed)" "$SD_UNIT" "$SD_CG" memory.max MemoryMax \
	314572800

assert_status "set-limit $SD_UNIT 48M" 0 "$MEMCGCTL" set-limit "$SD_UNIT" 48M
printf '%s\n' "$LAST_OUT"
assert_agree "after set-limit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 50331648
assert_le "usage after the shrink (reclaimed first, no OOM kill)" \
	"$(knob "$SD_CG" memory.current)" 50331648
assert_eq "memory.events oom_kill" 0 "$(sed -n 's/^oom_kill //p' "$SD_CG/memory.events")"
assert_eq "memory.high (put back after the temporary throttle)" max "$(knob "$SD_CG" memory.high)"
assert_no_journal
# a transient unit's drop-ins live with its unit file, persistent or not (systemd 252)
assert_dropin "/run/systemd/transient/$SD_UNIT.d/50-MemoryMax.conf" MemoryMax=50331648
assert_kept "48M" "$SD_UNIT" "$SD_CG" 50331648

# the dry run's line is the call: run it as printed, for 40M
assert_status "set-limit --dry-run $SD_UNIT 40M" 0 "$MEMCGCTL" set-limit --dry-run "$SD_UNIT" 40M
call=$(printf '%s\n' "$LAST_OUT" | sed -n 's/^ *[0-9]*\. systemd unit [^:]*: //p')
sh -c "$call" >/dev/null || fail "the dry run's call failed: $call"
assert_agree "after running the dry run's busctl line" "$SD_UNIT" "$SD_CG" memory.max MemoryMax \
	41943040
