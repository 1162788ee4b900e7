#!/bin/sh
# tiers: v1 v2
# Shrinking a cgroup full of page cache (clean, then dirty, then with --timeout): the
# kernel's limit is the target, usage fits under it, and the page cache was reclaimed.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new cache
if [ "$MCG_CGVER" = 2 ]; then FILE=file DIRTY=file_dirty; else FILE=total_cache DIRTY=total_dirty; fi

run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/clean" 96 --sync >/dev/null
assert_le "clean cache charged" 94371840 "$(stat_key "$CG" $FILE)"
assert_status "shrink clean cache to 24M" 0 "$MEMCGCTL" set-limit "$CGREL" 24M
assert_eq "limit" 25165824 "$(knob "$CG" "$K_LIMIT")"
assert_le "usage" "$(knob "$CG" "$K_USAGE")" 25165824
assert_le "page cache reclaimed" "$(stat_key "$CG" $FILE)" 25165824

assert_status "grow again" 0 "$MEMCGCTL" set-limit "$CGREL" 512M
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty" 96 >/dev/null
say "dirty before: $(stat_key "$CG" $DIRTY)"
assert_status "shrink dirty cache to 16M in 8M steps" 0 "$MEMCGCTL" set-limit "$CGREL" 16M --step 8M
assert_eq "limit" 16777216 "$(knob "$CG" "$K_LIMIT")"
assert_le "usage" "$(knob "$CG" "$K_USAGE")" 16777216
assert_le "dirty within the limit" "$(stat_key "$CG" $DIRTY)" 16777216

# a deadline and no --step: the shrink goes in bounded writes (the deadline is checked
# between them, no timer interrupts one) and still reaches the target
assert_status "grow again" 0 "$MEMCGCTL" set-limit "$CGREL" 512M
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/clean2" 192 --sync >/dev/null
assert_status "shrink 192M of cache to 32M with --timeout" 0 "$MEMCGCTL" set-limit "$CGREL" 32M --timeout 60s
assert_eq "limit" 33554432 "$(knob "$CG" "$K_LIMIT")"
assert_le "usage" "$(knob "$CG" "$K_USAGE")" 33554432
[ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)" ] || fail "journal left: $(ls "$MEMCGCTL_RUNDIR/journal")"
ok "no journal left"
