#!/bin/sh
# tiers: v1
# SIGKILL 'size' at each write-like syscall in turn (strace fault injection) while it steps
# the v1 limit of an idle cgroup holding page cache (all of it cold: the probe walks down to
# the floor in about a dozen journalled steps); then the next command: 'recover', another
# size (which recovers first) or a set-limit (the same). Read back from the kernel, the limit
# is the original one (size never means to change it), never a step's lowered value; no
# journal, .tmp or lock is left in the run directory (the answer a complete run keeps for
# show, size/NAME, is no leftover).
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/crash-inject-lib.sh"
ci_require

ci_scratch crash-size $((256 * MIB))
# what counts as left in the run directory: anything but a kept answer, size/NAME
LEFT='^([^s]|s[^i]|si[^z]|siz[^e]|size[^/])|^size/\.|^size/.*/'
NEXT=$((200 * MIB))
SIZE="--interval 50ms --timeout 20s"

# Each run from the same start: no run directory yet, the original limit, 32 MiB of cache.
ci_prepare() {
	rm -rf "$RUN"
	echo "$L0" >"$CG/memory.limit_in_bytes"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 32 --sync >/dev/null
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
		;;
	1)
		# shellcheck disable=SC2086
		ci_next "the next size" next "$MEMCGCTL" size $SIZE "$CGREL"
		ci_limit_is "after the next size" "$L0"
		;;
	2)
		ci_next "the next set-limit" next "$MEMCGCTL" set-limit "$CGREL" "$NEXT"
		ci_limit_is "after the next set-limit" "$NEXT"
		;;
	esac
	ci_expect_no_files "after the next command" "$RUN" "$LEFT"
	ci_no_sanitizer "the next command" "$MCG_TMP"/next.err "$MCG_TMP"/rec.err
}

ci_after_reference() {
	assert_eq "reference run: limit" "$L0" "$(knob "$CG" memory.limit_in_bytes)"
}
ci_after_complete() {
	killed_at="(not killed)"
	ci_limit_is "after a complete run" "$L0"
	ci_expect_no_files "after a complete run" "$RUN" "$LEFT"
	[ -n "$(ls "$RUN/size")" ] || ci_wrong "a complete run kept no answer for show"
}

# shellcheck disable=SC2086
ci_command "size (idle)" "$MEMCGCTL" size $SIZE "$CGREL"
ci_finish
