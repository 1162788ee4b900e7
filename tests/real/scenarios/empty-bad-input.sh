#!/bin/sh
# tiers: v1 v2
# Bad --batch, --to and --timeout values, --kernel with options it cannot honour, the root
# cgroup and a missing cgroup are refused with exit 64 and a reason, and nothing changes:
# the limit reads back the same and the page cache is still charged.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new bad
echo $((256 * 1024 * 1024)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 32 --sync >/dev/null
usage=$(knob "$CG" "$K_USAGE")

unchanged() {
	assert_eq "$1: limit unchanged" "$limit" "$(knob "$CG" "$K_LIMIT")"
	# an empty that ran takes the 32 MiB of cache; a loaded host's own reclaim (or another
	# process's drop_caches) may take a few pages of it, never half
	assert_le "$1: nothing reclaimed" $((usage / 2)) "$(knob "$CG" "$K_USAGE")"
}

for b in 0 -1 -4M abc 12x 1.5x 2G 99999999999999999999 262145 0M ""; do
	assert_status "--batch '$b'" 64 "$MEMCGCTL" empty --batch "$b" "$CGREL"
	echo "$LAST_ERR" | grep -q -- "--batch" || fail "--batch '$b': error does not name --batch: $LAST_ERR"
	unchanged "--batch '$b'"
done
assert_status "--to garbage" 64 "$MEMCGCTL" empty --to 12Q "$CGREL"
echo "$LAST_ERR" | grep -q -- "--to" || fail "error does not name --to: $LAST_ERR"
assert_status "--timeout 0" 64 "$MEMCGCTL" empty --timeout 0 "$CGREL"
assert_status "--timeout garbage" 64 "$MEMCGCTL" empty --timeout soon "$CGREL"
assert_status "--kernel --batch" 64 "$MEMCGCTL" empty --kernel --batch 32 "$CGREL"
assert_status "--kernel --to" 64 "$MEMCGCTL" empty --kernel --to 1M "$CGREL"
assert_status "no cgroup" 64 "$MEMCGCTL" empty
assert_status "two cgroups" 64 "$MEMCGCTL" empty "$CGREL" "$CGREL"
unchanged "option errors"
assert_status "root cgroup" 64 "$MEMCGCTL" empty /
echo "$LAST_ERR" | grep -q "root cgroup" || fail "root refusal says nothing of the root: $LAST_ERR"
assert_status "missing cgroup" 64 "$MEMCGCTL" empty "$CGREL-missing"
if [ "$MCG_CGVER" = 2 ]; then
	assert_status "--kernel on v2" 64 "$MEMCGCTL" empty --kernel "$CGREL"
	echo "$LAST_ERR" | grep -q "force_empty" || fail "--kernel refusal gives no reason: $LAST_ERR"
	unchanged "--kernel on v2"
fi
assert_eq "no journal" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
