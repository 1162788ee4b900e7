#!/bin/sh
# sweep.sh CGROOT: after the real-v1 tier (a ctest FIXTURES_CLEANUP), remove the scratch
# cgroups of scenarios that cannot clean up after themselves: a scenario that ctest killed at
# its TIMEOUT never runs its EXIT trap. Only this tier's own prefix (memcgctl-test-PID-,
# tests/real/lib.sh), only when that shell PID is gone, only cgroups with no task left in them;
# a leftover with tasks is reported, not touched. It says what it found and exits 0: the
# scenario that leaked has already failed (a timeout), or warned (mcg_cleanup).
set -u
root=${1:-/sys/fs/cgroup/memory}
for d in "$root"/memcgctl-test-[0-9]*; do
	[ -d "$d" ] || continue
	base=${d##*/}
	pid=${base#memcgctl-test-}
	pid=${pid%%-*}
	case $pid in '' | *[!0-9]*) continue ;; esac
	kill -0 "$pid" 2>/dev/null && continue # its scenario still runs
	busy=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | head -1)
	if [ -n "$busy" ]; then
		echo "sweep: left $d: it still holds tasks (e.g. pid $busy)"
		continue
	fi
	find "$d" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
	if rmdir "$d" 2>/dev/null; then
		echo "sweep: removed $d, left by scenario shell $pid"
	else
		echo "sweep: could not remove $d"
	fi
done
exit 0
