#!/bin/sh
# tiers: v1
# The early warning kept in the history store: with record running, a child fills a scratch
# cgroup (named with a tab) to its 32 MiB limit with anon memory, no swap, the OOM killer
# disabled (memory.oom_control oom_kill_disable 1), so it waits at the limit (under_oom 1, read
# back from the kernel's file). record stores one oom_warning event for the episode at once
# (well before its next 60 s sample): 'dump --events --json' read back from the store gives the
# cgroup, the usage and limit the kernel's files hold and nothing reclaimable. Then the killer
# enabled kills the child: the store's oom_autopsy of that pid comes after the warning, in time
# and in dump's order; dump's text names the warning with the escaped cgroup.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
scratch_new wstore
TAB=$(printf '\t')
scratch_new "at${TAB}limit" "$CG"
C=$CG
REL=$CGREL
echo 32M >"$C/memory.limit_in_bytes"
if [ -e "$C/memory.memsw.limit_in_bytes" ]; then
	echo 32M >"$C/memory.memsw.limit_in_bytes"
elif [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
	skip "swap without memory.memsw.*: the child would swap, not wait at its limit"
fi
# a child waiting at the limit does not die of SIGKILL alone: the killer enabled on every exit
trap 'st=$?; set +e; echo 0 >"$C/memory.oom_control" 2>/dev/null; (exit $st); mcg_cleanup' EXIT
echo 1 >"$C/memory.oom_control"
LIMIT=$(knob "$C" memory.limit_in_bytes)

STORE="$MCG_TMP/store"
record_start "${REL%/*}" -d 60s

events() { # the store's events of the test's cgroups, as JSON lines, into $MCG_TMP/ev.json
	"$MEMCGCTL" dump --store "$STORE" --events --json "${REL%/*}" >"$MCG_TMP/ev.json" 2>"$MCG_TMP/dump.err"
}
has_event() { events && grep -q "\"event\":\"$1\"" "$MCG_TMP/ev.json"; }

T0=$(now_floor)
SPAWN_NOWAIT=1 spawn_in "$C" "$MCG_LOAD" anon 64
PID=$SPAWN_PID
wait_until "the child waits at the limit (under_oom 1)" 30 \
	sh -c 'grep -qx "under_oom 1" "$1/memory.oom_control"' sh "$C"
# stored when caught, not with the next sample 60 s on
wait_until "an oom_warning in the store" 20 has_event oom_warning
kill -0 "$REC" 2>/dev/null || fail "record died: $(cat "$MCG_TMP/rec.err")"
wn=$(grep '"event":"oom_warning"' "$MCG_TMP/ev.json")
say "stored: $wn"
printf '%s\n' "$wn" | jq -e . >/dev/null || fail "the warning is not JSON: $wn"
assert_eq "one warning for the episode" 1 "$(printf '%s\n' "$wn" | grep -c .)"
assert_eq "warning: cgroup (JSON-escaped tab)" "$REL" "$(printf '%s\n' "$wn" | json .cgroup)"
u=$(printf '%s\n' "$wn" | json .usage_bytes)
# at the limit: within 1/32 of it (memcgctl-oom(8)), not past it
assert_le "warning: usage at the limit" $((LIMIT - LIMIT / 32)) "$u"
assert_le "warning: usage not past the limit" "$u" "$LIMIT"
assert_eq "warning: limit" "$LIMIT" "$(printf '%s\n' "$wn" | json .limit_bytes)"
ln=$(printf '%s\n' "$wn" | json .limit_name)
case $ln in memory.limit_in_bytes | memory.memsw.limit_in_bytes) ;; *) fail "warning: limit_name $ln" ;; esac
# next to nothing reclaimable (at most an eighth of the limit: memcgctl-oom(8)): a warning
# taken while the child's own few file pages were still charged says 8 KiB, not 0
assert_le "warning: next to nothing reclaimable" "$(printf '%s\n' "$wn" | json .reclaimable_bytes)" $((LIMIT / 8))
sig=$(printf '%s\n' "$wn" | json .signal)
case $sig in under_oom | failcnt) ;; *) fail "warning: signal $sig" ;; esac
printf '%s\n' "$wn" | json .explanation | grep -q "an OOM kill is near" ||
	fail "warning: no explanation: $wn"
# nanoseconds: read as text (jq's numbers are doubles)
ts() { sed -n 's/^{"timestamp_ns":\([0-9]*\),.*/\1/p'; }
TW=$(printf '%s\n' "$wn" | ts)
assert_le "warning time after the child started" "$T0" $((TW / 1000000 + 1))

# the killer enabled: the kill, stored after the warning
echo 0 >"$C/memory.oom_control"
set +e
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed" 137 "$st"
wait_until "the autopsy of pid $PID in the store" 20 \
	sh -c 'grep -q "\"event\":\"oom_autopsy\".*\"pid\":$1[,}]" "$2" || { "$3" dump --store "$4" --events --json "$5" >"$2" && grep -q "\"event\":\"oom_autopsy\".*\"pid\":$1[,}]" "$2"; }' \
	sh "$PID" "$MCG_TMP/ev.json" "$MEMCGCTL" "$STORE" "${REL%/*}"
kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
events || fail "dump failed: $(cat "$MCG_TMP/dump.err")"
cat "$MCG_TMP/ev.json"
jq -e . "$MCG_TMP/ev.json" >/dev/null || fail "dump --events --json is not JSON lines"
assert_eq "still one warning (none stored twice)" 1 "$(grep -c '"event":"oom_warning"' "$MCG_TMP/ev.json")"
au=$(grep '"event":"oom_autopsy"' "$MCG_TMP/ev.json" | grep "\"pid\":$PID[,}]")
TA=$(printf '%s\n' "$au" | ts)
assert_le "the warning before the kill, in time" "$TW" "$TA"
[ "$TW" != "$TA" ] || fail "the warning at the kill's time: $TW"
lw=$(grep -n '"event":"oom_warning"' "$MCG_TMP/ev.json" | cut -d: -f1)
la=$(grep -n "\"event\":\"oom_autopsy\".*\"pid\":$PID[,}]" "$MCG_TMP/ev.json" | cut -d: -f1)
assert_le "the warning before the kill, in dump's order" $((lw + 1)) "$la"
# events in time order throughout
ts <"$MCG_TMP/ev.json" | sort -c -n || fail "dump --events not in time order"
assert_eq "every event has its time" "$(grep -c . "$MCG_TMP/ev.json")" "$(ts <"$MCG_TMP/ev.json" | grep -c .)"

# text: the event's kind, the escaped cgroup and the explanation
"$MEMCGCTL" dump --store "$STORE" --events "${REL%/*}" >"$MCG_TMP/ev.txt"
grep " event oom_warning ${REL%/*}/at\\\\tlimit: usage .*an OOM kill is near" "$MCG_TMP/ev.txt" >/dev/null ||
	fail "dump --events text: no warning line: $(cat "$MCG_TMP/ev.txt")"
ok "the warning stored, before the kill"
