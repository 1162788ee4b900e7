#!/bin/sh
# tiers: v1 v2
# A child OOM-killed in a scratch cgroup while record runs: the store holds an oom_kill event
# for the cgroup, counting exactly the kills the kernel counted, at the time of the kill, and
# the charges that hit the limit (v1 failcnt, v2 max events); the recorded oom_kill counter
# after the kill is the kernel's.
set -eu
. "$MCG_TESTLIB"
require_cgroups

oom_kills() {
	if [ "$MCG_CGVER" = 2 ]; then
		awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events"
	else
		awk '$1 == "oom_kill" { print $2; f = 1 } END { if (!f) print "absent" }' "$CG/memory.oom_control"
	fi
}

scratch_new oom
REL=$CGREL
if [ "$MCG_CGVER" = 2 ]; then
	[ -e "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"
	echo 16M >"$CG/memory.max"
	hit=max
else
	echo 16M >"$CG/memory.limit_in_bytes"
	if [ -e "$CG/memory.memsw.limit_in_bytes" ]; then
		# above the limit, so that the memory counter's limit is hit (failcnt) before memsw's
		echo 24M >"$CG/memory.memsw.limit_in_bytes"
	elif [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
		skip "swap without memory.memsw.*: the child would swap, not be OOM-killed"
	fi
	hit=failcnt
fi
k0=$(oom_kills)
[ "$k0" = absent ] && skip "this kernel's memory.oom_control has no oom_kill (before 4.13)"

STORE="$MCG_TMP/store"
record_start "$REL" -d 250ms

TK0=$(now_floor)
set +e
run_in "$CG" "$MCG_LOAD" anon 64 >/dev/null 2>&1
st=$?
set -e
TK1=$(now_ceil)
assert_eq "the child was OOM-killed (SIGKILL)" 137 "$st"
k1=$(oom_kills)
assert_le "the kernel counted a kill" $((k0 + 1)) "$k1"
frames_after "$REL" "$TK1" 4
kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC"

"$MEMCGCTL" dump --store "$STORE" --csv "$REL" >"$MCG_TMP/d.csv"
# event rows: time (ms), event, detail (the count)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["event"] != "" { print substr($1, 1, length($1) - 6), $col["event"], $col["detail"] }' \
	"$MCG_TMP/d.csv" >"$MCG_TMP/ev"
cat "$MCG_TMP/ev"
late=$(frame_after "$REL" "$TK1" 2) # the kill is seen by the second frame after it
TKS=$(frame_since "$REL" "$TK0") # or by the sample in flight when it began
n=$(awk -v a="$TKS" -v b="$late" '$2 == "oom_kill" && $1 + 0 >= a + 0 && $1 + 0 <= b + 0 { n += $3 } END { print n + 0 }' "$MCG_TMP/ev")
assert_eq "oom_kill events count the kernel's kills, at the kill" $((k1 - k0)) "$n"
assert_eq "no oom_kill event elsewhere" "$n" "$(awk '$2 == "oom_kill" { n += $3 } END { print n + 0 }' "$MCG_TMP/ev")"
n=$(awk -v a="$TKS" -v b="$late" -v e="$hit" '$2 == e && $1 + 0 >= a + 0 && $1 + 0 <= b + 0 { n += $3 } END { print n + 0 }' "$MCG_TMP/ev")
assert_le "$hit events at the kill" 1 "$n"
# the recorded counter after the kill is the kernel's
last=$(awk -F, -v c="$REL" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["cgroup"] == c && $col["event"] == "" { v = $col["events_oom_kill"] } END { print v }' "$MCG_TMP/d.csv")
assert_eq "recorded events_oom_kill after the kill" "$k1" "$last"
