#!/bin/sh
# tiers: v1 v2
# SIGINT in the middle of an empty of dirty page cache stops it within a step with the limit
# read back exactly as before and no journal left; after SIGKILL the journal stays, and the
# next empty (or 'memcgctl recover') puts the limit back.
set -eu
. "$MCG_TESTLIB"
require_cgroups

scratch_new signal
echo $((1024 * 1024 * 1024)) >"$CG/$K_LIMIT"
limit=$(knob "$CG" "$K_LIMIT")

# start an empty of 192 MiB of dirty cache in small folios with one-page steps; return
# once it has reclaimed 1 MiB (so it is mid-way); sets EPID
# (a new file each time: rewriting a truncated file makes ext4 start its writeback at close,
# and clean pages would be emptied before the signal arrives)
round=0
start_empty() {
	round=$((round + 1))
	rm -f "$MCG_DATA"/dirty.*
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty.$round" 192 --bs 4 >/dev/null
	full=$(knob "$CG" "$K_USAGE")
	"$MEMCGCTL" empty --batch 1 --json "$CGREL" >"$MCG_TMP/sig.json" 2>"$MCG_TMP/sig.err" &
	EPID=$!
	echo "$EPID" >>"$MCG_CLEAN_PIDS"
	# poll with the read builtin: a fork per poll is too slow for a 0.2 s empty
	i=0
	read -r u <"$CG/$K_USAGE"
	while [ "$u" -gt $((full - 1048576)) ]; do
		i=$((i + 1))
		if [ $((i % 100)) = 0 ]; then
			kill -0 "$EPID" 2>/dev/null || return 0 # finished first: signal_empty redoes it
			[ $i -lt 1000000 ] || fail "empty made no progress"
		fi
		read -r u <"$CG/$K_USAGE"
	done
}

# signal_empty SIG: start_empty, then SIG; ST, its exit status. The race is the scheduler's
# (on a loaded machine this shell may not run again before a 0.2 s empty has finished): an
# empty that ended with its work done before SIG reached it is started again, 5 times at
# most, so a SIG that is never handled still fails.
signal_empty() {
	tries=0
	while :; do
		start_empty
		kill -"$1" "$EPID" 2>/dev/null || true
		set +e
		wait "$EPID"
		st=$?
		set -e
		[ "$st" = 0 ] && [ "$(json .result <"$MCG_TMP/sig.json" 2>/dev/null)" != interrupted ] || return 0
		tries=$((tries + 1))
		[ $tries -lt 5 ] || fail "empty finished before SIG$1 in 5 tries (the signal is not handled?)"
		say "redo: empty finished before SIG$1 reached it"
		assert_eq "limit after an empty that finished" "$limit" "$(knob "$CG" "$K_LIMIT")"
	done
}

signal_empty INT
assert_eq "exit status after SIGINT" 130 "$st"
assert_eq "limit read back after SIGINT" "$limit" "$(knob "$CG" "$K_LIMIT")"
assert_eq "JSON stop" interrupted "$(json .stop <"$MCG_TMP/sig.json")"
assert_eq "JSON result" interrupted "$(json .result <"$MCG_TMP/sig.json")"
assert_eq "no journal left" "" "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)"
# it stopped mid-way: most of the cache is still there
assert_le "usage left after SIGINT >= 32 MiB" $((32 * 1048576)) "$(knob "$CG" "$K_USAGE")"

# SIGTERM is handled the same way
signal_empty TERM
assert_eq "exit status after SIGTERM" 143 "$st"
assert_eq "limit read back after SIGTERM" "$limit" "$(knob "$CG" "$K_LIMIT")"

if [ "$MCG_CGVER" = 1 ]; then
	# SIGKILL: no chance to roll back; the journal says what to restore
	signal_empty KILL
	assert_eq "exit status after SIGKILL" 137 "$st"
	journal=$(ls "$MEMCGCTL_RUNDIR/journal")
	[ -n "$journal" ] || fail "no journal after SIGKILL"
	ok "journal kept after SIGKILL: $journal"
	grep -q "^knob memory.limit_in_bytes $limit " "$MEMCGCTL_RUNDIR/journal/$journal" ||
		fail "journal does not hold the original limit: $(cat "$MEMCGCTL_RUNDIR/journal/$journal")"
	ok "journal holds the original limit"
	say "limit after SIGKILL: $(knob "$CG" "$K_LIMIT")"
	# the next empty restores it first, says so, then empties
	assert_status "empty after SIGKILL" 0 "$MEMCGCTL" empty "$CGREL"
	echo "$LAST_ERR" | grep -q "restored" || fail "no word of the restore: $LAST_ERR"
	assert_eq "limit after the next empty" "$limit" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "no journal after the next empty" "" "$(ls "$MEMCGCTL_RUNDIR/journal")"
	# and 'memcgctl recover' does it too
	signal_empty KILL
	assert_eq "exit status after SIGKILL" 137 "$st"
	assert_status "recover after SIGKILL" 0 "$MEMCGCTL" recover "$CGREL"
	assert_eq "limit after recover" "$limit" "$(knob "$CG" "$K_LIMIT")"
	assert_eq "no journal after recover" "" "$(ls "$MEMCGCTL_RUNDIR/journal")"
fi
