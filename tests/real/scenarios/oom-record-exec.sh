#!/bin/sh
# tiers: v1
# record --exec (the recorder service's early-warning hook): with record running on a scratch
# cgroup whose child waits at its 32 MiB limit (the OOM killer disabled, under_oom 1 read back),
# the hook runs once for the warning, without a shell (its path holds a ';' and a space) and
# without arguments, with the cgroup and the numbers the kernel's files hold in its
# environment; it exits 3, which record logs and survives. Then the killer enabled kills the
# child: the hook runs once more for the kill (its pid), and the autopsy is in the store.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
scratch_new xhook
scratch_new "at-limit" "$CG"
C=$CG
REL=$CGREL
echo 32M >"$C/memory.limit_in_bytes"
if [ -e "$C/memory.memsw.limit_in_bytes" ]; then
	echo 32M >"$C/memory.memsw.limit_in_bytes"
elif [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
	skip "swap without memory.memsw.*: the child would swap, not wait at its limit"
fi
trap 'st=$?; set +e; echo 0 >"$C/memory.oom_control" 2>/dev/null; (exit $st); mcg_cleanup' EXIT
echo 1 >"$C/memory.oom_control"
LIMIT=$(knob "$C" memory.limit_in_bytes)

RUNS="$MCG_TMP/runs"
mkdir "$RUNS"
HOOK="$MCG_TMP/the hook;x"
cat >"$HOOK" <<HOOK
#!/bin/sh
# one file a run: its argument count and its MEMCGCTL_ environment
{ echo "ARGC=\$#"; env | grep '^MEMCGCTL_' | sort; } >"$RUNS/.run-\$\$" && mv "$RUNS/.run-\$\$" "$RUNS/run-\$\$"
exit 3
HOOK
chmod 755 "$HOOK"
runs() { ls "$RUNS" | grep -c '^run-' || true; }
STORE="$MCG_TMP/store"
record_start "${REL%/*}" -d 60s --exec "$HOOK"

SPAWN_NOWAIT=1 spawn_in "$C" "$MCG_LOAD" anon 64
PID=$SPAWN_PID
wait_until "the child waits at the limit (under_oom 1)" 30 \
	sh -c 'grep -qx "under_oom 1" "$1/memory.oom_control"' sh "$C"
wait_until "the hook ran for the warning" 20 sh -c '[ "$(ls "$1" | grep -c "^run-")" -ge 1 ]' sh "$RUNS"
wait_until "record logged the hook's exit status" 20 grep -q 'exited with status 3' "$MCG_TMP/rec.err"
kill -0 "$REC" 2>/dev/null || fail "record died: $(cat "$MCG_TMP/rec.err")"
assert_eq "one run for the episode" 1 "$(runs)"
r=$RUNS/$(ls "$RUNS" | grep '^run-')
cat "$r"
val() { sed -n "s/^$1=//p" "$2"; }
assert_eq "no arguments" 0 "$(val ARGC "$r")"
assert_eq "event" oom_warning "$(val MEMCGCTL_EVENT "$r")"
assert_eq "cgroup" "$REL" "$(val MEMCGCTL_CGROUP "$r")"
assert_eq "limit, as the kernel's file" "$LIMIT" "$(val MEMCGCTL_LIMIT_BYTES "$r")"
assert_eq "usage at the limit" "$LIMIT" "$(val MEMCGCTL_USAGE_BYTES "$r")"
assert_eq "nothing reclaimable" 0 "$(val MEMCGCTL_RECLAIMABLE_BYTES "$r")"
val MEMCGCTL_EXPLANATION "$r" | grep -q "an OOM kill is near" || fail "no explanation: $(cat "$r")"
mv "$r" "$MCG_TMP/warning.env"

echo 0 >"$C/memory.oom_control"
set +e
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed" 137 "$st"
wait_until "the hook ran for the kill" 20 sh -c '[ "$(ls "$1" | grep -c "^run-")" -ge 1 ]' sh "$RUNS"
r=$RUNS/$(ls "$RUNS" | grep '^run-' | head -n 1)
cat "$r"
assert_eq "event" oom_kill "$(val MEMCGCTL_EVENT "$r")"
assert_eq "the victim" "$PID" "$(val MEMCGCTL_PID "$r")"
assert_eq "the victim's cgroup" "$REL" "$(val MEMCGCTL_VICTIM_CGROUP "$r")"
kill -0 "$REC" 2>/dev/null || fail "record died after the hook failed: $(cat "$MCG_TMP/rec.err")"
"$MEMCGCTL" oom --store "$STORE" --json "${REL%/*}" >"$MCG_TMP/oom.json"
grep -q "\"pid\":$PID[,}]" "$MCG_TMP/oom.json" || fail "no autopsy of $PID stored: $(cat "$MCG_TMP/oom.json")"
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
assert_eq "one run after the warning's (the kill's)" 1 "$(runs)"
ok "record --exec ran once per warning and kill, without a shell; a failing hook changed nothing"
