#!/bin/bash
# check.sh: 'memcgctl oom NAME' on a store written at fixed times (mk-oom-store.c): a container
# that is gone (docker:gone, stored under that name) shows its autopsy and what memcgctl did
# on it in the minute before (a set-limit 10 s before the kill), the other autopsy left out; a
# name that resolves neither now nor in the store exits 64 with the resolver's message and
# prints nothing; export's store family counts the oom_autopsy and oom_warning events by
# cgroup and type, as dump --events reads them.
# usage: check.sh MEMCGCTL MK-OOM-STORE FIXTURES
set -eu
bin=$1 mk=$2 fixtures=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
"$mk" "$tmp/store" || fail "mk-oom-store failed"
mkdir "$tmp/state"
export MEMCGCTL_STATE_ROOT="$tmp/state" TZ=UTC
m() { "$bin" --root "$fixtures/v2/cgroup" oom --store "$tmp/store" "$@"; }

st=0
m docker:gone >"$tmp/out" 2>"$tmp/err" || st=$?
[ "$st" = 0 ] || fail "oom docker:gone: exit $st: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "oom docker:gone: stderr: $(cat "$tmp/err")"
grep -q 'victim: pid 4242 (hog)' "$tmp/out" || fail "oom docker:gone: no autopsy: $(cat "$tmp/out")"
! grep -q 'pid 4243' "$tmp/out" || fail "oom docker:gone shows another cgroup's kill"
grep -qx '  memcgctl before: set-limit /docker/0123abcd memory.max max -> 32M (10 s before)' "$tmp/out" ||
	fail "oom docker:gone: not the change before: $(cat "$tmp/out")"
m --json docker:gone >"$tmp/json" 2>"$tmp/err" || fail "oom --json docker:gone failed: $(cat "$tmp/err")"
[ "$(jq -r '[.pid, (.changes_before | length), .changes_before[0].op] | @tsv' "$tmp/json")" = "4242	1	set-limit" ] ||
	fail "oom --json docker:gone: $(cat "$tmp/json")"
echo "ok: a gone container's autopsy by its stored name, with the change before it"

for name in docker:nosuch pid:999999999; do
	st=0
	m "$name" >"$tmp/out" 2>"$tmp/err" || st=$?
	[ "$st" = 64 ] || fail "oom $name: exit $st, expected 64 ($(cat "$tmp/out" "$tmp/err"))"
	[ ! -s "$tmp/out" ] || fail "oom $name printed: $(cat "$tmp/out")"
	grep -q "^memcgctl: .*'$name'" "$tmp/err" || fail "oom $name: no message naming it: $(cat "$tmp/err")"
	echo "ok: oom $name: exit 64: $(cat "$tmp/err")"
done
# without a name: both autopsies
[ "$(m --json | jq -s length)" = 2 ] || fail "oom without a CGROUP: not both autopsies"
# export's store family counts the autopsies and the warning by type, as dump reads them
"$bin" --root "$fixtures/v2/cgroup" export --families store --store "$tmp/store" >"$tmp/e.prom" 2>"$tmp/e.err" ||
	fail "export --families store failed: $(cat "$tmp/e.err")"
grep '^memcgctl_store_events_total' "$tmp/e.prom" | sort >"$tmp/got"
cat "$tmp/got"
printf '%s\n' 'memcgctl_store_events_total{cgroup="/docker/0123abcd",type="oom_autopsy"} 1' \
	'memcgctl_store_events_total{cgroup="/docker/0123abcd",type="oom_warning"} 1' \
	'memcgctl_store_events_total{cgroup="/docker/0123abcd",type="set_limit"} 1' \
	'memcgctl_store_events_total{cgroup="/other",type="oom_autopsy"} 1' | sort >"$tmp/want"
diff "$tmp/want" "$tmp/got" || fail "export's store family: not one oom_autopsy and one oom_warning per cgroup"
for t in oom_autopsy oom_warning; do
	d=$("$bin" dump --store "$tmp/store" --events --json | jq -s "map(select(.event == \"$t\")) | length")
	e=$(sed -n "s/^memcgctl_store_events_total{cgroup=\"[^\"]*\",type=\"$t\"} \([0-9]*\)$/\1/p" "$tmp/e.prom" | awk '{ n += $1 } END { print n + 0 }')
	[ "$d" = "$e" ] || fail "$t: export counts $e, dump reads $d"
done
echo "ok: export --families store counts oom_autopsy and oom_warning as dump reads them"
echo "ok: oom names"
