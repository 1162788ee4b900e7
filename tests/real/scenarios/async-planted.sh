#!/bin/sh
# tiers: v1 v2
# Enable files planted in the state directory are never served: one naming another cgroup
# than its file name, one naming the root cgroup, one with a garbage value. reclaimd serves
# the real one and logs the others; status lists them as corrupt with path and reason.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new real
REAL=$CG REALREL=$CGREL
scratch_new victim
VICTIM=$CG VICTIMREL=$CGREL
scratch_new garbage
GARB=$CG GARBREL=$CGREL
for c in "$REAL" "$VICTIM" "$GARB"; do echo $((64 * MIB)) >"$c/$K_LIMIT"; done
OPTS="--high-margin 16M --low-margin 32M --clean --max-cpu 100"

# 1. victim's enable file under the name of a cgroup that does not exist
AR enable "$VICTIMREL" $OPTS --no-start >/dev/null
mv "$SD/$(fname "$VICTIMREL").conf" "$SD/$(fname "/$MCG_PREFIX-nosuch").conf"
# 2. the root cgroup, under its own name
sed "s|^path .*|path /|" "$SD/$(fname "/$MCG_PREFIX-nosuch").conf" >"$SD/$(fname "").conf"
# 3. a garbage value in garbage's own file
AR enable "$GARBREL" $OPTS --no-start >/dev/null
sed -i 's/^batch .*/batch 99999999999/' "$SD/$(fname "$GARBREL").conf"

# page cache above the high watermark (48 MiB) in all three
for c in "$VICTIM" "$GARB"; do
	run_in "$c" "$MCG_LOAD" write "$MCG_DATA/$(basename "$c")" 56 --sync >/dev/null
done
AR enable "$REALREL" $OPTS >/dev/null
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
run_in "$REAL" "$MCG_LOAD" write "$MCG_DATA/real" 56 --sync >/dev/null
usage_under "$REAL" $((48 * MIB)) "the real cgroup is served: usage under high"
# one more second of passes: a served planted file would be reclaimed by now
sleep 1.5
for c in "$VICTIM" "$GARB"; do
	assert_le "$(basename "$c") is not served: usage still above high" $((48 * MIB)) "$(knob "$c" "$K_USAGE")"
done
[ -e "$SD/stats/$(fname "$VICTIMREL")" ] && fail "the victim cgroup got stats: it was served"
[ -e "$SD/stats/$(fname "$GARBREL")" ] && fail "the garbage file's cgroup got stats: it was served"
[ -e "$SD/stats/$(fname "")" ] && fail "the root cgroup got stats: it was served"
ok "no stats for the planted files"

AR status --json >"$MCG_TMP/status.json"
assert_eq "one cgroup enabled" "$REALREL" "$(jq -r '[.cgroups[].cgroup] | join(",")' "$MCG_TMP/status.json")"
assert_eq "three corrupt files" 3 "$(jq '.corrupt | length' "$MCG_TMP/status.json")"
assert_eq "misnamed file reported" "the file name does not match the cgroup it names" \
	"$(jq -r --arg f "$SD/$(fname "/$MCG_PREFIX-nosuch").conf" '.corrupt[] | select(.file == $f) | .reason' "$MCG_TMP/status.json")"
assert_eq "root cgroup reported" "names the root cgroup" \
	"$(jq -r --arg f "$SD/$(fname "").conf" '.corrupt[] | select(.file == $f) | .reason' "$MCG_TMP/status.json")"
assert_eq "garbage value reported" "a batch out of range" \
	"$(jq -r --arg f "$SD/$(fname "$GARBREL").conf" '.corrupt[] | select(.file == $f) | .reason' "$MCG_TMP/status.json")"
AR status >"$MCG_TMP/status.txt"
grep -q "^corrupt: $SD/$(fname "").conf: names the root cgroup (ignored, not served)$" "$MCG_TMP/status.txt" ||
	fail "text status does not list the root cgroup's file: $(cat "$MCG_TMP/status.txt")"
ok "text status lists the corrupt files"
grep -q "ignoring corrupt file '$SD/$(fname "$GARBREL").conf': a batch out of range" "$SD/reclaimd.log" ||
	fail "reclaimd did not log the garbage file: $(cat "$SD/reclaimd.log")"
ok "reclaimd logged the corrupt files"

# disable stops the daemon (the planted files serve nothing); the limits are untouched
AR disable "$REALREL" >/dev/null
reclaimd_exits "$pid" "with only corrupt files left"
for c in "$REAL" "$VICTIM" "$GARB"; do
	assert_eq "limit of $(basename "$c")" $((64 * MIB)) "$(knob "$c" "$K_LIMIT")"
done
reclaimd_log_clean
