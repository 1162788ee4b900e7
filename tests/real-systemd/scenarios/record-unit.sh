#!/bin/sh
# record-unit (issue 29, item 5): memcgctl-record.service as shipped is Type=notify
# (NotifyAccess=main), so 'systemctl start' returns only once the recorder said READY=1,
# which it says once the store holds its first frame: dump reads a frame of a running
# service at once, without waiting. Its STATUS= is the unit's StatusText (how many
# cgroups, how often, where); 'systemctl stop' ends it cleanly (Result success, exit 0)
# and its journal has no complaint about the notification.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real-systemd/lib-units.sh"
require_systemd

store=/var/lib/memcgctl/history
[ -e /var/lib/memcgctl ] || echo /var/lib/memcgctl >>"$MCG_SD_RM"
sd_shipped_unit "$MCG_SRCDIR/lib/systemd/memcgctl-record.service.in"
u=$SU_UNIT
systemctl daemon-reload
assert_eq "$u: Type" notify "$(sd_prop "$u" Type)"
assert_eq "$u: NotifyAccess" main "$(sd_prop "$u" NotifyAccess)"

sd_service rec -- sleep 1000
systemctl start "$u" || fail "systemctl start $u failed: $(journalctl -u "$u" -o cat --no-pager | tail -n 5)"
# no wait: start returned after READY=1, and READY=1 comes after the first frame
"$MEMCGCTL" dump --store "$store" --csv "$SD_CGREL" >"$MCG_TMP/dump.csv" 2>"$MCG_TMP/dump.err" ||
	fail "dump right after systemctl start: $(cat "$MCG_TMP/dump.err")"
grep -q ",$SD_CGREL," "$MCG_TMP/dump.csv" ||
	fail "systemctl start $u returned before the store held a frame of $SD_CGREL"
ok "a frame of $SD_CGREL is in $store when systemctl start returns"
assert_eq "$u: ActiveState/SubState" active/running "$(sd_prop "$u" ActiveState)/$(sd_prop "$u" SubState)"
status=$(sd_prop "$u" StatusText)
case $status in
"recording "[0-9]*" cgroups every 5s into $store") ok "$u: StatusText '$status'" ;;
*) fail "$u: StatusText '$status'" ;;
esac

systemctl stop "$u"
assert_eq "$u after stop: Result" success "$(sd_prop "$u" Result)"
assert_eq "$u after stop: ExecMainStatus" 0 "$(sd_prop "$u" ExecMainStatus)"
journalctl -u "$u" -o short-iso --no-pager >"$MCG_ARTIFACTS/journal-record.txt" 2>&1 || true
! grep -q 'cannot tell the service manager\|Sanitizer\|runtime error' "$MCG_ARTIFACTS/journal-record.txt" ||
	fail "$u's journal: $(grep -m3 'cannot tell\|Sanitizer\|runtime error' "$MCG_ARTIFACTS/journal-record.txt")"
ok "$u stopped cleanly, nothing to say about the notification"
