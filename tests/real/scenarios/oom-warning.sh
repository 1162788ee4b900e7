#!/bin/sh
# tiers: v1
# The early warning: a child fills a scratch cgroup (named with a tab) to its 32 MiB limit with
# anon memory, no swap, the OOM killer disabled (memory.oom_control oom_kill_disable 1), so it
# waits at the limit (under_oom 1, read back from the kernel's file): 'oom --watch --exec'
# prints one warning for the episode (its usage the limit the kernel's files hold, nothing
# reclaimable) and runs the hook with MEMCGCTL_EVENT=oom_warning and the escaped cgroup; then
# the killer enabled kills the child: the kill is printed after it and the hook runs again
# (MEMCGCTL_EVENT=oom_kill, the victim's pid); a hook that hangs is killed after its 10 s; the
# hooks are reaped (no zombie left) and the watcher was never held up by them.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
scratch_new warn
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

# the hook: its environment into a file per event; a warning's hook hangs on (killed at 10 s)
HOOK="$MCG_TMP/hook"
cat >"$HOOK" <<EOH
#!/bin/sh
env | grep '^MEMCGCTL_' | LC_ALL=C sort >"$MCG_TMP/env.\$MEMCGCTL_EVENT.tmp"
mv "$MCG_TMP/env.\$MEMCGCTL_EVENT.tmp" "$MCG_TMP/env.\$MEMCGCTL_EVENT"
[ "\$MEMCGCTL_EVENT" = oom_warning ] && exec sleep 600
exit 0
EOH
chmod +x "$HOOK"

"$MEMCGCTL" oom --watch --json -n 1 --exec "$HOOK" "${REL%/*}" >"$MCG_TMP/w.json" 2>"$MCG_TMP/w.err" &
W=$!
echo "$W" >>"$MCG_CLEAN_PIDS"
i=0
until ls -l "/proc/$W/fd" 2>/dev/null | grep -q /dev/kmsg; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "oom --watch did not open /dev/kmsg: $(cat "$MCG_TMP/w.err")"
	sleep 0.05
done

SPAWN_NOWAIT=1 spawn_in "$C" "$MCG_LOAD" anon 64
PID=$SPAWN_PID
wait_until "the child waits at the limit (under_oom 1)" 30 \
	sh -c 'grep -qx "under_oom 1" "$1/memory.oom_control"' sh "$C"
wait_until "the hook ran for the warning" 30 test -s "$MCG_TMP/env.oom_warning"
wn=$(grep '"event":"oom_warning"' "$MCG_TMP/w.json") || fail "no warning printed: $(cat "$MCG_TMP/w.json" "$MCG_TMP/w.err")"
printf '%s\n' "$wn" | jq -e . >/dev/null || fail "the warning is not JSON: $wn"
assert_eq "warning: cgroup (JSON-escaped tab)" "$REL" "$(printf '%s\n' "$wn" | json .cgroup)"
u=$(printf '%s\n' "$wn" | json .usage_bytes)
# at the limit: within 1/32 of it (memcgctl-oom(8)), not past it
assert_le "warning: usage at the limit" $((LIMIT - LIMIT / 32)) "$u"
assert_le "warning: usage not past the limit" "$u" "$LIMIT"
assert_eq "warning: limit" "$LIMIT" "$(printf '%s\n' "$wn" | json .limit_bytes)"
# next to nothing reclaimable (at most an eighth of the limit: memcgctl-oom(8)): a warning
# taken while the child's own few file pages were still charged says 8 KiB, not 0
assert_le "warning: next to nothing reclaimable" "$(printf '%s\n' "$wn" | json .reclaimable_bytes)" $((LIMIT / 8))
assert_eq "hook: MEMCGCTL_EVENT" "MEMCGCTL_EVENT=oom_warning" "$(grep '^MEMCGCTL_EVENT=' "$MCG_TMP/env.oom_warning")"
assert_eq "hook: MEMCGCTL_CGROUP escaped" "MEMCGCTL_CGROUP=${REL%/*}/at\\tlimit" \
	"$(grep '^MEMCGCTL_CGROUP=' "$MCG_TMP/env.oom_warning")"
assert_eq "hook: MEMCGCTL_LIMIT_BYTES" "MEMCGCTL_LIMIT_BYTES=$LIMIT" "$(grep '^MEMCGCTL_LIMIT_BYTES=' "$MCG_TMP/env.oom_warning")"
HP=$(pgrep -P "$W" | head -n 1) || fail "the warning's hook is not running under the watcher"

# the killer enabled: the kill, while the warning's hook still hangs
echo 0 >"$C/memory.oom_control"
set +e
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed" 137 "$st"
wait_until "the hook ran for the kill" 30 test -s "$MCG_TMP/env.oom_kill"
assert_eq "kill hook: MEMCGCTL_PID" "MEMCGCTL_PID=$PID" "$(grep '^MEMCGCTL_PID=' "$MCG_TMP/env.oom_kill")"
assert_eq "kill hook: MEMCGCTL_CGROUP" "MEMCGCTL_CGROUP=${REL%/*}/at\\tlimit" "$(grep '^MEMCGCTL_CGROUP=' "$MCG_TMP/env.oom_kill")"
kp=$(sed -n 2p "$MCG_TMP/w.json" | json .pid)
assert_eq "the kill printed after the warning" "$PID" "$kp"
kill -0 "$HP" 2>/dev/null || fail "the warning's hook ended before its 10 s"
# -n 1: the watcher ends once the hung hook is killed at its deadline, and reaps it
wait "$W" || fail "oom --watch failed: $(cat "$MCG_TMP/w.err")"
grep -q "ran past 10 s: killed" "$MCG_TMP/w.err" || fail "the hung hook was not killed: $(cat "$MCG_TMP/w.err")"
! kill -0 "$HP" 2>/dev/null || fail "the hung hook $HP still exists"
assert_eq "one warning for the episode" 1 "$(grep -c '"event":"oom_warning"' "$MCG_TMP/w.json")"
assert_eq "a warning and a kill printed" 2 "$(grep -c . "$MCG_TMP/w.json")"
ok "warning, kill and hooks"
