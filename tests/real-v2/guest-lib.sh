# guest-lib.sh: what the QEMU tiers' run-guest.sh scripts share (tests/real-v2 boots busybox,
# tests/real-systemd boots Debian with systemd): messages, the common options, the kernel and
# the scenarios to run, the guest's environment, booting QEMU and stopping it on every exit
# path, showing the console, reading the results disk and reporting each scenario. Sourced
# (POSIX sh) first thing; the caller sets here (its directory) and tier (its name: real-v2,
# real-systemd) before, and kdir, cpu, mem, timeout_s, scen_timeout and verbose after.

# the common options' defaults: the source tree two levels above the script, its build/
src=$(cd "$here/../.." && pwd)
build=${MCG_BUILDDIR:-$src/build}
results=
keep_results=0

say() { printf '%s: %s\n' "$tier" "$*"; }
die() { say "error: $*" >&2; exit 1; }
# unavailable REASON: the tier cannot run on this host: a skip (77), a failure in CI
unavailable() {
	if [ "${CI:-}" = true ]; then
		say "FAIL: cannot run the $tier tier in CI: $*" >&2
		exit 1
	fi
	say "SKIP: cannot run the $tier tier: $*" >&2
	exit 77
}

# guest_options ARGS...: the options every run-guest.sh takes (--build DIR, --src DIR,
# --results DIR, --), and the tier's own through tier_option OPTION VALUE (false: not one of
# its options; each takes a value). gl_nopts: how many words they were (shift them).
tier_option() { false; }
guest_options() {
	gl_nopts=0
	while [ $# -gt 0 ]; do
		case $1 in
		--) gl_nopts=$((gl_nopts + 1)); return 0 ;;
		-*) [ $# -ge 2 ] || die "option $1 needs a value" ;;
		*) return 0 ;;
		esac
		case $1 in
		--build) build=$2 ;;
		--src) src=$2 ;;
		--results) results=$2; keep_results=1 ;;
		*) tier_option "$1" "$2" || die "unknown option $1" ;;
		esac
		shift 2
		gl_nopts=$((gl_nopts + 2))
	done
}

# guest_kernel: $qemu, and $vmlinuz and its version $kver from the unpacked kernel in $kdir
guest_kernel() {
	qemu=$(command -v qemu-system-x86_64 || true)
	[ -n "$qemu" ] || unavailable "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
	vmlinuz=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1 || true)
	[ -n "$vmlinuz" ] && [ -r "$vmlinuz" ] ||
		unavailable "no kernel in $kdir (run tests/real-v2/setup.sh as root, or set MCG_V2_CACHE)"
	kver=${vmlinuz##*/vmlinuz-}
}

# guest_scenarios DIR [SCENARIO.sh...]: $scenarios, the absolute paths of the SCENARIOs
# named, or else of each DIR/*.sh that the tier's tier_wants FILE accepts (default: every one).
tier_wants() { true; }
guest_scenarios() {
	gl_dir=$1
	shift
	scenarios=
	if [ $# -gt 0 ]; then
		for gl_f; do
			[ -f "$gl_f" ] || die "no scenario $gl_f"
			gl_add_scenario "$(cd "$(dirname "$gl_f")" && pwd)/${gl_f##*/}"
		done
	else
		for gl_f in "$gl_dir"/*.sh; do
			if [ -f "$gl_f" ] && tier_wants "$gl_f"; then
				gl_add_scenario "$gl_f"
			fi
		done
	fi
	[ -n "$scenarios" ] || die "no $tier scenario in $gl_dir"
}
gl_add_scenario() {
	case ${1##*/} in
	*[!A-Za-z0-9_.-]*) die "scenario file name must be [A-Za-z0-9_.-]: $1" ;;
	esac
	scenarios="$scenarios $1"
}

# guest_libs BINARY: the shared libraries BINARY loads, one path a line
guest_libs() { ldd "$1" | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }'; }

# guest_env TESTLIB: the environment both guests give the scenarios: the binaries under
# /mcg/build, the sources under /mcg/src (TESTLIB the tier's lib.sh there), cgroup v2 at
# /sys/fs/cgroup, this host's sanitizer options.
guest_env() {
	cat <<ENV
export MEMCGCTL=/mcg/build/memcgctl
export MCG_LOAD=/mcg/build/tests/real/mcg-load
export MCG_WRITE=/mcg/build/tests/real-v2/mcg-write
export MCG_SRCDIR=/mcg/src
export MCG_TESTLIB=$1
export MCG_CGROOT=/sys/fs/cgroup
export MCG_CGVER=2
export MCG_TIER=$tier
export ASAN_OPTIONS='${ASAN_OPTIONS:-}'
export UBSAN_OPTIONS='${UBSAN_OPTIONS:-print_stacktrace=1}'
export HOME=/root
ENV
}

# guest_boot QEMU-ARGS...: boot the guest (TCG, 2 vCPUs, $mem MiB, serial console to
# $console, no network, no reboot) with the tier's kernel, command line and disks, until it
# powers off or $timeout_s passes; qrc, QEMU's exit status; t_boot and t_end around it.
# With $boot_wait set (real-v2: its init writes to the console as soon as it runs), a
# guest whose console stays empty while QEMU spends that many seconds of CPU time never
# reached its init (seen once in CI: an empty console until the time limit): it is stopped
# and booted once more. CPU time, not wall time: on a loaded host QEMU gets a few percent of
# a CPU (6%, 5 CPU-s in 87 s, at a load of 26), and 90 s of wall time passed before a good
# boot reached its init, twice, for every group of a run.
# gl_qemu_cpu: the CPU seconds QEMU (its pid file) has used so far, 0 before it wrote it
gl_qemu_cpu() {
	gl_qp=$(cat "$work/qemu.pid" 2>/dev/null) || gl_qp=
	[ -n "$gl_qp" ] && [ -r "/proc/$gl_qp/stat" ] || { echo 0; return; }
	# utime and stime, fields 14 and 15 after the "(comm)" field (no space in qemu's comm)
	awk -v hz="$gl_hz" '{ print int(($14 + $15) / hz) }' "/proc/$gl_qp/stat" 2>/dev/null || echo 0
}
guest_boot() {
	gl_hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	t_boot=$(date +%s.%N)
	console=$work/console.log
	gl_try=1
	while :; do
		: >"$console"
		rm -f "$work/qemu.pid"
		timeout -k 5 "$timeout_s" "$qemu" \
			-accel tcg,thread=multi -machine pc -cpu "$cpu" -m "$mem" -smp 2 \
			-nodefaults -no-user-config -display none -no-reboot -net none \
			-serial "file:$console" -pidfile "$work/qemu.pid" \
			"$@" </dev/null >"$work/qemu.out" 2>&1 &
		qpid=$!
		gl_silent=0
		while kill -0 "$qpid" 2>/dev/null; do
			if [ -n "${boot_wait:-}" ] && [ ! -s "$console" ] &&
				[ "$(gl_qemu_cpu)" -ge "$boot_wait" ]; then
				gl_silent=1
				kill -TERM "$(cat "$work/qemu.pid" 2>/dev/null || echo "$qpid")" 2>/dev/null || true
				kill -TERM "$qpid" 2>/dev/null || true
				break
			fi
			sleep 1
		done
		qrc=0
		wait "$qpid" || qrc=$?
		if [ "$gl_silent" = 1 ] && [ "$gl_try" = 1 ]; then
			say "the guest wrote nothing to its console in $boot_wait s of QEMU's CPU time: booting it again"
			gl_try=2
			continue
		fi
		boot_silent=$gl_silent
		break
	done
	t_end=$(date +%s.%N)
}

# guest_finish TIMING: the totals line and where the results are; exit 1 if one failed.
guest_finish() {
	say "$npass passed, $nfail failed, $nskip skipped ($1)"
	[ "$keep_results" = 1 ] && say "results in $results"
	[ "$nfail" -eq 0 ] || exit 1
	exit 0
}

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
	if [ "${boot_silent:-0}" = 1 ]; then
		show_console
		die "the guest did not boot: nothing on its console in $boot_wait s of QEMU's CPU time, twice"
	fi
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
			if [ "$gl_rc" = 137 ]; then
				say "$gl_name was killed by SIGKILL (the guest kills a scenario after $1=${scen_timeout}s)"
			fi
		fi
	done
}
