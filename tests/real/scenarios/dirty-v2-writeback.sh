#!/bin/sh
# tiers: v2
# cgroup v2 only (the memcg writeback domain): with a slow (throttled) disk, a writer in a
# 64 MiB cgroup pushes it from "below background" to "background writeback" (or further),
# and writeback pages are seen, in memcgctl's samples and in the kernel's memory.stat.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ "$MCG_CGVER" = 2 ] || skip "the memcg writeback domain exists only on cgroup v2 (this is v$MCG_CGVER)"

scratch_new wb
echo $((64 * 1024 * 1024)) >"$CG/memory.max"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/small" 1 >/dev/null

k1=$(stat_key "$CG" file_dirty)
"$MEMCGCTL" dirty --json "$CGREL" >"$MCG_TMP/before.json"
k2=$(stat_key "$CG" file_dirty)
got=$(json '.cgroups[0].file_dirty' <"$MCG_TMP/before.json")
lo=$k1 hi=$k2
[ "$lo" -gt "$hi" ] && { lo=$k2; hi=$k1; }
assert_le "file_dirty bounded below by the kernel's" "$lo" "$got"
assert_le "file_dirty bounded above by the kernel's" "$got" "$hi"
[ "$(json .global.cgroup_writeback <"$MCG_TMP/before.json")" = true ] ||
	skip "no cgroup writeback here (memory and io must both be on cgroup v2, see /proc/cgroups)"
assert_eq "domain state with 1 MiB dirty" "below background" \
	"$(json '.cgroups[0].memcg_domain.state' <"$MCG_TMP/before.json")"
bg=$(json '.cgroups[0].memcg_domain.background_threshold' <"$MCG_TMP/before.json")
[ "$bg" -gt 0 ] || fail "memcg background threshold $bg"
ok "memcg background threshold $bg"

# Write three times the background threshold; the writer is throttled, not killed.
mib=$((bg * 3 / 1048576 + 4))
SPAWN_NOWAIT=1 spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/big" $mib --hold
writer=$SPAWN_PID

# The kernel's own view, sampled alongside memcgctl's.
(
	i=0
	while [ $i -lt 50 ]; do
		stat_key "$CG" file_writeback
		sleep 0.1
		i=$((i + 1))
	done
) >"$MCG_TMP/kwb" &
sampler=$!
echo "$sampler" >>"$MCG_CLEAN_PIDS"
"$MEMCGCTL" dirty --watch 200ms --count 25 --json "$CGREL" >"$MCG_TMP/w.jsonl"
wait "$sampler" 2>/dev/null || true
stop_pid "$writer"

states=$(jq -r 'select(.path != null) | .memcg_domain.state' <"$MCG_TMP/w.jsonl" | sort -u | tr '\n' ',')
say "domain states seen: $states"
echo "$states" | grep -Eq "background writeback|throttled|at the limit" ||
	fail "the domain never left 'below background' writing $mib MiB (bg threshold $bg): $states"
ok "the domain moved past the background threshold"
maxwb=$(jq -r 'select(.path != null) | .file_writeback' <"$MCG_TMP/w.jsonl" | sort -n | tail -1)
kmax=$(sort -n "$MCG_TMP/kwb" | tail -1)
[ "$maxwb" -gt 0 ] || fail "memcgctl never saw writeback pages"
[ "$kmax" -gt 0 ] || fail "the kernel's file_writeback stayed 0 (is the disk throttled?)"
ok "writeback seen: memcgctl up to $maxwb, the kernel's memory.stat up to $kmax"
wf=$(jq -r 'select(.path != null and .writeback_for_s != null) | .writeback_for_s' <"$MCG_TMP/w.jsonl" | tail -1)
[ -n "$wf" ] || fail "no writeback_for_s while writing back"
ok "time since writeback began: ${wf}s"
