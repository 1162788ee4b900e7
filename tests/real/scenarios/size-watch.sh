#!/bin/sh
# tiers: v1
# size --watch follows a working set that grows: a process reads HOT1 MiB of page cache in a
# loop beside COLD MiB never read again; once the first answer is printed it also reads
# HOT2 MiB more (mcg-load grow, SIGUSR1). The answer printed first lies near HOT1 plus what
# the cgroup holds besides page cache, a later one near HOT1 + HOT2 plus that; SIGINT then
# ends the watch (130) with the limit read back as before, no journal, no OOM kill; show then
# gives the last answer, kept in the run directory (root's file, the watch's last line).
set -eu
. "$MCG_TESTLIB"
require_cgroups

HOT1=32 HOT2=48 COLD=96
MIB=1048576

scratch_new watch
echo $((1024 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot1" $HOT1 --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot2" $HOT2 --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" grow "$MCG_DATA/hot1" "$MCG_DATA/hot2" 50
LOAD=$SPAWN_PID LOAD_OUT=$SPAWN_OUT

# --bytes: each answer line reads "HH:MM:SS CGROUP: needs BYTES (band LO .. HI)"
"$MEMCGCTL" --bytes size --watch --interval 200ms "$CGREL" >"$MCG_TMP/watch.out" 2>"$MCG_TMP/watch.err" &
SPID=$!
echo "$SPID" >>"$MCG_CLEAN_PIDS"
wait_catches "$SPID" INT "size --watch"

# answers: the needed bytes of each line printed so far, one a line
answers() { awk '$3 == "needs" { print $4 }' "$MCG_TMP/watch.out"; }
alive() { kill -0 "$SPID" 2>/dev/null || fail "size --watch ended: $(cat "$MCG_TMP/watch.out" "$MCG_TMP/watch.err")"; }
first_answer() { alive && [ -n "$(answers)" ]; }
# what the cgroup holds besides the hot files: the loop's heap, kernel memory
other() { o=$(stat_key "$CG" total_rss); [ "$o" -ge 0 ] 2>/dev/null || o=0; echo "$o"; }

wait_until "a first answer from size --watch" 120 first_answer
first=$(answers | head -n 1)
need1=$((HOT1 * MIB + $(other)))
say "first answer $first, working set $need1"
assert_near "first answer" "$need1" "$first" 15 $((4 * MIB))

# the working set grows by HOT2: the answer must follow it up
kill -USR1 "$LOAD"
wait_until "the workload reading HOT2 too" 60 grep -q '^grown' "$LOAD_OUT"
need2=$(((HOT1 + HOT2) * MIB + $(other)))
lo2=$((need2 - need2 * 15 / 100 - 4 * MIB))
grown_answer() { alive && [ "$(answers | tail -n 1)" -ge "$lo2" ]; }
wait_until "an answer that follows the working set up to $need2" 180 grown_answer
last=$(answers | tail -n 1)
say "answers: $(answers | tr '\n' ' ')"
assert_le "the first answer was below the grown working set" "$first" "$lo2"
assert_near "answer after the growth" "$need2" "$last" 15 $((4 * MIB))

# SIGINT ends the watch and restores the limit (read back from the kernel)
t0=$(now_ceil)
kill -INT "$SPID"
set +e
wait "$SPID"
st=$?
set -e
t1=$(now_floor)
assert_eq "exit status after SIGINT" 130 "$st"
assert_le "SIGINT to exit (ms)" $((t1 - t0)) 1000
assert_eq "limit read back after SIGINT" "$limit" "$(knob "$CG" "$K_LIMIT")"
grep -q '^  stopped: interrupted' "$MCG_TMP/watch.out" ||
	fail "no 'stopped: interrupted' in: $(cat "$MCG_TMP/watch.out")"
ok "the final report says interrupted"
assert_eq "no journal left" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
# show: the last answer, kept by the run (text and JSON, with its age)
kept=$(ls "$MEMCGCTL_RUNDIR/size")
[ -n "$kept" ] || fail "no answer kept in $MEMCGCTL_RUNDIR/size"
assert_eq "kept answer's owner" "0 -rw-r--r--" "$(stat -c '%u %A' "$MEMCGCTL_RUNDIR/size/$kept")"
assert_status "show --json" 0 "$MEMCGCTL" --json show "$CGREL"
echo "$LAST_OUT" >"$MCG_TMP/show.json"
assert_eq "show: needed = the watch's last answer" "$last" "$(json .size.needed_bytes <"$MCG_TMP/show.json")"
assert_eq "show: how it was found" "interrupted limit-steps" \
	"$(json '.size.stop + " " + .size.method' <"$MCG_TMP/show.json")"
assert_le "show: age under 60 s" "$(json .size.age_ns <"$MCG_TMP/show.json")" 60000000000
assert_status "show" 0 "$MEMCGCTL" --bytes show "$CGREL"
printf '%s\n' "$LAST_OUT" | grep -q "^  needs $last, cold " ||
	fail "show prints no kept answer: $LAST_OUT"
ok "show prints the kept answer"
# a link in its place is not followed (show says nothing of it)
mv "$MEMCGCTL_RUNDIR/size/$kept" "$MCG_TMP/kept"
ln -s "$MCG_TMP/kept" "$MEMCGCTL_RUNDIR/size/$kept"
assert_status "show --json over a link" 0 "$MEMCGCTL" --json show "$CGREL"
assert_eq "show: no size from a link" null "$(printf '%s\n' "$LAST_OUT" | json .size)"
kill -0 "$LOAD" 2>/dev/null || fail "the workload died during the probe"
ok "workload alive"
assert_eq "no OOM kill (memory.oom_control)" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")"
