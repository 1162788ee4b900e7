#!/bin/sh
# tiers: v1
# The recorder SIGKILLed at its Nth write() in turn (strace fault injection: write 1 is a new
# segment's magic and header, each later one a whole frame): the store stays readable with
# no error at all, the killed run's segment holds exactly the N-2 frames written before the
# kill, and every earlier run's frames are still there. Then kills at random moments, and a
# power loss (the newest segment cut inside its last frame): only that torn last frame is
# lost, without a complaint or a failing status, and every frame before it reads.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/crash-inject-lib.sh"
ci_require

scratch_new crash-hist
STORE="$MCG_TMP/store"

# FRAMES: frames (our cgroup's rows) at or after START_NS in the store; DUMP_ST, d.err: dump's
frames_from() {
	set +e
	"$MEMCGCTL" dump --store "$STORE" --csv "$CGREL" >"$MCG_TMP/d.csv" 2>"$MCG_TMP/d.err"
	DUMP_ST=$?
	set -e
	FRAMES=$(awk -F, -v s="$1" -v c="$CGREL" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["cgroup"] == c && $1 >= s { n++ } END { print n + 0 }' \
		"$MCG_TMP/d.csv")
}
newest_seg() { ls "$STORE" 2>/dev/null | grep '^history-[0-9]*\.seg$' | sort | tail -n 1; }
seg_start() { s=${1#history-}; s=${s%.seg}; echo "$s" | sed 's/^0*//'; }

total=0
for N in 1 2 3 4 5 6 8 11 16 23; do
	before=$(newest_seg)
	set +e
	# --no-oom: the OOM watcher's cgroup.event_control writes are not the store's
	ci_strace -o /dev/null -e trace=write -e inject=write:signal=KILL:when=$N \
		"$MEMCGCTL" record --store "$STORE" -d 50ms -n 40 --no-oom </dev/null >/dev/null 2>&1
	st=$?
	set -e
	[ "$st" = 137 ] || fail "record was not killed at write $N (exit $st)"
	seg=$(newest_seg)
	if [ "$N" = 1 ]; then
		# killed before its first write: an empty segment, which readers skip
		[ "$seg" != "$before" ] && [ ! -s "$STORE/$seg" ] || fail "write 1: no empty segment"
		frames_from 0
		ok "killed at write 1: empty segment $seg"
	else
		[ "$seg" != "$before" ] || fail "write $N: no new segment"
		frames_from "$(seg_start "$seg")"
		assert_eq "killed at write $N: frames in its segment" $((N - 2)) "$FRAMES"
	fi
	total=$((total + (N > 2 ? N - 2 : 0)))
	if [ "$total" = 0 ]; then
		# no frame in the store yet: dump says so (status 1), and names nothing corrupt
		assert_eq "killed at write $N: dump of a store without frames" 1 "$DUMP_ST"
		grep -q "nothing recorded" "$MCG_TMP/d.err" || fail "write $N: $(cat "$MCG_TMP/d.err")"
	else
		assert_eq "killed at write $N: dump exit status" 0 "$DUMP_ST"
		assert_eq "killed at write $N: nothing reported corrupt" "" "$(cat "$MCG_TMP/d.err")"
	fi
	frames_from 0
	assert_eq "killed at write $N: every frame of every run" "$total" "$FRAMES"
done

# kills at moments the test does not choose (a frame may be torn only when a kill lands
# inside one write: then it is its segment's last frame, skipped without a word)
i=0
while [ $i -lt 5 ]; do
	"$MEMCGCTL" record --store "$STORE" -d 50ms </dev/null >/dev/null 2>&1 &
	pid=$!
	echo "$pid" >>"$MCG_CLEAN_PIDS"
	sleep "0.$(awk -v s="$$$i" 'BEGIN { srand(s); printf "%d", 150 + rand() * 600 }')"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	i=$((i + 1))
done
frames_from 0
all=$FRAMES
assert_le "frames of the earlier runs still read" "$total" "$all"
bad=$(cat "$MCG_TMP/d.err")
assert_eq "after random kills: nothing reported (torn last frames are expected)" "" "$bad"

# a power loss: a segment of 8 frames cut one byte short (inside its last frame)
"$MEMCGCTL" record --store "$STORE" -d 50ms -n 8 </dev/null >/dev/null 2>&1
frames_from 0
all=$FRAMES
seg=$(newest_seg)
size=$(wc -c <"$STORE/$seg")
frames_from "$(seg_start "$seg")"
n0=$FRAMES
assert_eq "a whole run's segment" 8 "$n0"
head -c $((size - 1)) "$STORE/$seg" >"$MCG_TMP/cut"
cat "$MCG_TMP/cut" >"$STORE/$seg"
frames_from "$(seg_start "$seg")"
assert_eq "cut segment: every frame but the last" $((n0 - 1)) "$FRAMES"
# a torn last frame is what a kill leaves: not a failure of every dump after it (issue 24)
assert_eq "cut segment: dump exit status" 0 "$DUMP_ST"
assert_eq "cut segment: no complaint" "" "$(cat "$MCG_TMP/d.err")"
frames_from 0
assert_eq "every other frame intact" $((all - 1)) "$FRAMES"
