#!/bin/sh
# set-limit-systemd-unit-file (issue 14): set-limit on a service from a unit file:
# --runtime leaves a drop-in under /run/systemd/system.control only, without it under
# /etc/systemd/system.control (as systemctl set-property); the kernel and systemctl show
# agree after each, after daemon-reload and after an unrelated set-property. systemd
# refusing a value (MemoryHigh=0: "out of range" on 252) puts the kernel's values back.
# --no-systemd writes the kernel only, and a daemon-reload reverts it.
set -eu
. "$MCG_TESTLIB"
require_systemd

sd_file_service ufile 300M 64
run_d=/run/systemd/system.control/$SD_UNIT.d
etc_d=/etc/systemd/system.control/$SD_UNIT.d

assert_status "set-limit --runtime $SD_UNIT 48M" 0 "$MEMCGCTL" set-limit --runtime "$SD_UNIT" 48M
assert_agree "after set-limit --runtime" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 50331648
assert_dropin "$run_d/50-MemoryMax.conf" MemoryMax=50331648
[ ! -e "$etc_d/50-MemoryMax.conf" ] || fail "--runtime wrote $etc_d/50-MemoryMax.conf"
ok "no persistent drop-in under $etc_d"
systemctl daemon-reload
assert_agree "after daemon-reload" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 50331648

assert_status "set-limit $SD_UNIT 40M (persistent)" 0 "$MEMCGCTL" set-limit "$SD_UNIT" 40M
assert_agree "after set-limit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 41943040
assert_dropin "$etc_d/50-MemoryMax.conf" MemoryMax=41943040
assert_kept "40M" "$SD_UNIT" "$SD_CG" 41943040
systemctl restart "$SD_UNIT"
SD_CG=$MCG_CGROOT$(systemctl show -P ControlGroup "$SD_UNIT")
assert_agree "after a restart of the unit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 41943040

# systemd refuses MemoryHigh=0 (252: "Value specified in MemoryHigh is out of range"): the
# kernel's memory.high, written first, goes back
assert_status "set-limit $SD_UNIT --high 0 (systemd refuses)" 1 "$MEMCGCTL" set-limit "$SD_UNIT" --high 0
case $LAST_ERR in
*"through systemd: "*"; restored the original values"*) ok "says why: $LAST_ERR" ;;
*) fail "unexpected message: $LAST_ERR" ;;
esac
assert_agree "memory.high after systemd refused" "$SD_UNIT" "$SD_CG" memory.high MemoryHigh infinity
assert_no_journal

# --no-systemd: the kernel only, with the warning; systemd puts its value back on reload
assert_status "set-limit --no-systemd $SD_UNIT 36M" 0 "$MEMCGCTL" set-limit --no-systemd "$SD_UNIT" 36M
case $LAST_ERR in
*"which may revert this change"*) ok "warns: $LAST_ERR" ;;
*) fail "--no-systemd gave no warning: $LAST_ERR" ;;
esac
assert_eq "memory.max after --no-systemd" 37748736 "$(knob "$SD_CG" memory.max)"
assert_eq "MemoryMax after --no-systemd (unchanged)" 41943040 "$(sd_prop "$SD_UNIT" MemoryMax)"
systemctl daemon-reload
assert_agree "after daemon-reload (systemd's value back)" "$SD_UNIT" "$SD_CG" memory.max \
	MemoryMax 41943040

# memory.swap.high: no systemd property (252 or later), and systemd never writes the file:
# the kernel's value survives a daemon-reload. memory.zswap.max: refused where the kernel
# lacks the file (this 6.1 cloud kernel), with the reason.
if [ -f "$SD_CG/memory.swap.high" ]; then
	assert_status "set-limit $SD_UNIT --swap-high 16M" 0 "$MEMCGCTL" set-limit "$SD_UNIT" --swap-high 16M
	assert_eq "memory.swap.high" 16777216 "$(knob "$SD_CG" memory.swap.high)"
	systemctl daemon-reload
	assert_eq "memory.swap.high after daemon-reload" 16777216 "$(knob "$SD_CG" memory.swap.high)"
	assert_status "show --json $SD_UNIT" 0 "$MEMCGCTL" show --json "$SD_UNIT"
	assert_eq "show: swap_high_bytes oom_group" "16777216 $(knob "$SD_CG" memory.oom.group)" \
		"$(printf '%s\n' "$LAST_OUT" | json '"\(.swap_high_bytes) \(.oom_group)"')"
fi
if [ ! -f "$SD_CG/memory.zswap.max" ]; then
	assert_status "set-limit $SD_UNIT --zswap-max 8M (no such file)" 64 \
		"$MEMCGCTL" set-limit "$SD_UNIT" --zswap-max 8M
	case $LAST_ERR in
	*"memory.zswap.max is missing"*) ok "refused: $LAST_ERR" ;;
	*) fail "unexpected message: $LAST_ERR" ;;
	esac
fi
assert_no_journal
