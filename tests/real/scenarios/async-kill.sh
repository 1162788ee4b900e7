#!/bin/sh
# tiers: v1 v2
# reclaimd killed with SIGKILL inside a reclaim session: on v1 its journal stays (and the
# limit may be lowered); the next daemon restores it on start, and so does 'memcgctl
# recover'. The limit read back from the kernel is the original every time. On v2 the limit
# is never touched. SIGTERM exits cleanly (pid file gone, limit intact).
set -eu
. "$MCG_TESTLIB"
require_cgroups

# until PID is stopped (SIGSTOP takes effect when it next leaves the kernel: after a limit
# write that reclaims, which a loaded machine makes long), at most 60 s
stopped() {
	j=0
	while [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != T ]; do
		[ $j -lt 6000 ] || fail "reclaimd $1 not stopped 60 s after SIGSTOP"
		sleep 0.01
		j=$((j + 1))
	done
}

scratch_new kill
echo $((64 * MIB)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")
# small steps, a low watermark far down: the daemon reclaims continuously while a
# writer keeps dirtying page cache
AR enable "$CGREL" --high-margin 8M --low-margin 48M --batch 1024 --max-cpu 100 --clean >/dev/null
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
spawn_in "$CG" sh -c 'echo ready; i=0; while :; do "$1" write "$2.$((i % 4))" 16 >/dev/null; i=$((i + 1)); done' sh "$MCG_LOAD" "$MCG_DATA/w"
writer=$SPAWN_PID

# Stop the daemon at random moments; when it is inside a reclaim session (its journal
# exists, and the limit may be lowered), kill it there. Recover alternately by starting a
# new daemon (it recovers its own journal) and with 'memcgctl recover'.
tries=0 kills=0 lowered=0 by_daemon=0 by_recover=0
while [ $tries -lt 200 ] && { [ $by_daemon = 0 ] || [ $by_recover = 0 ]; }; do
	tries=$((tries + 1))
	sleep 0.0$((tries % 9 + 1))
	kill -STOP "$pid" || fail "reclaimd $pid is gone: $(tail -5 "$SD/reclaimd.log")"
	if [ "$MCG_CGVER" = 2 ] && [ $tries -gt 5 ]; then
		by_daemon=1 by_recover=1 # v2 steps write memory.reclaim: nothing to restore
	fi
	if [ "$(journals)" = 0 ] && [ "$MCG_CGVER" = 1 ]; then
		kill -CONT "$pid"
		continue
	fi
	now=$(knob "$CG" "$K_LIMIT")
	kill -KILL "$pid"
	kill -CONT "$pid" 2>/dev/null || true
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.02; i=$((i + 1)); done
	kills=$((kills + 1))
	[ "$now" != "$limit" ] && lowered=$((lowered + 1))
	say "kill $kills (try $tries): limit read $now, $(journals) journal(s) left"
	if [ "$MCG_CGVER" = 2 ]; then
		assert_eq "v2: memory.max never touched" "$limit" "$now"
		assert_eq "v2: no journal" 0 "$(journals)"
		"$MEMCGCTL" reclaimd --state-dir "$SD" >/dev/null
	elif [ $by_daemon = 0 ]; then
		"$MEMCGCTL" reclaimd --state-dir "$SD" >/dev/null # recovers on start
		by_daemon=1
	else
		"$MEMCGCTL" recover "$CGREL" >"$MCG_TMP/recover.out"
		grep -q "restored" "$MCG_TMP/recover.out" || fail "recover did not restore: $(cat "$MCG_TMP/recover.out")"
		by_recover=1
		"$MEMCGCTL" reclaimd --state-dir "$SD" >/dev/null
	fi
	pid=$(daemon_pid)
	echo "$pid" >>"$MCG_CLEAN_PIDS"
	# The new daemon recovered the journal and serves the cgroup again: between its
	# steps (stopped, no journal) the limit must be the original one.
	i=0 got=
	while [ $i -lt 1000 ]; do
		kill -STOP "$pid"
		stopped "$pid"
		if [ "$(journals)" = 0 ]; then
			got=$(knob "$CG" "$K_LIMIT")
			kill -CONT "$pid"
			break
		fi
		kill -CONT "$pid"
		sleep 0.02
		i=$((i + 1))
	done
	assert_eq "limit after kill $kills and recovery" "$limit" "$got"
done
[ $by_daemon = 1 ] && [ $by_recover = 1 ] || fail "caught reclaimd in a reclaim session only $kills time(s) in $tries tries"
ok "$kills kill(s) inside a reclaim session, $lowered with the limit lowered at that moment"

stop_pid "$writer" || true # (lib.sh: under set -e, its wait would exit the scenario)
# SIGTERM: clean exit, no journal, the limit as it was, the pid file gone
kill -TERM "$pid" || fail "reclaimd $pid is gone before SIGTERM"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 "$pid" 2>/dev/null && fail "reclaimd $pid ignored SIGTERM"
ok "SIGTERM: reclaimd exited"
[ -e "$SD/reclaimd.pid" ] && fail "pid file left behind"
assert_eq "no journal after SIGTERM" 0 "$(journals)"
assert_eq "limit after SIGTERM" "$limit" "$(knob "$CG" "$K_LIMIT")"
assert_eq "still enabled after the daemon stopped" true "$(AR status --json | jq -r '.cgroups[0].enabled')"
AR disable "$CGREL" >/dev/null
# the daemons' own log: no sanitizer report, no error
reclaimd_log_clean
