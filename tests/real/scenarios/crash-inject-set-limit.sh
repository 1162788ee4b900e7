#!/bin/sh
# tiers: v1
# SIGKILL 'set-limit --step --swap' at each write-like syscall in turn (strace fault injection),
# then run the next command: 'recover', 'empty' (which recovers first) or another set-limit.
# Read back from the kernel, limit and memsw are the original pair or the requested pair, never
# a step in between or a mix; no journal, .tmp or lock is left in the run directory. Then the
# same for 'recover' killed while it restores a journal left by a killed set-limit.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/crash-inject-lib.sh"
ci_require

ci_scratch crash-sl $((256 * MIB))
REQ=$((16 * MIB))
NEXT=$((200 * MIB))
# with swap accounting: --swap 0 sets memsw too (a pair to check); without: the limit alone
if [ -e "$CG/memory.memsw.limit_in_bytes" ]; then
	SWAP="--swap 0"
	pair() { echo "$(knob "$CG" memory.limit_in_bytes)/$(knob "$CG" memory.memsw.limit_in_bytes)"; }
	ORIG="$L0/$V1_MAX" WANT="$REQ/$REQ" NEXTP="$NEXT/$NEXT"
	memsw_reset() { echo -1 >"$CG/memory.memsw.limit_in_bytes"; }
else
	SWAP=
	say "no memsw (swap accounting off): the limit alone"
	pair() { knob "$CG" memory.limit_in_bytes; }
	ORIG=$L0 WANT=$REQ NEXTP=$NEXT
	memsw_reset() { :; }
fi

# Each run from the same start: a run directory still to be made (so its mkdirs are crash
# points too), the original limits, 40 MiB of page cache for the steps to reclaim.
ci_prepare() {
	rm -rf "$RUN"
	memsw_reset
	echo "$L0" >"$CG/memory.limit_in_bytes"
	run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 40 >/dev/null
}

# next_set_limit WHEN: another set-limit on the same cgroup restores a journal left behind
# and then sets its own pair.
next_set_limit() {
	# shellcheck disable=SC2086
	ci_next "$1: next set-limit" next "$MEMCGCTL" set-limit "$CGREL" "$NEXT" $SWAP
	got=$(pair)
	[ "$got" = "$NEXTP" ] || ci_wrong "$1: limit/memsw $got after the next set-limit, expected $NEXTP"
}

CI_ROT=0
ci_check() {
	rm -f "$MCG_TMP/next.err" "$MCG_TMP/rec.err"
	killed_at=$(pair)
	CI_ROT=$((CI_ROT + 1))
	case $((CI_ROT % 3)) in
	0)
		ci_next recover rec "$MEMCGCTL" recover "$CGREL"
		got=$(pair)
		[ "$got" = "$ORIG" ] || [ "$got" = "$WANT" ] ||
			ci_wrong "limit/memsw $got after recover (at the kill $killed_at), expected $ORIG or $WANT"
		ci_expect_no_files "after recover" "$RUN/journal"
		next_set_limit "recover, then set-limit"
		;;
	1)
		# empty restores the journal first, then steps its own limit and puts it back
		ci_next "next empty" next "$MEMCGCTL" empty "$CGREL" --batch 1024
		got=$(pair)
		[ "$got" = "$ORIG" ] || [ "$got" = "$WANT" ] ||
			ci_wrong "limit/memsw $got after the next empty (at the kill $killed_at), expected $ORIG or $WANT"
		ci_expect_no_files "after the next empty" "$RUN/journal"
		;;
	2)
		next_set_limit "set-limit right after the kill"
		;;
	esac
	ci_expect_no_files "after the next command" "$RUN"
	ci_no_sanitizer "the next command" "$MCG_TMP"/next.err "$MCG_TMP"/rec.err
}

ci_after_reference() {
	assert_eq "reference run: limit/memsw" "$WANT" "$(pair)"
}
ci_after_complete() {
	got=$(pair)
	[ "$got" = "$WANT" ] || ci_wrong "limit/memsw $got after a complete run, expected $WANT"
	ci_expect_no_files "after a complete run" "$RUN"
}

# shellcheck disable=SC2086 # SWAP: no option or one
ci_command set-limit "$MEMCGCTL" set-limit "$CGREL" "$REQ" --step 4M $SWAP

# recover itself killed at each of its writes: a set-limit killed just before it removed its
# journal (both knobs at the requested values) is the start; then recover again. The pair
# is the original one (a killed recover may leave one knob back already), the run dir clean.
JOURNAL_UNLINK=$(awk '$2 ~ /^unlinkat\(/ { n++ } $2 ~ /^unlinkat\(/ && /\.journal"/ { print n; exit }' "$MCG_TMP/ref.trace")
[ -n "$JOURNAL_UNLINK" ] || fail "no unlink of the journal in set-limit's reference run"
ci_prepare() {
	rm -rf "$RUN"
	memsw_reset
	echo "$L0" >"$CG/memory.limit_in_bytes"
	# shellcheck disable=SC2086
	ci_run unlinkat "$JOURNAL_UNLINK" "$MEMCGCTL" set-limit "$CGREL" "$REQ" $SWAP
	[ "$CI_KILLED" = 1 ] && [ "$(pair)" = "$WANT" ] && [ -n "$(ci_files "$RUN/journal")" ] ||
		fail "set-limit killed at unlinkat #$JOURNAL_UNLINK: not the start wanted (limit/memsw $(pair), journal: $(ci_files "$RUN/journal"))"
}
ci_check() {
	rm -f "$MCG_TMP/rec.err"
	killed_at=$(pair)
	ci_next "recover after a killed recover" rec "$MEMCGCTL" recover "$CGREL"
	got=$(pair)
	[ "$got" = "$ORIG" ] || ci_wrong "limit/memsw $got after recover (the killed recover left $killed_at), expected $ORIG"
	ci_expect_no_files "after recover" "$RUN/journal"
	next_set_limit "recover, then set-limit"
	ci_expect_no_files "after the next command" "$RUN"
	ci_no_sanitizer "recover" "$MCG_TMP"/rec.err "$MCG_TMP"/next.err
}
ci_after_reference() {
	assert_eq "reference run of recover: limit/memsw" "$ORIG" "$(pair)"
}
ci_after_complete() {
	got=$(pair)
	[ "$got" = "$ORIG" ] || ci_wrong "limit/memsw $got after a complete recover, expected $ORIG"
	ci_expect_no_files "after a complete recover" "$RUN/journal"
}
ci_command "recover (of a killed set-limit)" "$MEMCGCTL" recover "$CGREL"
ci_finish
