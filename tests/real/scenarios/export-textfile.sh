#!/bin/sh
# tiers: v1
# export --textfile: the file is replaced atomically (no .tmp left, only complete files seen
# by a reader polling during --interval writes); a real node_exporter (textfile collector,
# 127.0.0.1 on a free port) serves the same samples; a repeated write (the sampler) has a
# single run's (a walk's); an untrusted or missing directory is exit 1 with the reason.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
need_tool prometheus-node-exporter prometheus-node-exporter
need_tool promtool prometheus
need_tool python3 python3

scratch_new textfile
echo $((32 * 1024 * 1024)) >"$CG/$K_LIMIT"
mkdir "$CG/a" "$CG/b"
dir="$MCG_TMP/textfile"
mkdir -m 0755 "$dir"

"$MEMCGCTL" export --textfile "$dir" "$CGREL" || fail "export --textfile failed"
[ -f "$dir/memcgctl.prom" ] || fail "no $dir/memcgctl.prom"
[ ! -e "$dir/memcgctl.prom.tmp" ] || fail "the temporary file was left"
assert_eq "file mode" 644 "$(stat -c %a "$dir/memcgctl.prom")"
promtool check metrics <"$dir/memcgctl.prom" || fail "promtool rejects the textfile"
assert_eq "limit in the file" $((32 * 1024 * 1024)) \
	"$(awk -v m="memcgctl_limit_bytes{cgroup=\"$CGREL\"}" '$1 == m { print $2 }' "$dir/memcgctl.prom")"

port=$(free_port)
serve node_exporter prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
	--collector.disable-defaults --collector.textfile --collector.textfile.directory="$dir"
ne=$SERVE_PID
wait_http "http://127.0.0.1:$port/metrics" "$ne"
curl -fsS "http://127.0.0.1:$port/metrics" >"$MCG_TMP/ne.prom"
assert_eq "node_exporter textfile scrape error" 0 \
	"$(awk '$1 == "node_textfile_scrape_error" { print $2 }' "$MCG_TMP/ne.prom")"
samples "$dir/memcgctl.prom" >"$MCG_TMP/want"
samples "$MCG_TMP/ne.prom" >"$MCG_TMP/got"
[ -s "$MCG_TMP/want" ] || fail "no samples in the textfile"
diff "$MCG_TMP/want" "$MCG_TMP/got" >"$MCG_TMP/diff" ||
	fail "node_exporter serves other samples: $(head -c 800 "$MCG_TMP/diff")"
ok "node_exporter serves the same $(wc -l <"$MCG_TMP/want") samples"

# a repeated write reads through the sampler (kept descriptors), a single run by a walk:
# the same samples of the (idle) scratch tree. Its usage can still move on a busy host (v1:
# the per-CPU charge stock drained by reclaim elsewhere, seen 256 KiB -> 20 KiB): a pair of
# runs across which the kernel's usage moved is redone (5 tries), only the kernel decides
tree_usage() { cat "$CG/$K_USAGE" "$CG/a/$K_USAGE" "$CG/b/$K_USAGE" | tr '\n' ' '; }
tries=0
while :; do
	u0=$(tree_usage)
	"$MEMCGCTL" export --textfile "$dir" "$CGREL" || fail "export --textfile failed"
	grep "cgroup=\"$CGREL" "$dir/memcgctl.prom" | sort >"$MCG_TMP/walk.s"
	"$MEMCGCTL" export --textfile "$dir" -d 10ms -n 2 "$CGREL" || fail "export --textfile -d -n 2 failed"
	grep "cgroup=\"$CGREL" "$dir/memcgctl.prom" | sort >"$MCG_TMP/sampled.s"
	u1=$(tree_usage)
	[ "$u1" != "$u0" ] || break
	tries=$((tries + 1))
	[ $tries -lt 5 ] || fail "the kernel's usage of the idle tree kept moving: $u0 -> $u1"
	say "redo: the kernel's usage of the tree moved during the two runs: $u0 -> $u1"
done
[ "$(wc -l <"$MCG_TMP/walk.s")" -ge 30 ] || fail "few scratch samples: $(wc -l <"$MCG_TMP/walk.s")"
diff "$MCG_TMP/walk.s" "$MCG_TMP/sampled.s" >"$MCG_TMP/diff" ||
	fail "the sampled write differs from the single run: $(head -c 800 "$MCG_TMP/diff")"
ok "a repeated write has the single run's $(wc -l <"$MCG_TMP/walk.s") samples of the scratch tree"

# --interval: rewrites while cgroups come and go; every file node_exporter reads is whole
"$MEMCGCTL" export --textfile "$dir" -d 100ms -n 30 "$CGREL" 2>"$MCG_TMP/interval.err" &
ex=$!
echo "$ex" >>"$MCG_CLEAN_PIDS"
reads=0 i=0
while kill -0 "$ex" 2>/dev/null; do
	i=$((i + 1))
	mkdir "$CG/churn$i" 2>/dev/null || true
	curl -fsS "http://127.0.0.1:$port/metrics" >"$MCG_TMP/ne.prom" || fail "node_exporter scrape failed"
	[ "$(awk '$1 == "node_textfile_scrape_error" { print $2 }' "$MCG_TMP/ne.prom")" = 0 ] ||
		fail "node_exporter read a broken textfile: $(grep -i error "$MCG_TMP/ne.prom" | head -3)"
	grep -q "^memcgctl_usage_bytes{cgroup=\"$CGREL\"}" "$MCG_TMP/ne.prom" ||
		fail "a scrape without the scratch cgroup's usage (a partial file)"
	rmdir "$CG/churn$i" 2>/dev/null || true
	reads=$((reads + 1))
done
wait "$ex" || fail "export --interval exited $?: $(cat "$MCG_TMP/interval.err")"
[ ! -s "$MCG_TMP/interval.err" ] || fail "export --interval said: $(cat "$MCG_TMP/interval.err")"
[ ! -e "$dir/memcgctl.prom.tmp" ] || fail "the temporary file was left after --interval"
[ "$reads" -ge 3 ] || fail "only $reads reads during --interval"
ok "$reads node_exporter scrapes during 30 rewrites: all whole"
stop_server "$ne"

# bad directories: untrusted (world-writable), missing
chmod 0777 "$dir"
st=0
"$MEMCGCTL" export --textfile "$dir" "$CGREL" 2>"$MCG_TMP/err" || st=$?
assert_eq "world-writable dir: exit" 1 "$st"
grep -q "cannot write to '$dir': not trusted" "$MCG_TMP/err" || fail "message: $(cat "$MCG_TMP/err")"
# (below a trusted parent: under the world-writable one it is refused as untrusted first)
chmod 0755 "$dir"
st=0
"$MEMCGCTL" export --textfile "$dir/missing" "$CGREL" 2>"$MCG_TMP/err" || st=$?
assert_eq "missing dir: exit" 1 "$st"
grep -q "cannot write to '$dir/missing': No such file" "$MCG_TMP/err" || fail "message: $(cat "$MCG_TMP/err")"
chmod 0755 "$dir"
