#!/bin/sh
# tiers: v1 v2
# What empty cannot reclaim is accounted for from memory.stat: an mlocked region held in a
# child cgroup shows as unevictable and as held by a child cgroup, anon without swap as anon;
# the page cache next to them is reclaimed; the processes holding memory are not OOM-killed
# (v1 steps stay within the reclaimable page cache); live processes are warned about.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new residue
top=$CG
top_rel=$CGREL
echo $((256 * 1024 * 1024)) >"$top/$K_LIMIT"
limit=$(knob "$top" "$K_LIMIT")
# processes live in children (cgroup v2 allows none in a parent with controllers enabled)
scratch_new locked "$top"
locked=$CG
scratch_new work "$top"
work=$CG
spawn_in "$locked" "$MCG_LOAD" mlock 16 --hold
mlock_pid=$SPAWN_PID
if [ "$MCG_CGVER" = 2 ]; then unev_key=unevictable; file_key=file; anon_key=anon; else unev_key=total_unevictable; file_key=total_cache; anon_key=total_rss; fi
# mlocked pages reach the unevictable list through per-CPU batches; an mcg-load built with
# ASan has its mlock() intercepted and ignored, and then nothing is unevictable at all
i=0
while [ "$(stat_key "$locked" "$unev_key")" -lt $((16 * 1048576)) ] && [ $i -lt 20 ]; do
	sleep 0.1
	i=$((i + 1))
done
mlocked=1
[ "$(stat_key "$locked" "$unev_key")" -ge $((16 * 1048576)) ] || {
	say "note: mlock had no effect here (a sanitizer build of mcg-load?): unevictable checks left out"
	mlocked=0
}
spawn_in "$work" "$MCG_LOAD" anon 8 --hold
anon_pid=$SPAWN_PID
run_in "$work" "$MCG_LOAD" write "$MCG_DATA/cache" 32 --sync >/dev/null
run_in "$work" "$MCG_LOAD" write "$MCG_DATA/dirty" 16 >/dev/null
before=$(knob "$top" "$K_USAGE")
assert_le "filled: usage >= 70 MiB" $((70 * 1048576)) "$before"

assert_status "empty with a residue" 0 "$MEMCGCTL" empty --json "$top_rel"
echo "$LAST_OUT" >"$MCG_TMP/r.json"
after=$(knob "$top" "$K_USAGE")
unev=$(stat_key "$top" "$unev_key")

# the kernel says: 16 MiB mlocked and 8 MiB anon stay; the page cache went
assert_le "usage left >= 24 MiB (mlocked + anon)" $((24 * 1048576)) "$after"
# all that is left is the anon (mlocked included) plus a little kernel memory
assert_le "usage left <= anon + 4 MiB" "$after" $(($(stat_key "$top" "$anon_key") + 4 * 1048576))
assert_le "page cache left <= 1 MiB" "$(stat_key "$top" "$file_key")" 1048576
[ $mlocked = 0 ] || assert_le "memory.stat unevictable >= 16 MiB" $((16 * 1048576)) "$unev"
# and memcgctl says the same, from the same files
assert_near "residue.unevictable" "$unev" "$(json .residue.unevictable_bytes <"$MCG_TMP/r.json")" 1 262144
assert_near "residue.anon" "$(stat_key "$top" "$anon_key")" "$(json .residue.anon_bytes <"$MCG_TMP/r.json")" 1 262144
assert_eq "residue.nr_children" 2 "$(json .residue.nr_children <"$MCG_TMP/r.json")"
children=$(($(knob "$locked" "$K_USAGE") + $(knob "$work" "$K_USAGE")))
assert_near "residue.children" "$children" "$(json .residue.children_bytes <"$MCG_TMP/r.json")" 2 262144
assert_near "usage_after" "$after" "$(json .usage_after_bytes <"$MCG_TMP/r.json")" 1 262144
reasons="anon children"
[ $mlocked = 0 ] || reasons="unevictable $reasons"
for why in $reasons; do
	json '.residue.reasons[]' <"$MCG_TMP/r.json" | grep -qx "$why" || fail "reason '$why' missing: $(json -c .residue <"$MCG_TMP/r.json")"
	ok "reason $why"
done
assert_eq "limit read back" "$limit" "$(knob "$top" "$K_LIMIT")"
# live processes: warned about, and still alive (nothing was OOM-killed)
echo "$LAST_ERR" | grep -q "live process" || fail "no warning about live processes: $LAST_ERR"
ok "warned about live processes"
kill -0 "$mlock_pid" 2>/dev/null || fail "the mlock holder died"
kill -0 "$anon_pid" 2>/dev/null || fail "the anon holder died"
ok "holders alive"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$top/memory.oom_control")"
else
	assert_eq "no OOM kill" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$top/memory.events")"
fi

# the text output names the reasons
"$MEMCGCTL" empty "$top_rel" >"$MCG_TMP/text" 2>/dev/null
[ $mlocked = 0 ] || grep -q "mlocked" "$MCG_TMP/text" || fail "text output does not mention mlocked memory: $(cat "$MCG_TMP/text")"
grep -q "child cgroups (2 child cgroups)" "$MCG_TMP/text" || fail "text output does not mention the child cgroups: $(cat "$MCG_TMP/text")"
ok "text names the residue"
