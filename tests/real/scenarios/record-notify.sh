#!/bin/sh
# tiers: v1
# record under a service manager (memcgctl-record.service is Type=notify): READY=1 comes only
# once the store is open and holds the first frame. A datagram socket stands in for systemd's
# $NOTIFY_SOCKET; strace stops record right after it sends READY=1, so what the test reads
# then is the state READY=1 was sent in: one frame (the interval is a minute) with the
# scratch cgroup and its child. STATUS= says the number of cgroups, the interval and the
# store; STOPPING=1 comes on SIGTERM, all from record's own pid. A $NOTIFY_SOCKET nobody
# listens on costs a warning, not the recording.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/scenarios/notify-lib.inc"
require_cgroups
notify_require

scratch_new rec
R=$CG RREL=$CGREL
scratch_new a "$R"
STORE="$MCG_TMP/store"
sock="$MCG_TMP/notify.sock"
notify_listen "$sock"
: >"$MCG_TMP/notify.log"

notify_start "$sock" "$MEMCGCTL" record --store "$STORE" -d 60s "$RREL"
notify_wait_ready record
REC=$NT_PID
# the state READY=1 was sent in: the store holds the first frame, of both cgroups
assert_eq "frames in the store at READY=1" 1 "$(frame_times "$RREL" | wc -l)"
[ "$(frame_times "$RREL/a" | wc -l)" = 1 ] || fail "the first frame lacks $RREL/a"
ok "READY=1 came after the first frame was written, before a second"
line=$(grep "	READY=1" "$MCG_TMP/notify.log")
assert_eq "READY=1 and STATUS= (from record's pid)" \
	"$REC	READY=1|STATUS=recording 2 cgroups every 60s into $STORE" "$line"
kill -CONT "$REC"
kill -TERM "$REC"
st=0
wait "$NT_WAIT" || st=$?
assert_eq "record after SIGTERM: exit" 0 "$st"
! grep -q 'Sanitizer\|runtime error' "$NT_ERR" || fail "$(cat "$NT_ERR")"
wait_until "the listener to log STOPPING=1" 30 grep -q "	STOPPING=1" "$MCG_TMP/notify.log"
assert_eq "the last message: STOPPING=1" "$REC	STOPPING=1|STATUS=stopping (signal)" \
	"$(tail -n 1 "$MCG_TMP/notify.log")"
assert_eq "messages, all from record's pid" "2 2" \
	"$(wc -l <"$MCG_TMP/notify.log") $(grep -c "^$REC	" "$MCG_TMP/notify.log")"

# a socket nobody listens on: one warning, the frames are written as without systemd
STORE="$MCG_TMP/store2"
st=0
NOTIFY_SOCKET="$MCG_TMP/nobody.sock" "$MEMCGCTL" record --store "$STORE" -d 50ms -n 3 "$RREL" \
	2>"$MCG_TMP/rec2.err" || st=$?
assert_eq "record -n 3 with a dead \$NOTIFY_SOCKET: exit" 0 "$st"
assert_eq "its frames" 3 "$(frame_times "$RREL" | wc -l)"
assert_eq "its warning" 1 "$(grep -c "cannot tell the service manager how the recorder is" "$MCG_TMP/rec2.err")"
ok "record said READY=1 once its store held a frame, STOPPING=1 on SIGTERM"
