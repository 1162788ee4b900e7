#!/bin/sh
# set-limit-daemon-reload (issue 18): "systemctl daemon-reload" re-applies the unit's memory
# settings in the middle of a set-limit, and set-limit keeps systemd's value.
#
# On systemd 252 a daemon-reload (and a daemon-reexec, and a set-property of any cgroup
# property, CPUWeight or TasksMax too) writes every memory knob of a running unit again from
# its settings. What set-limit writes for the time being on v2 (lib/limit.c plan_v2):
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

sd_cache_service reload 300M 128
usage=$(knob "$SD_CG" memory.current)
assert_le "page cache charged to $SD_UNIT (memory.current >= 128 MiB)" 134217728 "$usage"

stopped_after_write "$SD_CGREL" memory.high set-limit "$SD_CGREL" 64M
assert_eq "memory.high while set-limit holds its temporary value" 67108864 \
	"$(knob "$SD_CG" memory.high)"
assert_eq "memory.max before set-limit writes it" 314572800 "$(knob "$SD_CG" memory.max)"

systemctl daemon-reload
assert_eq "memory.high after daemon-reload (re-applied by systemd)" max \
	"$(knob "$SD_CG" memory.high)"
assert_eq "memory.max after daemon-reload" 314572800 "$(knob "$SD_CG" memory.max)"

kill -CONT "$ST_PID"
wait "$ST_WAIT" && rc=0 || rc=$?
cp "$ST_OUT" "$MCG_ARTIFACTS/set-limit.out"
cp "$ST_ERR" "$MCG_ARTIFACTS/set-limit.err"
say "set-limit stderr:"
cat "$ST_ERR"
assert_eq "set-limit exit status (3: EXIT_CONFLICT)" 3 "$rc"
grep -q "stopped: another writer changed memory.high" "$ST_ERR" ||
	fail "set-limit does not say that another writer changed memory.high"
ok "set-limit says another writer changed memory.high"

assert_eq "memory.max (put back by set-limit: systemd's value)" 314572800 \
	"$(knob "$SD_CG" memory.max)"
assert_eq "systemctl show -P MemoryMax" 314572800 "$(sd_prop "$SD_UNIT" MemoryMax)"
assert_eq "memory.high (systemd's value)" max "$(knob "$SD_CG" memory.high)"
assert_eq "systemctl show -P MemoryHigh" infinity "$(sd_prop "$SD_UNIT" MemoryHigh)"
assert_no_journal

# The fix (issue 14): a set-limit that runs to the end hands its value to systemd too
# (SetUnitProperties), so that daemon-reload keeps it instead of reverting it.
assert_status "set-limit $SD_CGREL 64M, uninterrupted" 0 "$MEMCGCTL" set-limit "$SD_CGREL" 64M
assert_agree "after set-limit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 67108864
systemctl daemon-reload
assert_agree "after daemon-reload" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 67108864
assert_agree "memory.high after daemon-reload" "$SD_UNIT" "$SD_CG" memory.high MemoryHigh infinity
assert_no_journal
