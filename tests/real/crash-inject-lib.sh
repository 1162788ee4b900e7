# crash-inject-lib.sh: SIGKILL a memcgctl command at every write-like syscall in turn, with
# strace's fault injection (one run per injection point), for the crash-inject-* scenarios.
# Sourced after lib.sh. A scenario defines:
#   ci_prepare SYSCALL N   put the cgroup back in its starting state before run N
#   ci_check SYSCALL N     after a run that was killed: run the next command(s) and count
#                          wrong values (ci_wrong) and leftover files (ci_leftover)
# and calls ci_command NAME CMD... once per command.
#
# Why only write-like syscalls: on-disk and cgroup state changes only there, so a kill at the
# entry of each of them (the syscall does not run), plus one run that completes, covers every
# distinct state a crash can leave. openat counts only where the reference run's call creates
# or writes (the Nth openat of the run is the Nth one strace counts).

# every syscall that can change a file, a directory or a cgroup knob
CI_WRITELIKE=write,pwrite64,writev,pwritev,pwritev2,openat,open,creat,rename,renameat,renameat2
CI_WRITELIKE=$CI_WRITELIKE,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat
CI_WRITELIKE=$CI_WRITELIKE,truncate,ftruncate,flock,fchmod,fchmodat,fchown,fchownat,fsync,fdatasync
# every point up to CI_ALL per syscall, then at most CI_SAMPLE evenly spaced ones beyond
: "${CI_ALL:=60}"
: "${CI_SAMPLE:=20}"
CI_KILLS=0 CI_WRONG=0 CI_LEFT=0 CI_ERRS=0 CI_STALE=0
CI_SUMMARY=""

# LeakSanitizer cannot run under ptrace (it exits non-zero): leaks are the other tests' job.
ci_strace() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"
}

# ci_alive PID: running, not a zombie waiting to be reaped
ci_alive() {
	[ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

# ci_exec STRACE-ARGS...: strace the command. With CI_DAEMON=1 the command is a daemon that
# runs until stopped: once ci_daemon_idle (the scenario's) says its work is done, or after
# CI_DAEMON_WAIT seconds, it gets SIGTERM (its clean exit is part of the run).
: "${CI_DAEMON_WAIT:=10}"
ci_exec() {
	[ "${CI_DAEMON:-0}" = 1 ] || {
		ci_strace "$@"
		return
	}
	(
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
		export ASAN_OPTIONS
		exec strace "$@"
	) &
	ci_spid=$!
	echo "$ci_spid" >>"$MCG_CLEAN_PIDS"
	i=0
	while ci_alive "$ci_spid" && ! ci_daemon_idle && [ $i -lt $((CI_DAEMON_WAIT * 50)) ]; do
		sleep 0.02
		i=$((i + 1))
	done
	if ci_alive "$ci_spid"; then
		# strace's child is the daemon (--foreground: it does not fork)
		ci_dpid=$(awk '{ print $1 }' "/proc/$ci_spid/task/$ci_spid/children" 2>/dev/null)
		if [ -n "$ci_dpid" ] && ! ci_term "$ci_dpid" "$ci_spid" 10; then
			echo "daemon $ci_dpid ignored SIGTERM for 10 s" >&2
		fi
	fi
	wait "$ci_spid"
}

# ci_scratch NAME LIMIT: the scratch cgroup (CG, CGREL) the commands run on and its original
# limit L0=LIMIT; RUN, memcgctl's run directory; MEMSW, the memsw limit (empty without swap
# accounting), which empty and reclaimd must leave as it is.
ci_scratch() {
	scratch_new "$1"
	L0=$2
	RUN=$MEMCGCTL_RUNDIR
	MEMSW=
	if [ -e "$CG/memory.memsw.limit_in_bytes" ]; then
		MEMSW=$(knob "$CG" memory.memsw.limit_in_bytes)
	fi
}
ci_memsw() { [ -z "$MEMSW" ] || knob "$CG" memory.memsw.limit_in_bytes; }

# ci_limit_is WHEN VALUE: the limit reads VALUE (after the kill at $killed_at), memsw as it was
ci_limit_is() {
	got=$(knob "$CG" memory.limit_in_bytes)
	[ "$got" = "$2" ] || ci_wrong "$1: limit $got (at the kill $killed_at), expected $2"
	[ "$(ci_memsw)" = "$MEMSW" ] || ci_wrong "$1: memsw $(ci_memsw), expected $MEMSW"
}

# ci_next WHAT NAME CMD...: run a next command, its stdout and stderr in $MCG_TMP/NAME.out and
# NAME.err; an exit status other than 0 is an error ("WHAT exited N" and its first lines)
ci_next() {
	ci_what=$1 ci_name=$2
	shift 2
	set +e
	"$@" </dev/null >"$MCG_TMP/$ci_name.out" 2>"$MCG_TMP/$ci_name.err"
	ci_rc=$?
	set -e
	[ $ci_rc = 0 ] ||
		ci_error "$ci_what exited $ci_rc: $(cat "$MCG_TMP/$ci_name.out" "$MCG_TMP/$ci_name.err" | head -3)"
}

# ci_term PID WATCH SECONDS: SIGTERM PID and wait up to SECONDS for WATCH (PID, or a parent
# that exits with it) to be gone; if it is not, SIGKILL PID and return 1.
ci_term() {
	kill -TERM "$1" 2>/dev/null || true
	ci_i=0
	while ci_alive "$2" && [ $ci_i -lt $(($3 * 50)) ]; do
		sleep 0.02
		ci_i=$((ci_i + 1))
	done
	ci_alive "$2" || return 0
	kill -KILL "$1" 2>/dev/null || true
	return 1
}

# ci_require: skip unless the scenario can make cgroups, and strace can inject a SIGKILL
ci_require() {
	require_cgroups
	command -v strace >/dev/null 2>&1 || skip "strace is not installed"
	command -v jq >/dev/null 2>&1 || skip "jq is not installed"
	set +e
	ci_strace -o /dev/null -e trace=write -e inject=write:signal=KILL:when=1 \
		"$MEMCGCTL" --version >/dev/null 2>&1
	st=$?
	set -e
	[ "$st" = 137 ] || skip "strace cannot inject a SIGKILL here (exit $st)"
}

# ci_reference FILE CMD...: one normal run, write-like syscalls traced into FILE.
ci_reference() {
	ref=$1
	shift
	set +e
	ci_exec -f -o "$ref" -e trace="$CI_WRITELIKE" "$@" </dev/null >"$MCG_TMP/ref.out" 2>&1
	st=$?
	set -e
	[ "$st" = 0 ] || fail "reference run '$*' exited $st: $(cat "$MCG_TMP/ref.out")"
}

# ci_syscalls FILE: "SYSCALL COUNT POINTS..." per write-like syscall the main process made,
# POINTS the injection numbers to try (sampled beyond CI_ALL), COUNT its number of calls.
ci_syscalls() {
	awk -v all="$CI_ALL" -v sample="$CI_SAMPLE" '
	NR == 1 { main = $1 }
	$1 != main || $2 ~ /^(\+\+\+|---|<\.\.\.)/ { next }
	{
		call = $2; sub(/\(.*/, "", call)
		n = ++count[call]
		if (!(call in order)) { order[call] = ++ncalls; names[ncalls] = call }
		# an open that only reads changes nothing: the next write-like call covers it
		if ((call == "openat" || call == "open") && $0 !~ /O_WRONLY|O_RDWR|O_CREAT|O_TRUNC/)
			next
		pts[call, ++np[call]] = n
	}
	END {
		for (i = 1; i <= ncalls; i++) {
			c = names[i]
			if (!np[c])
				continue
			line = c " " count[c]
			k = np[c] > all ? int((np[c] - all + sample - 1) / sample) : 1
			for (j = 1; j <= np[c]; j++)
				if (j <= all || (j - all) % k == 0 || j == np[c])
					line = line " " pts[c, j]
			print line " " count[c] + 1
		}
	}' "$1"
}

# ci_run SYSCALL N CMD...: run CMD with a SIGKILL injected at its Nth SYSCALL. Sets CI_KILLED
# (1 if killed), CI_AT (the call it was killed at), CI_RC (exit status if not killed).
ci_run() {
	ci_rsc=$1
	ci_rn=$2
	shift 2
	set +e
	ci_exec -f -o "$MCG_TMP/inj.trace" -e trace="$ci_rsc" -e inject="$ci_rsc:signal=KILL:when=$ci_rn" \
		"$@" </dev/null >"$MCG_TMP/inj.out" 2>"$MCG_TMP/inj.err"
	CI_RC=$?
	set -e
	if grep -q '+++ killed by SIGKILL' "$MCG_TMP/inj.trace"; then
		CI_KILLED=1
		CI_AT=$(grep -v '^[0-9]* *+++' "$MCG_TMP/inj.trace" | tail -n 1 | sed 's/^[0-9]* *//')
	else
		CI_KILLED=0
		CI_AT=""
	fi
}

# ci_files DIR: every entry below DIR that is not a directory, relative, one a line.
ci_files() {
	[ -d "$1" ] || return 0
	(cd "$1" && find . -mindepth 1 ! -type d | sed 's|^\./||' | sort)
}

ci_wrong() { # WHAT
	CI_WRONG=$((CI_WRONG + 1))
	ci_detail "WRONG: $1"
}
ci_leftover() { # WHAT
	CI_LEFT=$((CI_LEFT + 1))
	ci_detail "LEFTOVER: $1"
}
# a lock file with no journal, not locked: it blocks nothing, and the next change of the
# cgroup removes it; counted and shown, not a failure
ci_stale_lock() { # WHAT
	CI_STALE=$((CI_STALE + 1))
	ci_detail "note (harmless): $1"
}
ci_error() { # WHAT
	CI_ERRS=$((CI_ERRS + 1))
	ci_detail "ERROR: $1"
}
# one line per problem, with the injection point and the call memcgctl was killed at
ci_detail() {
	printf '  %s [%s #%s, killed at: %s]\n' "$1" "$CI_SC" "$CI_N" "${CI_AT:-not killed}" >&2
	grep -v '^Killed$' "$MCG_TMP/inj.err" | sed 's/^/    stderr of the killed run: /' | head -3 >&2
	return 0
}

# ci_no_sanitizer WHEN FILE...: no sanitizer report in the output of a next command
ci_no_sanitizer() {
	ci_when=$1
	shift
	for ci_f in "$@"; do
		[ -f "$ci_f" ] && grep -qE 'Sanitizer|runtime error' "$ci_f" &&
			ci_error "$ci_when: sanitizer report in $ci_f: $(grep -E -m1 'Sanitizer|runtime error' "$ci_f")"
	done
	return 0
}

# ci_expect_no_files WHEN DIR [PATTERN]: each file below DIR (matching PATTERN, an ERE) is
# a leftover.
ci_expect_no_files() {
	left=$(ci_files "$2" | grep -E "${3:-.}" || true)
	[ -z "$left" ] && return 0
	ci_leftover "$1: $(echo "$left" | tr '\n' ' ')in $2"
}

# ci_command NAME CMD...: the reference run, then one killed run per injection point of each
# write-like syscall, each followed by ci_check; a summary line per syscall and per command.
ci_command() {
	name=$1
	shift
	k0=$CI_KILLS w0=$CI_WRONG l0=$CI_LEFT e0=$CI_ERRS s0=$CI_STALE
	t0=$(date +%s)
	ci_prepare reference 0
	ci_reference "$MCG_TMP/ref.trace" "$@"
	ci_after_reference
	ci_syscalls "$MCG_TMP/ref.trace" >"$MCG_TMP/points"
	say "$name: write-like syscalls of a normal run (name, calls, injection points):"
	sed 's/^/  /' "$MCG_TMP/points"
	while read -r sc count pts <&3; do
		CI_SC=$sc
		kills=0 ci_w=$CI_WRONG ci_l=$CI_LEFT ci_e=$CI_ERRS tried=0 done=0
		last=0
		for n in $pts; do
			ci_try "$@" || break
			last=$n
		done
		# more calls than in the reference run: go on until one run completes
		n=$((last + 1))
		while [ $done = 0 ] && [ $n -le $((count + 30)) ]; do
			ci_try "$@" || break
			n=$((n + 1))
		done
		[ $done = 1 ] || ci_error "$sc: no run completed up to injection point $((n - 1))"
		say "  $name/$sc: $tried injection point(s) of $count call(s), $kills kill(s), $((CI_WRONG - ci_w)) wrong limit(s), $((CI_LEFT - ci_l)) leftover(s), $((CI_ERRS - ci_e)) error(s)"
	done 3<"$MCG_TMP/points"
	line="crash-inject $name: $((CI_KILLS - k0)) kills injected, $((CI_WRONG - w0)) wrong limits, $((CI_LEFT - l0)) leftovers, $((CI_ERRS - e0)) errors, $((CI_STALE - s0)) stale lock files, $(($(date +%s) - t0)) s"
	say "$line"
	CI_SUMMARY="$CI_SUMMARY$line
"
}

# one injection point (n, CI_SC); returns 1 once a run completed without being killed
ci_try() {
	CI_N=$n
	[ -z "${CI_DEBUG:-}" ] || say "  $(date +%s.%N | cut -c1-14) $CI_SC #$n"
	ci_prepare "$CI_SC" "$n"
	ci_run "$CI_SC" "$n" "$@"
	tried=$((tried + 1))
	if [ "$CI_KILLED" = 0 ]; then
		done=1
		if grep -qE 'Sanitizer|runtime error' "$MCG_TMP/inj.err"; then
			ci_error "sanitizer report: $(grep -E -m1 'Sanitizer|runtime error' "$MCG_TMP/inj.err")"
		fi
		[ "$CI_RC" = 0 ] || ci_error "the run that was not killed exited $CI_RC: $(head -3 "$MCG_TMP/inj.err")"
		ci_after_complete
		return 1
	fi
	kills=$((kills + 1))
	CI_KILLS=$((CI_KILLS + 1))
	if grep -qE 'Sanitizer|runtime error' "$MCG_TMP/inj.err"; then
		ci_error "sanitizer report: $(grep -E -m1 'Sanitizer|runtime error' "$MCG_TMP/inj.err")"
	fi
	ci_check "$CI_SC" "$n"
	return 0
}

# defaults a scenario may override
ci_daemon_idle() { false; }
ci_after_reference() { :; }
ci_after_complete() { :; }

# ci_finish: fail unless every kill ended in a right limit and a clean run directory.
ci_finish() {
	[ "$(printf '%s' "$CI_SUMMARY" | wc -l)" -gt 1 ] && printf '%s' "$CI_SUMMARY"
	[ "$CI_WRONG" = 0 ] && [ "$CI_LEFT" = 0 ] && [ "$CI_ERRS" = 0 ] ||
		fail "$CI_KILLS kills: $CI_WRONG wrong limit(s), $CI_LEFT leftover(s), $CI_ERRS error(s)"
	ok "$CI_KILLS kills injected: no wrong limit, no leftover"
}
