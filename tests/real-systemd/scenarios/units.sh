#!/bin/sh
# units: systemd unit names as CGROUP arguments, resolved by systemd over D-Bus (GetUnit,
# then ControlGroup), and the owning unit in show and list -o unit. Asserted against
# systemctl show -P ControlGroup and the cgroup's own files, not only memcgctl's words.
set -eu
. "$MCG_TESTLIB"
require_systemd

sd_service names -p MemoryMax=300M -- sleep 1000
assert_status "memcgctl show $SD_UNIT" 0 "$MEMCGCTL" show "$SD_UNIT"
assert_eq "show's cgroup line for the unit name" \
	"cgroup $SD_CGREL (cgroup v2, $MCG_CGROOT)" "$(printf '%s\n' "$LAST_OUT" | sed -n 1p)"
assert_eq "show's unit line" "unit $SD_UNIT" "$(printf '%s\n' "$LAST_OUT" | sed -n 2p)"

assert_status "memcgctl show --json $SD_UNIT" 0 "$MEMCGCTL" show --json "$SD_UNIT"
assert_eq "show --json cgroup unit limit_bytes" \
	"$SD_CGREL $SD_UNIT $(knob "$SD_CG" memory.max)" \
	"$(printf '%s\n' "$LAST_OUT" | json '[.cgroup, .unit, (.limit_bytes|tostring)] | join(" ")')"

# a slice by name (system.slice is also a directory under the root: the same cgroup), and
# list -o unit: the owning unit of each cgroup
assert_status "memcgctl list --json -o cgroup,unit system.slice" 0 \
	"$MEMCGCTL" list --json -o cgroup,unit --depth 1 system.slice
printf '%s\n' "$LAST_OUT" >"$MCG_ARTIFACTS/list.json"
assert_eq "list: the unit of $SD_CGREL" "$SD_UNIT" \
	"$(printf '%s\n' "$LAST_OUT" | json ".. | objects | select(.cgroup? == \"$SD_CGREL\") | .unit")"
assert_eq "list: the unit of /system.slice" system.slice \
	"$(printf '%s\n' "$LAST_OUT" | json '.. | objects | select(.cgroup? == "/system.slice") | .unit')"

# a template instance: systemd puts it under system-NAME.slice, with \x2d in the name
systemd-run --quiet --collect --unit=mcgtest-tpl@1.service sleep 1000 ||
	fail "systemd-run mcgtest-tpl@1.service failed"
echo mcgtest-tpl@1.service >>"$MCG_SD_UNITS"
tpl_cg=$(systemctl show -P ControlGroup mcgtest-tpl@1.service)
# memcgctl prints cgroup names escaped (memcgctl(8) CGROUP NAMES): a backslash doubled
tpl_esc=$(printf '%s\n' "$tpl_cg" | sed 's/\\/\\\\/g')
assert_status "memcgctl show --json mcgtest-tpl@1.service" 0 \
	"$MEMCGCTL" show --json mcgtest-tpl@1.service
assert_eq "the template instance's cgroup (systemd's ControlGroup, escaped)" "$tpl_esc" \
	"$(printf '%s\n' "$LAST_OUT" | json .cgroup)"
assert_eq "the template instance's unit" mcgtest-tpl@1.service \
	"$(printf '%s\n' "$LAST_OUT" | json .unit)"

# set-limit by unit name writes the unit's cgroup
assert_status "memcgctl set-limit $SD_UNIT 200M" 0 "$MEMCGCTL" set-limit "$SD_UNIT" 200M
assert_agree "after set-limit by unit name" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 209715200

# a unit systemd does not know, and one that stopped: status 64 and the reason
assert_status "memcgctl show mcgtest-none.service" 64 "$MEMCGCTL" show mcgtest-none.service
assert_eq "message for an unknown unit" \
	"memcgctl: cannot resolve unit 'mcgtest-none.service': no such unit is loaded" "$LAST_ERR"
systemctl stop "$SD_UNIT"
assert_status "memcgctl show of the stopped $SD_UNIT" 64 "$MEMCGCTL" show "$SD_UNIT"
case $LAST_ERR in
"memcgctl: cannot resolve unit '$SD_UNIT': "*) ok "stopped unit: $LAST_ERR" ;;
*) fail "stopped unit: unexpected message '$LAST_ERR'" ;;
esac
