#!/bin/sh
# export-notify (issue 29, item 5): memcgctl-export.service as shipped is Type=notify
# (NotifyAccess=main): the first scrape on memcgctl-export.socket starts it and is answered
# (200) once it said READY=1; its StatusText names the passed socket's address and the
# number of cgroups. 'systemctl restart' returns only after READY=1, when the new server
# already holds descriptors on cgroup files (its sampler primed) before any scrape.
# 'systemctl stop' ends it cleanly, and its journal has no complaint about the notification.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real-systemd/lib-units.sh"
require_systemd

sd_shipped_unit "$MCG_SRCDIR/lib/systemd/memcgctl-export.socket"
sock=$SU_UNIT
sd_shipped_unit "$MCG_SRCDIR/lib/systemd/memcgctl-export.service.in"
svc=$SU_UNIT
systemctl daemon-reload
assert_eq "$svc: Type" notify "$(sd_prop "$svc" Type)"
assert_eq "$svc: NotifyAccess" main "$(sd_prop "$svc" NotifyAccess)"

# cgfds PID: PID's descriptors on files under the cgroup tree
cgfds() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c " $MCG_CGROOT/" || true; }

systemctl start "$sock" || fail "systemctl start $sock failed"
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape1" || fail "no connection to 127.0.0.1:9756"
assert_eq "HTTP status of the scrape that started $svc" 200 "$(http_status "$MCG_TMP/scrape1")"
assert_eq "$svc: ActiveState/SubState" active/running "$(sd_prop "$svc" ActiveState)/$(sd_prop "$svc" SubState)"
status=$(sd_prop "$svc" StatusText)
case $status in
"serving /metrics on 127.0.0.1:9756 ("[0-9]*" cgroups)") ok "$svc: StatusText '$status'" ;;
*) fail "$svc: StatusText '$status'" ;;
esac

pid1=$(sd_prop "$svc" MainPID)
systemctl restart "$svc" || fail "systemctl restart $svc failed"
pid2=$(sd_prop "$svc" MainPID)
if [ "$pid2" = "$pid1" ] || [ "$pid2" -le 0 ]; then
	fail "$svc: MainPID $pid1 before the restart, $pid2 after"
fi
n=$(cgfds "$pid2")
[ "$n" -gt 0 ] || fail "$svc restarted (READY=1) with no descriptor on a cgroup file"
ok "$svc restarted: at READY=1 the new server holds $n descriptors on cgroup files, no scrape yet"
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape2" || fail "no connection after the restart"
assert_eq "HTTP status after the restart" 200 "$(http_status "$MCG_TMP/scrape2")"

systemctl stop "$sock" "$svc"
assert_eq "$svc after stop: Result" success "$(sd_prop "$svc" Result)"
journalctl -u "$svc" -o short-iso --no-pager >"$MCG_ARTIFACTS/journal-export.txt" 2>&1 || true
! grep -q 'cannot tell the service manager\|Sanitizer\|runtime error' "$MCG_ARTIFACTS/journal-export.txt" ||
	fail "$svc's journal: $(grep -m3 'cannot tell\|Sanitizer\|runtime error' "$MCG_ARTIFACTS/journal-export.txt")"
ok "$svc stopped cleanly, nothing to say about the notification"
