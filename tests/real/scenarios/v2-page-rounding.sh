#!/bin/sh
# tiers: v2
# Limits that are not a page multiple are stored in whole pages, rounded down (4097 and
# 8191 read back as 4096); "max" reads back as "max"; a fraction is EINVAL. memcgctl reads
# every limit back after writing it because of this.
set -eu
. "$MCG_TESTLIB"
require_cgroups
[ -x "${MCG_WRITE:-}" ] || fail "MCG_WRITE (the mcg-write helper) is not set"
page=$(getconf PAGESIZE 2>/dev/null || echo 4096)
[ "$page" = 4096 ] || skip "page size is $page, the expectations assume 4096"
scratch_new round

for knob_name in memory.max memory.high memory.low memory.min memory.swap.max; do
	[ -e "$CG/$knob_name" ] || continue
	for pair in 4097:4096 8191:4096 1k:0 3M:3145728; do
		in=${pair%%:*}
		want=${pair#*:}
		assert_eq "$knob_name write $in" ok "$("$MCG_WRITE" "$CG/$knob_name" "$in" || true)"
		assert_eq "$knob_name $in reads back" "$want" "$(knob "$CG" "$knob_name")"
	done
	assert_eq "$knob_name write 1.5G" EINVAL "$("$MCG_WRITE" "$CG/$knob_name" 1.5G || true)"
	if [ "$knob_name" = memory.max ] || [ "$knob_name" = memory.high ] ||
		[ "$knob_name" = memory.swap.max ]; then
		assert_eq "$knob_name write max" ok "$("$MCG_WRITE" "$CG/$knob_name" max || true)"
		assert_eq "$knob_name max reads back" max "$(knob "$CG" "$knob_name")"
	fi
done
