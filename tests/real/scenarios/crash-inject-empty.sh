#!/bin/sh
# tiers: v1
# SIGKILL 'empty --batch 512' at each write-like syscall in turn (strace fault injection), on
# an idle cgroup (empty keeps its lowered limit between steps) and on one with a live process
# (the limit goes back after every step); then the next command: 'recover', another empty
# (which recovers first) or a set-limit (the same). Read back from the kernel, the limit is
# the original one (empty never means to change it), never a step's lowered value; no
# journal, .tmp or lock is left in the run directory.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/crash-inject-lib.sh"
ci_require

ci_scratch crash-empty $((256 * MIB))
NEXT=$((200 * MIB))

# Each run from the same start: no run directory yet (its mkdirs are crash points too), the
# original limit, 40 MiB of page cache: about 20 steps of 2 MiB.
ci_prepare() {
	rm -rf "$RUN"
	echo "$L0" >"$CG/memory.limit_in_bytes"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 40 >/dev/null
}

CI_ROT=0
ci_check() {
	rm -f "$MCG_TMP/next.err" "$MCG_TMP/rec.err"
	killed_at=$(knob "$CG" memory.limit_in_bytes)
	CI_ROT=$((CI_ROT + 1))
	case $((CI_ROT % 3)) in
	0)
		ci_next recover next "$MEMCGCTL" recover "$CGREL"
		ci_limit_is "after recover" "$L0"
		ci_expect_no_files "after recover" "$RUN/journal"
		ci_next "the next empty" next "$MEMCGCTL" empty "$CGREL" --batch 512
		ci_limit_is "after recover and the next empty" "$L0"
		;;
	1)
		ci_next "the next empty" next "$MEMCGCTL" empty "$CGREL" --batch 512
		ci_limit_is "after the next empty" "$L0"
		;;
	2)
		# set-limit restores the journal, then sets its own value
		ci_next "the next set-limit" next "$MEMCGCTL" set-limit "$CGREL" "$NEXT"
		ci_limit_is "after the next set-limit" "$NEXT"
		;;
	esac
	ci_expect_no_files "after the next command" "$RUN"
	ci_no_sanitizer "the next command" "$MCG_TMP"/next.err "$MCG_TMP"/rec.err
}

ci_after_reference() {
	assert_eq "reference run: limit" "$L0" "$(knob "$CG" memory.limit_in_bytes)"
}
ci_after_complete() {
	killed_at="(not killed)"
	ci_limit_is "after a complete run" "$L0"
	ci_expect_no_files "after a complete run" "$RUN"
}

ci_command "empty (idle)" "$MEMCGCTL" empty "$CGREL" --batch 512

# a live process: not idle, so every step writes the limit back
spawn_in "$CG" "$MCG_LOAD" hold
ci_command "empty (live process)" "$MEMCGCTL" empty "$CGREL" --batch 512
stop_pid "$SPAWN_PID"
ci_finish
