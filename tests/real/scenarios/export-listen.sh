#!/bin/sh
# tiers: v1
# export --listen: a real Prometheus 2.x (its own config and TSDB in a temp dir, scrape every
# 1 s, 127.0.0.1 on a free port) scrapes memcgctl; its HTTP API's value of a scratch cgroup's
# usage lies between the kernel's usage read before and after that scrape, its limit is the
# kernel's; the server keeps its descriptors across scrapes; scrapes during cgroup churn are
# well formed (promtool); a port in use is exit 1 with the reason, a malformed address 64;
# SIGTERM stops it with 0.
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
