#!/bin/sh
# tiers: v1 v2
# Another writer changes the limit at a random moment of a size probe: on v1 (where size
# steps the limit) the probe stops with exit 3 and their value stays; on v2 (memory.reclaim,
# no limit written) the probe goes on and their memory.high stays. No OOM kill, no journal.
set -eu
. "$MCG_TESTLIB"
require_cgroups

if [ "$MCG_CGVER" = 2 ]; then HOT=16 COLD=48; else HOT=32 COLD=128; fi
MIB=1048576

scratch_new conflict
[ "$MCG_CGVER" = 1 ] && echo $((1024 * MIB)) >"$CG/$K_LIMIT"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot" $HOT --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" loop "$MCG_DATA/hot" 50
full=$(knob "$CG" "$K_USAGE")

"$MEMCGCTL" size --json --interval 100ms --timeout 60s "$CGREL" >"$MCG_TMP/c.json" 2>"$MCG_TMP/c.err" &
SPID=$!
echo "$SPID" >>"$MCG_CLEAN_PIDS"
# once the steps have begun, at a random moment within 0.5 s
i=0
while [ "$(knob "$CG" "$K_USAGE")" -gt $((full - 4 * MIB)) ]; do
	kill -0 "$SPID" 2>/dev/null || fail "size ended before its steps began: $(cat "$MCG_TMP/c.err")"
	i=$((i + 1))
	[ $i -lt 3000 ] || fail "size took no step in 30 s"
	sleep 0.01
done
sleep "$(awk -v s="$(date +%s%N)" 'BEGIN { srand(s % 1000000007); printf "%.3f", rand() / 2 }')"
theirs=$((900 * MIB))
if [ "$MCG_CGVER" = 1 ]; then
	echo "$theirs" >"$CG/$K_LIMIT"
else
	echo "$theirs" >"$CG/memory.high"
fi
set +e
wait "$SPID"
st=$?
set -e
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "exit status (another writer)" 3 "$st"
	assert_eq "their limit kept" "$theirs" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "JSON result" conflict "$(json .result <"$MCG_TMP/c.json")"
	assert_eq "JSON found" "$theirs" "$(json .found_bytes <"$MCG_TMP/c.json")"
	grep -q "another writer\|changed" "$MCG_TMP/c.err" || fail "no word of the conflict: $(cat "$MCG_TMP/c.err")"
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")"
else
	assert_eq "exit status" 0 "$st"
	assert_eq "their memory.high kept" "$theirs" "$(knob "$CG" memory.high)"
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.events")"
fi
assert_eq "no journal left" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
