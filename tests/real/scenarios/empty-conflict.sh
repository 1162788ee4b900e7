#!/bin/sh
# tiers: v1
# Issue 18: another writer sets the limit while empty steps it (an idle cgroup, which keeps
# the lowered limit between steps, then one with a live process): empty stops, keeps their
# value, says what it found and expected, exits 3, and leaves no journal. (v1 only: on v2
# empty writes nothing but memory.reclaim, there is no temporary value to lose.)
# The writer is driven deterministically: strace delays every pread by 100 ms, so the
# external write lands while memcgctl waits before a read, not between its check and write.
# Batches of 64 pages, not 1: with single pages the per-CPU charge stock can likely hide a step's
# progress, and three steps "freeing nothing" end the empty before the other writer comes
# (seen once under load: exit 0 with a live process).
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v strace >/dev/null || skip "strace is needed to hold memcgctl before its reads"
scratch_new conflict
echo 2G >"$CG/memory.limit_in_bytes"
orig=$(knob "$CG" memory.limit_in_bytes)
ADMIN=1887436800 # 1800M, as an administrator writes it

round() { # $1: label
	echo "$orig" >"$CG/memory.limit_in_bytes"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache.$1" 64 --sync >/dev/null
	full=$(knob "$CG" memory.usage_in_bytes)
	# (LeakSanitizer cannot run under ptrace)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -o /dev/null -e trace=pread64 -e inject=pread64:delay_enter=100000 \
		"$MEMCGCTL" --raw empty --batch 64 "$CGREL" >"$MCG_TMP/out" 2>"$MCG_TMP/err" &
	epid=$!
	echo "$epid" >>"$MCG_CLEAN_PIDS"
	i=0
	# Stepping, and past the journal's read of the limit: usage alone can fall by other
	# means (global reclaim on a busy host) before memcgctl has read the limit it keeps,
	# and a write then is not a concurrent change but the value it starts from.
	while [ "$(knob "$CG" memory.usage_in_bytes)" -gt $((full - 524288)) ] ||
		[ -z "$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null | grep '\.journal$')" ]; do
		kill -0 "$epid" 2>/dev/null || fail "$1: empty ended before it stepped: $(cat "$MCG_TMP/err")"
		i=$((i + 1))
		[ $i -lt 1200 ] || fail "$1: empty made no step in 60 s"
		sleep 0.05
	done
	echo 1800M >"$CG/memory.limit_in_bytes"
	set +e
	wait "$epid"
	st=$?
	set -e
	[ "$st" = 3 ] || fail "$1: exit status: expected 3, got $st: $(cat "$MCG_TMP/err")"
	assert_eq "$1: the other writer's limit stays" $ADMIN "$(knob "$CG" memory.limit_in_bytes)"
	grep -q "another writer changed memory.limit_in_bytes" "$MCG_TMP/err" ||
		fail "$1: no word of the concurrent change: $(cat "$MCG_TMP/err")"
	grep -q "found $ADMIN" "$MCG_TMP/err" || fail "$1: found value not named: $(cat "$MCG_TMP/err")"
	grep -q "expected [0-9]" "$MCG_TMP/err" || fail "$1: expected value not named: $(cat "$MCG_TMP/err")"
	grep -q "kept at $ADMIN" "$MCG_TMP/out" || fail "$1: output: $(cat "$MCG_TMP/out")"
	ok "$1: $(cat "$MCG_TMP/err")"
	assert_eq "$1: no journal or .tmp left" "" "$(ls -A "$MEMCGCTL_RUNDIR/journal")"
}

round idle
SPAWN_NOWAIT=1 spawn_in "$CG" sleep 600
round live

# A write before memcgctl has journalled the limit is no concurrent change: it is the value
# the run starts from, restores and reports as "before" (once, under load, the earlier read
# of the limit was reported as "before" and the run failed with "reads 1800M after").
echo "$orig" >"$CG/memory.limit_in_bytes"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache.early" 4 --sync >/dev/null
to=$(($(knob "$CG" memory.usage_in_bytes) - 2097152)) # a few steps, not what the rounds left
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -o /dev/null -e trace=pread64 -e inject=pread64:delay_enter=100000 \
	"$MEMCGCTL" --raw --json empty --batch 64 --to "$to" "$CGREL" >"$MCG_TMP/out" 2>"$MCG_TMP/err" &
epid=$!
echo "$epid" >>"$MCG_CLEAN_PIDS"
echo 1800M >"$CG/memory.limit_in_bytes"
early=$(ls "$MEMCGCTL_RUNDIR/journal" 2>/dev/null | grep -c '\.journal$' || true)
set +e
wait "$epid"
st=$?
set -e
if [ "$early" != 0 ]; then
	ok "early: skipped, the journal was written before the test's write (st $st)"
else
	[ "$st" = 0 ] || fail "early: exit status: expected 0, got $st: $(cat "$MCG_TMP/err")"
	assert_eq "early: the other writer's limit stays" $ADMIN "$(knob "$CG" memory.limit_in_bytes)"
	jq -e --argjson a $ADMIN '.limit_before_bytes == $a and .limit_after_bytes == $a' "$MCG_TMP/out" >/dev/null ||
		fail "early: before/after not the value the run started from: $(cat "$MCG_TMP/out")"
	ok "early: $(jq -c '{limit_before_bytes, limit_after_bytes, stop}' "$MCG_TMP/out")"
fi
