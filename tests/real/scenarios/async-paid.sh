#!/bin/sh
# tiers: v1
# What reclaimd spends in its loop is paid from the budgets, also in iterations that look at
# no cgroup (issue 28: the daemon measured over its --max-cpu). A daemon serving one idle
# cgroup is woken by SIGHUPs (each a rescan of the state directory, no look at the cgroup);
# the CPU its stats say it spent on the cgroup (written on exit) must cover most of the CPU
# the process used meanwhile (/proc/PID/schedstat). Unpaid rescans leave it at the
# once-a-second looks.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new paid
echo $((64 * MIB)) >"$CG/$K_LIMIT"
AR enable "$CGREL" >/dev/null
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
# serving: the cgroup's stats file exists once the daemon has looked at it
i=0
until AR status --json "$CGREL" | jq -e '.cgroups[0].state == "waiting"' >/dev/null; do
	[ $i -lt 1000 ] || fail "reclaimd $pid never reported the cgroup as waiting"
	sleep 0.01
	i=$((i + 1))
done
cpu0=$(awk '{ print $1 }' "/proc/$pid/schedstat")
# SIGHUPs at random moments: each wakes the loop for a rescan (pending ones merge)
n=0
while [ $n -lt 400 ]; do
	kill -HUP "$pid"
	sleep "0.00$(awk -v s="$n" 'BEGIN { srand(s); printf "%d", 1 + rand() * 8 }')"
	n=$((n + 1))
done
cpu1=$(awk '{ print $1 }' "/proc/$pid/schedstat")
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null; do
	[ $i -lt 1000 ] || fail "reclaimd $pid did not exit on SIGTERM"
	sleep 0.01
	i=$((i + 1))
done
paid=$(AR status --json "$CGREL" | jq -r '.cgroups[0].cpu_ns')
used=$((cpu1 - cpu0))
say "process CPU during the SIGHUPs: $used ns; paid from the cgroup's budget since enable: $paid ns"
[ "$used" -gt 0 ] || fail "no CPU measured for reclaimd $pid"
# paid covers the start-up looks too, so it may exceed what was used during the SIGHUPs
assert_le "CPU used by the SIGHUP iterations, 4/5 of it" $((used * 4 / 5)) "$paid"
AR disable "$CGREL" >/dev/null 2>&1 || true
