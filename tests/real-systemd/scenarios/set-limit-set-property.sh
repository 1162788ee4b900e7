#!/bin/sh
# set-limit-set-property (issue 18): systemd rewrites a memory knob in the middle of a
# set-limit, and set-limit keeps systemd's value.
#
# What set-limit writes for the time being on v2 (lib/ops/limit.c plan_v2): shrinking below the
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

held_set_limit setprop

systemctl set-property --runtime "$SD_UNIT" MemoryMax=280M
assert_eq "memory.max after systemctl set-property" 293601280 "$(knob "$SD_CG" memory.max)"
assert_eq "memory.high after systemctl set-property (re-applied by systemd)" max \
	"$(knob "$SD_CG" memory.high)"

resumed_conflict memory.max

assert_agree "systemd's value" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 293601280
assert_agree "systemd's value" "$SD_UNIT" "$SD_CG" memory.high MemoryHigh infinity
assert_no_journal

# The fix (issue 14): an unrelated set-property keeps the value of a set-limit that ran to
# the end.
kept_through "set-property CPUWeight=50" systemctl set-property --runtime "$SD_UNIT" CPUWeight=50
