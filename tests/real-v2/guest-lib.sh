# guest-lib.sh: what the QEMU tiers' run-guest.sh scripts share (tests/real-v2 boots busybox,
# tests/real-systemd boots Debian with systemd): stopping QEMU on every exit path, showing the
# console, reading the results disk and reporting each scenario. Sourced (POSIX sh); the
# caller defines say and die and sets work, qpid, console, results, scenarios, verbose and
# scen_timeout as its own variables.

# Stop QEMU (its own pid from -pidfile, and timeout(1)'s) and remove $work: a signal to the
# script must not leave either behind.
guest_cleanup() {
	trap - EXIT INT TERM HUP
	gl_pids="$(cat "$work/qemu.pid" 2>/dev/null || true) $qpid"
	for gl_pid in $gl_pids; do
		kill -TERM "$gl_pid" 2>/dev/null || true
	done
	gl_i=0
	for gl_pid in $gl_pids; do
		while kill -0 "$gl_pid" 2>/dev/null && [ $gl_i -lt 50 ]; do
			sleep 0.1
			gl_i=$((gl_i + 1))
		done
		kill -KILL "$gl_pid" 2>/dev/null || true
	done
	rm -rf "$work"
}

# guest_workspace NAME: the scratch directory $work (memcgctl-NAME.XXXXXX), removed with
# QEMU stopped on every exit path, and an empty $results (under $work unless chosen).
guest_workspace() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/memcgctl-$1.XXXXXX")
	qpid=
	trap guest_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM HUP
	[ -n "$results" ] || results=$work/results
	rm -rf "$results"
	mkdir -p "$results"
}

show_console() {
	say "---- guest console (last 60 lines) ----"
	tail -n 60 "$console" 2>/dev/null || true
	say "---- qemu output ----"
	cat "$work/qemu.out" 2>/dev/null || true
}

# guest_results QRC TIMEOUT_SETTING: QEMU's exit status QRC (124/137: timeout(1) stopped it
# after the limit named by TIMEOUT_SETTING), then the guest's tar from $work/results.img
# into $results. Dies unless the guest wrote its results.
guest_results() {
	if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
		show_console
		die "guest did not power off in time ($2)"
	fi
	[ "$1" -eq 0 ] || { show_console; die "qemu exited with status $1"; }
	tar -xf "$work/results.img" -C "$results" 2>"$work/tar.err" || true
	cp "$console" "$results/console.log" 2>/dev/null || true
	if [ ! -f "$results/guest.status" ]; then
		show_console
		cat "$work/tar.err"
		die "the guest wrote no results"
	fi
}

# info KEY: a line KEY=VALUE of the guest's guest.info.
info() { sed -n "s/^$1=//p" "$results/guest.info"; }

# guest_status: die unless the guest says ok.
guest_status() {
	gl_status=$(cat "$results/guest.status")
	if [ "$gl_status" != ok ]; then
		show_console
		die "guest $gl_status"
	fi
}

# guest_report SCENARIO_TIMEOUT_SETTING: one line per scenario of $scenarios from
# $results/s/NAME/{rc,secs,out,err}; a failure's (or, with verbose=1, every) output. Sets
# npass, nfail, nskip.
guest_report() {
	npass=0 nfail=0 nskip=0
	for gl_f in $scenarios; do
		gl_name=${gl_f##*/}
		gl_name=${gl_name%.sh}
		gl_d=$results/s/$gl_name
		gl_rc=$(cat "$gl_d/rc" 2>/dev/null || echo missing)
		gl_secs=$(cat "$gl_d/secs" 2>/dev/null || echo "?")
		case $gl_rc in
		0) gl_verdict=PASS; npass=$((npass + 1)) ;;
		77) gl_verdict=SKIP; nskip=$((nskip + 1)) ;;
		*) gl_verdict=FAIL; nfail=$((nfail + 1)) ;;
		esac
		if [ "$gl_verdict" = SKIP ]; then
			gl_reason=$(cat "$gl_d/out" "$gl_d/err" 2>/dev/null | grep . | tail -n 1 || true)
			say "SKIP $gl_name (${gl_secs}s): $gl_reason"
		else
			say "$gl_verdict $gl_name (exit $gl_rc, ${gl_secs}s)"
		fi
		if [ "$gl_verdict" = FAIL ] || [ "$verbose" = 1 ]; then
			for gl_stream in out err; do
				if [ -s "$gl_d/$gl_stream" ]; then
					say "---- $gl_name std$gl_stream ----"
					cat "$gl_d/$gl_stream"
				fi
			done
			[ "$gl_rc" = 137 ] && say "$gl_name was killed by SIGKILL (the guest kills a scenario after $1=${scen_timeout}s)"
		fi
	done
}
