# race-lib.sh: another writer at a random moment while memcgctl holds a temporary value
# (issue 23), shared by tests/real/scenarios/race-*.sh and bench/race.sh. Sourced after lib.sh.
#
# race_trial KNOB THEIRS CMD...: start CMD (a memcgctl run) in the background, wait until
# KNOB of $CG no longer reads what it read before (memcgctl's first step is in the kernel),
# sleep a random 0-60 ms, write THEIRS (bytes, page-aligned) to KNOB, wait for CMD. Sets
# RACE_RESULT: kept (KNOB reads THEIRS at the end), seen (it does not, but CMD exited 3 and
# named KNOB on stderr), lost (neither: their value silently gone); RACE_MS the delay,
# RACE_STATUS the exit status, RACE_BEFORE / RACE_AFTER what KNOB read before and at the end,
# RACE_DURING 1 if CMD was still running when the write began. The wait polls with the shell's own read (no fork), so the
# write lands anywhere in the run: inside one of memcgctl's writes as often as between two.
# shellcheck disable=SC2034 # RACE_* are read by the sourcing scenario
race_trial() {
	rt_knob=$1
	rt_theirs=$2
	shift 2
	read -r rt_before <"$CG/$rt_knob"
	rm -f "$MCG_TMP/race.done"
	(rt_s=0
		"$@" >"$MCG_TMP/race.out" 2>"$MCG_TMP/race.err" || rt_s=$?
		echo $rt_s >"$MCG_TMP/race.st"
		: >"$MCG_TMP/race.done") &
	rt_pid=$!
	echo "$rt_pid" >>"$MCG_CLEAN_PIDS"
	while read -r rt_v <"$CG/$rt_knob" && [ "$rt_v" = "$rt_before" ] && [ ! -e "$MCG_TMP/race.done" ]; do
		:
	done
	RACE_MS=$(($(od -An -N2 -tu2 /dev/urandom) % 61))
	sleep "$(printf '0.%03d' "$RACE_MS")"
	RACE_DURING=1
	[ ! -e "$MCG_TMP/race.done" ] || RACE_DURING=0
	echo "$rt_theirs" >"$CG/$rt_knob" || true
	wait "$rt_pid" || true
	RACE_STATUS=$(cat "$MCG_TMP/race.st")
	read -r rt_after <"$CG/$rt_knob"
	RACE_BEFORE=$rt_before RACE_AFTER=$rt_after
	if [ "$rt_after" = "$rt_theirs" ]; then
		RACE_RESULT=kept
	elif [ "$RACE_STATUS" = 3 ] && grep -q "$rt_knob" "$MCG_TMP/race.err"; then
		RACE_RESULT=seen
	else
		RACE_RESULT=lost
	fi
}

# race_count RESULT: add one to the counter of RESULT (RACE_KEPT RACE_SEEN RACE_LOST), and
# to RACE_IN if the write began while CMD ran.
RACE_KEPT=0
RACE_SEEN=0
RACE_LOST=0
RACE_IN=0
race_count() {
	[ "$RACE_DURING" = 0 ] || RACE_IN=$((RACE_IN + 1))
	case $1 in
	kept) RACE_KEPT=$((RACE_KEPT + 1)) ;;
	seen) RACE_SEEN=$((RACE_SEEN + 1)) ;;
	*) RACE_LOST=$((RACE_LOST + 1)) ;;
	esac
}
race_reset() {
	RACE_KEPT=0
	RACE_SEEN=0
	RACE_LOST=0
	RACE_IN=0
}

# race_point KNOB THEIRS [MCG-RACE OPTIONS] -- CMD...: another writer at a random moment of
# CMD's restore (issue 23): tests/real/mcg-race.c runs CMD, takes the read of KNOB by CMD
# that its options name (default: CMD's first, recover's compare; -s MS: the first after
# a SIGINT it sends 0-MS ms after CMD's first write, the rollback's; -u FILE:MAX: the first
# with usage at most MAX, empty's last), sleeps a random 0-100 us (-d) and writes THEIRS.
# Sets RACE_RESULT as race_trial does, RACE_STATUS, RACE_BEFORE / RACE_AFTER, RACE_US (the
# delay), RACE_DURING (1: the write landed in CMD's read-to-write gap, CMD's write came
# after it: it must be seen), RACE_LATE (1: the read was seen only after CMD's write),
# RACE_REPORT (mcg-race's line).
MCG_RACE=${MCG_RACE:-$(dirname "$MCG_LOAD")/mcg-race}
race_point() {
	rp_knob=$1
	rp_theirs=$2
	shift 2
	[ -x "$MCG_RACE" ] || fail "no $MCG_RACE (build the mcg-race target)"
	read -r rp_before <"$CG/$rp_knob"
	rp_opts=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		rp_opts="$rp_opts $1" # mcg-race's options: no spaces in them
		shift
	done
	shift
	# RACE_MEASURE=1 (bench/race.sh): no write, no delay: the report's window_us is CMD's
	# read-to-write gap as another process sees it
	[ "${RACE_MEASURE:-0}" = 0 ] || rp_opts="$rp_opts -n -d 0"
	# shellcheck disable=SC2086 # rp_opts: words
	"$MCG_RACE" -o "$MCG_TMP/race.rep" $rp_opts "$CG/$rp_knob" "$rp_theirs" -- "$@" \
		>"$MCG_TMP/race.out" 2>"$MCG_TMP/race.err" || fail "mcg-race: $(cat "$MCG_TMP/race.err")"
	RACE_REPORT=$(cat "$MCG_TMP/race.rep")
	rp_get() { printf '%s\n' "$RACE_REPORT" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	RACE_STATUS=$(rp_get status)
	RACE_US=$(rp_get delay_us)
	RACE_LATE=$(rp_get late)
	RACE_DURING=0
	[ "$(rp_get order)" != theirs-first ] || RACE_DURING=1
	read -r rp_after <"$CG/$rp_knob"
	RACE_BEFORE=$rp_before RACE_AFTER=$rp_after
	if [ "$rp_after" = "$rp_theirs" ]; then
		RACE_RESULT=kept
	elif [ "$RACE_STATUS" = 3 ] && grep -q "$rp_knob" "$MCG_TMP/race.err"; then
		RACE_RESULT=seen
	else
		RACE_RESULT=lost
	fi
}
