#!/bin/sh
# tiers: v1
# The early warning's failcnt rule, on the kernel: a writer in a scratch cgroup (mcg-load fill)
# appends to a tmpfs file up to the cgroup's 48 MiB limit (no swap: tmpfs pages cannot be
# reclaimed) and
# keeps writing; with the OOM killer disabled a write() at the limit fails (ENOMEM) instead of
# waiting (under_oom stays 0, read back from the kernel's file), so memory.failcnt climbs while
# usage sits at the limit and nothing is killed. record stores one oom_warning with signal
# failcnt: its rise at most what the kernel counted, the limit and usage as the kernel's files
# hold, nothing reclaimable; no kill, no autopsy.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] || skip "/dev/shm is no tmpfs"
[ "$(awk 'NR > 1' /proc/swaps | wc -l)" = 0 ] || skip "swap on: the writer's tmpfs pages could swap out"
scratch_new wfail
REL=$CGREL
echo 48M >"$CG/memory.limit_in_bytes"
# memory+swap above the limit: the memory counter's limit is the one hit (memory.failcnt)
[ -e "$CG/memory.memsw.limit_in_bytes" ] && echo 64M >"$CG/memory.memsw.limit_in_bytes"
FILL=/dev/shm/$MCG_PREFIX-fill
# the file's pages are charged to the cgroup until it is removed; the killer enabled again
trap 'st=$?; set +e; echo 0 >"$CG/memory.oom_control" 2>/dev/null; rm -f "$FILL"; (exit $st); mcg_cleanup' EXIT
echo 1 >"$CG/memory.oom_control"
LIMIT=$(knob "$CG" memory.limit_in_bytes)

STORE="$MCG_TMP/store"
record_start "$REL" -d 60s
# mcg-load fill: every page of its own locked first, so that no fault of the writer waits in
# the OOM path (a python writer's heap did: under_oom 1)
spawn_in "$CG" "$MCG_LOAD" fill "$FILL"
W=$SPAWN_PID
fails() { [ "$(knob "$CG" memory.failcnt)" -ge "$1" ]; }
# deadlines for a hang, not for a slow host: under load the writer gets a third of a CPU and
# each failed charge retries reclaim over the whole LRU first (30 s for 1000 fails was missed)
wait_until "charges fail at the limit (memory.failcnt)" 120 fails 1
assert_eq "the writer does not wait at the limit (under_oom)" "under_oom 0" "$(grep '^under_oom ' "$CG/memory.oom_control")"
kill -0 "$W" 2>/dev/null || fail "the writer died: $(cat "$SPAWN_OUT")"

events() {
	"$MEMCGCTL" dump --store "$STORE" --events --json "$REL" >"$MCG_TMP/ev.json" 2>"$MCG_TMP/dump.err"
}
has_warning() { events && grep -q '"event":"oom_warning"' "$MCG_TMP/ev.json"; }
wait_until "an oom_warning in the store" 120 has_warning
F1=$(knob "$CG" memory.failcnt)
assert_eq "still waiting at nothing (under_oom)" "under_oom 0" "$(grep '^under_oom ' "$CG/memory.oom_control")"
USAGE=$(knob "$CG" memory.usage_in_bytes)
wn=$(grep '"event":"oom_warning"' "$MCG_TMP/ev.json")
say "stored: $wn"
assert_eq "warning: signal" failcnt "$(printf '%s\n' "$wn" | json .signal)"
rise=$(printf '%s\n' "$wn" | json .signal_rise)
assert_le "warning: failcnt rose between its reads" 1 "$rise"
assert_le "warning: the rise within what the kernel counted" "$rise" "$F1"
assert_eq "warning: count is the rise" "$rise" "$(printf '%s\n' "$wn" | json .count)"
assert_eq "warning: cgroup" "$REL" "$(printf '%s\n' "$wn" | json .cgroup)"
assert_eq "warning: limit" "$LIMIT" "$(printf '%s\n' "$wn" | json .limit_bytes)"
assert_eq "warning: limit_name" memory.limit_in_bytes "$(printf '%s\n' "$wn" | json .limit_name)"
u=$(printf '%s\n' "$wn" | json .usage_bytes)
# at the limit: within 1/32 of it (memcgctl-oom(8)); the kernel's usage reads the same now
assert_le "warning: usage at the limit" $((LIMIT - LIMIT / 32)) "$u"
assert_le "warning: usage not past the limit" "$u" "$LIMIT"
assert_le "the kernel's usage at the limit too" $((LIMIT - LIMIT / 32)) "$USAGE"
assert_le "warning: next to nothing reclaimable" "$(printf '%s\n' "$wn" | json .reclaimable_bytes)" $((LIMIT / 8))
iv=$(printf '%s\n' "$wn" | json .interval_us)
assert_le "warning: two reads apart" 1 "$iv"
printf '%s\n' "$wn" | json .explanation | grep -q "failcnt +$rise in .*an OOM kill is near" ||
	fail "warning: the explanation does not tell failcnt: $wn"

# the writer stopped: nothing was killed, one warning for the episode
kill -KILL "$W"
wait "$W" 2>/dev/null || true
kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
events || fail "dump failed: $(cat "$MCG_TMP/dump.err")"
assert_eq "one warning" 1 "$(grep -c '"event":"oom_warning"' "$MCG_TMP/ev.json")"
assert_eq "no autopsy" 0 "$(grep -c '"event":"oom_autopsy"' "$MCG_TMP/ev.json" || true)"
assert_eq "the kernel killed nothing (oom_kill)" "oom_kill 0" "$(grep '^oom_kill ' "$CG/memory.oom_control")"
ok "failcnt warning stored"
