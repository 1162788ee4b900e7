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
# "ready" (mcg-load does) unless SPAWN_NOWAIT=1. Sets SPAWN_PID and SPAWN_OUT.
spawn_in() {
	cgdir=$1
	shift
	SPAWN_OUT="$MCG_TMP/spawn.$$.$(date +%s%N)"
	: >"$SPAWN_OUT"
	sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$cgdir" "$@" >"$SPAWN_OUT" 2>&1 &
	SPAWN_PID=$!
	echo "$SPAWN_PID" >>"$MCG_CLEAN_PIDS"
	[ "${SPAWN_NOWAIT:-0}" = 1 ] && return 0
	i=0
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

knob() { cat "$1/$2"; }
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
# hold CGREL, are in the store (10 s at most)
record_start() {
	rs_rel=$1
	shift
	"$MEMCGCTL" record --store "$STORE" "$@" 2>"$MCG_TMP/rec.err" &
	REC=$!
	echo "$REC" >>"$MCG_CLEAN_PIDS"
	i=0
	until "$MEMCGCTL" dump --store "$STORE" --csv "$rs_rel" 2>/dev/null | grep -q ",$rs_rel,"; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "no frame with $rs_rel after 10 s: $(cat "$MCG_TMP/rec.err")"
		kill -0 "$REC" 2>/dev/null || fail "record exited: $(cat "$MCG_TMP/rec.err")"
		sleep 0.1
	done
	ok "recording"
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
# usage_under CGDIR BYTES WHAT [SECONDS]: wait up to SECONDS (10) for CGDIR's usage to come
# down to BYTES (reclaimd brings it there), then assert it
usage_under() {
	i=0
	while [ "$(knob "$1" "$K_USAGE")" -gt "$2" ] && [ $i -lt $((${4:-10} * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	assert_le "$3" "$(knob "$1" "$K_USAGE")" "$2"
}
# reclaimd_exits PID WHEN: reclaimd PID exits within 5 s ("still runs WHEN" if not)
reclaimd_exits() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
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
# that server; screen prints the pane; wait_for TEXT waits until it shows TEXT (5 s).
tmux_session() {
	MCG_TMUX_SOCK="memcgctl-test-$$"
	MCG_TMUX_SESSION=$1
	trap tmux_cleanup EXIT
	T new-session -d -s "$1" -x "$2" -y 40 "$3"
	T set-option -t "$1" remain-on-exit on >/dev/null
}
T() { tmux -L "$MCG_TMUX_SOCK" "$@"; }
tmux_cleanup() {
	st=$?
	set +e # a failing kill-server must not skip the cleanup
	tmux -L "$MCG_TMUX_SOCK" kill-server 2>/dev/null
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$MCG_TMUX_SOCK"
	(exit $st) # mcg_cleanup exits with the status it finds
	mcg_cleanup
}
screen() { T capture-pane -p -t "$MCG_TMUX_SESSION"; }
wait_for() {
	i=0
	until screen | grep -qF -- "$1"; do
		i=$((i + 1))
		[ $i -gt 50 ] && { screen >&2; fail "the screen never showed '$1'"; }
		sleep 0.1
	done
	ok "screen shows '$1'"
}
# confirmed_action WHAT PROMPT DONE: the view asks PROMPT; y runs the action WHAT, which must
# exit 0; Enter returns to the view, which then shows DONE
confirmed_action() {
	wait_for "$2"
	T send-keys -t "$MCG_TMUX_SESSION" y
	wait_for "press Enter to return to top"
	screen | grep -E '^\[exit status 0\]' >/dev/null || { screen >&2; fail "$1 did not succeed"; }
	T send-keys -t "$MCG_TMUX_SESSION" Enter
	wait_for "$3"
}
# quit_view WHAT: q ends the view WHAT with exit status 0 (the pane's command writes exit=N
# to $MCG_TMP/status) and the terminal is back from the alternate screen
quit_view() {
	T send-keys -t "$MCG_TMUX_SESSION" q
	i=0
	until [ -s "$MCG_TMP/status" ]; do
		i=$((i + 1)); [ $i -gt 50 ] && fail "$1 did not quit"; sleep 0.1
	done
	assert_eq "$1 exit status" "exit=0" "$(cat "$MCG_TMP/status")"
	assert_eq "alternate screen after $1 quit" 0 "$(T display -p -t "$MCG_TMUX_SESSION" '#{alternate_on}')"
}
