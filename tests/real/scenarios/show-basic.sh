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
anon_pid=$SPAWN_PID

# usage moves a little while the kernel settles: take it around memcgctl's read
# (and so do the memory.stat counters: writeback and khugepaged run meanwhile)
cp "$CG/memory.stat" "$MCG_TMP/stat.before"
before=$(knob "$CG" "$K_USAGE")
"$MEMCGCTL" show --json "$CGREL" >"$MCG_TMP/show.json"
after=$(knob "$CG" "$K_USAGE")
cp "$CG/memory.stat" "$MCG_TMP/stat.after"
# snap_key KEY: "BEFORE AFTER" values of a memory.stat key around memcgctl's read
snap_key() { echo "$(stat_key_in "$MCG_TMP/stat.before" "$1") $(stat_key_in "$MCG_TMP/stat.after" "$1")"; }
stat_key_in() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "absent" }' "$1"; }
# assert_around WHAT "BEFORE AFTER" ACTUAL PERCENT SLACK: ACTUAL within the two, widened
assert_around() {
	set -- "$1" "${2% *}" "${2#* }" "$3" "$4" "$5"
	awk -v a="$2" -v b="$3" -v x="$4" -v p="$5" -v s="$6" 'BEGIN {
		lo = a < b ? a : b; hi = a < b ? b : a
		exit !(x >= lo - lo * p / 100 - s && x <= hi + hi * p / 100 + s) }' ||
		fail "$1: $4 not within [$2, $3] (read around it) +- $5% + $6"
	ok "$1 = $4 (read around it: $2, $3)"
}
json=$(cat "$MCG_TMP/show.json")

assert_eq "path" "$CGREL" "$(echo "$json" | json .cgroup)"
assert_eq "version" "$MCG_CGVER" "$(echo "$json" | json .version)"
assert_eq "limit" $((256 * 1024 * 1024)) "$(echo "$json" | json .limit_bytes)"
usage=$(echo "$json" | json .usage_bytes)
lo=$before; hi=$after; [ "$lo" -gt "$hi" ] && { lo=$after; hi=$before; }
[ "$usage" -ge "$lo" ] && [ "$usage" -le "$hi" ] || fail "usage $usage outside [$lo, $hi] read around it"
ok "usage $usage within [$lo, $hi]"

# Every memory.stat key the kernel printed is in stat_raw with the same value
# (counters that cannot move while our children hold still).
missing=$(awk '{ print $1 }' "$MCG_TMP/stat.after" |
	jq -R -r --slurpfile j "$MCG_TMP/show.json" 'select($j[0].stat_raw[.] == null)')
[ -z "$missing" ] || fail "memory.stat keys missing from stat_raw: $missing"
ok "every memory.stat key is in stat_raw"

if [ "$MCG_CGVER" = 2 ]; then
	file_k=$(snap_key file); anon_k=$(snap_key anon); dirty_k=$(snap_key file_dirty)
	assert_eq "high (unlimited: null)" null "$(echo "$json" | json '.high_bytes | tostring')"
	assert_eq "high present" true "$(echo "$json" | json 'has("high_bytes")')"
	assert_eq "soft_limit (absent on v2: left out)" false "$(echo "$json" | json 'has("soft_limit_bytes")')"
	assert_eq "failcnt (absent on v2: left out)" false "$(echo "$json" | json 'has("failcnt")')"
	assert_eq "pgpgin (absent on v2)" null "$(echo "$json" | json .stat.pgpgin)"
	assert_eq "events_max" "$(awk '$1 == "max" { print $2 }' "$CG/memory.events")" "$(echo "$json" | json .events_max)"
else
	file_k=$(snap_key total_cache); anon_k=$(snap_key total_rss); dirty_k=$(snap_key total_dirty)
	assert_eq "high (absent on v1: left out)" false "$(echo "$json" | json 'has("high_bytes")')"
	assert_eq "pgscan (absent on v1)" null "$(echo "$json" | json .stat.pgscan)"
	assert_eq "soft_limit (unlimited: null)" true "$(echo "$json" | json 'has("soft_limit_bytes") and .soft_limit_bytes == null')"
	assert_eq "failcnt" "$(knob "$CG" memory.failcnt)" "$(echo "$json" | json .failcnt)"
fi
assert_around "file" "$file_k" "$(echo "$json" | json .stat.file_bytes)" 0 0
assert_around "anon" "$anon_k" "$(echo "$json" | json .stat.anon_bytes)" 0 0
assert_around "file_dirty" "$dirty_k" "$(echo "$json" | json .stat.dirty_bytes)" 0 0
# the page cache we made is there: 24 MiB dirty (unless writeback already ran) + 16 MiB clean
assert_le "file >= 40 MiB" $((40 * 1024 * 1024 - 1048576)) "$(echo "$json" | json .stat.file_bytes)"
assert_le "anon >= 8 MiB" $((8 * 1024 * 1024)) "$(echo "$json" | json .stat.anon_bytes)"
assert_eq "nr_procs" 2 "$(echo "$json" | json .nr_procs)"

# list: the same cgroup, the same limit, percent of limit computed from usage
"$MEMCGCTL" list --json "$CGREL" >"$MCG_TMP/list.json"
assert_eq "list rows" 1 "$(jq '.cgroups | length' "$MCG_TMP/list.json")"
assert_eq "list limit" $((256 * 1024 * 1024)) "$(jq -r '.cgroups[0].limit_bytes' "$MCG_TMP/list.json")"
assert_eq "list path" "$CGREL" "$(jq -r '.cgroups[0].cgroup' "$MCG_TMP/list.json")"
pct=$(jq -r '.cgroups[0].usage_percent' "$MCG_TMP/list.json")
lusage=$(jq -r '.cgroups[0].usage_bytes' "$MCG_TMP/list.json")
assert_near "list percent" "$(awk -v u="$lusage" 'BEGIN { printf "%.2f", 100 * u / (256 * 1048576) }')" "$pct" 1 0.02

parent=$CG parentrel=$CGREL
# pid:N names the cgroup of a process
assert_eq "pid:N" "$parentrel" "$("$MEMCGCTL" show --json "pid:$dirty_pid" | json .cgroup)"
# the absolute cgroupfs path works too
assert_eq "absolute path" "$parentrel" "$("$MEMCGCTL" show --json "$parent" | json .cgroup)"
# text output has the limit in human units
"$MEMCGCTL" show "$parentrel" | grep -q '^  limit  *256 MiB$' || fail "text show has no '256 MiB' limit line"
ok "text show"

# a child cgroup appears in the tree under its parent, at depth 1. On v2 the parent must
# have no processes of its own before it can enable memory for children (EBUSY otherwise).
stop_pid "$dirty_pid"
stop_pid "$anon_pid"
scratch_new child "$parent"
"$MEMCGCTL" list --json -o +depth "$parentrel" >"$MCG_TMP/list.json"
assert_eq "list rows with child" 2 "$(jq '[.. | objects | select(has("cgroup"))] | length' "$MCG_TMP/list.json")"
assert_eq "child path" "$parentrel/child" "$(jq -r '.cgroups[0].children[0].cgroup' "$MCG_TMP/list.json")"
assert_eq "child depth" 1 "$(jq -r '.cgroups[0].children[0].depth' "$MCG_TMP/list.json")"
"$MEMCGCTL" list --depth 0 --json "$parentrel" >"$MCG_TMP/list.json"
assert_eq "--depth 0 rows" 1 "$(jq '[.. | objects | select(has("cgroup"))] | length' "$MCG_TMP/list.json")"

