#!/bin/sh
# deb-install (issue 14): memcgctl's .deb (debian/, built by build-deb.sh) installs into a
# plain Debian 12 with dpkg: its dependencies are there, the unit and preset land where
# systemd finds them, the preset enables memcgctl-reclaimd.service, dpkg's maintainer
# scripts start it, and it runs the installed /usr/sbin/memcgctl in its own cgroup. The
# installed binary answers on a unit name. Removing the package stops the unit.
set -eu
. "$MCG_TESTLIB"
require_systemd
deb=/mcg/deb/memcgctl.deb
[ -f "$deb" ] || skip "no .deb in this guest"

unit=memcgctl-reclaimd.service
echo "$unit" >>"$MCG_SD_UNITS"
dpkg -i "$deb" >"$MCG_ARTIFACTS/dpkg-i.txt" 2>&1 || fail "dpkg -i failed: $(tail -n 5 "$MCG_ARTIFACTS/dpkg-i.txt")"
ok "dpkg -i $(dpkg-query -W -f='${Package} ${Version}' memcgctl)"
assert_eq "package state" "install ok installed" "$(dpkg-query -W -f='${Status}' memcgctl)"
[ -x /usr/sbin/memcgctl ] || fail "no /usr/sbin/memcgctl"
assert_eq "the unit's ExecStart binary" "/usr/sbin/memcgctl" \
	"$(systemctl show -P ExecStart "$unit" | sed -n 's/.*path=\([^ ;]*\).*/\1/p')"
assert_eq "unit file state (preset: enabled)" enabled "$(systemctl is-enabled "$unit")"
assert_eq "the preset says" "enable $unit" "$(grep -h "^enable $unit" /lib/systemd/system-preset/90-memcgctl.preset)"
wait_for "$unit to be active" 30 sh -c "[ \"\$(systemctl is-active $unit)\" = active ]"
ok "$unit is active"
pid=$(systemctl show -P MainPID "$unit")
assert_eq "the daemon runs the installed binary" /usr/sbin/memcgctl "$(readlink "/proc/$pid/exe")"
assert_eq "the daemon's cgroup" "0::/system.slice/$unit" "$(cat "/proc/$pid/cgroup")"

# the installed binary (Release, no sanitizers) on a unit name
sd_service debweb -p MemoryMax=300M -- sleep 1000
assert_status "/usr/sbin/memcgctl set-limit $SD_UNIT 200M" 0 /usr/sbin/memcgctl set-limit "$SD_UNIT" 200M
assert_agree "after the installed set-limit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 209715200

dpkg -r memcgctl >"$MCG_ARTIFACTS/dpkg-r.txt" 2>&1 || fail "dpkg -r failed: $(tail -n 5 "$MCG_ARTIFACTS/dpkg-r.txt")"
assert_eq "$unit after dpkg -r" inactive "$(systemctl is-active "$unit" || true)"
[ ! -e /usr/sbin/memcgctl ] || fail "/usr/sbin/memcgctl left after dpkg -r"
ok "dpkg -r removed the binary and stopped $unit"
