#!/bin/sh
# set-limit-daemon-reload (issue 18): "systemctl daemon-reload" re-applies the unit's memory
# settings in the middle of a set-limit, and set-limit keeps systemd's value.
#
# On systemd 252 a daemon-reload (and a daemon-reexec, and a set-property of any cgroup
# property, CPUWeight or TasksMax too) writes every memory knob of a running unit again from
# its settings. What set-limit writes for the time being on v2 (lib/ops/limit.c plan_v2):
# shrinking below the usage, memory.high = target first (6.1 reclaims down to it within that
# write), then memory.reclaim while usage > target, then memory.max = target, then
# memory.high back. set-limit is stopped deterministically right after it wrote its temporary
# memory.high (strace injects SIGSTOP at that write); daemon-reload writes memory.high = max
# (MemoryHigh=infinity) over it, and memory.max = 300M (unchanged). set-limit resumes,
# writes memory.max = 64M, then finds memory.high is not the value it wrote: it must stop with
# exit status 3 (EXIT_CONFLICT), say so, put back its own memory.max write (300M) and leave
# systemd's memory.high: the kernel and systemctl show agree afterwards, no journal is left.
#
# Then the fix of issue 14: the same set-limit, not interrupted, hands 64M to systemd as
# well (SetUnitProperties), and after daemon-reload the kernel and systemctl show still say 64M.
set -eu
. "$MCG_TESTLIB"
require_systemd
require_cmd strace

held_set_limit reload

systemctl daemon-reload
assert_eq "memory.high after daemon-reload (re-applied by systemd)" max \
	"$(knob "$SD_CG" memory.high)"
assert_eq "memory.max after daemon-reload" 314572800 "$(knob "$SD_CG" memory.max)"

resumed_conflict memory.high

assert_agree "put back by set-limit: systemd's value" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 314572800
assert_agree "systemd's value" "$SD_UNIT" "$SD_CG" memory.high MemoryHigh infinity
assert_no_journal

# The fix (issue 14): daemon-reload keeps the value of a set-limit that ran to the end.
kept_through daemon-reload systemctl daemon-reload
assert_agree "memory.high after daemon-reload" "$SD_UNIT" "$SD_CG" memory.high MemoryHigh infinity
