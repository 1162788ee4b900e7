#!/bin/sh
# size-systemd (issue 26): size on a transient service's own cgroup probes with memory.reclaim
# and PSI, changes no limit (memory.max and MemoryMax agree as before, memory.high max), and
# its advice lines run as printed: the systemctl set-property line sets MemoryHigh= to the
# answer, and the set-limit line (+0: memory.max kept) sets memory.high.
set -eu
. "$MCG_TESTLIB"
require_systemd
require_cmd jq

# 48 MiB of clean cache read once, then sleep: all of it cold, the answer is the floor
sd_cache_service size 300M 48
assert_status "size $SD_UNIT" 0 "$MEMCGCTL" --json size --interval 200ms --timeout 60s "$SD_UNIT"
printf '%s\n' "$LAST_OUT" >"$MCG_TMP/size.json"
j() { jq -r "$1" <"$MCG_TMP/size.json"; }
say "needed $(j .needed_bytes) ($(j .stop)), signal $(j .signal), method $(j .method)"
assert_eq "method" memory.reclaim "$(j .method)"
assert_eq "signal" psi "$(j .signal)"
assert_eq "stop (all cold: the floor)" floor "$(j .stop)"
assert_le "needed below a quarter of the cache" "$(j .needed_bytes)" $((12 * 1048576))
assert_le "cold: 3/4 of the 48 MiB at least" $((36 * 1048576)) "$(j .cold_bytes)"
assert_agree "after size (nothing changed)" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 314572800
assert_eq "memory.high untouched" max "$(knob "$SD_CG" memory.high)"
assert_eq "memory.events oom_kill" 0 "$(sed -n 's/^oom_kill //p' "$SD_CG/memory.events")"
assert_no_journal

mib=$(( ($(j .needed_bytes) + 1048575) / 1048576 ))
assert_eq "the systemctl line" "systemctl set-property $SD_UNIT MemoryHigh=${mib}M" "$(j .advice.systemctl)"
assert_eq "the set-limit line" "memcgctl set-limit $SD_CGREL +0 --high ${mib}M" "$(j .advice.set_limit)"
# run them as printed
sh -c "$(j .advice.systemctl)" || fail "the systemctl line failed"
assert_eq "MemoryHigh after the systemctl line" $((mib * 1048576)) "$(sd_prop "$SD_UNIT" MemoryHigh)"
assert_eq "memory.high after the systemctl line" $((mib * 1048576)) "$(knob "$SD_CG" memory.high)"
# (this run's binary, and 1 MiB more, so that the change is the set-limit's own)
line=$(j .advice.set_limit | sed "s|^memcgctl |\"\$MEMCGCTL\" |; s|--high ${mib}M|--high $((mib + 1))M|")
eval "$line" >/dev/null || fail "the set-limit line failed: $line"
assert_eq "memory.high after the set-limit line" $(((mib + 1) * 1048576)) "$(knob "$SD_CG" memory.high)"
assert_agree "memory.max kept by +0" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 314572800

# the text form says the same
assert_status "size (text)" 0 "$MEMCGCTL" size --interval 200ms --timeout 60s "$SD_UNIT"
printf '%s\n' "$LAST_OUT" | grep -q "^  systemctl set-property $SD_UNIT MemoryHigh=" ||
	fail "no systemctl line in the text: $LAST_OUT"
ok "text advice"
