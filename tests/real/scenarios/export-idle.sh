#!/bin/sh
# tiers: v1
# An idle cgroup (usage 0 at two samples in a row) carries its other files between reads
# (mcg_sampler_set_idle(): each read again every 10 samples, spread): export --listen still
# sees, within 10 scrapes, a task moved into an idle cgroup that allocates nothing (usage stays
# 0, only cgroup.procs moves) and an OOM kill in a cgroup that is idle before and after it.
# Each scrape is one sample; the scenario waits for states, never a fixed time. Scrapes come
# faster than a second apart, so this also checks that v1's cgroup.procs is not read through a
# descriptor whose kernel-side list is a second old (procs_fresh() in lib/model/sample.c).
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
need_tool curl curl
EVERY=10

scratch_new idle
for c in moved oom s1 s2 s3; do
	mkdir "$CG/$c" || fail "cannot create $CG/$c"
	echo "$CG/$c" >>"$MCG_CLEAN_CGS"
done
echo $((16 * 1024 * 1024)) >"$CG/oom/$K_LIMIT"
port=$(free_port)
serve listen "$MEMCGCTL" export --listen "127.0.0.1:$port" "$CGREL"
srv=$SERVE_PID
wait_http "http://127.0.0.1:$port/metrics" "$srv"
# metric NAME CGROUP: its value in the last scrape
scrape() { curl -fsS -m 10 -o "$MCG_TMP/s.prom" "http://127.0.0.1:$port/metrics" || fail "scrape failed"; }
metric() { awk -v m="$1{cgroup=\"$CGREL/$2\"}" '$1 == m { print $2 }' "$MCG_TMP/s.prom"; }
# within METRIC CGROUP VALUE WHAT: scrape until METRIC of CGROUP reads VALUE, at most EVERY scrapes
within() {
	n=0
	while :; do
		scrape
		n=$((n + 1))
		[ "$(metric "$1" "$2")" = "$3" ] && break
		[ $n -lt $EVERY ] || fail "$4: $1 of $2 not $3 within $EVERY scrapes (reads $(metric "$1" "$2"))"
	done
	ok "$4: seen at scrape $n of at most $EVERY"
}
scrape
scrape
assert_eq "usage of the idle cgroup" 0 "$(metric memcgctl_usage_bytes moved)"
assert_eq "processes of the idle cgroup" 0 "$(metric memcgctl_nr_procs moved)"

# a sleeping task moved in: v1 moves no charges with it (move_charge_at_immigrate 0)
sleep 600 &
SLEEPER=$!
echo "$SLEEPER" >>"$MCG_CLEAN_PIDS"
echo 0 >"$CG/moved/memory.move_charge_at_immigrate"
echo "$SLEEPER" >"$CG/moved/cgroup.procs" || fail "cannot move the sleeper"
within memcgctl_nr_procs moved 1 "a task moved into an idle cgroup"
assert_eq "usage of the cgroup with the moved task (still idle)" 0 "$(knob "$CG/moved" "$K_USAGE")"
stop_pid "$SLEEPER"

# an OOM kill between two scrapes of a cgroup idle before and after it
set +e
sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$CG/oom" "$MCG_LOAD" anon 64 \
	>/dev/null 2>&1 &
PID=$!
wait "$PID"
st=$?
set -e
assert_eq "the child was OOM-killed (SIGKILL)" 137 "$st"
assert_eq "the kernel's oom_kill count" 1 "$(awk '$1 == "oom_kill" { print $2 }' "$CG/oom/memory.oom_control")"
# idle again (the victim's memory freed; what kernel memory lingers dropped), unscraped meanwhile
emptied() {
	echo 0 >"$CG/oom/memory.force_empty" 2>/dev/null || true
	[ "$(knob "$CG/oom" "$K_USAGE")" = 0 ]
}
wait_until "usage of $CG/oom at 0 after the kill" 60 emptied
within memcgctl_events_oom_kill_total oom 1 "an OOM kill in an idle cgroup"
stop_server "$srv"
ok "an idle cgroup's carried files are read again within $EVERY samples"
