#!/bin/sh
# async-persist (issue 14): async-reclaim's configuration survives what /run does not. enable
# keeps it under /etc/memcgctl/async-reclaim; with the runtime state gone (as after a reboot)
# and the target unit restarted (a new cgroup), memcgctl-reclaimd.service started as at boot
# enables the new cgroup again and reclaims it: the kernel's usage falls under the high
# watermark. A restart of the target unit while the daemon runs: the same. disable removes
# the kept configuration too.
# --max-cpu 50: the default budget (5% of a CPU) reclaims 100 MiB in about 30 s under
# QEMU/TCG with a sanitizer build; what is checked here is where reclaim happens, not speed.
set -eu
. "$MCG_TESTLIB"
require_systemd

sd_reclaimd_unit
unset MEMCGCTL_RUNDIR # the unit's state directory: /run/memcgctl/async-reclaim
echo /etc/memcgctl >>"$MCG_SD_RM"
sd_file_service pers 256M 160
ready=$MCG_DATA/pers.dat.ready
high=67108864

assert_status "async-reclaim enable $SD_UNIT --clean --high 64M --low 32M --max-cpu 50" 0 \
	"$MEMCGCTL" --json async-reclaim enable "$SD_UNIT" --clean --high 64M --low 32M --max-cpu 50
assert_eq "enable says persistent" true "$(printf '%s\n' "$LAST_OUT" | json .persistent)"
kept=$(ls /etc/memcgctl/async-reclaim/*.conf)
grep -q "^path $SD_CGREL\$" "$kept" || fail "$kept does not name $SD_CGREL"
ok "kept in $kept"
wait_for "usage under the high watermark" 60 usage_under "$SD_CG" $high
ok "served: usage $(knob "$SD_CG" memory.current)"

# "reboot": the daemon stopped, the runtime state gone, the unit started again (a new cgroup)
systemctl stop "$RD_UNIT"
rm -rf /run/memcgctl/async-reclaim
old_ino=$(stat -c %i "$SD_CG")
rm -f "$ready"
systemctl restart "$SD_UNIT"
wait_for "$SD_UNIT to read its file again" 60 test -e "$ready"
SD_CG=$MCG_CGROOT$(systemctl show -P ControlGroup "$SD_UNIT")
new_ino=$(stat -c %i "$SD_CG")
[ "$new_ino" != "$old_ino" ] || fail "the restarted unit kept its cgroup (inode $old_ino)"
ok "the restarted unit has a new cgroup (inode $old_ino -> $new_ino)"
assert_le "usage of the new cgroup before the daemon runs (over the watermark)" $high \
	"$(knob "$SD_CG" memory.current)"

systemctl start "$RD_UNIT"
wait_for "usage of the new cgroup under the high watermark" 60 usage_under "$SD_CG" $high
ok "reclaim resumed on the new cgroup: usage $(knob "$SD_CG" memory.current)"
conf=$(grep -l "^path $SD_CGREL\$" /run/memcgctl/async-reclaim/*.conf)
grep -q "^ino $new_ino\$" "$conf" || fail "$conf does not name inode $new_ino: $(cat "$conf")"
ok "the runtime enable file names the new cgroup (inode $new_ino)"

# the target unit restarted while the daemon runs
rm -f "$ready"
systemctl restart "$SD_UNIT"
wait_for "$SD_UNIT to read its file again" 60 test -e "$ready"
SD_CG=$MCG_CGROOT$(systemctl show -P ControlGroup "$SD_UNIT")
wait_for "usage of the third cgroup under the high watermark" 90 usage_under "$SD_CG" $high
ok "reclaim resumed after a restart under the running daemon: usage $(knob "$SD_CG" memory.current)"

assert_status "async-reclaim disable $SD_UNIT" 0 "$MEMCGCTL" async-reclaim disable "$SD_UNIT"
[ -z "$(ls /etc/memcgctl/async-reclaim/ 2>/dev/null)" ] || fail "kept files left: $(ls /etc/memcgctl/async-reclaim/)"
ok "disable removed the kept configuration"
