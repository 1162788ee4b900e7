#!/bin/sh
# tiers: v1
# A cgroup that had pages and was emptied (its task gone, its file removed, its cache dropped by force_empty)
# reads in list --json what the kernel's memory.stat says: a one-shot skips memory.stat for a
# cgroup whose usage reads 0 (its amounts are 0), so this checks the shortcut against the file;
# the one-shot export, which asks for memory.stat's event counters (not 0 for an emptied
# cgroup), still gives the file's pgpgin.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new emptied
G="$CG/gone"
mkdir "$G" || fail "cannot create $G"
echo "$G" >>"$MCG_CLEAN_CGS"
run_in "$G" "$MCG_LOAD" write "$MCG_DATA/cache" 8 --sync >/dev/null
[ "$(knob "$G" "$K_USAGE")" -gt 0 ] || fail "the child's page cache is not charged to $G"
[ "$(stat_key "$G" total_cache)" -gt 0 ] || fail "memory.stat of $G shows no cache"
# emptied: its task is gone (run_in waited for it); the file removed (its inode, charged as
# kernel memory, goes with it: force_empty reclaims only pages) and the cache dropped
rm -f "$MCG_DATA/cache"
emptied() {
	echo 0 >"$G/memory.force_empty" 2>/dev/null || true
	[ "$(knob "$G" "$K_USAGE")" = 0 ]
}
wait_until "usage of $G at 0 after force_empty" 60 emptied
# memory.stat's per-CPU counts are flushed lazily: wait for the file to say so too
stat_empty() { [ "$(stat_key "$G" total_cache)" = 0 ] && [ "$(stat_key "$G" total_rss)" = 0 ]; }
wait_until "memory.stat of $G at 0" 30 stat_empty

"$MEMCGCTL" --json list --flat -o cgroup,usage,anon,file,dirty,wback,shmem "$CGREL" \
	>"$MCG_TMP/list.json" || fail "list failed"
row() { jq -r --arg p "$CGREL/gone" ".cgroups[] | select(.cgroup == \$p) | .$1" "$MCG_TMP/list.json"; }
assert_eq "usage" 0 "$(row usage_bytes)"
assert_eq "anon" "$(stat_key "$G" total_rss)" "$(row anon_bytes)"
assert_eq "file" "$(stat_key "$G" total_cache)" "$(row file_bytes)"
assert_eq "dirty" "$(stat_key "$G" total_dirty)" "$(row dirty_bytes)"
assert_eq "writeback" "$(stat_key "$G" total_writeback)" "$(row writeback_bytes)"
assert_eq "shmem" "$(stat_key "$G" total_shmem)" "$(row shmem_bytes)"
# the parent holds nothing either (its usage counts the child's)
assert_eq "parent file" "$(stat_key "$CG" total_cache)" \
	"$(jq -r --arg p "$CGREL" '.cgroups[] | select(.cgroup == $p) | .file_bytes' "$MCG_TMP/list.json")"

# the counters of an emptied cgroup are not 0: export reads memory.stat for them
"$MEMCGCTL" export "$CGREL" >"$MCG_TMP/export.txt" || fail "export failed"
in=$(stat_key "$G" total_pgpgin)
[ "$in" -gt 0 ] || fail "total_pgpgin of $G is 0 after 8 MiB of cache"
assert_eq "pgpgin" "$in" "$(awk -v c="memcgctl_pgpgin_total{cgroup=\"$CGREL/gone\"}" '$1 == c { print $2 }' "$MCG_TMP/export.txt")"
ok "an emptied cgroup reads as its memory.stat says"
