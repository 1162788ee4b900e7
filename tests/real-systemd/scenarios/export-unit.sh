#!/bin/sh
# export-unit (issue 24, items 1 and 4): memcgctl-export.service and the contrib textfile
# unit as shipped are sandboxed to an offline exposure of at most 2.0 (systemd-analyze
# security --offline; the scores of every unit are printed), and under that sandbox they
# still work: the socket starts the service at the first scrape, which answers 200 with a
# service's usage and limit; it runs as a transient user with CAP_DAC_READ_SEARCH and
# CAP_NET_ADMIN only, in a cgroup bounded by MemoryMax=256M and TasksMax=16; taskstats
# works (memcgctl_stall_seconds_total while kernel.task_delayacct is 1); a cgroup a
# delegate made unreadable (0700, its own uid) is still exported. The textfile unit writes
# memcgctl.prom with the same series.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real-systemd/lib-units.sh"
require_systemd

# ---- the scores (the unit files as shipped, this run's binary path) ----------------
sd_shipped_unit "$MCG_SRCDIR/lib/systemd/memcgctl-export.socket"
sd_shipped_unit "$MCG_SRCDIR/lib/systemd/memcgctl-export.service.in"
svc=$SU_UNIT svc_file=$SU_FILE
sd_shipped_unit "$MCG_SRCDIR/contrib/systemd/memcgctl-export-textfile.service"
tf=$SU_UNIT tf_file=$SU_FILE
systemctl daemon-reload
for f in "$MCG_SRCDIR"/lib/systemd/*.service*; do
	n=${f##*/}
	sed "s|@MEMCG_SBINDIR@|/usr/sbin|g" "$f" >"$MCG_TMP/${n%.in}"
	say "exposure (systemd-analyze security --offline) of ${n%.in}: $(exposure "$MCG_TMP/${n%.in}")"
done
say "exposure (systemd-analyze security --offline) of $tf: $(exposure "$tf_file")"
assert_exposure "$svc_file" 2.0
assert_exposure "$tf_file" 2.0

# ---- what there is to export ---------------------------------------------------------
sd_service exweb -p MemoryMax=300M -- sleep 1000
web=$SD_CGREL
sd_user mcgdel
sd_delegated_cache exdel mcgdel 300M 16
chmod 0700 "$DG_CG"
assert_eq "owner and mode of the delegate's cgroup" "mcgdel 700" "$(stat -c '%U %a' "$DG_CG")"
delay_was=$(cat /proc/sys/kernel/task_delayacct)
echo 1 >/proc/sys/kernel/task_delayacct

# ---- the server under its unit ---------------------------------------------------------
systemctl start memcgctl-export.socket || fail "systemctl start memcgctl-export.socket failed"
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape1" || fail "no connection to 127.0.0.1:9756"
cp "$MCG_TMP/scrape1" "$MCG_ARTIFACTS/scrape1.txt"
assert_eq "HTTP status of the first scrape" 200 "$(http_status "$MCG_TMP/scrape1")"
assert_eq "$svc started by the socket" active "$(systemctl is-active "$svc")"
pid=$(sd_prop "$svc" MainPID)
uid=$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status")
[ "$uid" -ne 0 ] || fail "$svc runs as root (DynamicUser=yes expected)"
ok "$svc runs as uid $uid ($(ps -o user= -p "$pid"))"
# CAP_DAC_READ_SEARCH is bit 2, CAP_NET_ADMIN bit 12: nothing else
assert_eq "the server's effective capabilities" 0000000000001004 \
	"$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$pid/status")"
excg=$MCG_CGROOT$(sd_prop "$svc" ControlGroup)
assert_eq "memory.max of the server's cgroup (MemoryMax=256M)" 268435456 "$(knob "$excg" memory.max)"
assert_eq "pids.max of the server's cgroup (TasksMax=16)" 16 "$(knob "$excg" pids.max)"

grep -q "^memcgctl_limit_bytes{cgroup=\"$web\"[^}]*} 314572800" "$MCG_TMP/scrape1" ||
	fail "no memcgctl_limit_bytes 314572800 for $web: $(grep -m3 "$web" "$MCG_TMP/scrape1")"
ok "the scrape has $web's limit"
grep -q "^memcgctl_usage_bytes{cgroup=\"$DG_CGREL\"" "$MCG_TMP/scrape1" ||
	fail "the scrape lacks the delegate's 0700 cgroup $DG_CGREL"
ok "the scrape has the delegate's 0700 cgroup $DG_CGREL"
# taskstats: the sampler follows the sysctl from the next scrape on
http_get 127.0.0.1 9756 /metrics "$MCG_TMP/scrape2" || fail "no connection for the second scrape"
cp "$MCG_TMP/scrape2" "$MCG_ARTIFACTS/scrape2.txt"
assert_eq "HTTP status of the second scrape" 200 "$(http_status "$MCG_TMP/scrape2")"
grep -q "^memcgctl_stall_seconds_total{cgroup=\"$web\"" "$MCG_TMP/scrape2" ||
	fail "no memcgctl_stall_seconds_total for $web: taskstats did not work under the unit"
ok "taskstats works under the unit: memcgctl_stall_seconds_total for $web"
journalctl -u "$svc" -o cat --no-pager >"$MCG_ARTIFACTS/journal-export.txt" 2>&1 || true
systemctl stop memcgctl-export.socket "$svc"

# ---- the textfile unit ----------------------------------------------------------------
dir=/var/lib/prometheus/node-exporter
[ -e /var/lib/prometheus ] || echo /var/lib/prometheus >>"$MCG_SD_RM"
mkdir -p "$dir"
systemctl start "$tf" || fail "$tf failed: $(journalctl -u "$tf" -o cat --no-pager | tail -n 5)"
assert_eq "$tf's result" success "$(sd_prop "$tf" Result)"
cp "$dir/memcgctl.prom" "$MCG_ARTIFACTS/memcgctl.prom"
grep -q "^memcgctl_limit_bytes{cgroup=\"$web\"[^}]*} 314572800" "$dir/memcgctl.prom" ||
	fail "no memcgctl_limit_bytes 314572800 for $web in $dir/memcgctl.prom"
grep -q "^memcgctl_usage_bytes{cgroup=\"$DG_CGREL\"" "$dir/memcgctl.prom" ||
	fail "$dir/memcgctl.prom lacks the delegate's 0700 cgroup $DG_CGREL"
assert_eq "mode of memcgctl.prom (node_exporter reads it)" 644 "$(stat -c %a "$dir/memcgctl.prom")"
ok "$tf wrote $dir/memcgctl.prom with $web and $DG_CGREL"
echo "$delay_was" >/proc/sys/kernel/task_delayacct
