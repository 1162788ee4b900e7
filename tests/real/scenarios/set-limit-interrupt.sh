#!/bin/sh
# tiers: v1 v2
# SIGINT and SIGTERM in the middle of a shrink: memcgctl restores the original values,
# exits 128+signal and leaves no journal.
set -eu
. "$MCG_TESTLIB"
require_cgroups
# A shrink that stays busy until we signal it: v1 walks down through dirty page cache in
# steps and then meets EBUSY (a child cgroup's few KiB); v2 reclaims anon it cannot free.
busy_shrink intr
assert_status "limit 512M" 0 "$MEMCGCTL" set-limit "$CGREL" 512M

for sig in INT TERM; do
	# v1: fresh dirty page cache for the shrink to walk through (the last one reclaimed it)
	[ "$MCG_CGVER" = 1 ] && run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/dirty-$sig" 64 >/dev/null
	"$MEMCGCTL" set-limit "$CGREL" 4096 --force --step 4M --timeout 60s >"$MCG_TMP/o" 2>"$MCG_TMP/e" &
	pid=$!
	echo "$pid" >>"$MCG_CLEAN_PIDS"
	i=0
	while [ "$(knob "$CG" $WATCH)" = "$ORIG_W" ]; do
		kill -0 "$pid" 2>/dev/null || fail "memcgctl ended before it changed $WATCH: $(cat "$MCG_TMP/e")"
		i=$((i + 1))
		[ $i -gt 400 ] && fail "memcgctl did not change $WATCH in 20 s"
		sleep 0.05
	done
	say "mid-shrink: $WATCH = $(knob "$CG" $WATCH)"
	kill -$sig "$pid"
	set +e
	wait "$pid"
	st=$?
	set -e
	[ $sig = INT ] && want=130 || want=143
	assert_eq "exit status after SIG$sig" $want $st
	grep -q "restored the original values" "$MCG_TMP/e" || fail "message: $(cat "$MCG_TMP/e")"
	assert_eq "limit restored after SIG$sig" 536870912 "$(knob "$CG" "$K_LIMIT")"
	[ "$MCG_CGVER" = 2 ] && assert_eq "memory.high restored after SIG$sig" max "$(knob "$CG" memory.high)"
	[ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null)" ] || fail "journal left after SIG$sig"
	ok "no journal after SIG$sig"
done
if [ "$MCG_CGVER" = 2 ]; then kill -0 "$SPAWN_PID" || fail "the child was killed"; fi
