#!/bin/sh
# smoke: the guest really is a systemd host on pure cgroup v2 with the memory controller, and
# memcgctl show on a transient service reports the MemoryMax= systemd wrote to memory.max,
# in text and in JSON. Once the unit is stopped its cgroup is gone and show says so.
set -eu
. "$MCG_TESTLIB"
require_systemd

assert_eq "PID 1" systemd "$(cat /proc/1/comm)"
assert_eq "/sys/fs/cgroup filesystem" cgroup2fs "$(stat -f -c %T "$MCG_CGROOT")"
grep -qw memory "$MCG_CGROOT/cgroup.subtree_control" ||
	fail "systemd did not enable memory in the root cgroup.subtree_control"
ok "memory enabled in the root cgroup.subtree_control"
assert_eq "systemd version" 252 "$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"

sd_service web -p MemoryMax=300M -- sleep 1000
assert_eq "cgroup of $SD_UNIT" /system.slice/mcgtest-web.service "$SD_CGREL"
assert_eq "memory.max written by systemd" 314572800 "$(knob "$SD_CG" memory.max)"
assert_eq "systemctl show -P MemoryMax" 314572800 "$(sd_prop "$SD_UNIT" MemoryMax)"

assert_status "memcgctl show $SD_CGREL" 0 "$MEMCGCTL" show "$SD_CGREL"
printf '%s\n' "$LAST_OUT" | grep -Eq '^ *limit +300 MiB$' ||
	fail "show does not report 'limit 300 MiB':
$LAST_OUT"
ok "show reports limit 300 MiB"

assert_status "memcgctl show --json $SD_CGREL" 0 "$MEMCGCTL" show --json "$SD_CGREL"
printf '%s\n' "$LAST_OUT" >"$MCG_ARTIFACTS/show.json"
# memcgctl-json(7): the cgroup is "cgroup", sizes end in _bytes, unlimited is null
vals=$(printf '%s\n' "$LAST_OUT" | json '[.cgroup, .version, .limit_bytes, .high_bytes, .nr_procs] | map(tostring) | join(" ")')
assert_eq "show --json cgroup version limit_bytes high_bytes nr_procs" \
	"/system.slice/mcgtest-web.service 2 314572800 null 1" "$vals"

systemctl stop "$SD_UNIT"
[ ! -d "$SD_CG" ] || fail "$SD_CG still exists after systemctl stop"
ok "systemctl stop removed $SD_CG"
# an unknown cgroup is status 64 (memcgctl-show(8))
assert_status "memcgctl show after the unit stopped" 64 "$MEMCGCTL" show "$SD_CGREL"
printf '%s\n' "$LAST_ERR" | grep -q "^memcgctl: cannot .*'/system.slice/mcgtest-web.service': no such cgroup" ||
	fail "show of a stopped unit's cgroup: unexpected error '$LAST_ERR'"
ok "show of a removed cgroup: $LAST_ERR"
