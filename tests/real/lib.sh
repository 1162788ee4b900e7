# lib.sh: helpers for real-kernel scenarios (POSIX sh; runs under bash, dash and busybox ash).
# Scratch cgroups, child processes inside them, reading knobs, asserts, cleanup on every exit.
#
# The runner sets: MEMCGCTL MCG_LOAD MCG_CGROOT MCG_CGVER MCG_DATADIR MCG_TIER MCG_SRCDIR
# and optionally MCG_PREFIX. Scenario exit codes: 0 pass, 77 skip, anything else fail.

: "${MCG_PREFIX:=memcgctl-test-$$}"
: "${MCG_CGVER:=1}"
MCG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mcg-scenario.XXXXXX")
MCG_CLEAN_PIDS="$MCG_TMP/pids"
MCG_CLEAN_CGS="$MCG_TMP/cgroups"
: >"$MCG_CLEAN_PIDS"
: >"$MCG_CLEAN_CGS"
# memcgctl's journals and locks stay private to this scenario.
MEMCGCTL_RUNDIR="$MCG_TMP/run"
export MEMCGCTL_RUNDIR
MCG_DATA="$MCG_DATADIR/$MCG_PREFIX"
mkdir -p "$MCG_DATA"

say() { printf '%s\n' "$*"; }
fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}
skip() {
	printf 'SKIP: %s\n' "$*"
	exit 77
}
ok() { printf 'ok: %s\n' "$*"; }

# Knob names per version.
if [ "$MCG_CGVER" = 2 ]; then
	K_USAGE=memory.current
	K_LIMIT=memory.max
else
	K_USAGE=memory.usage_in_bytes
	K_LIMIT=memory.limit_in_bytes
fi

mcg_cleanup() {
	status=$?
	set +e
	# Our own children first: only PIDs this scenario started.
	while read -r pid; do
		[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	done <"$MCG_CLEAN_PIDS"
	while read -r pid; do
		[ -n "$pid" ] && wait "$pid" 2>/dev/null
	done <"$MCG_CLEAN_PIDS"
	# Then the scratch cgroups, deepest first; any task left in them is ours.
	sort -r "$MCG_CLEAN_CGS" | while read -r cg; do
		[ -d "$cg" ] || continue
		i=0
		while [ -s "$cg/cgroup.procs" ] && [ $i -lt 100 ]; do
			for p in $(cat "$cg/cgroup.procs"); do kill -KILL "$p" 2>/dev/null; done
			sleep 0.05
			i=$((i + 1))
		done
		# children created by the code under test, below our scratch cgroup
		find "$cg" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		j=0
		while ! rmdir "$cg" 2>/dev/null && [ $j -lt 100 ]; do
			sleep 0.05
			j=$((j + 1))
		done
		[ -d "$cg" ] && printf 'warning: could not remove %s\n' "$cg" >&2
	done
	rm -rf "$MCG_DATA" "$MCG_TMP"
	exit $status
}
trap mcg_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# require_root_cgroup: skip unless we can create memory cgroups here.
require_cgroups() {
	[ "$(id -u)" = 0 ] || skip "needs root to create memory cgroups"
	[ -d "$MCG_CGROOT" ] || skip "no memory cgroup hierarchy at $MCG_CGROOT"
	[ -w "$MCG_CGROOT" ] || skip "memory cgroup hierarchy $MCG_CGROOT is not writable"
}

# scratch_new NAME [PARENT_DIR]: create a scratch cgroup; sets CG (directory) and CGREL
# (path relative to the hierarchy root, as memcgctl takes it).
scratch_new() {
	parent=${2:-$MCG_CGROOT}
	if [ "$parent" = "$MCG_CGROOT" ]; then
		CG="$MCG_CGROOT/$MCG_PREFIX-$1"
	else
		CG="$parent/$1"
		if [ "$MCG_CGVER" = 2 ]; then
			echo +memory >"$parent/cgroup.subtree_control" || fail "cannot enable memory in $parent"
		fi
	fi
	mkdir "$CG" || fail "cannot create scratch cgroup $CG"
	echo "$CG" >>"$MCG_CLEAN_CGS"
	CGREL=${CG#"$MCG_CGROOT"}
}

# spawn_in CGDIR CMD...: start CMD inside CGDIR in the background; waits for it to print
# "ready" (mcg-load does), or with SPAWN_NOWAIT=1 until it is in CGDIR. Sets SPAWN_PID and SPAWN_OUT.
spawn_in() {
	cgdir=$1
	shift
	SPAWN_OUT="$MCG_TMP/spawn.$$.$(date +%s%N)"
	: >"$SPAWN_OUT"
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$cgdir" "$@" >"$SPAWN_OUT" 2>&1 &
	SPAWN_PID=$!
	echo "$SPAWN_PID" >>"$MCG_CLEAN_PIDS"
	i=0
	if [ "${SPAWN_NOWAIT:-0}" = 1 ]; then
		# in the cgroup, at least (it moves itself there before it runs CMD)
		until grep -qx "$SPAWN_PID" "$cgdir/cgroup.procs"; do
			kill -0 "$SPAWN_PID" 2>/dev/null || fail "child '$*' exited early: $(cat "$SPAWN_OUT")"
			i=$((i + 1))
			[ $i -gt 1200 ] && fail "child '$*' not in $cgdir after 120 s"
			sleep 0.05
		done
		return 0
	fi
	while ! grep -q '^ready' "$SPAWN_OUT"; do
		kill -0 "$SPAWN_PID" 2>/dev/null || fail "child '$*' exited early: $(cat "$SPAWN_OUT")"
		i=$((i + 1))
		[ $i -gt 1200 ] && fail "child '$*' not ready after 120 s"
		sleep 0.1
	done
}

# run_in CGDIR CMD...: run CMD inside CGDIR in the foreground and wait for it.
run_in() {
	cgdir=$1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$cgdir" "$@"
}

# stop_pid PID: kill one of our children and reap it.
stop_pid() {
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# catches PID SIG: PID, a program this scenario started (no longer the shell forked for it),
# has its own handler for SIG (INT, TERM or HUP) now, so a SIG sent now is seen. A background
# job starts with SIGINT ignored: one sent before the program installs its handler is lost.
catches() {
	[ -r "/proc/$1/status" ] || return 1
	[ "$(readlink "/proc/$1/exe" 2>/dev/null)" != "$(readlink "/proc/$$/exe")" ] || return 1
	case $2 in HUP) c_n=1 ;; INT) c_n=2 ;; TERM) c_n=15 ;; *) fail "catches: signal $2?" ;; esac
	c_m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
	[ -n "$c_m" ] || return 1
	c_m=${c_m#"${c_m%????????}"} # the low 32 signals: within any shell's arithmetic
	[ $(((0x$c_m >> (c_n - 1)) & 1)) = 1 ]
}
# wait_catches PID SIG WHAT: wait until PID catches SIG (60 s at most; fail if WHAT ends first)
wait_catches() {
	wc_i=0
	until catches "$1" "$2"; do
		kill -0 "$1" 2>/dev/null || fail "$3 ended before it handled SIG$2"
		wc_i=$((wc_i + 1))
		[ $wc_i -le 600 ] || fail "$3 does not handle SIG$2 after 60 s"
		sleep 0.1
	done
}
# naps PID: PID sleeps in nanosleep now (memcgctl's waits: the lock poll, a stalled retry)
naps() { case $(cat "/proc/$1/wchan" 2>/dev/null) in *nanosleep*) return 0 ;; esac; return 1; }
# wait_until WHAT SECONDS CMD...: run CMD every 0.1 s until it succeeds; fail after SECONDS
wait_until() {
	wu_what=$1 wu_s=$2 wu_n=$(($2 * 10))
	shift 2
	wu_i=0
	until "$@"; do
		wu_i=$((wu_i + 1))
		[ $wu_i -le $wu_n ] || fail "$wu_what: not within $wu_s s"
		sleep 0.1
	done
}
knob() { cat "$1/$2"; }
# oom_report_room: wait until the kernel's OOM report has a fresh window. It prints the report
# (dump_header: the oom-kill: line with the OOM and task cgroups) for at most 10 kills in 5 s
# machine-wide (oom_rs, mm/oom_kill.c; DEFAULT_RATELIMIT_*), so the kills of the scenarios before
# can leave a scenario's own kills without it. Waits until 5.5 s past the last kill the kernel
# log holds (its stamps and /proc/uptime: the same clock here, no suspend), at most 6 s.
oom_report_room() {
	orr_last=$(timeout 5 dd if=/dev/kmsg iflag=nonblock bs=8192 2>/dev/null |
		awk -F'[,;]' '/Killed process/ { t = $3 } END { printf "%.0f\n", t }')
	orr_wait=$(awk -v l="$orr_last" '{ w = (l + 5500000 - $1 * 1000000) / 1000000
		if (w > 6) w = 6; if (w < 0) w = 0; printf "%.2f\n", w }' /proc/uptime)
	[ "$orr_wait" = 0.00 ] || { say "the kernel's OOM report window: waiting ${orr_wait}s"; sleep "$orr_wait"; }
}
# stat_key CGDIR KEY: a memory.stat value.
stat_key() { awk -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print "absent" }' "$1/memory.stat"; }
# The kernel's unlimited value on v1 (page-rounded LONG_MAX).
V1_MAX=9223372036854771712

# json FILTER: run jq on stdin, raw output.
json() { jq -r "$1"; }

assert_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
	ok "$1 = $3"
}
# assert_near WHAT EXPECTED ACTUAL PERCENT [SLACK_BYTES]
assert_near() {
	awk -v e="$2" -v a="$3" -v p="$4" -v s="${5:-0}" 'BEGIN {
		d = e - a; if (d < 0) d = -d; lim = e * p / 100 + s; exit !(d <= lim) }' ||
		fail "$1: expected $2 (within $4% + ${5:-0}), got $3"
	ok "$1 = $3 (expected ~$2)"
}
# assert_le WHAT A B: A <= B
assert_le() {
	awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 <= b + 0) }' || fail "$1: expected $2 <= $3"
	ok "$1: $2 <= $3"
}
# assert_cmd_fails WHAT EXPECTED_STATUS CMD...: CMD exits with EXPECTED_STATUS; stderr kept in LAST_ERR.
assert_status() {
	what=$1
	want=$2
	shift 2
	set +e
	"$@" >"$MCG_TMP/out" 2>"$MCG_TMP/err"
	got=$?
	set -e
	LAST_OUT=$(cat "$MCG_TMP/out")
	LAST_ERR=$(cat "$MCG_TMP/err")
	[ "$got" = "$want" ] || fail "$what: exit $got, expected $want (stderr: $LAST_ERR)"
	ok "$what: exit $got"
}

# now_floor, now_ceil: now in ms, rounded down or up (busybox date may lack %N: whole
# seconds then). A bracket of reads only ever narrows: its start rounded up, its end down.
now_floor() {
	d=$(date +%s%N)
	case $d in *N) echo $(($(date +%s) * 1000)) ;; *) echo "${d%??????}" ;; esac
}
now_ceil() {
	d=$(date +%s%N)
	case $d in *N) echo $(($(date +%s) * 1000 + 1000)) ;; *) echo $((${d%??????} + 1)) ;; esac
}

# record_start CGREL RECORD-ARGS...: "memcgctl record --store $STORE RECORD-ARGS" in the
# background (REC, its pid; $MCG_TMP/rec.err, its stderr) until its first frames, those that
# hold CGREL, are in the store (60 s at most)
record_start() {
	rs_rel=$1
	shift
	"$MEMCGCTL" record --store "$STORE" "$@" 2>"$MCG_TMP/rec.err" &
	REC=$!
	echo "$REC" >>"$MCG_CLEAN_PIDS"
	i=0
	until "$MEMCGCTL" dump --store "$STORE" --csv "$rs_rel" 2>/dev/null | grep -q ",$rs_rel,"; do
		i=$((i + 1))
		[ $i -gt 600 ] && fail "no frame with $rs_rel after 60 s: $(cat "$MCG_TMP/rec.err")"
		kill -0 "$REC" 2>/dev/null || fail "record exited: $(cat "$MCG_TMP/rec.err")"
		sleep 0.1
	done
	ok "recording"
}
# frame_times CGREL: the times (ms) of the frames of CGREL in the store, one a line
frame_times() {
	"$MEMCGCTL" dump --store "$STORE" --csv "$1" 2>/dev/null | awk -F, -v c="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["cgroup"] == c && $col["event"] == "" { print substr($1, 1, length($1) - 6) }'
}
# frames_after CGREL MS N [INTERVAL_MS]: wait until the store holds N frames of CGREL taken
# after MS, at whatever pace a loaded machine lets record sample (60 s at most). The first
# look comes after N intervals (250 ms): a dump reads the whole store.
frames_after() {
	fa_i=0
	sleep "$(awk -v n="$3" -v d="${4:-250}" 'BEGIN { print n * d / 1000 }')"
	until [ "$(frame_times "$1" | awk -v a="$2" '$1 + 0 > a + 0' | wc -l)" -ge "$3" ]; do
		kill -0 "$REC" 2>/dev/null || fail "record exited: $(cat "$MCG_TMP/rec.err")"
		fa_i=$((fa_i + 1))
		[ $fa_i -le 120 ] || fail "not $3 frames of $1 after $2 in 60 s"
		sleep 0.5
	done
}
# frame_after CGREL MS K: the time of the K-th frame of CGREL after MS
frame_after() { frame_times "$1" | awk -v a="$2" -v k="$3" '$1 + 0 > a + 0 && ++n == k { print; exit }'; }
# frame_since CGREL MS: where a window for what happened at MS starts: the time of the last
# frame of CGREL taken at or before MS, or MS. A frame's time is when its sample started, and a
# sample in flight at MS (a long one, on a loaded machine) may read the change made after MS.
frame_since() {
	frame_times "$1" | awk -v a="$2" '$1 + 0 <= a + 0 { t = $1 } END { print (t != "" ? t : a) }'
}

# ---- a shrink that cannot finish (set-limit and recover scenarios) ------------
# busy_shrink NAME: a scratch cgroup (CG, CGREL) that a set-limit to 4096 cannot shrink to:
# on v2 it holds 32 MiB of anon it cannot free, on v1 a child cgroup's few KiB end in EBUSY.
# Sets WATCH, the knob set-limit holds for the time being, ORIG_W, its value before, and
# ADMIN, a value for another writer to set there meanwhile.
busy_shrink() {
	scratch_new "$1"
	if [ "$MCG_CGVER" = 2 ]; then
		spawn_in "$CG" "$MCG_LOAD" anon 32 --hold
		WATCH=memory.high ORIG_W=max ADMIN=314572800 # 300M
	else
		mkdir "$CG/child"
		WATCH=memory.limit_in_bytes ORIG_W=536870912 ADMIN=1887436800 # 1800M
	fi
}

# ---- async reclaim (the async-* scenarios) ------------------------------------
MIB=1048576
# AR ARGS...: async-reclaim with the scenario's own state directory SD
SD="$MCG_TMP/state"
AR() { "$MEMCGCTL" async-reclaim "$@" --state-dir "$SD"; }
daemon_pid() { AR status --json | jq -r '.reclaimd.pid'; }
journals() { ls "$MEMCGCTL_RUNDIR/journal/" 2>/dev/null | grep -c '\.journal$' || true; }
# fname CGREL: a cgroup's state file name (mcg__cgroup_file_name): root and path, '%' and '/'
# escaped
fname() { printf '%s' "$MCG_CGROOT$1" | sed 's/%/%25/g; s|/|%2f|g'; }
# usage_under CGDIR BYTES WHAT [SECONDS]: wait up to SECONDS (60) for CGDIR's usage to come
# down to BYTES (reclaimd brings it there), then assert it
usage_under() {
	i=0
	while [ "$(knob "$1" "$K_USAGE")" -gt "$2" ] && [ $i -lt $((${4:-60} * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	assert_le "$3" "$(knob "$1" "$K_USAGE")" "$2"
}
# reclaimd_exits PID WHEN: reclaimd PID exits within 60 s ("still runs WHEN" if not; a
# sanitized daemon's exit, its leak check, takes seconds on a loaded machine)
reclaimd_exits() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	kill -0 "$1" 2>/dev/null && fail "reclaimd $1 still runs $2"
	ok "reclaimd exited $2"
}
# reclaimd_log_clean: no sanitizer report in the daemon's own log
reclaimd_log_clean() {
	if grep -E "Sanitizer|runtime error" "$SD/reclaimd.log" >/dev/null 2>&1; then
		fail "reclaimd log reports: $(grep -E -A5 'Sanitizer|runtime error' "$SD/reclaimd.log" | head -20)"
	fi
	ok "reclaimd log clean"
}

# ---- a real terminal (tmux) for the live view --------------------------------
# tmux_session NAME COLS CMD: a tmux server of the scenario's own (removed on exit, with
# mcg_cleanup after it) running CMD in a COLSx40 pane kept after CMD exits. T runs tmux on
# that server; screen prints the pane; wait_for TEXT waits until it shows TEXT (30 s).
# Each session gets a server (socket) of its own: a server whose last session was killed
# exits in its own time, and a new session on its socket could reach it while it goes
# ("server exited unexpectedly": failed real-v1/top-container in CI).
MCG_TMUX_N=0
tmux_session() {
	if [ $MCG_TMUX_N -gt 0 ]; then T kill-server 2>/dev/null || true; fi
	MCG_TMUX_N=$((MCG_TMUX_N + 1))
	MCG_TMUX_SOCK="memcgctl-test-$$-$MCG_TMUX_N"
	MCG_TMUX_SESSION=$1
	trap tmux_cleanup EXIT
	T new-session -d -s "$1" -x "$2" -y 40 "$3"
	T set-option -t "$1" remain-on-exit on >/dev/null
}
T() { tmux -L "$MCG_TMUX_SOCK" "$@"; }
tmux_cleanup() {
	st=$?
	set +e # a failing kill-server must not skip the cleanup
	n=1
	while [ $n -le $MCG_TMUX_N ]; do
		tmux -L "memcgctl-test-$$-$n" kill-server 2>/dev/null
		rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/memcgctl-test-$$-$n"
		n=$((n + 1))
	done
	(exit $st) # mcg_cleanup exits with the status it finds
	mcg_cleanup
}
screen() { T capture-pane -p -t "$MCG_TMUX_SESSION"; }
wait_for() {
	i=0
	until screen | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -gt 300 ] && { screen >&2; fail "the screen never showed '$1'"; }
		sleep 0.1
	done
	ok "screen shows '$1'"
}
# confirmed_action WHAT PROMPT DONE: the view asks PROMPT; y runs the action WHAT, which must
# exit 0; Enter returns to the view, which then shows DONE
confirmed_action() {
	wait_for "$2"
	T send-keys -t "$MCG_TMUX_SESSION" y
	# the exit status after this action's own command line: the shell's screen still shows
	# the previous action's "[exit status N] press Enter" until this one prints
	i=0
	until screen | awk -v what="$1" '
		/^\$ memcgctl / { n = split(what, w, " "); m = 1
			for (k = 1; k <= n; k++) if (index($0, w[k]) == 0) m = 0
			cmd = m; st = "" }
		/^\[exit status [0-9]+\] press Enter to return to top/ { st = $3 }
		END { if (!cmd || st == "") exit 1; print st > "/dev/stderr"; exit 0 }' 2>"$MCG_TMP/action.st"; do
		i=$((i + 1))
		[ $i -gt 300 ] && { screen >&2; fail "$1: no exit status on the screen"; }
		sleep 0.1
	done
	[ "$(cat "$MCG_TMP/action.st")" = "0]" ] || { screen >&2; fail "$1 did not succeed"; }
	T send-keys -t "$MCG_TMUX_SESSION" Enter
	wait_for "$3"
}
# quit_view WHAT: q ends the view WHAT with exit status 0 (the pane's command writes exit=N
# to $MCG_TMP/status) and the terminal is back from the alternate screen
quit_view() {
	T send-keys -t "$MCG_TMUX_SESSION" q
	i=0
	until [ -s "$MCG_TMP/status" ]; do
		i=$((i + 1)); [ $i -gt 300 ] && fail "$1 did not quit"; sleep 0.1
	done
	assert_eq "$1 exit status" "exit=0" "$(cat "$MCG_TMP/status")"
	assert_eq "alternate screen after $1 quit" 0 "$(T display -p -t "$MCG_TMUX_SESSION" '#{alternate_on}')"
}
