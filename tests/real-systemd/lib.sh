# lib.sh: helpers for the real-systemd scenarios (POSIX sh), on top of tests/real/lib.sh
# (say/fail/skip/ok, assert_*, knob, $MCG_TMP, a private $MEMCGCTL_RUNDIR, cleanup on exit).
#
# On a systemd host the cgroup tree belongs to systemd: scenarios do not mkdir cgroups, they
# start transient units (sd_service) and work on the units' cgroups. Every unit started here
# is stopped on exit; guest-run.sh also stops any mcgtest-* unit a killed scenario left.
# The runner sets MEMCGCTL MCG_SRCDIR MCG_CGROOT MCG_CGVER MCG_DATADIR MCG_TIER.

# shellcheck disable=SC1091
. "$MCG_SRCDIR/tests/real/lib.sh"

MCG_SD_UNITS="$MCG_TMP/units"
: >"$MCG_SD_UNITS"
MCG_SD_FILES="$MCG_TMP/unit-files" # units with a file under /etc/systemd/system
: >"$MCG_SD_FILES"
MCG_SD_RM="$MCG_TMP/rm-paths" # other paths a scenario made outside its own directories
: >"$MCG_SD_RM"

sd_cleanup() {
	sd_status=$?
	set +e
	while read -r u; do
		systemctl stop "$u" 2>/dev/null
		systemctl reset-failed "$u" 2>/dev/null
	done <"$MCG_SD_UNITS"
	sd_reload=
	while read -r u; do
		rm -rf "/etc/systemd/system/$u" "/etc/systemd/system.control/$u.d" \
			"/run/systemd/system.control/$u.d"
		sd_reload=1
	done <"$MCG_SD_FILES"
	[ -z "$sd_reload" ] || systemctl daemon-reload
	while read -r p; do
		rm -rf "$p"
	done <"$MCG_SD_RM"
	(exit "$sd_status")
	mcg_cleanup # exits with $sd_status
}
trap sd_cleanup EXIT

# require_systemd: skip unless PID 1 is systemd on a pure cgroup v2 tree with memory.
require_systemd() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is $(cat /proc/1/comm), not systemd"
	[ -f "$MCG_CGROOT/cgroup.controllers" ] || skip "$MCG_CGROOT is not a cgroup v2 mount"
	grep -qw memory "$MCG_CGROOT/cgroup.controllers" || skip "no memory controller"
}

# require_cmd CMD...: skip unless every CMD is installed.
require_cmd() {
	for c; do
		command -v "$c" >/dev/null 2>&1 || skip "$c not installed in this guest"
	done
}

# sd_service NAME [systemd-run option...] -- CMD...: start CMD as the transient service
# mcgtest-NAME.service, stopped on exit. Sets SD_UNIT, SD_CGREL (the unit's cgroup, as
# memcgctl takes it) and SD_CG (its directory).
sd_service() {
	SD_UNIT=mcgtest-$1.service
	shift
	sd_opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		sd_opts="$sd_opts $1"
		shift
	done
	[ "${1:-}" = -- ] || fail "sd_service: no -- before the command"
	shift
	echo "$SD_UNIT" >>"$MCG_SD_UNITS"
	# shellcheck disable=SC2086 # options are single words (-p Key=Value)
	systemd-run --quiet --collect --unit="$SD_UNIT" $sd_opts -- "$@" ||
		fail "systemd-run $SD_UNIT failed"
	SD_CGREL=$(systemctl show -P ControlGroup "$SD_UNIT")
	[ -n "$SD_CGREL" ] || fail "$SD_UNIT has no ControlGroup"
	SD_CG=$MCG_CGROOT$SD_CGREL
	[ -d "$SD_CG" ] || fail "$SD_UNIT: no cgroup directory $SD_CG"
}

# sd_prop UNIT PROPERTY: systemctl show -P, as systemd reports it (bytes, or "infinity").
sd_prop() { systemctl show -P "$2" "$1"; }

# wait_for WHAT SECONDS CMD...: poll CMD every 0.1 s until it succeeds; fail after SECONDS.
wait_for() {
	wf_what=$1
	wf_n=$(($2 * 10))
	shift 2
	while ! "$@"; do
		wf_n=$((wf_n - 1))
		[ "$wf_n" -gt 0 ] || fail "timed out waiting for $wf_what"
		sleep 0.1
	done
}

# knob_is CGDIR KNOB VALUE: the knob reads VALUE (a read builtin, no fork: for polling).
knob_is() {
	read -r ki_v <"$1/$2" || return 1
	[ "$ki_v" = "$3" ]
}

# no_journal: memcgctl left nothing in its journal directory.
assert_no_journal() {
	left=$(find "$MEMCGCTL_RUNDIR" -path '*journal*' -type f 2>/dev/null | head -n 5)
	[ -z "$left" ] || fail "journal files left: $left"
	ok "no journal left under \$MEMCGCTL_RUNDIR"
}

# sd_cache_service NAME MAX MIB: the service mcgtest-NAME with MemoryMax=MAX whose cgroup
# holds MIB MiB of clean page cache: the unit's own process reads a sparse file of that size
# (no disk writes, no writeback; the pages are charged to the reader), then sleeps.
# Sets what sd_service sets.
sd_cache_service() {
	scs_f=$MCG_DATA/$1.dat
	truncate -s "$3M" "$scs_f"
	# one line: systemd keeps ExecStart= in a transient unit file that daemon-reload reads
	sd_service "$1" -p MemoryMax="$2" -- sh -c \
		'cat "$1" >/dev/null && : >"$1.ready" && exec sleep 1000' sh "$scs_f"
	wait_for "$SD_UNIT to read its file" 60 test -e "$scs_f.ready"
}

# stopped_after_write CGREL KNOB memcgctl-argument...: run "memcgctl ARGS" in the background
# under strace, which injects SIGSTOP into it at its first write(2) or pwrite(2) to CGREL's
# KNOB (the signal arrives when that write returns) and logs "stopped by SIGSTOP" once it is
# stopped; wait for that. Nothing else is slowed down or stopped, so where it stops does not depend
# on timing. Sets ST_PID (memcgctl, for kill -CONT), ST_WAIT (to wait for: strace, which
# exits with memcgctl's status), ST_OUT and ST_ERR (memcgctl's output). LeakSanitizer cannot
# run under ptrace: it is off for this run.
stopped_after_write() {
	st_file=$MCG_CGROOT$1/$2
	shift 2
	ST_OUT=$MCG_TMP/st.out
	ST_ERR=$MCG_TMP/st.err
	st_log=$MCG_TMP/st.strace
	: >"$st_log"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -qq -o "$st_log" -P "$st_file" -e trace=write,pwrite64 \
		-e inject=write,pwrite64:signal=SIGSTOP:when=1 \
		sh -c 'echo $$ >"$0" && exec "$@"' "$MCG_TMP/st.pid" "$MEMCGCTL" "$@" \
		>"$ST_OUT" 2>"$ST_ERR" </dev/null &
	ST_WAIT=$!
	echo "$ST_WAIT" >>"$MCG_CLEAN_PIDS"
	st_n=600
	until grep -q 'stopped by SIGSTOP' "$st_log"; do
		if ! kill -0 "$ST_WAIT" 2>/dev/null; then
			wait "$ST_WAIT" && st_rc=0 || st_rc=$?
			fail "memcgctl $* exited ($st_rc) before it wrote ${st_file##*/}:
$(cat "$ST_ERR")"
		fi
		st_n=$((st_n - 1))
		[ $st_n -gt 0 ] || fail "memcgctl $* did not write ${st_file##*/} within 60 s"
		sleep 0.1
	done
	ST_PID=$(cat "$MCG_TMP/st.pid")
	echo "$ST_PID" >>"$MCG_CLEAN_PIDS" # killed on failure, after strace
	cp "$st_log" "$MCG_ARTIFACTS/strace.log" 2>/dev/null || true
	ok "memcgctl $* stopped after its first write to ${st_file##*/}: $(grep -m1 'write' "$st_log")"
}

# held_set_limit NAME: the service mcgtest-NAME (MemoryMax=300M) holding 128 MiB of page
# cache, and "set-limit ... 64M" of it stopped (stopped_after_write) right after it wrote its
# temporary memory.high of 64M, before it touches memory.max.
held_set_limit() {
	sd_cache_service "$1" 300M 128
	assert_le "page cache charged to $SD_UNIT (memory.current >= 128 MiB)" 134217728 \
		"$(knob "$SD_CG" memory.current)"
	stopped_after_write "$SD_CGREL" memory.high set-limit "$SD_CGREL" 64M
	assert_eq "memory.high while set-limit holds its temporary value" 67108864 \
		"$(knob "$SD_CG" memory.high)"
	assert_eq "memory.max before set-limit writes it" 314572800 "$(knob "$SD_CG" memory.max)"
}

# resumed_conflict KNOB: let the set-limit of held_set_limit go on; it must stop with exit
# status 3 (EXIT_CONFLICT), saying that another writer changed KNOB. Its output goes to the
# artifacts.
resumed_conflict() {
	kill -CONT "$ST_PID"
	wait "$ST_WAIT" && rc=0 || rc=$?
	cp "$ST_OUT" "$MCG_ARTIFACTS/set-limit.out"
	cp "$ST_ERR" "$MCG_ARTIFACTS/set-limit.err"
	say "set-limit stderr:"
	cat "$ST_ERR"
	assert_eq "set-limit exit status (3: EXIT_CONFLICT)" 3 "$rc"
	# systemd re-applies every memory setting of the unit: the knob memcgctl notices first
	# (its fanotify watch reports each write) may be the temporary memory.high it held
	grep -Eq "stopped: another writer changed ($1|memory.high)" "$ST_ERR" ||
		fail "set-limit does not say that another writer changed $1 (or memory.high)"
	ok "set-limit says another writer changed $(grep -Eo 'changed memory\.[a-z]+' "$ST_ERR" | head -n 1 | cut -d' ' -f2)"
}

# kept_through WHAT CMD...: the fix of issue 14: a set-limit to 64M that runs to the end hands
# its value to systemd too (SetUnitProperties), so that CMD (WHAT), which makes systemd
# re-apply the unit's settings, keeps it: the kernel and systemctl show say 64M before and
# after, and no journal is left.
kept_through() {
	kt_what=$1
	shift
	assert_status "set-limit $SD_CGREL 64M, uninterrupted" 0 "$MEMCGCTL" set-limit "$SD_CGREL" 64M
	assert_agree "after set-limit" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 67108864
	"$@"
	assert_agree "after $kt_what" "$SD_UNIT" "$SD_CG" memory.max MemoryMax 67108864
	assert_no_journal
}

# sd_file_service NAME MAX MIB: like sd_cache_service, but from a unit file
# /etc/systemd/system/mcgtest-NAME.service (MemoryMax=MAX), loaded by daemon-reload and
# started; the file, its drop-ins under /etc and /run/systemd/system.control go on exit.
sd_file_service() {
	SD_UNIT=mcgtest-$1.service
	sfs_f=$MCG_DATA/$1.dat
	truncate -s "$3M" "$sfs_f"
	echo "$SD_UNIT" >>"$MCG_SD_UNITS"
	echo "$SD_UNIT" >>"$MCG_SD_FILES"
	cat >"/etc/systemd/system/$SD_UNIT" <<UNIT
[Service]
MemoryMax=$2
ExecStart=/bin/sh -c 'cat "\$1" >/dev/null && : >"\$1.ready" && exec sleep 1000' sh $sfs_f
UNIT
	systemctl daemon-reload
	systemctl start "$SD_UNIT" || fail "systemctl start $SD_UNIT failed"
	SD_CGREL=$(systemctl show -P ControlGroup "$SD_UNIT")
	[ -n "$SD_CGREL" ] || fail "$SD_UNIT has no ControlGroup"
	SD_CG=$MCG_CGROOT$SD_CGREL
	wait_for "$SD_UNIT to read its file" 60 test -e "$sfs_f.ready"
}

# assert_agree WHAT UNIT CGDIR KNOB PROPERTY EXPECTED: the kernel's KNOB and systemd's
# PROPERTY (systemctl show -P) both read EXPECTED (bytes; the kernel's "max" is systemd's
# "infinity").
assert_agree() {
	aa_k=$(knob "$3" "$4")
	aa_p=$(sd_prop "$2" "$5")
	[ "$aa_k" = max ] && aa_k=infinity
	[ "$aa_k" = "$6" ] && [ "$aa_p" = "$6" ] ||
		fail "$1: $4 = $aa_k, $5 = $aa_p, expected both $6"
	ok "$1: $4 = $5 = $6"
}

# sd_reclaimd_unit: memcgctl-reclaimd.service as shipped (lib/systemd/*.in, the paths of this
# run's memcgctl filled in) in /etc/systemd/system, with a drop-in for this build's libraries
# (the sanitizer runtimes under /mcg/lib). LeakSanitizer stops the world with ptrace, which
# the sandbox forbids (as it should): off for the unit's processes only. Sets RD_UNIT.
sd_reclaimd_unit() {
	RD_UNIT=memcgctl-reclaimd.service
	echo "$RD_UNIT" >>"$MCG_SD_UNITS"
	echo "$RD_UNIT" >>"$MCG_SD_FILES"
	sed "s|@MEMCG_SBINDIR@|${MEMCGCTL%/*}|g" "$MCG_SRCDIR/lib/systemd/$RD_UNIT.in" \
		>"/etc/systemd/system/$RD_UNIT"
	mkdir -p "/run/systemd/system.control/$RD_UNIT.d"
	cat >"/run/systemd/system.control/$RD_UNIT.d/50-test-env.conf" <<CONF
[Service]
Environment=LD_LIBRARY_PATH=$LD_LIBRARY_PATH ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
CONF
	systemctl daemon-reload
	cp "/etc/systemd/system/$RD_UNIT" "$MCG_ARTIFACTS/$RD_UNIT"
}

# usage_under CGDIR BYTES: memory.current <= BYTES (for wait_for).
usage_under() { [ "$(cat "$1/memory.current")" -le "$2" ]; }

# assert_dropin FILE LINE: the drop-in FILE holds LINE.
assert_dropin() {
	grep -qxF "$2" "$1" 2>/dev/null || fail "no '$2' in $1"
	ok "$1 holds $2"
}

# assert_kept WHAT UNIT CGDIR BYTES: memory.max and MemoryMax agree on BYTES after a
# daemon-reload and after an unrelated set-property (systemd 252 rewrites every memory knob
# of the unit on both).
assert_kept() {
	systemctl daemon-reload
	assert_agree "$1, after daemon-reload" "$2" "$3" memory.max MemoryMax "$4"
	systemctl set-property --runtime "$2" CPUWeight=50
	assert_agree "$1, after an unrelated set-property CPUWeight=50" "$2" "$3" memory.max \
		MemoryMax "$4"
}
