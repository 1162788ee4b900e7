#!/bin/sh
# tiers: v1 v2
# The limit is on the parent, the allocating child in a cgroup below it: the autopsy names the
# parent as the OOM cgroup (its limit, read back) and the child's cgroup as the victim's, with
# the pid and comm the kernel log has.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
command -v dmesg >/dev/null 2>&1 || skip "no dmesg to read the kernel log with"

scratch_new parent
P=$CG
PREL=$CGREL
if [ "$MCG_CGVER" = 2 ]; then
	[ -e "$P/memory.swap.max" ] && echo 0 >"$P/memory.swap.max"
	echo 16M >"$P/memory.max"
else
	echo 16M >"$P/memory.limit_in_bytes"
	if [ -e "$P/memory.memsw.limit_in_bytes" ]; then
		echo 24M >"$P/memory.memsw.limit_in_bytes"
	elif [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
		skip "swap without memory.memsw.*: the child would swap, not be OOM-killed"
	fi
fi
LIMIT=$(knob "$P" "$K_LIMIT")
scratch_new child "$P"
CREL=$CGREL

STORE="$MCG_TMP/store"
record_start "$CREL" -d 60s
set +e
sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$CG" "$MCG_LOAD" anon 64 \
	>/dev/null 2>&1 &
PID=$!
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed (SIGKILL)" 137 "$st"
line=$(dmesg | grep "Killed process $PID (" | tail -n 1)
[ -n "$line" ] || fail "no 'Killed process $PID' in the kernel log"
KCOMM=$(printf '%s\n' "$line" | sed 's/.*Killed process [0-9]* (\(.*\)) total-vm:.*/\1/')

i=0
until "$MEMCGCTL" oom --store "$STORE" --json "$PREL" >"$MCG_TMP/all.json" 2>/dev/null &&
	grep "\"pid\":$PID[,}]" "$MCG_TMP/all.json" >"$MCG_TMP/a.json"; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "no autopsy for pid $PID after 10 s: $(cat "$MCG_TMP/rec.err")"
	sleep 0.1
done
cat "$MCG_TMP/a.json"
assert_eq "OOM cgroup: the parent" "$PREL" "$(json .oom_cgroup <"$MCG_TMP/a.json")"
assert_eq "victim cgroup: the child" "$CREL" "$(json .victim_cgroup <"$MCG_TMP/a.json")"
assert_eq "comm" "$KCOMM" "$(json .comm <"$MCG_TMP/a.json")"
assert_eq "the parent's limit" "$LIMIT" "$(json .limit_bytes <"$MCG_TMP/a.json")"
# asked for by the child's cgroup, the same kill
"$MEMCGCTL" oom --store "$STORE" --json "$CREL" | grep -q "\"pid\":$PID" ||
	fail "oom CHILD does not show the kill of its process"
ok "parent $PREL, victim $CREL"
