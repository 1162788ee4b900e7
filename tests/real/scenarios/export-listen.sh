#!/bin/sh
# tiers: v1
# export --listen: a real Prometheus 2.x (its own config and TSDB in a temp dir, scrape every
# 1 s, 127.0.0.1 on a free port) scrapes memcgctl; its HTTP API's value of a scratch cgroup's
# usage lies between the kernel's usage read before and after that scrape, its limit is the
# kernel's; a cgroup removed and made again between scrapes is a counter reset in its API
# (resets() 1, the old value kept by max_over_time, the new one the kernel's 0); the server
# keeps its descriptors across scrapes and opens only the files of the --families asked for;
# it serves the whole record (soft limit, swappiness, peak); scrapes during cgroup churn are
# well formed (promtool); the installed socket unit's command, started by
# systemd-socket-activate on the unit's kind of socket, serves the same samples; a port in
# use is exit 1 with the reason, a malformed address 64, --listen systemd without a socket 1;
# SIGTERM stops it with 0. Formats and coding (memcgctl-export(8), FORMATS AND COMPRESSION):
# Accept-Encoding: gzip is a gzip body (Content-Encoding, Vary) with the same series, smaller;
# an OpenMetrics Accept is the OpenMetrics text (content type, # EOF, counter families without
# _total, units) that a strict parser reads, and Prometheus (which asks for it) stores the
# units only that format carries; build_info and the scrape duration are served.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
need_tool prometheus prometheus
need_tool promtool prometheus
need_tool python3 python3
need_tool jq jq

scratch_new listen
echo $((128 * 1024 * 1024)) >"$CG/$K_LIMIT"
echo $((96 * 1024 * 1024)) >"$CG/memory.soft_limit_in_bytes"
echo 37 >"$CG/memory.swappiness"
spawn_in "$CG" "$MCG_LOAD" anon 24 --hold

p1=$(free_port)
serve memcgctl "$MEMCGCTL" export --listen "127.0.0.1:$p1" "$CGREL"
ex=$SERVE_PID
wait_http "http://127.0.0.1:$p1/metrics" "$ex"

# a second server on the same port: a clear error, 1
st=0
"$MEMCGCTL" export --listen "127.0.0.1:$p1" "$CGREL" 2>"$MCG_TMP/err" || st=$?
assert_eq "port in use: exit" 1 "$st"
grep -q "cannot listen on '127.0.0.1:$p1': Address already in use" "$MCG_TMP/err" ||
	fail "port in use: $(cat "$MCG_TMP/err")"
st=0
"$MEMCGCTL" export --listen "127.0.0.1:http:x" "$CGREL" 2>"$MCG_TMP/err" || st=$?
assert_eq "malformed address: exit" 64 "$st"

# the descriptors stay open across scrapes (the sampler's pread)
curl -fsS "http://127.0.0.1:$p1/metrics" >"$MCG_TMP/s1.prom"
fds1=$(ls -l "/proc/$ex/fd" | grep -c "$CG/memory\." || true)
[ "$fds1" -gt 0 ] || fail "the server keeps no descriptor on $CG's files"
curl -fsS "http://127.0.0.1:$p1/metrics" >/dev/null
fds2=$(ls -l "/proc/$ex/fd" | grep -c "$CG/memory\." || true)
assert_eq "descriptors on the scratch cgroup's files across scrapes" "$fds1" "$fds2"
promtool check metrics <"$MCG_TMP/s1.prom" || fail "promtool rejects /metrics"

# ---- formats and coding ----
u1="http://127.0.0.1:$p1/metrics"
# hdr FILE NAME: the value of header NAME in curl's -D dump FILE, or "absent"
hdr() { awk -v h="$2" 'BEGIN { IGNORECASE = 1; f = "absent" } tolower($1) == tolower(h ":") {
	sub(/^[^:]*: */, ""); sub(/\r$/, ""); f = $0 } END { print f }' "$1"; }
# the series of an exposition; a cgroup's dirty state may change from one scrape to the next
series() { awk '/^memcgctl_/ && !/^memcgctl_dirty_state\{/ { print $1 }' "$1" | LC_ALL=C sort; }
curl -fsS -D "$MCG_TMP/plain.h" -o "$MCG_TMP/plain.prom" "$u1"
assert_eq "plain: Content-Type" "text/plain; version=0.0.4; charset=utf-8" "$(hdr "$MCG_TMP/plain.h" Content-Type)"
assert_eq "plain: Content-Encoding" absent "$(hdr "$MCG_TMP/plain.h" Content-Encoding)"
assert_eq "plain: Vary" "Accept, Accept-Encoding" "$(hdr "$MCG_TMP/plain.h" Vary)"
curl -fsS -D "$MCG_TMP/gz.h" -H 'Accept-Encoding: gzip' -o "$MCG_TMP/gz.raw" "$u1"
assert_eq "gzip: Content-Encoding" gzip "$(hdr "$MCG_TMP/gz.h" Content-Encoding)"
gzip -dc <"$MCG_TMP/gz.raw" >"$MCG_TMP/gz.prom" || fail "the gzip answer does not decompress"
promtool check metrics <"$MCG_TMP/gz.prom" || fail "promtool rejects the gzip answer"
[ "$(series "$MCG_TMP/gz.prom")" = "$(series "$MCG_TMP/plain.prom")" ] ||
	fail "gzip serves other series than the plain answer"
gzb=$(wc -c <"$MCG_TMP/gz.raw") plb=$(wc -c <"$MCG_TMP/plain.prom")
assert_le "gzip bytes * 3 <= plain bytes" $((gzb * 3)) "$plb"
curl -fsS --compressed -o "$MCG_TMP/cc.prom" "$u1"
promtool check metrics <"$MCG_TMP/cc.prom" || fail "promtool rejects curl --compressed's answer"
curl -fsS -H 'Accept-Encoding: gzip;q=0, deflate' -D "$MCG_TMP/nogz.h" -o /dev/null "$u1"
assert_eq "gzip;q=0: Content-Encoding" absent "$(hdr "$MCG_TMP/nogz.h" Content-Encoding)"
ok "gzip: $gzb bytes for $plb, the same series"
oma='application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
curl -fsS -D "$MCG_TMP/om.h" -H "Accept: $oma" -H 'Accept-Encoding: gzip' -o "$MCG_TMP/om.raw" "$u1"
assert_eq "OpenMetrics: Content-Type" "application/openmetrics-text; version=1.0.0; charset=utf-8" "$(hdr "$MCG_TMP/om.h" Content-Type)"
assert_eq "OpenMetrics: Content-Encoding" gzip "$(hdr "$MCG_TMP/om.h" Content-Encoding)"
gzip -dc <"$MCG_TMP/om.raw" >"$MCG_TMP/om.prom"
assert_eq "OpenMetrics: the last line" "# EOF" "$(tail -n 1 "$MCG_TMP/om.prom")"
[ "$(series "$MCG_TMP/om.prom")" = "$(series "$MCG_TMP/plain.prom")" ] || fail "OpenMetrics serves other series"
grep -qx '# TYPE memcgctl_failcnt counter' "$MCG_TMP/om.prom" || fail "OpenMetrics: failcnt's family: $(grep failcnt "$MCG_TMP/om.prom" | head -3)"
grep -qx '# UNIT memcgctl_usage_bytes bytes' "$MCG_TMP/om.prom" || fail "OpenMetrics: no unit for usage"
! grep -q '^# TYPE [^ ]*_total ' "$MCG_TMP/om.prom" || fail "OpenMetrics: a family named _total"
st=0
for py in python3 /usr/bin/python3; do
	st=0
	$py "$MCG_SRCDIR/tests/real/export/check-openmetrics.py" "$MCG_TMP/om.prom" >"$MCG_TMP/om.fams" || st=$?
	[ "$st" = 77 ] || break
done
case $st in
0) grep -qx 'memcgctl_failcnt counter -' "$MCG_TMP/om.fams" || fail "the OpenMetrics parser: $(head -3 "$MCG_TMP/om.fams")"
   ok "OpenMetrics: prometheus_client's parser reads $(wc -l <"$MCG_TMP/om.fams") families" ;;
77) echo "note: no python3-prometheus-client: the OpenMetrics answer is checked by Prometheus only" ;;
*) fail "the OpenMetrics answer is not OpenMetrics" ;;
esac
# the plain answer's self-metrics
grep -q '^memcgctl_build_info{version="[0-9][^"]*"} 1$' "$MCG_TMP/plain.prom" || fail "no memcgctl_build_info"
d=$(awk '$1 == "memcgctl_scrape_duration_seconds" { print $2 }' "$MCG_TMP/plain.prom")
awk -v d="$d" 'BEGIN { exit !(d > 0 && d < 60) }' || fail "scrape duration '$d'"
ok "OpenMetrics negotiated; build_info; a scrape of $d s"
# the whole record, not only top's counters (the sampler reads every key of the families)
lval() { # METRIC: the scratch cgroup's sample in s1.prom, or "absent"
	M="$1{cgroup=\"$CGREL\"}" awk '$1 == ENVIRON["M"] { print $2; f = 1 }
		END { if (!f) print "absent" }' "$MCG_TMP/s1.prom"
}
assert_eq "--listen soft limit" "$(knob "$CG" memory.soft_limit_in_bytes)" "$(lval memcgctl_soft_limit_bytes)"
assert_eq "--listen swappiness" "$(knob "$CG" memory.swappiness)" "$(lval memcgctl_swappiness)"
assert_le "--listen peak >= the 24 MiB held" $((24 * 1024 * 1024)) "$(lval memcgctl_peak_bytes)"
assert_le "--listen peak <= the kernel's after" "$(lval memcgctl_peak_bytes)" "$(knob "$CG" memory.max_usage_in_bytes)"

# --families usage: only those families, and no descriptor on a file none of them needs
p4=$(free_port)
serve narrow "$MEMCGCTL" export --listen "127.0.0.1:$p4" --families usage "$CGREL"
nw=$SERVE_PID
wait_http "http://127.0.0.1:$p4/metrics" "$nw"
curl -fsS "http://127.0.0.1:$p4/metrics" >"$MCG_TMP/narrow.prom"
promtool check metrics <"$MCG_TMP/narrow.prom" || fail "promtool rejects the usage-only /metrics"
fams=$(awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$MCG_TMP/narrow.prom" | tr '\n' ' ')
for m in $fams; do
	case $m in
	memcgctl_usage_bytes | memcgctl_peak_bytes | memcgctl_memsw_bytes | memcgctl_kmem_bytes | memcgctl_swap_bytes) ;;
	memcgctl_scrape_complete | memcgctl_scrape_skipped_cgroups) ;; # whatever the families
	memcgctl_build_info | memcgctl_scrape_duration_seconds) ;;
	*) fail "--families usage serves $m" ;;
	esac
done
grep -q "^memcgctl_usage_bytes{cgroup=\"$CGREL\"} " "$MCG_TMP/narrow.prom" || fail "--families usage: no usage"
ls -l "/proc/$nw/fd" >"$MCG_TMP/narrow.fds"
grep -q "$CG/$K_USAGE\$" "$MCG_TMP/narrow.fds" || fail "--families usage: no descriptor on $K_USAGE"
! grep -q "$CG/memory.stat\$" "$MCG_TMP/narrow.fds" || fail "--families usage keeps memory.stat open"
! grep -q "$CG/memory.limit_in_bytes\$" "$MCG_TMP/narrow.fds" || fail "--families usage keeps the limit open"
ok "--families usage: $fams; memory.stat and the limit never opened"
stop_server "$nw"
assert_eq "narrow server after SIGTERM: exit" 0 "$STOP_STATUS"

# a real Prometheus
p2=$(free_port)
mkdir "$MCG_TMP/prom"
cat >"$MCG_TMP/prom/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: memcgctl
    static_configs:
      - targets: ['127.0.0.1:$p1']
YML
serve prometheus prometheus --config.file="$MCG_TMP/prom/prometheus.yml" \
	--storage.tsdb.path="$MCG_TMP/prom/data" --web.listen-address="127.0.0.1:$p2"
pr=$SERVE_PID
wait_http "http://127.0.0.1:$p2/-/ready" "$pr"
api="http://127.0.0.1:$p2/api/v1/query"
# query PROMQL: the first result's value, or "none"
query() {
	curl -fsS -G --data-urlencode "query=$1" "$api" |
		jq -r 'if (.data.result | length) > 0 then .data.result[0].value[1] else "none" end'
}
sel="{cgroup=\"$CGREL\"}"
t0=$(date +%s.%N)
before=$(knob "$CG" "$K_USAGE")
# wait for a scrape that started after BEFORE was read
i=0
while :; do
	ts=$(query "timestamp(memcgctl_usage_bytes$sel)")
	[ "$ts" != none ] && awk -v a="$ts" -v b="$t0" 'BEGIN { exit !(a > b) }' && break
	i=$((i + 1))
	[ $i -gt 150 ] && fail "Prometheus has no scrape after $t0 (last: $ts): $(tail -c 800 "$MCG_TMP/prometheus.log")"
	sleep 0.2
done
got=$(query "memcgctl_usage_bytes$sel")
after=$(knob "$CG" "$K_USAGE")
# the newest sample may be newer than the one timestamp() saw: still after BEFORE's read
lo=$before hi=$after
[ "$lo" -gt "$hi" ] && { lo=$after; hi=$before; }
awk -v x="$got" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(x >= lo && x <= hi) }' ||
	fail "Prometheus's usage $got outside the kernel's [$lo, $hi] read around the scrape"
ok "Prometheus's usage $got within the kernel's [$lo, $hi]"
assert_eq "Prometheus's limit" $((128 * 1024 * 1024)) "$(query "memcgctl_limit_bytes$sel")"
assert_eq "scrape health" 1 "$(query 'up{job="memcgctl"}')"
assert_eq "Prometheus's build_info" 1 "$(query 'memcgctl_build_info{job="memcgctl"}')"
# Prometheus 2.x asks for OpenMetrics first: the unit in its metadata came only in that format
unit=$(curl -fsS -G --data-urlencode 'metric=memcgctl_usage_bytes' "http://127.0.0.1:$p2/api/v1/targets/metadata" |
	jq -r '.data[0].unit // "none"')
assert_eq "Prometheus's unit of memcgctl_usage_bytes (OpenMetrics scraped)" bytes "$unit"

# ---- a counter reset: a cgroup removed and made again under the same path ----
# wait_value PROMQL WANT: until Prometheus answers WANT (30 s)
wait_value() {
	i=0
	until [ "$(query "$1")" = "$2" ]; do
		i=$((i + 1))
		[ $i -gt 150 ] && fail "Prometheus's $1 is $(query "$1"), not $2, after 30 s"
		sleep 0.2
	done
}
mkdir "$CG/reset"
echo $((8 * 1024 * 1024)) >"$CG/reset/$K_LIMIT"
# 32 MiB of page cache through an 8 MiB limit: the charges fail at the limit, failcnt rises
run_in "$CG/reset" dd if=/dev/zero of="$MCG_DATA/reset" bs=1M count=32 2>/dev/null
f1=$(knob "$CG/reset" memory.failcnt)
[ "$f1" -gt 0 ] || fail "no failcnt after 32 MiB through 8 MiB"
rsel="{cgroup=\"$CGREL/reset\"}"
wait_value "memcgctl_failcnt_total$rsel" "$f1"
ok "Prometheus has the kernel's failcnt $f1 of $CGREL/reset"
rmdir "$CG/reset"
mkdir "$CG/reset"
rm -f "$MCG_DATA/reset"
assert_eq "kernel's failcnt of the new cgroup" 0 "$(knob "$CG/reset" memory.failcnt)"
wait_value "memcgctl_failcnt_total$rsel" 0
assert_eq "resets() over the re-creation" 1 "$(query "resets(memcgctl_failcnt_total$rsel[2m])")"
assert_eq "max_over_time keeps the old cgroup's value" "$f1" \
	"$(query "max_over_time(memcgctl_failcnt_total$rsel[2m])")"
# rate() reads the drop as a reset, not as a negative rate
r=$(query "rate(memcgctl_failcnt_total$rsel[2m])")
awk -v r="$r" 'BEGIN { exit !(r >= 0) }' || fail "rate() over the reset is $r"
ok "re-created cgroup: Prometheus counts 1 reset, max $f1, rate $r"
rmdir "$CG/reset"

# scrapes while cgroups are created and removed under the served tree
i=0
while [ $i -lt 20 ]; do
	mkdir "$CG/churn$i"
	curl -fsS "http://127.0.0.1:$p1/metrics" >"$MCG_TMP/churn.prom" || fail "scrape $i failed"
	promtool check metrics <"$MCG_TMP/churn.prom" || fail "promtool rejects scrape $i (created)"
	grep -q "cgroup=\"$CGREL/churn$i\"" "$MCG_TMP/churn.prom" || fail "new cgroup churn$i not served"
	rmdir "$CG/churn$i"
	curl -fsS "http://127.0.0.1:$p1/metrics" >"$MCG_TMP/churn.prom" || fail "scrape $i failed"
	promtool check metrics <"$MCG_TMP/churn.prom" || fail "promtool rejects scrape $i (removed)"
	i=$((i + 1))
done
curl -fsS "http://127.0.0.1:$p1/metrics" >"$MCG_TMP/last.prom"
promtool check metrics <"$MCG_TMP/last.prom" || fail "promtool rejects /metrics after churn"
! grep -q 'churn' "$MCG_TMP/last.prom" || fail "removed cgroups still served"
ok "20 churn rounds scraped; removed cgroups gone"

stop_server "$pr"
stop_server "$ex"
assert_eq "memcgctl export --listen after SIGTERM: exit" 0 "$STOP_STATUS"
! grep -q 'Sanitizer\|runtime error' "$MCG_TMP/memcgctl.log" || fail "$(cat "$MCG_TMP/memcgctl.log")"

# ---- socket activation: the units memcgctl installs ----
st=0
"$MEMCGCTL" export --listen systemd "$CGREL" 2>"$MCG_TMP/err" || st=$?
assert_eq "--listen systemd without a socket: exit" 1 "$st"
grep -q "cannot listen on 'systemd': no socket from systemd" "$MCG_TMP/err" || fail "message: $(cat "$MCG_TMP/err")"
u="$MCG_SRCDIR/lib/systemd"
assert_eq "socket unit: address" 127.0.0.1:9756 "$(sed -n 's/^ListenStream=//p' "$u/memcgctl-export.socket")"
assert_eq "socket unit: one socket for the service" no "$(sed -n 's/^Accept=//p' "$u/memcgctl-export.socket")"
cmdline=$(sed -n 's/^ExecStart=//p' "$u/memcgctl-export.service.in")
assert_eq "service: command" "@MEMCG_SBINDIR@/memcgctl export --listen systemd" "$cmdline"
if command -v systemd-analyze >/dev/null; then
	mkdir "$MCG_TMP/units"
	sed "s|@MEMCG_SBINDIR@/memcgctl|$MEMCGCTL|" "$u/memcgctl-export.service.in" >"$MCG_TMP/units/memcgctl-export.service"
	cp "$u/memcgctl-export.socket" "$MCG_TMP/units/"
	systemd-analyze verify --man=no "$MCG_TMP/units/memcgctl-export.socket" \
		"$MCG_TMP/units/memcgctl-export.service" >"$MCG_TMP/verify" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$MCG_TMP/verify")"
	ok "systemd-analyze verify accepts the socket and service units"
fi
if command -v systemd-socket-activate >/dev/null; then
	p3=$(free_port)
	# the service's command (the built binary) on a socket systemd-socket-activate holds
	# shellcheck disable=SC2086
	serve activated systemd-socket-activate -l "127.0.0.1:$p3" \
		$(printf '%s' "$cmdline" | sed "s|^@MEMCG_SBINDIR@/memcgctl|$MEMCGCTL|") "$CGREL"
	act=$SERVE_PID
	wait_http "http://127.0.0.1:$p3/metrics" "$act"
	curl -fsS "http://127.0.0.1:$p3/metrics" >"$MCG_TMP/act.prom"
	promtool check metrics <"$MCG_TMP/act.prom" || fail "promtool rejects the activated /metrics"
	assert_eq "activated: limit" $((128 * 1024 * 1024)) \
		"$(M="memcgctl_limit_bytes{cgroup=\"$CGREL\"}" awk '$1 == ENVIRON["M"] { print $2 }' "$MCG_TMP/act.prom")"
	# systemd-socket-activate executes the service in its own process: the pid serving is memcgctl
	assert_eq "activated: the server is memcgctl" "$(readlink -f "$MEMCGCTL")" "$(readlink -f "/proc/$act/exe")"
	ls -l "/proc/$act/fd/3" | grep -q 'socket:' || fail "activated: fd 3 is not the passed socket"
	stop_server "$act"
	assert_eq "activated server after SIGTERM: exit" 0 "$STOP_STATUS"
	! grep -q 'Sanitizer\|runtime error' "$MCG_TMP/activated.log" || fail "$(cat "$MCG_TMP/activated.log")"
	ok "socket activation: the service's command serves the scratch tree on the passed socket"
else
	[ "${CI:-}" = true ] && fail "systemd-socket-activate (Debian package systemd) is missing"
	say "systemd-socket-activate is not installed: socket activation not tested"
fi
