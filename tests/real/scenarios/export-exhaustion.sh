#!/bin/sh
# tiers: v1
# export under attack and exhaustion (issue 24), against the real server on 127.0.0.1 (a free
# port): 64 slowloris connections trickling header lines, as nobody and as root, and 64
# clients that ask for /metrics and never read, as nobody: a probe scrape answers 200, whole,
# within 1 s throughout, the server closes every attacker within its deadline, and its RSS
# grows by less than 24 MiB while 64 copies of a 3 MB exposition are asked for; 64 malformed
# requests log at most 12 lines. Out of descriptors (1,500 scratch cgroups): with a low soft
# limit --listen serves every cgroup (it raises the limit), with a low hard limit a scrape that
# misses cgroups says so (memcgctl_scrape_complete 0); --textfile keeps the previous file and
# fails, a one-shot fails. A port out of range is a usage error naming it; --families reclaimd
# with nothing to print exits 0 with no output (no fwrite of NULL).
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
need_tool python3 python3
need_tool curl curl
clients() { python3 "$MCG_SRCDIR/tests/real/export/clients.py" "$@"; }
nobody=$(id -u nobody 2>/dev/null || echo 65534)
# the sanitizer build keeps freed memory in quarantine: RSS would count it
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
export ASAN_OPTIONS

# ---- arguments ----
st=0
timeout 10 "$MEMCGCTL" export --listen 127.0.0.1:99999 2>"$MCG_TMP/err" || st=$?
assert_eq "--listen 127.0.0.1:99999: exit" 64 "$st"
grep -q "cannot listen on '127.0.0.1:99999': port 99999 is not in the range 1-65535" "$MCG_TMP/err" ||
	fail "port out of range: $(cat "$MCG_TMP/err")"
st=0
timeout 10 "$MEMCGCTL" export --listen 127.0.0.1:0 2>"$MCG_TMP/err" || st=$?
assert_eq "--listen 127.0.0.1:0: exit" 64 "$st"

scratch_new exh
mkdir "$MCG_TMP/statedir"
st=0
"$MEMCGCTL" export --families reclaimd --state-dir "$MCG_TMP/statedir" "$CGREL" \
	>"$MCG_TMP/rd.out" 2>"$MCG_TMP/rd.err" || st=$?
assert_eq "--families reclaimd with nothing to print: exit" 0 "$st"
[ ! -s "$MCG_TMP/rd.out" ] || fail "--families reclaimd printed: $(head -c 300 "$MCG_TMP/rd.out")"
! grep -q 'runtime error\|Sanitizer' "$MCG_TMP/rd.err" || fail "$(cat "$MCG_TMP/rd.err")"
ok "port range and an empty exposition"

nc=1
while [ $nc -le 100 ]; do
	mkdir "$CG/c$nc"
	nc=$((nc + 1))
done

port=$(free_port)
serve server "$MEMCGCTL" export --listen "127.0.0.1:$port" "$CGREL"
srv=$SERVE_PID
wait_http "http://127.0.0.1:$port/metrics" "$srv"

# probe_budget: how long a probe scrape may take under attack: 1 s, or three times what the
# same scrape took just before it without one where the machine is that slow (a 3 MB
# exposition under ASan on a loaded host); an attack that works never answers at all
probe_budget() {
	t=$(for _ in 1 2 3; do curl -fsS -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port/metrics"; done |
		sort -n | sed -n 2p)
	awk -v t="${t:-0}" 'BEGIN { b = 3 * t; printf "%.3f\n", (b > 1 ? b : 1) }'
}

# attack MODE N UID SECONDS: attackers in the background, a probe for SECONDS - 2 meanwhile
attack() {
	budget=$(probe_budget)
	clients "$1" "$port" "$2" "$4" ${3:+"$3"} >"$MCG_TMP/$1.out" 2>&1 &
	apid=$!
	echo "$apid" >>"$MCG_CLEAN_PIDS"
	w=0
	until grep -q ready "$MCG_TMP/$1.out"; do
		w=$((w + 1))
		[ $w -gt 100 ] && fail "$1: attackers not ready: $(cat "$MCG_TMP/$1.out")"
		sleep 0.1
	done
	clients probe "$port" $(($4 - 2)) "$budget" >"$MCG_TMP/probe.out" 2>&1 ||
		fail "$1 ($2 as uid ${3:-0}): $(cat "$MCG_TMP/probe.out")"
	wait "$apid" || fail "$1: attackers failed: $(cat "$MCG_TMP/$1.out")"
	kill -0 "$srv" 2>/dev/null || fail "the server died: $(tail -c 600 "$MCG_TMP/server.log")"
	say "$1 (uid ${3:-0}): $(cat "$MCG_TMP/probe.out") (budget $budget s); attackers: $(tail -n 1 "$MCG_TMP/$1.out")"
}
# longest MODE: the longest the server held an attacker's connection, seconds
longest() { awk '/^closed/ { print $6 }' "$MCG_TMP/$1.out"; }

# ---- rate-limited log: 64 malformed requests ----
before=$(wc -l <"$MCG_TMP/server.log")
clients garbage "$port" 64 >/dev/null
after=$(wc -l <"$MCG_TMP/server.log")
assert_le "log lines for 64 malformed requests" $((after - before)) 12
assert_le "a line logged for malformed requests" 1 $((after - before))
ok "64 malformed requests: $((after - before)) log lines"

# ---- slowloris: a header line a second, never the end of the request ----
attack slowloris 64 "$nobody" 9
awk -v l="$(longest slowloris)" 'BEGIN { exit !(l > 0 && l <= 6.5) }' ||
	fail "slowloris as nobody: a connection held $(longest slowloris) s (request deadline 5 s)"
attack slowloris 64 "" 9
awk -v l="$(longest slowloris)" 'BEGIN { exit !(l > 0 && l <= 6.5) }' ||
	fail "slowloris as root: a connection held $(longest slowloris) s (request deadline 5 s)"
ok "slowloris as nobody and as root: every probe answered within 1 s, attackers cut at 5 s"

# ---- non-readers: 1,500 cgroups, an exposition of about 3 MB ----
while [ $nc -le 1500 ]; do
	mkdir "$CG/c$nc"
	nc=$((nc + 1))
done
curl -fsS "http://127.0.0.1:$port/metrics" >"$MCG_TMP/big.prom"
curl -fsS "http://127.0.0.1:$port/metrics" >"$MCG_TMP/big.prom"
size=$(wc -c <"$MCG_TMP/big.prom")
assert_le "exposition of 1,500 cgroups (bytes)" 2000000 "$size"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$srv/status"; }
rss0=$(rss)
(
	end=$(($(date +%s) + 9))
	max=0
	while [ "$(date +%s)" -lt "$end" ]; do
		r=$(rss)
		[ "$r" -gt "$max" ] && max=$r
		echo "$max" >"$MCG_TMP/rss.max"
		sleep 0.2
	done
) &
rpid=$!
echo "$rpid" >>"$MCG_CLEAN_PIDS"
attack nonreader 64 "$nobody" 8
wait "$rpid"
grow=$(($(cat "$MCG_TMP/rss.max") - rss0))
say "RSS $rss0 kB before, +$grow kB at most under 64 non-readers of $size bytes"
assert_le "RSS growth under 64 non-readers (kB)" "$grow" $((24 * 1024))
ok "non-readers: RSS +$((grow / 1024)) MiB (64 unread copies would be $((64 * size / 1048576)) MiB)"
stop_server "$srv"
assert_eq "server after SIGTERM: exit" 0 "$STOP_STATUS"
! grep -q 'Sanitizer\|runtime error' "$MCG_TMP/server.log" || fail "$(tail -c 2000 "$MCG_TMP/server.log")"

# ---- out of descriptors ----
# used_rows FILE: the cgroups of an exposition with a usage sample
used_rows() { grep -c '^memcgctl_usage_bytes{' "$1" || true; }
metric() { awk -v m="$1" '$1 == m { print $2 }' "$2"; }
# a low soft limit: raised to the hard one, every cgroup served
p2=$(free_port)
serve soft sh -c "ulimit -S -n 512 && exec \"\$0\" \"\$@\"" "$MEMCGCTL" export --listen "127.0.0.1:$p2" "$CGREL"
sp=$SERVE_PID
wait_http "http://127.0.0.1:$p2/metrics" "$sp"
curl -fsS -m 60 "http://127.0.0.1:$p2/metrics" >"$MCG_TMP/soft.prom"
curl -fsS -m 60 "http://127.0.0.1:$p2/metrics" >"$MCG_TMP/soft.prom"
assert_eq "soft limit 512: cgroups served" 1501 "$(used_rows "$MCG_TMP/soft.prom")"
assert_eq "soft limit 512: scrape complete" 1 "$(metric memcgctl_scrape_complete "$MCG_TMP/soft.prom")"
stop_server "$sp"
# a low hard limit: a scrape without every cgroup is marked
p3=$(free_port)
serve hard sh -c "ulimit -n 512 && exec \"\$0\" \"\$@\"" "$MEMCGCTL" export --listen "127.0.0.1:$p3" "$CGREL"
hp=$SERVE_PID
wait_http "http://127.0.0.1:$p3/metrics" "$hp"
for n in 1 2 3; do
	curl -fsS -m 60 "http://127.0.0.1:$p3/metrics" >"$MCG_TMP/hard.prom"
	rows=$(used_rows "$MCG_TMP/hard.prom")
	complete=$(metric memcgctl_scrape_complete "$MCG_TMP/hard.prom")
	skipped=$(metric memcgctl_scrape_skipped_cgroups "$MCG_TMP/hard.prom")
	say "hard limit 512, scrape $n: $rows of 1501 cgroups, complete ${complete:-absent}, skipped ${skipped:-absent}"
	if [ "$rows" -lt 1501 ]; then
		assert_eq "hard limit 512: a scrape of $rows cgroups is marked incomplete" 0 "$complete"
		[ "$skipped" -gt 0 ] || fail "hard limit 512: $rows of 1501 cgroups, skipped '$skipped'"
	else
		assert_eq "hard limit 512: a whole scrape" 1 "$complete"
	fi
done
stop_server "$hp"
ok "out of descriptors: --listen raises a soft limit, marks a partial scrape under a hard one"

# --textfile: a whole file first, then a walk out of descriptors keeps it
mkdir "$MCG_TMP/tf"
"$MEMCGCTL" export --textfile "$MCG_TMP/tf" "$CGREL"
cp "$MCG_TMP/tf/memcgctl.prom" "$MCG_TMP/tf.before"
assert_eq "--textfile: cgroups" 1501 "$(used_rows "$MCG_TMP/tf.before")"
st=0
(ulimit -n 8 && exec "$MEMCGCTL" export --textfile "$MCG_TMP/tf" "$CGREL") 2>"$MCG_TMP/tf.err" || st=$?
assert_eq "--textfile under ulimit -n 8: exit" 1 "$st"
cmp -s "$MCG_TMP/tf.before" "$MCG_TMP/tf/memcgctl.prom" ||
	fail "--textfile under ulimit -n 8 replaced the file ($(used_rows "$MCG_TMP/tf/memcgctl.prom") cgroups)"
grep -q "not writing '$MCG_TMP/tf/memcgctl.prom'" "$MCG_TMP/tf.err" || fail "--textfile: $(tail -n 2 "$MCG_TMP/tf.err")"
st=0
(ulimit -n 7 && exec "$MEMCGCTL" export "$CGREL") >"$MCG_TMP/one.prom" 2>"$MCG_TMP/one.err" || st=$?
assert_eq "one-shot under ulimit -n 7: exit" 1 "$st"
grep -q "the exposition is incomplete" "$MCG_TMP/one.err" || fail "one-shot: $(tail -n 2 "$MCG_TMP/one.err")"
ok "out of descriptors: --textfile keeps the previous file and fails, a one-shot fails"
