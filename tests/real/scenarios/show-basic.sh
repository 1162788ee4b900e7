#!/bin/sh
# tiers: v1 v2
# show and list report what the kernel's files say, value for value, for a scratch cgroup
# holding page cache (dirty and clean) and anon memory; absent counters are null.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new show
echo $((256 * 1024 * 1024)) >"$CG/$K_LIMIT"
spawn_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty" 24 --hold
dirty_pid=$SPAWN_PID
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/clean" 16 --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" anon 8 --hold

# usage moves a little while the kernel settles: take it around memcgctl's read
before=$(knob "$CG" "$K_USAGE")
"$MEMCGCTL" show --json "$CGREL" >"$MCG_TMP/show.json"
after=$(knob "$CG" "$K_USAGE")
json=$(cat "$MCG_TMP/show.json")

assert_eq "path" "$CGREL" "$(echo "$json" | json .path)"
assert_eq "version" "$MCG_CGVER" "$(echo "$json" | json .version)"
assert_eq "limit" $((256 * 1024 * 1024)) "$(echo "$json" | json .limit)"
usage=$(echo "$json" | json .usage)
lo=$before; hi=$after; [ "$lo" -gt "$hi" ] && { lo=$after; hi=$before; }
[ "$usage" -ge "$lo" ] && [ "$usage" -le "$hi" ] || fail "usage $usage outside [$lo, $hi] read around it"
ok "usage $usage within [$lo, $hi]"

# Every memory.stat key the kernel printed is in stat_raw with the same value
# (counters that cannot move while our children hold still).
for key in $(awk '{ print $1 }' "$CG/memory.stat"); do
	v=$(echo "$json" | jq -r --arg k "$key" '.stat_raw[$k]')
	[ "$v" != null ] || fail "memory.stat key $key missing from stat_raw"
done
ok "every memory.stat key is in stat_raw"

if [ "$MCG_CGVER" = 2 ]; then
	file_k=$(stat_key "$CG" file); anon_k=$(stat_key "$CG" anon); dirty_k=$(stat_key "$CG" file_dirty)
	assert_eq "high" "max" "$(echo "$json" | json .high)"
	assert_eq "soft_limit (absent on v2)" null "$(echo "$json" | json .soft_limit)"
	assert_eq "failcnt (absent on v2)" null "$(echo "$json" | json .failcnt)"
	assert_eq "pgpgin (absent on v2)" null "$(echo "$json" | json .stat.pgpgin)"
	assert_eq "events_max" "$(awk '$1 == "max" { print $2 }' "$CG/memory.events")" "$(echo "$json" | json .events_max)"
else
	file_k=$(stat_key "$CG" total_cache); anon_k=$(stat_key "$CG" total_rss); dirty_k=$(stat_key "$CG" total_dirty)
	assert_eq "high (absent on v1)" null "$(echo "$json" | json .high)"
	assert_eq "pgscan (absent on v1)" null "$(echo "$json" | json .stat.pgscan)"
	assert_eq "soft_limit" max "$(echo "$json" | json .soft_limit)"
	assert_eq "failcnt" "$(knob "$CG" memory.failcnt)" "$(echo "$json" | json .failcnt)"
fi
assert_near "file" "$file_k" "$(echo "$json" | json .stat.file)" 2 1048576
assert_near "anon" "$anon_k" "$(echo "$json" | json .stat.anon)" 2 1048576
assert_near "file_dirty" "$dirty_k" "$(echo "$json" | json .stat.file_dirty)" 5 1048576
# the page cache we made is there: 24 MiB dirty (unless writeback already ran) + 16 MiB clean
assert_le "file >= 40 MiB" $((40 * 1024 * 1024 - 1048576)) "$(echo "$json" | json .stat.file)"
assert_le "anon >= 8 MiB" $((8 * 1024 * 1024)) "$(echo "$json" | json .stat.anon)"
assert_eq "nr_procs" 2 "$(echo "$json" | json .nr_procs)"

# list: the same cgroup, the same limit, percent of limit computed from usage
"$MEMCGCTL" list --json "$CGREL" >"$MCG_TMP/list.json"
assert_eq "list rows" 1 "$(jq length "$MCG_TMP/list.json")"
assert_eq "list limit" $((256 * 1024 * 1024)) "$(jq -r '.[0].limit' "$MCG_TMP/list.json")"
assert_eq "list path" "$CGREL" "$(jq -r '.[0].path' "$MCG_TMP/list.json")"
pct=$(jq -r '.[0].percent' "$MCG_TMP/list.json")
lusage=$(jq -r '.[0].usage' "$MCG_TMP/list.json")
assert_near "list percent" "$(awk -v u="$lusage" 'BEGIN { printf "%.2f", 100 * u / (256 * 1048576) }')" "$pct" 1 0.02

# a child cgroup appears in the tree under its parent, at depth 1
parent=$CG parentrel=$CGREL
scratch_new child "$parent"
"$MEMCGCTL" list --json "$parentrel" >"$MCG_TMP/list.json"
assert_eq "list rows with child" 2 "$(jq length "$MCG_TMP/list.json")"
assert_eq "child path" "$parentrel/child" "$(jq -r '.[1].path' "$MCG_TMP/list.json")"
assert_eq "child depth" 1 "$(jq -r '.[1].depth' "$MCG_TMP/list.json")"
"$MEMCGCTL" list --depth 0 --json "$parentrel" >"$MCG_TMP/list.json"
assert_eq "--depth 0 rows" 1 "$(jq length "$MCG_TMP/list.json")"

# pid:N names the cgroup of a process
assert_eq "pid:N" "$parentrel" "$("$MEMCGCTL" show --json "pid:$dirty_pid" | json .path)"
# the absolute cgroupfs path works too
assert_eq "absolute path" "$parentrel" "$("$MEMCGCTL" show --json "$parent" | json .path)"
# text output has the limit in human units
"$MEMCGCTL" show "$parentrel" | grep -q '^  limit  *256 MiB$' || fail "text show has no '256 MiB' limit line"
ok "text show"
