#!/bin/sh
# tiers: v1 v2
# set-limit grows and shrinks the limit (absolute, relative, page-rounded, max), with and
# without a swap limit (v2 memory.swap.max, v1 memsw = limit + swap), read back from the kernel.
set -eu
. "$MCG_TESTLIB"
require_cgroups
scratch_new grow
# the kernel's spelling of "no limit"
if [ "$MCG_CGVER" = 2 ]; then UNLIM=max; else UNLIM=$V1_MAX; fi
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/f" 32 --sync >/dev/null

assert_status "set 256M" 0 "$MEMCGCTL" set-limit "$CGREL" 256M
assert_eq "limit after 256M" 268435456 "$(knob "$CG" "$K_LIMIT")"
echo "$LAST_OUT" | grep -q "$K_LIMIT max -> 256 MiB" || fail "output: $LAST_OUT"
assert_status "grow by +64M" 0 "$MEMCGCTL" set-limit "$CGREL" +64M
assert_eq "limit after +64M" 335544320 "$(knob "$CG" "$K_LIMIT")"
assert_status "shrink by -128M" 0 "$MEMCGCTL" set-limit "$CGREL" -128M
assert_eq "limit after -128M" 201326592 "$(knob "$CG" "$K_LIMIT")"
assert_status "shrink below usage to 16M" 0 "$MEMCGCTL" set-limit "$CGREL" 16M
assert_eq "limit after 16M" 16777216 "$(knob "$CG" "$K_LIMIT")"
assert_le "usage within 16M" "$(knob "$CG" "$K_USAGE")" 16777216
# not a page multiple: parsed to whole pages, the kernel's value reported
assert_status "set 100000000 bytes" 0 "$MEMCGCTL" --raw set-limit "$CGREL" 100000000
assert_eq "page-rounded limit" 99999744 "$(knob "$CG" "$K_LIMIT")"
echo "$LAST_OUT" | grep -q -- "-> 99999744" || fail "output: $LAST_OUT"
# JSON reports the value read back
assert_status "json" 0 "$MEMCGCTL" set-limit "$CGREL" 64M --json
assert_eq "json status" ok "$(echo "$LAST_OUT" | json .result)"
assert_eq "json after = kernel" "$(knob "$CG" "$K_LIMIT")" \
	"$(echo "$LAST_OUT" | json "[.plan[] | select(.knob == \"$K_LIMIT\")][0].after_bytes")"
assert_status "back to max" 0 "$MEMCGCTL" set-limit "$CGREL" max
assert_eq "limit after max" "$UNLIM" "$(knob "$CG" "$K_LIMIT")"

if [ "$MCG_CGVER" = 2 ]; then
	[ -f "$CG/memory.swap.max" ] || { say "no memory.swap.max: swap part skipped"; exit 0; }
	assert_status "limit and swap" 0 "$MEMCGCTL" set-limit "$CGREL" 64M --swap 32M
	assert_eq "memory.max" 67108864 "$(knob "$CG" memory.max)"
	assert_eq "memory.swap.max" 33554432 "$(knob "$CG" memory.swap.max)"
	assert_status "shrink with swap 0" 0 "$MEMCGCTL" set-limit "$CGREL" 48M --swap 0
	assert_eq "memory.max" 50331648 "$(knob "$CG" memory.max)"
	assert_eq "memory.swap.max" 0 "$(knob "$CG" memory.swap.max)"
	assert_status "high and low" 0 "$MEMCGCTL" set-limit "$CGREL" 128M --high 96M --low 8M --min 4M
	assert_eq "memory.high" 100663296 "$(knob "$CG" memory.high)"
	assert_eq "memory.low" 8388608 "$(knob "$CG" memory.low)"
	assert_eq "memory.min" 4194304 "$(knob "$CG" memory.min)"
	exit 0
fi
[ -f "$CG/memory.memsw.limit_in_bytes" ] || { say "no memsw accounting: swap part skipped"; exit 0; }
# grow from unlimited with a swap allowance: memsw must be raised before the limit
assert_status "limit and swap" 0 "$MEMCGCTL" set-limit "$CGREL" 64M --swap 32M
assert_eq "limit" 67108864 "$(knob "$CG" memory.limit_in_bytes)"
assert_eq "memsw = limit + swap" 100663296 "$(knob "$CG" memory.memsw.limit_in_bytes)"
# growing past the memsw limit keeps the allowance (memsw first, or the kernel says EINVAL)
assert_status "grow to 256M" 0 "$MEMCGCTL" set-limit "$CGREL" 256M
assert_eq "limit" 268435456 "$(knob "$CG" memory.limit_in_bytes)"
assert_eq "memsw keeps the allowance" 301989888 "$(knob "$CG" memory.memsw.limit_in_bytes)"
# shrinking below the old limit: limit first, then memsw
assert_status "shrink to 48M, swap 0" 0 "$MEMCGCTL" set-limit "$CGREL" 48M --swap 0
assert_eq "limit" 50331648 "$(knob "$CG" memory.limit_in_bytes)"
assert_eq "memsw = limit" 50331648 "$(knob "$CG" memory.memsw.limit_in_bytes)"
assert_le "usage within 48M" "$(knob "$CG" memory.usage_in_bytes)" 50331648
assert_status "soft limit" 0 "$MEMCGCTL" set-limit "$CGREL" --soft 32M
assert_eq "soft limit" 33554432 "$(knob "$CG" memory.soft_limit_in_bytes)"
assert_eq "limit kept" 50331648 "$(knob "$CG" memory.limit_in_bytes)"
assert_status "all back to max" 0 "$MEMCGCTL" set-limit "$CGREL" max --swap max
assert_eq "limit" "$V1_MAX" "$(knob "$CG" memory.limit_in_bytes)"
assert_eq "memsw" "$V1_MAX" "$(knob "$CG" memory.memsw.limit_in_bytes)"
