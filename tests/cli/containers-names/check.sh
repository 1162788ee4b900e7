#!/bin/bash
# check.sh: every container and pod name a view prints is an argument naming the same cgroup
# (issue 30). For each fixture tree with runtimes' state (tests/cli/fixtures/*/state): every
# CONTAINER that list prints, given to show, names that row's container (the row itself, or the
# container's own cgroup the row is in or above: crun's child "container" of a podman scope);
# every POD, as pod:POD, the pod's cgroup the row is or is in; record stores the same names, and
# dump selects by them. Then dump's CSV, JSON and OpenMetrics over the hostile names
# (fixtures/containers-hostile), against hostile-dump.out (MCG_UPDATE=1 rewrites it).
# usage: check.sh MEMCGCTL FIXTURES
set -u
bin=$(realpath "$1") fixtures=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcg-names.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC MEMCGCTL_RUNDIR="$tmp/run"
cp -a "$fixtures" "$tmp/fix"
rc=0
fail() { echo "FAIL: $*"; rc=1; }

# A name as the JSON output holds it (memcgctl(8) CGROUP NAMES: a backslash doubled, a byte of
# invalid UTF-8 as \xHH) as the bytes an argument gives: printf %b undoes exactly those two.
unesc() { printf '%b' "$1"; }

# within P Q: is cgroup Q the cgroup P, or below or above it?
within() { [ "$1" = "$2" ] || [ "${2#"$1"/}" != "$2" ] || [ "${1#"$2"/}" != "$1" ]; }

layouts=0
for fx in "$tmp"/fix/*/; do
	fx=${fx%/}
	[ -d "$fx/state" ] && [ -d "$fx/cgroup" ] || continue
	layout=$(basename "$fx")
	layouts=$((layouts + 1))
	ver=1
	[ -f "$fx/cgroup/cgroup.controllers" ] && ver=2
	m() { PATH="$fx/bin:$PATH" MEMCGCTL_STATE_ROOT="$fx/state" \
		"$bin" --root "$fx/cgroup" --cgroup-version $ver "$@"; }
	if ! m --json list --flat -o CGROUP,CONTAINER,POD >"$tmp/list.json"; then
		fail "$layout: list failed"
		continue
	fi
	names=0
	# one line a name: KIND TAB ROW TAB NAME, as the JSON holds them
	jq -r '.cgroups[] | (select(.container) | "c\t\(.cgroup)\t\(.container)"),
		(select(.pod) | "p\t\(.cgroup)\t\(.pod)")' "$tmp/list.json" >"$tmp/names"
	while IFS=$'\t' read -r kind row name; do
		names=$((names + 1))
		arg=$(unesc "$name")
		[ "$kind" = p ] && arg="pod:$arg"
		if ! got=$(m --json show "$arg" 2>"$tmp/err" | jq -r .cgroup); then
			fail "$layout: show '$arg' (printed for $row): $(cat "$tmp/err")"
			continue
		fi
		if [ -z "$got" ] || [ "$got" = null ]; then
			fail "$layout: show '$arg' (printed for $row): $(cat "$tmp/err")"
			continue
		fi
		if [ "$kind" = c ]; then
			# the resolved cgroup is a row printing this very name, and this row's container
			jq -e --arg g "$got" --arg n "$name" \
				'any(.cgroups[]; .cgroup == $g and .container == $n)' "$tmp/list.json" \
				>/dev/null || fail "$layout: '$arg' names $got, which list does not print as '$name'"
			within "$got" "$row" || fail "$layout: '$arg' printed for $row names $got"
		else
			# the pod's own cgroup: the row or an ancestor of it
			[ "$got" = "$row" ] || [ "${row#"$got"/}" != "$row" ] ||
				fail "$layout: '$arg' printed for $row names $got"
		fi
	done <"$tmp/names"
	[ "$names" -gt 0 ] || fail "$layout: list printed no container or pod name"
	echo "$layout: $names names printed by list checked against show"

	# record stores the names list prints, and dump NAME selects that cgroup
	rm -rf "$tmp/store"
	if ! m record --count 1 --no-oom -d 50ms --store "$tmp/store" 2>"$tmp/err"; then
		fail "$layout: record: $(cat "$tmp/err")"
		continue
	fi
	m --json dump --store "$tmp/store" -o cgroup,name >"$tmp/dump.json" 2>"$tmp/err" ||
		fail "$layout: dump: $(cat "$tmp/err")"
	stored=0
	while IFS=$'\t' read -r row name; do
		stored=$((stored + 1))
		jq -e --arg r "$row" --arg n "$name" \
			'any(.cgroups[]; .cgroup == $r and (.container == $n or ("pod:" + (.pod // "")) == $n))' \
			"$tmp/list.json" >/dev/null ||
			fail "$layout: record stored '$name' for $row, which list does not print"
		m --json dump --store "$tmp/store" -o cgroup "$(unesc "$name")" 2>"$tmp/err" |
			jq -e --arg r "$row" 'any(.cgroups[]; .cgroup == $r)' >/dev/null ||
			fail "$layout: dump '$name' does not select $row: $(cat "$tmp/err")"
	done < <(jq -r '.cgroups[] | select(.name) | "\(.cgroup)\t\(.name)"' "$tmp/dump.json")
	[ "$stored" -gt 0 ] || fail "$layout: record stored no name"
	echo "$layout: $stored names stored by record checked against list and dump"
done
[ "$layouts" -ge 3 ] || fail "only $layouts fixture layouts with state found"

# dump over the hostile names: CSV quoting, JSON escapes, OpenMetrics labels; the store keeps
# printable ASCII names only (memcgctl-record(8)), so the others are stored without one
fx=$tmp/fix/containers-hostile
rm -rf "$tmp/store"
m() { MEMCGCTL_STATE_ROOT="$fx/state" "$bin" --root "$fx/cgroup" --cgroup-version 2 "$@"; }
m record --count 1 --no-oom -d 50ms --store "$tmp/store" || fail "hostile: record"
{
	echo "--- csv"
	m dump --store "$tmp/store" --csv -o cgroup,name
	echo "--- json"
	m --json dump --store "$tmp/store" -o cgroup,name | jq -c '.cgroups[]'
	echo "--- json by name"
	m --json dump --store "$tmp/store" -o cgroup,name 'containerd:a,b="c"' | jq -c '.cgroups[]'
	echo "--- openmetrics"
	m dump --store "$tmp/store" --openmetrics | grep '^memcgctl_usage_bytes'
} >"$tmp/got" 2>&1
sed -i -e "s|$tmp|@TMP@|g" -e 's/ [0-9]*\.[0-9]*$/ @T@/' "$tmp/got"
if [ "${MCG_UPDATE:-0}" = 1 ]; then
	cp "$tmp/got" "$here/hostile-dump.out"
else
	diff -u "$here/hostile-dump.out" "$tmp/got" || fail "hostile dump differs"
	# no raw control or C1 byte reaches the output
	LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$tmp/got" && fail "hostile dump: a raw control"
fi
exit $rc
