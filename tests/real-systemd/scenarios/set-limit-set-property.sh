#!/bin/sh
# set-limit-set-property (issue 18): systemd rewrites a memory knob in the middle of a
# set-limit, and set-limit keeps systemd's value.
#
# What set-limit writes for the time being on v2 (lib/limit.c plan_v2): shrinking below the
# usage, memory.high = target first (6.1 reclaims down to it within that write), then
# memory.reclaim while usage > target, then memory.max = target, then memory.high back. (empty
# on v2 only writes memory.reclaim and holds no temporary value: there is no empty variant.)
# set-limit is stopped deterministically right after it wrote its temporary memory.high
# (strace injects SIGSTOP at that write), before it touches memory.max. Then "systemctl
# set-property --runtime MemoryMax=280M": systemd 252 writes memory.max = 280M and re-applies
# every other memory knob of the unit: memory.high = max (its MemoryHigh=infinity) over
# set-limit's temporary value. set-limit resumes, finds memory.max is not what it saved, and
# must stop with exit status 3 (EXIT_CONFLICT), say so, and leave systemd's values: the
# kernel and systemctl show agree afterwards, and no journal is left.
#
# Then the fix of issue 14: the same set-limit, not interrupted, hands 64M to systemd as
# well (SetUnitProperties), and after an unrelated set-property the kernel and systemctl show still say 64M.
set -eu
. "$MCG_TESTLIB"
require_systemd
require_cmd strace

sd_cache_service setprop 300M 128
usage=$(knob "$SD_CG" memory.current)
assert_le "page cache charged to $SD_UNIT (memory.current >= 128 MiB)" 134217728 "$usage"

stopped_after_write "$SD_CGREL" memory.high set-limit "$SD_CGREL" 64M
assert_eq "memory.high while set-limit holds its temporary value" 67108864 \
	"$(knob "$SD_CG" memory.high)"
assert_eq "memory.max before set-limit writes it" 314572800 "$(knob "$SD_CG" memory.max)"

systemctl set-property --runtime "$SD_UNIT" MemoryMax=280M
assert_eq "memory.max after systemctl set-property" 293601280 "$(knob "$SD_CG" memory.max)"
assert_eq "memory.high after systemctl set-property (re-applied by systemd)" max \
	"$(knob "$SD_CG" memory.high)"

kill -CONT "$ST_PID"
wait "$ST_WAIT" && rc=0 || rc=$?
cp "$ST_OUT" "$MCG_ARTIFACTS/set-limit.out"
cp "$ST_ERR" "$MCG_ARTIFACTS/set-limit.err"
say "set-limit stderr:"
cat "$ST_ERR"
assert_eq "set-limit exit status (3: EXIT_CONFLICT)" 3 "$rc"
grep -q "stopped: another writer changed memory.max" "$ST_ERR" ||
	fail "set-limit does not say that another writer changed memory.max"
ok "set-limit says another writer changed memory.max"

assert_eq "memory.max (systemd's value)" 293601280 "$(knob "$SD_CG" memory.max)"
assert_eq "systemctl show -P MemoryMax" 293601280 "$(sd_prop "$SD_UNIT" MemoryMax)"
assert_eq "memory.high (systemd's value)" max "$(knob "$SD_CG" memory.high)"
assert_eq "systemctl show -P MemoryHigh" infinity "$(sd_prop "$SD_UNIT" MemoryHigh)"
assert_no_journal

# The fix (issue 14): a set-limit that runs to the end hands its value to systemd too
# (SetUnitProperties), so that an unrelated set-property keeps it instead of reverting it.
assert_status "set-limit $SD_CGREL 64M, uninterrupted" 0 "$MEMCGCTL" set-limit "$SD_CGREL" 64M
assert_agree "after set-limit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 67108864
systemctl set-property --runtime "$SD_UNIT" CPUWeight=50
assert_agree "after set-property CPUWeight=50" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 67108864
assert_no_journal
