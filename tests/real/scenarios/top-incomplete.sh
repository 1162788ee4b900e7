#!/bin/sh
# tiers: v1 v2
# top -b and --json say when a sample could not read every cgroup for want of file
# descriptors (snapshot's incomplete: export already said it): a warning on standard error
# naming how many, and "incomplete" in the JSON document; with descriptors to spare, neither.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new incomplete
for i in 1 2 3 4 5 6 7 8; do mkdir "$CG/c$i"; done
"$MEMCGCTL" top -b -n 1 "$CGREL" >"$MCG_TMP/whole.out" 2>"$MCG_TMP/whole.err"
rows() { sed -n '/^CGROUP/,$p' "$1" | grep -c "^$CGREL"; }
assert_eq "top -b with descriptors to spare: rows" 9 "$(rows "$MCG_TMP/whole.out")"
[ ! -s "$MCG_TMP/whole.err" ] || fail "top -b with descriptors to spare said: $(cat "$MCG_TMP/whole.err")"
"$MEMCGCTL" --json top -b -n 1 "$CGREL" >"$MCG_TMP/whole.json"
! grep -q '"incomplete"' "$MCG_TMP/whole.json" || fail "a whole sample has \"incomplete\""
# the hard limit too: top raises its soft limit to the hard one
st=0
(ulimit -n 12 && exec "$MEMCGCTL" top -b -n 2 -d 0.05 "$CGREL") >"$MCG_TMP/low.out" \
	2>"$MCG_TMP/low.err" || st=$?
assert_eq "top -b under ulimit -n 12: exit" 0 "$st"
grep -Eq "^memcgctl: warning: sample 1 is incomplete: [0-9]+ cgroup\(s\) could not be read" \
	"$MCG_TMP/low.err" || fail "top -b under ulimit -n 12 said: $(cat "$MCG_TMP/low.err")"
# once for the same number, not at every sample
assert_eq "top -b under ulimit -n 12: warnings" 1 "$(grep -c incomplete "$MCG_TMP/low.err")"
st=0
(ulimit -n 12 && exec "$MEMCGCTL" --json top -b -n 1 "$CGREL") >"$MCG_TMP/low.json" \
	2>"$MCG_TMP/low.jerr" || st=$?
assert_eq "top --json under ulimit -n 12: exit" 0 "$st"
n=$(sed -n 's/.*"incomplete":\([0-9]*\).*/\1/p' "$MCG_TMP/low.json")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "top --json under ulimit -n 12: no \"incomplete\": $(head -c 300 "$MCG_TMP/low.json")"
grep -q "incomplete: $n cgroup(s)" "$MCG_TMP/low.jerr" || fail "top --json: the warning: $(cat "$MCG_TMP/low.jerr")"
ok "out of descriptors: top -b and --json say how many cgroups are missing ($n)"
