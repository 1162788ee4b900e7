#!/bin/sh
# tiers: v1 v2
# Three short-lived cgroups, each OOM-killed and removed the moment its child is reaped: each
# kill still has its autopsy (the cgroup is gone when it is read), with its pid, comm and
# cgroup as the kernel log has them, and a breakdown that says the limit.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -r /dev/kmsg ] || skip "no /dev/kmsg"
command -v dmesg >/dev/null 2>&1 || skip "no dmesg to read the kernel log with"
if [ "$MCG_CGVER" = 1 ] && [ ! -e "$MCG_CGROOT/memory.memsw.limit_in_bytes" ] &&
	[ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
	skip "swap without memory.memsw.*: the child would swap, not be OOM-killed"
fi

scratch_new top
TOP=$CG
TREL=$CGREL
for n in 1 2 3; do
	scratch_new "j$n" "$TOP"
	if [ "$MCG_CGVER" = 2 ]; then
		[ -e "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"
		echo 12M >"$CG/memory.max"
	else
		echo 12M >"$CG/memory.limit_in_bytes"
	fi
done
STORE="$MCG_TMP/store"
# the watcher has the three cgroups once a frame holds the last
record_start "$TREL/j3" -d 60s
for n in 1 2 3; do
	set +e
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$TOP/j$n" "$MCG_LOAD" \
		anon 64 >/dev/null 2>&1 &
	pid=$!
	wait "$pid"
	st=$?
	set -e
	rmdir "$TOP/j$n" || fail "cannot remove $TOP/j$n at once"
	assert_eq "j$n: the child was OOM-killed" 137 "$st"
	echo "$n $pid" >>"$MCG_TMP/kills"
done
# one read of the store once the last kill is in it (each memcgctl run is slow in the TCG guest)
last=$(tail -n 1 "$MCG_TMP/kills" | cut -d' ' -f2)
i=0
until "$MEMCGCTL" oom --store "$STORE" --json "$TREL" >"$MCG_TMP/all.json" 2>/dev/null &&
	grep -q "\"pid\":$last[,}]" "$MCG_TMP/all.json"; do
	i=$((i + 1))
	[ $i -gt 100 ] && fail "no autopsy for pid $last after 10 s: $(cat "$MCG_TMP/rec.err")"
	sleep 0.1
done
dmesg >"$MCG_TMP/dmesg"
while read -r n pid; do
	line=$(grep "Killed process $pid (" "$MCG_TMP/dmesg" | tail -n 1)
	[ -n "$line" ] || fail "no 'Killed process $pid' in the kernel log"
	kcomm=$(printf '%s\n' "$line" | sed 's/.*Killed process [0-9]* (\(.*\)) total-vm:.*/\1/')
	grep "\"pid\":$pid[,}]" "$MCG_TMP/all.json" >"$MCG_TMP/a.json" || fail "j$n: no autopsy for pid $pid"
	[ ! -d "$TOP/j$n" ] || fail "j$n still exists"
	assert_eq "j$n: victim cgroup" "$TREL/j$n" "$(json .victim_cgroup <"$MCG_TMP/a.json")"
	assert_eq "j$n: OOM cgroup" "$TREL/j$n" "$(json .oom_cgroup <"$MCG_TMP/a.json")"
	assert_eq "j$n: comm" "$kcomm" "$(json .comm <"$MCG_TMP/a.json")"
	assert_eq "j$n: the limit" 12582912 "$(json .limit_bytes <"$MCG_TMP/a.json")"
	json .breakdown <"$MCG_TMP/a.json" | grep -Eq '^(kernel|sample)$' ||
		fail "j$n: no breakdown: $(cat "$MCG_TMP/a.json")"
done <"$MCG_TMP/kills"
ok "three removed cgroups, three autopsies"
