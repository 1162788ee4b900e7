#!/bin/sh
# tiers: v1 v2
# Issue 23: another writer sets the v1 limit at a random moment (0-60 ms after reclaimd's
# lowered limit is visible) while reclaimd steps it under a cache writer, not between steps
# and without strace. Their value is kept (reclaimd's next bursts start from it: its stats
# say "limit THEIRS"), or seen (reclaimd logs the other process and puts its original back
# over its own lowered value): 0 lost. On v2 reclaimd writes only memory.reclaim and holds no
# temporary value: the writer sets memory.max 0-60 ms after a step is counted, and their
# value must simply stay (a few trials: the guest is slow).
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/race-lib.sh"
require_cgroups
scratch_new race
if [ "$MCG_CGVER" = 2 ]; then
	TRIALS=${RACE_TRIALS:-3}
else
	TRIALS=${RACE_TRIALS:-10}
fi
echo $((64 * MIB)) >"$CG/$K_LIMIT"
AR enable "$CGREL" --high-margin 8M --low-margin 48M --batch 32 --max-cpu 100 --clean >/dev/null
pid=$(daemon_pid)
echo "$pid" >>"$MCG_CLEAN_PIDS"
[ "$pid" -gt 0 ] 2>/dev/null || fail "reclaimd did not start"
spawn_in "$CG" sh -c 'echo ready; i=0; while :; do "$1" write "$2.$((i % 8))" 16 --bs 4 >/dev/null; i=$((i + 1)); done' sh "$MCG_LOAD" "$MCG_DATA/w"
writer=$SPAWN_PID
STATS="$SD/stats/$(fname "$CGREL")"
LOG="$SD/reclaimd.log"

n=0
while [ $n -lt "$TRIALS" ]; do
	# reclaimd's base: the limit its stats name, once the file reads it between bursts
	base=$(awk '$1 == "limit" { print $2 }' "$STATS" 2>/dev/null || true)
	i=0
	while [ -z "$base" ] || [ "$(knob "$CG" "$K_LIMIT")" != "$base" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "trial $n: the limit never reads reclaimd's base '$base'"
		sleep 0.05
		base=$(awk '$1 == "limit" { print $2 }' "$STATS" 2>/dev/null || true)
	done
	# 4M up, then back down: the writer's cache stays above the watermarks
	if [ "$base" -gt $((64 * MIB)) ]; then theirs=$((base - 4 * MIB)); else theirs=$((base + 4 * MIB)); fi
	seen0=$(grep -c "while reclaimd's step" "$LOG" || true)
	i=0
	if [ "$MCG_CGVER" = 2 ]; then
		# a step counted in the stats (memory.reclaim leaves no value to watch)
		steps0=$(awk '$1 == "steps" { print $2 }' "$STATS")
		while [ "$(awk '$1 == "steps" { print $2 }' "$STATS")" = "$steps0" ]; do
			i=$((i + 1))
			[ $i -lt 400 ] || fail "trial $n: reclaimd made no step in 20 s"
			sleep 0.05
		done
	else
		# reclaimd's first lowered limit of a burst, then 0-60 ms
		while read -r v <"$CG/$K_LIMIT" && [ "$v" = "$base" ]; do
			i=$((i + 1))
			[ $i -lt 2000000 ] || fail "trial $n: reclaimd never lowered the limit"
		done
	fi
	RACE_MS=$(($(od -An -N2 -tu2 /dev/urandom) % 61))
	sleep "$(printf '0.%03d' "$RACE_MS")"
	echo "$theirs" >"$CG/$K_LIMIT"
	RACE_DURING=1
	RACE_RESULT=lost
	i=0
	while [ $i -lt 100 ]; do
		if grep -q "^limit $theirs\$" "$STATS"; then
			RACE_RESULT=kept
			break
		fi
		if [ "$(grep -c "while reclaimd's step" "$LOG" || true)" -gt "$seen0" ]; then
			RACE_RESULT=seen
			break
		fi
		sleep 0.05
		i=$((i + 1))
	done
	race_count $RACE_RESULT
	say "trial $n: +$RACE_MS ms: $RACE_RESULT (base $base, theirs $theirs) $(grep "while reclaimd's step" "$LOG" | tail -1 | cut -c1-300)"
	[ $RACE_RESULT != lost ] || [ "${RACE_NOFAIL:-0}" = 1 ] || fail "trial $n: their limit $theirs was lost silently: $(tail -3 "$LOG")"
	n=$((n + 1))
done
stop_pid "$writer"
AR disable "$CGREL" >/dev/null
reclaimd_exits "$pid" "after disable"
assert_eq "no journal left" 0 "$(journals)"
reclaimd_log_clean
ok "reclaimd: kept $RACE_KEPT, seen $RACE_SEEN, lost $RACE_LOST of $TRIALS"
