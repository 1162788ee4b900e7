#!/bin/sh
# tiers: v1
# export: promtool check metrics is clean on the real tree (with scratch cgroups named with a
# quote and a backslash, a tab and invalid UTF-8; the kernel refuses a line feed) and on
# the hostile-name fixture (v1 and v2 copies);
# the scratch cgroup's samples are the kernel's values; an unlimited child has no limit sample;
# contrib's rules load and its dashboard queries parse, naming only metrics export prints
# or documents.
set -eu
. "$MCG_TESTLIB"
require_cgroups
if ! command -v promtool >/dev/null; then
	[ "${CI:-}" = true ] && fail "promtool (Debian package prometheus) is missing"
	skip "promtool (Debian package prometheus) is not installed"
fi
# check FILE WHAT: promtool accepts FILE and has nothing to say (lint included)
check() {
	promtool check metrics <"$1" >"$MCG_TMP/promtool.out" 2>&1 ||
		fail "$2: promtool check metrics: $(head -c 600 "$MCG_TMP/promtool.out")"
	[ ! -s "$MCG_TMP/promtool.out" ] || fail "$2: promtool says: $(head -c 600 "$MCG_TMP/promtool.out")"
	ok "$2: promtool check metrics clean ($(wc -l <"$1") lines)"
}

scratch_new export
echo $((64 * 1024 * 1024)) >"$CG/$K_LIMIT"
mkdir "$CG/q\"uo\\te"
mkdir "$CG/$(printf 'tab\tx\377')"
run_in "$CG" "$MCG_LOAD" write "$MCG_DATA/f" 4 --sync >/dev/null

"$MEMCGCTL" export >"$MCG_TMP/all.prom" || fail "export of the whole tree failed"
check "$MCG_TMP/all.prom" "real v$MCG_CGVER tree"

before=$(knob "$CG" "$K_USAGE")
"$MEMCGCTL" export "$CGREL" >"$MCG_TMP/cg.prom" || fail "export $CGREL failed"
after=$(knob "$CG" "$K_USAGE")
check "$MCG_TMP/cg.prom" "the scratch subtree"
val() { # METRIC LABEL: the sample's value, or "absent"
	# (through the environment: awk -v would undo the backslashes)
	M="$1{cgroup=\"$2\"}" awk '$1 == ENVIRON["M"] { print $2; f = 1 }
		END { if (!f) print "absent" }' "$MCG_TMP/cg.prom"
}
usage=$(val memcgctl_usage_bytes "$CGREL")
lo=$before hi=$after
[ "$lo" -gt "$hi" ] && { lo=$after; hi=$before; }
[ "$usage" != absent ] && [ "$usage" -ge "$lo" ] && [ "$usage" -le "$hi" ] ||
	fail "usage $usage outside [$lo, $hi] read around it"
ok "usage $usage within [$lo, $hi]"
assert_eq "limit" $((64 * 1024 * 1024)) "$(val memcgctl_limit_bytes "$CGREL")"
# the children: escaped labels, no limit sample (unlimited), a usage sample each
assert_eq "quote/backslash child usage" "$(knob "$CG/q\"uo\\te" "$K_USAGE")" \
	"$(val memcgctl_usage_bytes "$CGREL/q\\\"uo\\\\\\\\te")"
assert_eq "tab/invalid UTF-8 child usage" "$(knob "$CG/$(printf 'tab\tx\377')" "$K_USAGE")" \
	"$(val memcgctl_usage_bytes "$CGREL/tab\\\\tx\\\\xff")"
assert_eq "unlimited child's limit" absent "$(val memcgctl_limit_bytes "$CGREL/q\\\"uo\\\\\\\\te")"
n=$(grep -c '^memcgctl_usage_bytes{' "$MCG_TMP/cg.prom")
assert_eq "cgroups exported" 3 "$n"
if [ "$MCG_CGVER" = 1 ]; then
	assert_eq "failcnt" "$(knob "$CG" memory.failcnt)" "$(val memcgctl_failcnt_total "$CGREL")"
fi

# the hostile-name corpus on fixture copies
for v in v1 v2; do
	cp -a "$MCG_SRCDIR/tests/cli/fixtures/$v" "$MCG_TMP/$v"
	bash "$MCG_SRCDIR/tests/cli/hostile/mk-hostile.sh" "$MCG_TMP/$v/cgroup" \
		"$MCG_TMP/$v/cgroup/fixture/app" "$MCG_TMP/manifest-$v" || fail "$v: cannot make the corpus"
	"$MEMCGCTL" --root "$MCG_TMP/$v/cgroup" --proc "$MCG_TMP/$v/proc" export \
		>"$MCG_TMP/h-$v.prom" 2>"$MCG_TMP/h-$v.err" || fail "$v hostile: export failed: $(cat "$MCG_TMP/h-$v.err")"
	! grep -q 'Sanitizer\|runtime error' "$MCG_TMP/h-$v.err" || fail "$v hostile: $(cat "$MCG_TMP/h-$v.err")"
	check "$MCG_TMP/h-$v.prom" "hostile names ($v fixture)"
	names=$(tr -cd '\0' <"$MCG_TMP/manifest-$v" | wc -c)
	rows=$(grep -c '^memcgctl_usage_bytes{' "$MCG_TMP/h-$v.prom")
	distinct=$(grep '^memcgctl_usage_bytes{' "$MCG_TMP/h-$v.prom" | sed 's/} .*//' | sort -u | wc -l)
	assert_eq "$v hostile: distinct labels" "$rows" "$distinct"
	# the fixture has 4 cgroups besides the corpus; v2's root has no usage file
	want=$((names + 4))
	[ "$v" = v2 ] && want=$((names + 3))
	assert_eq "$v hostile: cgroups with usage" "$want" "$rows"
	grep -qF 'cgroup="/h/bad-\\xff\\xfe"' "$MCG_TMP/h-$v.prom" ||
		fail "$v hostile: invalid UTF-8 not written as \\\\xHH"
	ok "$v hostile: invalid UTF-8 as \\\\xHH"
done

# contrib/: the alerting rules load, every dashboard query parses, the dashboard is JSON
c="$MCG_SRCDIR/contrib"
promtool check rules "$c/prometheus/memcgctl-alerts.yml" >"$MCG_TMP/rules.out" 2>&1 ||
	fail "contrib alerting rules: $(cat "$MCG_TMP/rules.out")"
ok "contrib alerting rules load"
# each panel query as a recording rule, the variables replaced by a match-all
jq -r '.panels[].targets[].expr' "$c/grafana/memcgctl-dashboard.json" >"$MCG_TMP/exprs" ||
	fail "the dashboard is not JSON"
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	i=0
	while IFS= read -r e; do
		i=$((i + 1))
		printf '      - record: dashboard:q%d\n        expr: %s\n' "$i" \
			"$(printf '%s' "$e" | sed 's/\$instance/.*/g; s/\$cgroup/.*/g' | jq -R .)"
	done <"$MCG_TMP/exprs"
} >"$MCG_TMP/dash-rules.yml"
promtool check rules "$MCG_TMP/dash-rules.yml" >"$MCG_TMP/rules.out" 2>&1 ||
	fail "contrib dashboard queries: $(cat "$MCG_TMP/rules.out")"
[ "$i" -ge 8 ] || fail "only $i dashboard queries"
ok "contrib dashboard: $i queries parse"
# every metric the rules and the dashboard name is one export prints on some tree, or (the
# reclaimd counters, printed only where reclaimd served a cgroup: export-reclaimd; the stall,
# only by --listen with delay accounting on) one memcgctl-export(8) names
names=$(cat "$c/prometheus/memcgctl-alerts.yml" "$MCG_TMP/exprs" | grep -o 'memcgctl_[a-z_]*' | sort -u)
man="$MCG_SRCDIR/man/memcgctl-export.8"
printed=0 documented=0
for n in $names; do
	if grep -q "^# TYPE $n " "$MCG_TMP/all.prom" "$MCG_TMP/h-v2.prom"; then
		printed=$((printed + 1))
	elif sed 's/\\f[BIRP]//g; s/\\-/-/g' "$man" | grep -q "$n"; then
		documented=$((documented + 1))
	else
		fail "contrib names $n, which export never prints and its man page does not name"
	fi
done
ok "contrib names metrics export prints ($printed) or documents ($documented)"
