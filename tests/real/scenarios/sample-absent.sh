#!/bin/sh
# tiers: v1
# On v1 every memory cgroup below the root has the same files: one missing from one of them
# (memory.pressure on a v1 kernel) is missing from all, and the sampler stops opening it after
# the first (it was tried once a cgroup: 1,006 of a one-shot export's 14,058 openat at 1,000
# cgroups). Counted with strace: a one-shot export and a two-sample top over 20 cgroups open it
# at most once, and the files that are there are still read for every cgroup.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v strace >/dev/null || skip "no strace to count the openat calls"
# (LeakSanitizer cannot run under ptrace: no leak check in the traced runs)
[ -e "$MCG_CGROOT/memory.pressure" ] && skip "this v1 kernel has memory.pressure"

scratch_new absent
i=0
while [ $i -lt 20 ]; do
	mkdir "$CG/c$i" || fail "cannot create $CG/c$i"
	echo "$CG/c$i" >>"$MCG_CLEAN_CGS"
	i=$((i + 1))
done
# count NAME FILE: openat calls of NAME in strace's FILE
count() { grep -c "openat(.*\"$1\"" "$2" || true; }
ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o "$MCG_TMP/export.st" "$MEMCGCTL" export "$CGREL" >"$MCG_TMP/export.txt" ||
	fail "export failed"
assert_le "export's openat of memory.pressure" "$(count memory.pressure "$MCG_TMP/export.st")" 1
assert_le "export's openat of memory.stat (one a cgroup)" 21 "$(count memory.stat "$MCG_TMP/export.st")"
assert_eq "export's rows" 21 "$(grep -c '^memcgctl_usage_bytes{' "$MCG_TMP/export.txt")"
ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o "$MCG_TMP/top.st" "$MEMCGCTL" top -b -n 2 -d 0.05 "$CGREL" \
	>"$MCG_TMP/top.txt" || fail "top failed"
assert_le "top's openat of memory.pressure" "$(count memory.pressure "$MCG_TMP/top.st")" 1
assert_le "top's openat of memory.usage_in_bytes (one a cgroup)" 21 \
	"$(count memory.usage_in_bytes "$MCG_TMP/top.st")"
ok "a file missing on v1 is opened once, not once a cgroup"
