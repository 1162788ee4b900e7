#!/bin/sh
# tiers: v1
# What memcgctl did in the minute before a kill: with record running, 'memcgctl set-limit'
# lowers a scratch cgroup's limit to 16 MiB (read back from the kernel's file; the change goes
# through the event spool into the store), then a child allocating 64 MiB there is OOM-killed
# within the minute: 'memcgctl oom' shows the kill's autopsy with a "memcgctl before:
# set-limit" line for that cgroup, and --json its changes_before entry (op set-limit, the
# cgroup, a time before the kill's and less than 60 s before it).
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
[ "$(awk 'NR > 1' /proc/swaps | wc -l)" = 0 ] || skip "swap on: the child would swap, not be OOM-killed"
scratch_new before
C=$CG REL=$CGREL
STORE="$MCG_TMP/store"
record_start "$REL" -d 1s
"$MEMCGCTL" set-limit "$REL" 16M >"$MCG_TMP/sl.out" 2>"$MCG_TMP/sl.err" ||
	fail "set-limit failed: $(cat "$MCG_TMP/sl.err")"
assert_eq "the limit the kernel holds" $((16 << 20)) "$(knob "$C" memory.limit_in_bytes)"
stored() { "$MEMCGCTL" dump --store "$STORE" --events --json "$REL" 2>/dev/null | grep -q '"op":"set-limit"'; }
wait_until "the set-limit change in the store" 30 stored
set +e
sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$C" "$MCG_LOAD" anon 64 >/dev/null 2>&1 &
PID=$!
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed" 137 "$st"
killed() { "$MEMCGCTL" oom --store "$STORE" --json "$REL" 2>/dev/null | grep -q "\"pid\":$PID[,}]"; }
wait_until "the autopsy of pid $PID in the store" 30 killed
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
"$MEMCGCTL" oom --store "$STORE" "$REL" >"$MCG_TMP/oom.txt"
cat "$MCG_TMP/oom.txt"
grep -q "^  memcgctl before: set-limit $REL .*([0-9]* s before)$" "$MCG_TMP/oom.txt" ||
	fail "no 'memcgctl before: set-limit' line in the autopsy"
"$MEMCGCTL" oom --store "$STORE" --json "$REL" | grep "\"pid\":$PID[,}]" >"$MCG_TMP/au.json"
assert_eq "changes_before: one set-limit on the cgroup" "1 set-limit $REL" \
	"$(jq -r '[(.changes_before | length), .changes_before[0].op, .changes_before[0].cgroup] | join(" ")' "$MCG_TMP/au.json")"
# nanoseconds: read as text (jq's numbers are doubles)
TA=$(sed 's/^{"timestamp_ns":\([0-9]*\),.*/\1/' "$MCG_TMP/au.json")
TC=$(sed 's/.*"changes_before":\[{"timestamp_ns":\([0-9]*\),.*/\1/' "$MCG_TMP/au.json")
assert_le "the change before the kill" "$TC" "$TA"
assert_le "within the minute" $((TA - TC)) 60000000000
ok "the set-limit in the minute before the kill, in its autopsy"
