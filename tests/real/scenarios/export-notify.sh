#!/bin/sh
# tiers: v1
# export --listen under a service manager (memcgctl-export.service is Type=notify): READY=1
# comes only once the socket listens and the sampler holds the files a scrape reads. A
# datagram socket stands in for systemd's $NOTIFY_SOCKET; strace stops the server right
# after it sends READY=1, so what the test reads then is the state READY=1 was sent in:
# the port listens and the server already holds descriptors on the scratch cgroups' files
# (no scrape has run yet), as many as after the first scrape. STATUS= names the address and
# the number of cgroups; STOPPING=1 comes on SIGTERM. The same from the socket that
# systemd-socket-activate passes (--listen systemd, the unit's command), started by a
# scrape: READY=1 while that scrape waits, which is then answered.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
. "$MCG_SRCDIR/tests/real/scenarios/notify-lib.inc"
require_cgroups
notify_require
need_tool curl curl

scratch_new ex
E=$CG EREL=$CGREL
scratch_new a "$E"
sock="$MCG_TMP/notify.sock"
notify_listen "$sock"
# no psi: the taskstats query (netlink, a sendmsg) must not come before the notification
fams=usage,limits,memory

# cgfds PID: PID's descriptors on files of the scratch tree
cgfds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c " $E/" || true; }
# listening PORT: a socket listens on 127.0.0.1:PORT (/proc/net/tcp, state 0A)
listening() {
	awk -v p="$(printf '0100007F:%04X' "$1")" '$2 == p && $4 == "0A" { f = 1 } END { exit !f }' \
		/proc/net/tcp
}

# ---- --listen ADDR ----
p1=$(free_port)
notify_start "$sock" "$MEMCGCTL" export --listen "127.0.0.1:$p1" --families "$fams" "$EREL"
notify_wait_ready "export --listen 127.0.0.1:$p1"
EX=$NT_PID
listening "$p1" || fail "READY=1 before 127.0.0.1:$p1 listens"
fds0=$(cgfds "$EX")
[ "$fds0" -gt 0 ] || fail "READY=1 before the sampler opened the scratch cgroups' files"
ok "at READY=1: 127.0.0.1:$p1 listens, $fds0 descriptors on the scratch cgroups' files"
assert_eq "READY=1 and STATUS= (from the server's pid)" \
	"$EX	READY=1|STATUS=serving /metrics on 127.0.0.1:$p1 (2 cgroups)" \
	"$(grep "	READY=1" "$MCG_TMP/notify.log")"
kill -CONT "$EX"
curl -fsS -m 30 -o "$MCG_TMP/s1.prom" "http://127.0.0.1:$p1/metrics" || fail "no scrape after READY=1"
grep -q "^memcgctl_usage_bytes{cgroup=\"$EREL/a\"" "$MCG_TMP/s1.prom" ||
	fail "the scrape lacks $EREL/a: $(head -c 600 "$MCG_TMP/s1.prom")"
assert_eq "descriptors on the scratch cgroups' files after the first scrape" "$fds0" "$(cgfds "$EX")"
kill -TERM "$EX"
st=0
wait "$NT_WAIT" || st=$?
assert_eq "export --listen after SIGTERM: exit" 0 "$st"
! grep -q 'Sanitizer\|runtime error' "$NT_ERR" || fail "$(cat "$NT_ERR")"
wait_until "the listener to log STOPPING=1" 30 grep -q "^$EX	STOPPING=1" "$MCG_TMP/notify.log"
assert_eq "messages of the server" 2 "$(grep -c "^$EX	" "$MCG_TMP/notify.log")"
assert_eq "the last: STOPPING=1" "$EX	STOPPING=1|STATUS=stopping (signal)" \
	"$(tail -n 1 "$MCG_TMP/notify.log")"

# ---- --listen systemd: the socket from socket activation, started by a scrape ----
if command -v systemd-socket-activate >/dev/null; then
	p2=$(free_port)
	notify_start "$sock" systemd-socket-activate -l "127.0.0.1:$p2" -E NOTIFY_SOCKET \
		-E ASAN_OPTIONS "$MEMCGCTL" export --listen systemd --families "$fams" "$EREL"
	wait_until "systemd-socket-activate to listen on $p2" 30 listening "$p2"
	curl -fsS -m 60 -o "$MCG_TMP/s2.prom" "http://127.0.0.1:$p2/metrics" &
	cu=$!
	echo "$cu" >>"$MCG_CLEAN_PIDS"
	notify_wait_ready "export --listen systemd"
	AC=$NT_PID
	assert_eq "activated: the server is memcgctl" "$(readlink -f "$MEMCGCTL")" "$(readlink -f "/proc/$AC/exe")"
	kill -0 "$cu" 2>/dev/null || fail "the activating scrape ended before READY=1"
	[ "$(cgfds "$AC")" -gt 0 ] || fail "activated: READY=1 before the sampler opened the files"
	assert_eq "activated: READY=1 and STATUS=" \
		"$AC	READY=1|STATUS=serving /metrics on 127.0.0.1:$p2 (2 cgroups)" \
		"$(grep "^$AC	READY=1" "$MCG_TMP/notify.log")"
	kill -CONT "$AC"
	st=0
	wait "$cu" || st=$?
	assert_eq "the activating scrape, answered after READY=1: curl's exit" 0 "$st"
	grep -q "^memcgctl_usage_bytes{cgroup=\"$EREL/a\"" "$MCG_TMP/s2.prom" ||
		fail "the activated scrape lacks $EREL/a"
	kill -TERM "$AC"
	st=0
	wait "$NT_WAIT" || st=$?
	assert_eq "activated server after SIGTERM: exit" 0 "$st"
	wait_until "the listener to log STOPPING=1" 30 grep -q "^$AC	STOPPING=1" "$MCG_TMP/notify.log"
	ok "socket activation: READY=1 with the passed socket and the sampler ready"
else
	[ "${CI:-}" = true ] && fail "systemd-socket-activate (Debian package systemd) is missing"
	say "systemd-socket-activate is not installed: socket activation not tested"
fi
ok "export --listen said READY=1 once it listened with its files open, STOPPING=1 on SIGTERM"
