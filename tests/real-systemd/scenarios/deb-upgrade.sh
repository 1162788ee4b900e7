#!/bin/sh
# deb-upgrade (issue 24, item 3): the package manages every unit it ships, not only
# memcgctl-reclaimd.service. Installed, the recorder and the exporter are neither enabled
# nor started (the administrator's choice); enabled and running, an upgrade restarts each
# of them (a new InvocationID, a new main process running the new /usr/sbin/memcgctl) and
# the exporter still answers; dpkg -r stops all four units and nothing listens on 9756 any
# more; dpkg -P removes their enablement links, debhelper's state, the history store and
# the configuration under /etc/memcgctl.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real-systemd/lib-units.sh"
require_systemd
deb=/mcg/deb/memcgctl.deb
[ -f "$deb" ] || skip "no .deb in this guest"

units="memcgctl-reclaimd.service memcgctl-record.service memcgctl-export.socket memcgctl-export.service"
for u in $units; do echo "$u" >>"$MCG_SD_UNITS"; done
# deb-install leaves the package removed, not purged: start from nothing
if dpkg-query -W -f='${Status}' memcgctl >/dev/null 2>&1; then
	dpkg -P memcgctl >/dev/null 2>&1 || fail "dpkg -P of what deb-install left failed"
fi

# the package recommends libmicrohttpd12; an image without it has this host's copy in /mcg/lib
if ! ldconfig -p | grep -q 'libmicrohttpd\.so\.12 '; then
	[ -e /mcg/lib/libmicrohttpd.so.12 ] || skip "no libmicrohttpd.so.12 in this guest"
	mkdir -p /run/systemd/system/memcgctl-export.service.d
	echo /run/systemd/system/memcgctl-export.service.d >>"$MCG_SD_RM"
	printf '[Service]\nEnvironment=LD_LIBRARY_PATH=/mcg/lib\n' \
		>/run/systemd/system/memcgctl-export.service.d/50-test-mhd.conf
fi
dpkg -i "$deb" >"$MCG_ARTIFACTS/dpkg-i.txt" 2>&1 || fail "dpkg -i failed: $(tail -n 5 "$MCG_ARTIFACTS/dpkg-i.txt")"
v1=$(dpkg-query -W -f='${Version}' memcgctl)
ok "dpkg -i memcgctl $v1"
for u in memcgctl-record.service memcgctl-export.socket; do
	assert_eq "$u after install (not enabled)" disabled "$(systemctl is-enabled "$u" || true)"
done
for u in memcgctl-record.service memcgctl-export.socket memcgctl-export.service; do
	assert_eq "$u after install (not started)" inactive "$(systemctl is-active "$u" || true)"
done
listening 9756 && fail "something listens on 9756 after a plain install"
ok "nothing listens on 9756 after a plain install"

# the administrator turns them on; async-reclaim keeps a configuration under /etc
systemctl enable --now memcgctl-record.service memcgctl-export.socket ||
	fail "systemctl enable --now failed"
wait_for "memcgctl-reclaimd.service to be active" 30 sh -c \
	'[ "$(systemctl is-active memcgctl-reclaimd.service)" = active ]'
wait_for "a history segment" 60 sh -c 'ls /var/lib/memcgctl/history/history-*.seg >/dev/null 2>&1'
ok "memcgctl-record.service writes $(ls /var/lib/memcgctl/history/)"
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape1" || fail "no connection to 127.0.0.1:9756"
assert_eq "HTTP status of the first scrape (socket-activated)" 200 "$(http_status "$MCG_TMP/scrape1")"
grep -q '^memcgctl_usage_bytes{' "$MCG_TMP/scrape1" ||
	fail "no memcgctl_usage_bytes in the scrape: $(head -c 400 "$MCG_TMP/scrape1")"
mkdir -p /etc/memcgctl/async-reclaim

before=
for u in $units; do
	assert_eq "$u before the upgrade" active "$(systemctl is-active "$u")"
	before="$before $u=$(sd_prop "$u" InvocationID)/$(sd_prop "$u" MainPID)"
done
say "before:$before"

# the same package one version up (not compressed: xz under TCG takes seconds)
rm -rf "$MCG_TMP/pkg"
dpkg-deb -R "$deb" "$MCG_TMP/pkg"
v2=$v1+upgrade1
sed -i "s/^Version: .*/Version: $v2/" "$MCG_TMP/pkg/DEBIAN/control"
dpkg-deb -Znone -b "$MCG_TMP/pkg" "$MCG_TMP/memcgctl-up.deb" >/dev/null || fail "dpkg-deb -b failed"
dpkg -i "$MCG_TMP/memcgctl-up.deb" >"$MCG_ARTIFACTS/dpkg-upgrade.txt" 2>&1 ||
	fail "dpkg -i (upgrade) failed: $(tail -n 5 "$MCG_ARTIFACTS/dpkg-upgrade.txt")"
assert_eq "version after the upgrade" "$v2" "$(dpkg-query -W -f='${Version}' memcgctl)"
for u in $units; do
	old=$(printf '%s\n' $before | sed -n "s|^$u=||p")
	assert_eq "$u after the upgrade" active "$(systemctl is-active "$u")"
	inv=$(sd_prop "$u" InvocationID)
	[ "$inv" != "${old%/*}" ] || fail "$u was not restarted by the upgrade (InvocationID $inv)"
	case $u in
	*.service)
		pid=$(sd_prop "$u" MainPID)
		[ "$pid" != "${old#*/}" ] && [ "$pid" != 0 ] ||
			fail "$u: MainPID $pid after the upgrade (was ${old#*/})"
		assert_eq "$u runs the upgraded binary" /usr/sbin/memcgctl "$(readlink "/proc/$pid/exe")"
		;;
	esac
	ok "$u restarted by the upgrade: InvocationID ${old%/*} -> $inv"
done
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape2" || fail "no connection to 127.0.0.1:9756 after the upgrade"
assert_eq "HTTP status of a scrape after the upgrade" 200 "$(http_status "$MCG_TMP/scrape2")"

dpkg -r memcgctl >"$MCG_ARTIFACTS/dpkg-r.txt" 2>&1 || fail "dpkg -r failed: $(tail -n 5 "$MCG_ARTIFACTS/dpkg-r.txt")"
for u in $units; do
	assert_eq "$u after dpkg -r" inactive "$(systemctl is-active "$u" || true)"
done
[ ! -e /usr/sbin/memcgctl ] || fail "/usr/sbin/memcgctl left after dpkg -r"
listening 9756 && fail "something still listens on 9756 after dpkg -r"
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape3" 2>/dev/null &&
	fail "127.0.0.1:9756 still accepts connections after dpkg -r"
ok "dpkg -r stopped every unit; nothing listens on 9756"

dpkg -P memcgctl >"$MCG_ARTIFACTS/dpkg-P.txt" 2>&1 || fail "dpkg -P failed: $(tail -n 5 "$MCG_ARTIFACTS/dpkg-P.txt")"
left=$(find /etc/systemd/system \( -name 'memcgctl-reclaimd*' -o -name 'memcgctl-record*' \
	-o -name 'memcgctl-export*' \) 2>/dev/null || true)
[ -z "$left" ] || fail "enablement links left after dpkg -P: $left"
left=$(find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
	-name '*memcgctl*' 2>/dev/null || true) # find: an absent directory is exit 1
[ -z "$left" ] || fail "deb-systemd-helper state left after dpkg -P: $left"
[ ! -e /var/lib/memcgctl ] || fail "/var/lib/memcgctl left after dpkg -P"
[ ! -e /etc/memcgctl ] || fail "/etc/memcgctl left after dpkg -P"
assert_eq "package state after dpkg -P" "" "$(dpkg-query -W -f='${Status}' memcgctl 2>/dev/null || true)"
ok "dpkg -P removed the enablement links, debhelper's state, the store and /etc/memcgctl"
