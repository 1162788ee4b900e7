#!/bin/sh
# tiers: v1
# size's answer as a field of the fleet views (issue 26, "a continuous number"): size on a
# workload of known shape (HOT MiB of page cache read in a loop beside COLD MiB written once)
# keeps its answer; show --json, export (one-shot, --families size, --listen), top -b with the NEED
# column (-o, text and JSON) and dump --events after a record run all give the same bytes; a
# sibling cgroup without an answer has none anywhere (no sample, a blank cell). Then size
# --watch keeps its answer while it runs (stop "converged", before any SIGINT) and keeps it
# anew as it converges again (its time moves).
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v jq >/dev/null || skip "no jq"

HOT=48 COLD=96
MIB=1048576

# a parent of two: top and record read this subtree only
scratch_new sf
PARENT=$CG PREL=$CGREL
scratch_new none "$PARENT"
NONE=$CGREL
scratch_new field "$PARENT"
echo $((1024 * MIB)) >"$CG/$K_LIMIT"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/hot" $HOT --sync >/dev/null
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cold" $COLD --sync >/dev/null
spawn_in "$CG" "$MCG_LOAD" loop "$MCG_DATA/hot" 50
LOOP=$SPAWN_PID

assert_status "size" 0 "$MEMCGCTL" size --json --interval 200ms --timeout 90s "$CGREL"
echo "$LAST_OUT" >"$MCG_TMP/size.json"
need=$(json .needed_bytes <"$MCG_TMP/size.json")
cold=$(json .cold_bytes <"$MCG_TMP/size.json")
say "size: needed $need, cold $cold, stop $(json .stop <"$MCG_TMP/size.json")"
other=$(stat_key "$CG" total_rss)
[ "$other" -ge 0 ] 2>/dev/null || other=0
assert_near "needed (the known working set)" $((HOT * MIB + other)) "$need" 15 $((4 * MIB))

# show --json: the kept answer
assert_status "show --json" 0 "$MEMCGCTL" --json show "$CGREL"
assert_eq "show: needed" "$need" "$(printf '%s\n' "$LAST_OUT" | json .size.needed_bytes)"
assert_eq "show: cold" "$cold" "$(printf '%s\n' "$LAST_OUT" | json .size.cold_bytes)"

# export: the same bytes, the same labels as the other per-cgroup families; none for NONE
exp_check() {
	f=$1
	grep -q '^# TYPE memcgctl_needed_bytes gauge$' "$f" || fail "export ($2): no TYPE line"
	grep -q '^# HELP memcgctl_needed_bytes ' "$f" || fail "export ($2): no HELP line"
	got=$(awk -v c="{cgroup=\"$CGREL\"}" '$1 == "memcgctl_needed_bytes" c { print $2 }' "$f")
	assert_eq "export ($2): memcgctl_needed_bytes" "$need" "$got"
	got=$(awk -v c="{cgroup=\"$CGREL\"}" '$1 == "memcgctl_cold_bytes" c { print $2 }' "$f")
	assert_eq "export ($2): memcgctl_cold_bytes" "$cold" "$got"
	age=$(awk -v c="{cgroup=\"$CGREL\"}" '$1 == "memcgctl_needed_age_seconds" c { print $2 }' "$f")
	assert_le "export ($2): memcgctl_needed_age_seconds under 600 s" "${age:-999999}" 600
	if grep "^memcgctl_\(needed\|cold\)[a-z_]*{cgroup=\"$NONE\"" "$f"; then
		fail "export ($2): a size sample for $NONE, which has no answer"
	fi
	ok "export ($2): no size sample for the cgroup without an answer"
}
assert_status "export" 0 "$MEMCGCTL" export
printf '%s\n' "$LAST_OUT" >"$MCG_TMP/export.prom"
exp_check "$MCG_TMP/export.prom" default
# the label set is the usage family's (cgroup="...", unit where systemd owns it)
ul=$(grep "^memcgctl_usage_bytes{cgroup=\"$CGREL\"" "$MCG_TMP/export.prom" | sed 's/} .*/}/; s/^[a-z_]*//')
nl=$(grep "^memcgctl_needed_bytes{cgroup=\"$CGREL\"" "$MCG_TMP/export.prom" | sed 's/} .*/}/; s/^[a-z_]*//')
assert_eq "export: labels as usage's" "$ul" "$nl"
assert_status "export --families size" 0 "$MEMCGCTL" export --families size
printf '%s\n' "$LAST_OUT" >"$MCG_TMP/export-size.prom"
exp_check "$MCG_TMP/export-size.prom" "--families size"
# export --listen: the sampler's rows carry it too, read at each scrape
if command -v curl >/dev/null && command -v python3 >/dev/null; then
	. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
	port=$(free_port)
	serve export "$MEMCGCTL" export --listen "127.0.0.1:$port" "$PREL"
	scraped() { curl -fsS -o "$MCG_TMP/listen.prom" "http://127.0.0.1:$port/metrics" 2>/dev/null; }
	wait_until "export --listen answering" 60 scraped
	exp_check "$MCG_TMP/listen.prom" "--listen"
	kill -TERM "$SERVE_PID"
	wait "$SERVE_PID" || fail "export --listen exited $? after SIGTERM"
	ok "export --listen stopped"
fi
if command -v promtool >/dev/null; then
	promtool check metrics <"$MCG_TMP/export.prom" || fail "promtool check metrics"
	ok "promtool check metrics"
fi

# top -b: NEED is not in the default set; -o adds it; blank for a cgroup without an answer
assert_status "top -b" 0 "$MEMCGCTL" top -b -n 1 --flat "$PREL"
printf '%s\n' "$LAST_OUT" | grep -q ' NEED' && fail "top -b shows NEED by default"
ok "top -b: NEED not shown by default"
assert_status "top -b -o CGROUP,NEED" 0 "$MEMCGCTL" --bytes top -b -n 1 --flat -o CGROUP,NEED "$PREL"
printf '%s\n' "$LAST_OUT" >"$MCG_TMP/top.txt"
got=$(awk -v c="$CGREL" '$1 == c { print $2 }' "$MCG_TMP/top.txt")
assert_eq "top -b: NEED of $CGREL" "$need" "$got"
got=$(awk -v c="$NONE" '$1 == c { print NF }' "$MCG_TMP/top.txt")
assert_eq "top -b: NEED of $NONE is blank" 1 "$got"
assert_status "top --json -o CGROUP,NEED" 0 "$MEMCGCTL" --json top -b -n 1 --flat -o CGROUP,NEED "$PREL"
assert_eq "top --json: needed_bytes" "$need" \
	"$(printf '%s\n' "$LAST_OUT" | jq -r --arg c "$CGREL" '.cgroups[] | select(.cgroup == $c) | .needed_bytes')"
assert_eq "top --json: no needed_bytes for $NONE" null \
	"$(printf '%s\n' "$LAST_OUT" | jq -r --arg c "$NONE" '.cgroups[] | select(.cgroup == $c) | .needed_bytes')"

# record: the answer kept before it started is an event in its first frame, once
STORE=$MCG_TMP/store
assert_status "record -n 3" 0 "$MEMCGCTL" record --store "$STORE" -n 3 -d 100ms "$PREL"
assert_status "dump --events --json" 0 "$MEMCGCTL" --json dump --store "$STORE" --events
printf '%s\n' "$LAST_OUT" >"$MCG_TMP/events.json"
n=$(jq -c --arg c "$CGREL" 'select(.event == "size_answer" and .cgroup == $c)' "$MCG_TMP/events.json" | wc -l)
assert_eq "dump: one size_answer event in three samples" 1 "$n"
assert_eq "dump --json: needed_bytes" "$need" \
	"$(jq -r --arg c "$CGREL" 'select(.event == "size_answer" and .cgroup == $c) | .needed_bytes' "$MCG_TMP/events.json")"
assert_eq "dump --json: cold_bytes" "$cold" \
	"$(jq -r --arg c "$CGREL" 'select(.event == "size_answer" and .cgroup == $c) | .cold_bytes' "$MCG_TMP/events.json")"
assert_status "show --json (found_ns)" 0 "$MEMCGCTL" --json show "$CGREL"
found=$(printf '%s\n' "$LAST_OUT" | json .size.found_ns)
assert_eq "dump --json: the event's time is the answer's" "$found" \
	"$(jq -r --arg c "$CGREL" 'select(.event == "size_answer" and .cgroup == $c) | .timestamp_ns' "$MCG_TMP/events.json")"
assert_status "dump --events --csv" 0 "$MEMCGCTL" --bytes dump --store "$STORE" --events --csv -o cgroup,event,detail
printf '%s\n' "$LAST_OUT" | grep -q "^$CGREL,size_answer,\"*needs $need, cold $cold" ||
	fail "dump --csv has no size event: $LAST_OUT"
ok "dump --csv: the size event"
assert_status "dump --events" 0 "$MEMCGCTL" --bytes dump --store "$STORE" --events
printf '%s\n' "$LAST_OUT" | grep -q " event size_answer $CGREL: needs $need, cold $cold" ||
	fail "dump (text) has no size event: $LAST_OUT"
ok "dump text: the size event"

# size --watch keeps the answer while it runs, and again each time it converges anew
kept=$MEMCGCTL_RUNDIR/size/$(fname "$CGREL")
[ -f "$kept" ] || fail "no kept answer at $kept"
rm -f "$kept"
"$MEMCGCTL" size --watch --interval 200ms "$CGREL" >"$MCG_TMP/watch.out" 2>"$MCG_TMP/watch.err" &
SPID=$!
echo "$SPID" >>"$MCG_CLEAN_PIDS"
alive() { kill -0 "$SPID" 2>/dev/null || fail "size --watch ended: $(cat "$MCG_TMP/watch.out" "$MCG_TMP/watch.err")"; }
kept_found() { "$MEMCGCTL" --json show "$CGREL" | jq -r '.size.found_ns // empty'; }
first_kept() { alive && [ -n "$(kept_found)" ]; }
wait_until "an answer kept while size --watch runs" 120 first_kept
f1=$(kept_found)
assert_eq "kept while watching: stop" converged "$("$MEMCGCTL" --json show "$CGREL" | json .size.stop)"
kept_again() { alive && [ "$(kept_found)" != "$f1" ]; }
wait_until "the kept answer renewed as the watch converges again" 180 kept_again
ok "kept answer renewed: found_ns $f1 -> $(kept_found)"
kill -INT "$SPID"
set +e
wait "$SPID"
st=$?
set -e
assert_eq "size --watch after SIGINT" 130 "$st"
kill -0 "$LOOP" 2>/dev/null || fail "the workload died during the probe"
ok "workload alive"
assert_eq "no OOM kill (memory.oom_control)" 0 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/memory.oom_control")"
assert_eq "no journal left" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
