#!/bin/sh
# tiers: v1 v2
# top -b follows the tree while it runs: a child cgroup created, then removed, another created,
# and a limit written by someone else, each show up in the next samples as the kernel has them.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new tree
parent=$CG parentrel=$CGREL
echo $((64 * 1024 * 1024)) >"$parent/$K_LIMIT"
"$MEMCGCTL" --json top -b -n 16 -d 0.25 "$parentrel" >"$MCG_TMP/top.json" &
toppid=$!
echo "$toppid" >>"$MCG_CLEAN_PIDS"
# each change once top has printed the samples before it (one JSON line per sample, flushed):
# the tree changes under a running top at whatever speed either runs
# samples_with N [PATH]: top has printed N samples (the last of them listing PATH)
samples_with() {
	kill -0 "$toppid" 2>/dev/null || [ "$(wc -l <"$MCG_TMP/top.json")" -ge "$1" ] ||
		fail "top ended before sample $1"
	[ "$(wc -l <"$MCG_TMP/top.json")" -ge "$1" ] || return 1
	[ -z "${2:-}" ] || tail -n 1 "$MCG_TMP/top.json" | grep -qF "\"$2\""
}
wait_until "top's first two samples" 60 samples_with 2
scratch_new a "$parent"
a=$CG
wait_until "top's sample with $CGREL" 60 samples_with 3 "$CGREL"
rmdir "$a"
scratch_new b "$parent"
b=$CG
echo $((48 * 1024 * 1024)) >"$parent/$K_LIMIT"
wait "$toppid" || fail "top exited with $?"

f="$MCG_TMP/top.json"
assert_eq "samples" 16 "$(wc -l <"$f" | tr -d ' ')"
paths() { jq -r "select(.sample == $1) | [.cgroups[].cgroup] | join(\" \")" "$f"; }
assert_eq "first sample" "$parentrel" "$(paths 1)"
assert_eq "last sample" "$parentrel $parentrel/b" "$(paths 16)"
seen_a=$(jq -r "select([.cgroups[].cgroup] | index(\"$parentrel/a\")) | .sample" "$f" | head -1)
[ -n "$seen_a" ] || fail "child a never appeared"
ok "child a appeared at sample $seen_a"
gone_a=$(jq -r "select(.sample > $seen_a and ([.cgroups[].cgroup] | index(\"$parentrel/a\") | not)) | .sample" "$f" | head -1)
[ -n "$gone_a" ] || fail "child a never vanished"
ok "child a vanished at sample $gone_a"
# a new cgroup has values but no rates in its first sample
first_b=$(jq -c "select([.cgroups[].cgroup] | index(\"$parentrel/b\")) | .cgroups[1]" "$f" | head -1)
assert_eq "new child's first reclaim rate" null "$(echo "$first_b" | jq -r .reclaim_bytes_per_s)"
klim=$(knob "$b" "$K_LIMIT")
[ "$klim" = "$V1_MAX" ] || [ "$klim" = max ] && klim=null
assert_eq "new child's limit (unlimited reads as null)" "$klim" "$(echo "$first_b" | jq -r .limit_bytes)"
# the limit written while top ran: the last sample has the kernel's new value
assert_eq "kernel limit" $((48 * 1024 * 1024)) "$(knob "$parent" "$K_LIMIT")"
assert_eq "top's last limit" $((48 * 1024 * 1024)) \
	"$(jq -r 'select(.sample == 16) | .cgroups[0].limit_bytes' "$f")"
assert_eq "top's first limit" $((64 * 1024 * 1024)) \
	"$(jq -r 'select(.sample == 1) | .cgroups[0].limit_bytes' "$f")"
