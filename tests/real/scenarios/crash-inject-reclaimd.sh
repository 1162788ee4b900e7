#!/bin/sh
# tiers: v1
# SIGKILL reclaimd at each write-like syscall in turn (strace fault injection) while it serves
# a burst: async reclaim enabled on a scratch cgroup whose page cache is above the high
# watermark. The daemon is the one 'async-reclaim enable' starts ('reclaimd --foreground'),
# started under strace. Then the next command: 'recover' and a daemon started by 'reclaimd',
# a daemon that recovers its own journal on start, 'async-reclaim enable' again (a dead
# daemon's pid file must not stop it from starting one), or 'empty' (which recovers first). Read back from the kernel, the limit
# is the original one (reclaimd never means to change it); no journal, lock, pid file or .tmp
# is left, and the enable file is the one enable wrote.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/crash-inject-lib.sh"
ci_require
[ "$(nproc)" -ge 2 ] || skip "async-reclaim enable refuses a single-CPU machine"

ci_scratch crash-rd $((64 * MIB))
HIGH=$((56 * MIB))
echo "$L0" >"$CG/memory.limit_in_bytes"
# clean page cache on disk, read back into the cgroup before each run: fast, and no
# writeback for the steps to wait on
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/cache" 60 --sync >/dev/null
ENABLE="--high-margin 8M --low-margin 40M --batch 512 --max-cpu 100 --clean"
# shellcheck disable=SC2086 # ENABLE is a list of options
"$MEMCGCTL" async-reclaim enable "$CGREL" --state-dir "$SD" $ENABLE --no-start >/dev/null
cp -a "$SD" "$MCG_TMP/state.enabled"
CONF=$(cd "$SD" && ls -- *.conf)
[ -n "$CONF" ] || fail "enable wrote no conf file in $SD"

# a detached daemon is reaped by init, maybe a second later: a zombie is not alive
alive() { ci_alive "$1"; }

# Never leave a daemon behind: the pid file names the one running (each was started here).
stop_daemon() {
	p=$(awk 'NR == 1 { print $1 }' "$SD/reclaimd.pid" 2>/dev/null || true)
	[ -n "$p" ] && alive "$p" || return 0
	ci_term "$p" "$p" 5
}
# (mcg_cleanup exits with the status it finds in $?: keep the scenario's; set +e first, or
# that "(exit 1)" would end the trap before the cgroups are removed)
trap 'st=$?; set +e; stop_daemon; (exit $st); mcg_cleanup' EXIT

# no burst under way: usage below the high watermark (a burst starts above it, and goes on
# down to the low one), and no journal (a burst holds one)
ci_daemon_idle() {
	[ "$(knob "$CG" memory.usage_in_bytes)" -lt "$HIGH" ] || return 1
	! ci_files "$RUN/journal" | grep -q '\.journal$'
}

# Each run from the same start: no run directory, the state directory as enable left it,
# the original limit, about 60 MiB of page cache (above the 56 MiB high watermark).
ci_prepare() {
	rm -rf "$RUN" "$SD"
	cp -a "$MCG_TMP/state.enabled" "$SD"
	echo "$L0" >"$CG/memory.limit_in_bytes"
	run_in "$CG" "$MCG_LOAD" read "$MCG_DATA/cache" >/dev/null
}

# a daemon started the usual way serves the cgroup, then exits on SIGTERM
started_daemon() { # WHEN
	p=$(awk 'NR == 1 { print $1 }' "$SD/reclaimd.pid" 2>/dev/null || true)
	[ -n "$p" ] && alive "$p" || {
		ci_error "$1: no reclaimd running"
		return 0
	}
	i=0
	while ! ci_daemon_idle && alive "$p" && [ $i -lt 250 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	stop_daemon || ci_error "$1: reclaimd ignored SIGTERM"
}

# the state directory: the enable file as enable wrote it, the cgroup's stats, the log of a
# daemon started in the background, nothing else
state_clean() { # WHEN
	ci_expect_no_files "$1" "$SD" '\.tmp$|(^|/)reclaimd\.pid$|^stats/reclaimd$'
	cmp -s "$SD/$CONF" "$MCG_TMP/state.enabled/$CONF" || ci_leftover "$1: the enable file changed: $(tr '\n' ' ' <"$SD/$CONF")"
	extra=$(ci_files "$SD" | grep -vE '\.tmp$|(^|/)reclaimd\.pid$|^stats/reclaimd$' | grep -vxF -e "$CONF" -e "stats/${CONF%.conf}" -e reclaimd.log || true)
	[ -z "$extra" ] || ci_leftover "$1: unexpected $(echo "$extra" | tr '\n' ' ')in $SD"
}

CI_ROT=0
ci_check() {
	killed_at=$(knob "$CG" memory.limit_in_bytes)
	CI_ROT=$((CI_ROT + 1))
	: >"$MCG_TMP/next.err"
	case $((CI_ROT % 4)) in
	0)
		ci_next recover next "$MEMCGCTL" recover "$CGREL"
		ci_limit_is "after recover" "$L0"
		ci_expect_no_files "after recover" "$RUN/journal"
		ci_next "reclaimd after recover" next "$MEMCGCTL" reclaimd --state-dir "$SD"
		grep -q "reclaimd started" "$MCG_TMP/next.out" || ci_error "reclaimd after recover: $(cat "$MCG_TMP/next.out")"
		started_daemon "reclaimd after recover"
		;;
	1)
		# a new daemon recovers its own journal when it starts
		set +e
		"$MEMCGCTL" reclaimd --foreground --state-dir "$SD" </dev/null >"$MCG_TMP/next.out" 2>"$MCG_TMP/next.err" &
		dpid=$!
		echo "$dpid" >>"$MCG_CLEAN_PIDS"
		set -e
		# it holds its pid file (before that, SIGTERM is not yet its to handle), then idle
		i=0
		while [ "$(awk 'NR == 1 { print $1 }' "$SD/reclaimd.pid" 2>/dev/null)" != "$dpid" ] &&
			alive "$dpid" && [ $i -lt 250 ]; do
			sleep 0.02
			i=$((i + 1))
		done
		i=0
		while ! ci_daemon_idle && alive "$dpid" && [ $i -lt 250 ]; do
			sleep 0.02
			i=$((i + 1))
		done
		kill -TERM "$dpid" 2>/dev/null || true
		set +e
		wait "$dpid"
		rc=$?
		set -e
		[ $rc = 0 ] || ci_error "the next reclaimd exited $rc: $(head -3 "$MCG_TMP/next.err")"
		;;
	2)
		# shellcheck disable=SC2086
		ci_next "enable again" next "$MEMCGCTL" async-reclaim enable "$CGREL" --state-dir "$SD" $ENABLE
		p=$(sed -n 's/.*; reclaimd pid \([0-9]*\)$/\1/p' "$MCG_TMP/next.out")
		[ -n "$p" ] && alive "$p" ||
			ci_error "enable again did not start reclaimd: $(cat "$MCG_TMP/next.out")"
		started_daemon "reclaimd started by enable"
		;;
	3)
		# empty restores the journal first, then steps the limit and puts it back
		ci_next "the next empty" next "$MEMCGCTL" empty "$CGREL" --batch 1024
		ci_limit_is "after the next empty" "$L0"
		ci_next "reclaimd after empty" next "$MEMCGCTL" reclaimd --state-dir "$SD"
		started_daemon "reclaimd after empty"
		;;
	esac
	ci_no_sanitizer "the next command" "$MCG_TMP/next.err" "$SD/reclaimd.log"
	ci_limit_is "after the next command" "$L0"
	ci_expect_no_files "after the next command" "$RUN" '^journal/'
	state_clean "after the next command"
	stale_locks "after the next command"
}

# A kill after the journal went and before the lock file did leaves the lock file; a daemon
# that finds nothing to reclaim never takes the lock again. It must not block the next run.
stale_locks() { # WHEN
	locks=$(ci_files "$RUN" | grep '^locks/' || true)
	[ -n "$locks" ] || return 0
	ci_stale_lock "$1: $(echo "$locks" | tr '\n' ' ')in $RUN"
	ci_next "set-limit over a stale lock" next "$MEMCGCTL" set-limit "$CGREL" "$L0"
	ci_expect_no_files "$1, then set-limit" "$RUN"
}

ci_after_reference() {
	assert_eq "reference run: limit" "$L0" "$(knob "$CG" memory.limit_in_bytes)"
	assert_le "reference run: the burst reached the low watermark" "$(knob "$CG" memory.usage_in_bytes)" $((24 * MIB + 2 * MIB))
	grep -qE '^steps [1-9]' "$SD/stats/${CONF%.conf}" || fail "reference run: no reclaim step in the stats: $(cat "$SD/stats/${CONF%.conf}")"
}
ci_after_complete() {
	killed_at="(not killed)"
	ci_limit_is "after a complete run" "$L0"
	ci_expect_no_files "after a complete run" "$RUN" '^journal/'
	stale_locks "after a complete run"
	state_clean "after a complete run"
}

CI_DAEMON=1
ci_command reclaimd "$MEMCGCTL" reclaimd --foreground --state-dir "$SD"
"$MEMCGCTL" async-reclaim disable "$CGREL" --state-dir "$SD" >/dev/null
ci_finish
