#!/bin/sh
# tiers: v1
# reclaimd tells a service manager it is ready (sd_notify READY=1, memcgctl-reclaimd.service
# is Type=notify) once it holds its pid file: a datagram socket stands in for systemd's
# $NOTIFY_SOCKET. Without $NOTIFY_SOCKET nothing is sent and the daemon runs as before.
set -eu
. "$MCG_TESTLIB"
command -v python3 >/dev/null || skip "needs python3 for the notify socket"
[ -e /usr/lib/x86_64-linux-gnu/libsystemd.so.0 ] || [ -e /lib/x86_64-linux-gnu/libsystemd.so.0 ] ||
	ldconfig -p 2>/dev/null | grep -q libsystemd.so.0 || skip "libsystemd0 is not installed"
sock="$MCG_TMP/notify.sock"
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(120)
print("ready", flush=True)
msg = s.recv(4096).decode()
print(msg, flush=True)
' "$sock" >"$MCG_TMP/notify.out" 2>&1 &
lpid=$!
echo "$lpid" >>"$MCG_CLEAN_PIDS"
wait_until "the notify socket is there" 30 test -S "$sock"
NOTIFY_SOCKET=$sock "$MEMCGCTL" reclaimd --foreground --keep --state-dir "$SD" 2>"$MCG_TMP/rd.err" &
rd=$!
echo "$rd" >>"$MCG_CLEAN_PIDS"
got() { grep -q "READY=1" "$MCG_TMP/notify.out"; }
wait_until "READY=1 on \$NOTIFY_SOCKET" 60 got
test -s "$SD/reclaimd.pid" || fail "READY=1 before the pid file"
assert_eq "the pid file names the daemon that said ready" "$rd" "$(tr -d " \n" <"$SD/reclaimd.pid")"
kill -TERM "$rd"
wait "$rd" || fail "reclaimd did not exit 0 on SIGTERM: $(cat "$MCG_TMP/rd.err")"
ok "reclaimd said READY=1 once serving"
