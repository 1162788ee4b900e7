#!/bin/sh
# tiers: v1 v2
# The recorder restarted mid-burst: kills in short-lived scratch cgroups (each removed the
# moment its child is reaped) go on while record is stopped (SIGTERM) and started again on the
# same store. Afterwards every kill the kernel log still holds ("Killed process PID", read back
# from /dev/kmsg) made after the first start is stored exactly once: the ones while it ran, the
# ones while it was down (read from the log at the restart) where the log names their cgroup;
# none twice, none not made here.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
if [ "$MCG_CGVER" = 1 ] && [ ! -e "$MCG_CGROOT/memory.memsw.limit_in_bytes" ] &&
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
	skip "swap without memory.memsw.*: the child would swap, not be OOM-killed"
fi
oom_report_room # kills made while record is down need the kernel's report
scratch_new rburst
P=$CG
REL=$CGREL
[ "$MCG_CGVER" = 2 ] && echo +memory >"$P/cgroup.subtree_control"
: >"$MCG_TMP/kills"
n=0
kill_one() { # a child OOM-killed in a new cgroup below P, removed at once; its pid appended to kills
	c=$P/k$n
	n=$((n + 1))
	mkdir "$c"
	if [ "$MCG_CGVER" = 2 ]; then
		[ -e "$c/memory.swap.max" ] && echo 0 >"$c/memory.swap.max"
		echo 8M >"$c/memory.max"
	else
		echo 8M >"$c/memory.limit_in_bytes"
	fi
	set +e
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$c" "$MCG_LOAD" anon 32 \
		>/dev/null 2>&1 &
	kp=$!
	wait "$kp"
	st=$?
	set -e
	rmdir "$c"
	assert_eq "pid $kp OOM-killed" 137 "$st"
	echo "$kp" >>"$MCG_TMP/kills"
}
STORE="$MCG_TMP/store"
record_start "$REL" -d 60s
i=0; while [ $i -lt 3 ]; do kill_one; i=$((i + 1)); done
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
i=0; while [ $i -lt 3 ]; do kill_one; i=$((i + 1)); done
record_start "$REL" -d 60s
i=0; while [ $i -lt 3 ]; do kill_one; i=$((i + 1)); done
stored() { "$MEMCGCTL" oom --store "$STORE" --json "$REL" | jq -r .pid >"$MCG_TMP/got"; }
all_stored() {
	stored
	while read -r p; do grep -qx "$p" "$MCG_TMP/got" || return 1; done <"$MCG_TMP/kills"
}
i=0
until all_stored; do
	i=$((i + 1))
	[ $i -gt 100 ] && break # told below, pid by pid
	sleep 0.1
done
kill -TERM "$REC"
wait "$REC" || fail "record failed: $(cat "$MCG_TMP/rec.err")"
stored
# the kernel log as it is now: the kills it still holds
timeout 5 dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null >"$MCG_TMP/kmsg" || true
cat "$MCG_TMP/got"
# kills 4-6 were made while record was down, in cgroups removed before it came back: the
# kernel log names their cgroup only in its report's oom-kill: line, which it prints for at
# most 10 kills in 5 s (shared with every other OOM on the machine); without it such a kill
# cannot be told to be this subtree's and is not stored (memcgctl-oom(8)). Never twice.
k=0
while read -r p; do
	k=$((k + 1))
	assert_le "kill $p stored at most once" "$(grep -cx "$p" "$MCG_TMP/got")" 1
	grep -q "Killed process $p " "$MCG_TMP/kmsg" || { say "pid $p no longer in the kernel log"; continue; }
	if [ $k -ge 4 ] && [ $k -le 6 ] && ! grep -q "oom-kill:.*,pid=$p," "$MCG_TMP/kmsg"; then
		say "kill $p (record down, cgroup removed, no report): stored $(grep -cx "$p" "$MCG_TMP/got") time(s)"
		continue
	fi
	assert_eq "kill $p stored once" 1 "$(grep -cx "$p" "$MCG_TMP/got")"
done <"$MCG_TMP/kills"
sort "$MCG_TMP/got" | uniq -d >"$MCG_TMP/dup"
assert_eq "no autopsy twice" "" "$(cat "$MCG_TMP/dup")"
while read -r p; do grep -qx "$p" "$MCG_TMP/kills" || fail "stored a kill not made here: $p"; done <"$MCG_TMP/got"
ok "restarted mid-burst: no kill lost, none twice"
